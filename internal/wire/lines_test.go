package wire

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Lines come whole however the bytes arrive: blank lines skipped, "\r\n" taken as a
// newline, a last line without its newline kept, a line over the bound refused.
func TestLineReader(t *testing.T) {
	in := "{\"a\":1}\n\n{\"b\":2}\r\n  \n{\"c\":3}"
	for name, r := range map[string]io.Reader{
		"whole":         strings.NewReader(in),
		"a byte a read": iotest.OneByteReader(strings.NewReader(in)),
		"half reads":    iotest.HalfReader(strings.NewReader(in)),
	} {
		var l LineReader
		l.Reset(r, 0)
		var got []string
		for {
			line, err, ok := l.Next()
			if !ok {
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
				break
			}
			got = append(got, string(line))
		}
		if strings.Join(got, "|") != `{"a":1}|{"b":2}|{"c":3}` {
			t.Errorf("%s: %q", name, got)
		}
	}
	var l LineReader
	l.Reset(strings.NewReader(strings.Repeat("x", 100)+"\n"), 64)
	if _, err, ok := l.Next(); ok || !errors.Is(err, ErrLineTooLong) {
		t.Errorf("a 100-byte line under a 64-byte bound: %v %v", err, ok)
	}
	l.Reset(iotest.ErrReader(io.ErrUnexpectedEOF), 0)
	if _, err, ok := l.Next(); ok || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a read error: %v %v", err, ok)
	}
}
