package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// LineReader reads newline-delimited JSON (application/x-ndjson) a line at a time from
// one growing buffer, without allocating per line: Ollama's native stream. Blank lines
// are skipped, a "\r" before the "\n" is dropped, and a last line without its newline is
// a line.
type LineReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	maxLine    int
	empty      int // reads in a row that returned nothing
	err        error
}

// ErrLineTooLong is a line longer than the reader's bound.
var ErrLineTooLong = errors.New("ndjson: line too long")

// Reset prepares the reader for a new stream, keeping its buffer.
func (l *LineReader) Reset(r io.Reader, maxLine int) {
	if maxLine <= 0 {
		maxLine = bufio.MaxScanTokenSize
	}
	*l = LineReader{r: r, buf: l.buf[:0], maxLine: maxLine}
}

// Next returns the next line, a view valid until the next call; ok false ends the stream,
// with err nil at its end or the error that ended it.
func (l *LineReader) Next() (line []byte, err error, ok bool) {
	for {
		if i := bytes.IndexByte(l.buf[l.start:l.end], '\n'); i >= 0 {
			if i > l.maxLine {
				l.err = ErrLineTooLong
				return nil, l.err, false
			}
			line = bytes.TrimSuffix(l.buf[l.start:l.start+i], []byte{'\r'})
			l.start += i + 1
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return line, nil, true
		}
		if l.err != nil {
			rest := l.buf[l.start:l.end]
			l.start = l.end
			if l.err == io.EOF {
				if len(bytes.TrimSpace(rest)) > 0 {
					return bytes.TrimSuffix(rest, []byte{'\r'}), nil, true
				}
				return nil, nil, false
			}
			return nil, l.err, false
		}
		if l.end-l.start >= l.maxLine {
			l.err = ErrLineTooLong
			return nil, l.err, false
		}
		l.fill()
	}
}

// fill reads more, first moving the unread part to the buffer's start and growing it
// when full.
func (l *LineReader) fill() {
	if l.start > 0 {
		l.end = copy(l.buf[:cap(l.buf)], l.buf[l.start:l.end])
		l.start = 0
	}
	if l.end == cap(l.buf) {
		grown := make([]byte, max(2*cap(l.buf), 4096))
		copy(grown, l.buf[:l.end])
		l.buf = grown[:0]
	}
	l.buf = l.buf[:cap(l.buf)]
	n, err := l.r.Read(l.buf[l.end:])
	l.end += n
	if err != nil {
		l.err = err
	} else if n == 0 {
		// A reader that returns nothing without an error is retried; bufio bounds this.
		l.empty++
		if l.empty > maxConsecutiveEmptyReads {
			l.err = io.ErrNoProgress
		}
	} else {
		l.empty = 0
	}
}
