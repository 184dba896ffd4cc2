package cli

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// stackFilter passes Ginkgo's output through, except, once interrupted is set, the
// goroutine stacks of the progress reports Ginkgo prints on an interrupt: a Ctrl-C printed
// 515 lines of them, burying the one line per scenario that says what was stopped. Each
// dropped run of lines is replaced by one line saying so.
type stackFilter struct {
	out         io.Writer
	interrupted *atomic.Bool

	mu       sync.Mutex
	partial  []byte
	dropping bool
	dropped  int
}

// Write filters whole lines; a line without its end yet waits for it (Close writes it).
func (f *stackFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.partial = append(f.partial, p...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := f.line(f.partial[:i+1]); err != nil {
			return len(p), err
		}
		f.partial = f.partial[i+1:]
	}
}

// Close writes what is left of an unfinished line, and the note of a run of dropped lines.
func (f *stackFilter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.endDrop(); err != nil {
		return err
	}
	_, err := f.out.Write(f.partial)
	f.partial = nil
	return err
}

func (f *stackFilter) line(line []byte) error {
	text := strings.TrimSpace(ansi.ReplaceAllString(string(line), ""))
	switch {
	case f.interrupted.Load() && (stackHeader(text) || goroutineHead.MatchString(text)):
		f.dropping = true
		f.dropped++
		return nil
	case f.dropping && stackLine(text):
		f.dropped++
		return nil
	}
	if err := f.endDrop(); err != nil {
		return err
	}
	_, err := f.out.Write(line)
	return err
}

func (f *stackFilter) endDrop() error {
	if !f.dropping {
		return nil
	}
	f.dropping = false
	_, err := fmt.Fprintf(f.out, "  (anvilbench run: %d lines of goroutine stacks left out after the interrupt; ginkgo run directly prints them)\n", f.dropped)
	f.dropped = 0
	return err
}

var (
	ansi     = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	fileLine = regexp.MustCompile(`\.(go|s):\d+$`)
	// goroutineHead opens one goroutine's stack: "goroutine 37 [IO wait]".
	goroutineHead = regexp.MustCompile(`^goroutine \d+ \[[^\]]*\]$`)
	// inGoroutine ends the frame of the call that started a goroutine.
	inGoroutine = regexp.MustCompile(` in goroutine \d+$`)
	// function is a frame's function, with its arguments when the dump has them:
	// "net/http.(*Transport).dialConn(0xc0001, {0x7f, 0x2})".
	function = regexp.MustCompile(`^[^\s(]*[.(]\S*(\(.*\))?$`)
)

// stackHeader reports whether text opens the goroutines of a Ginkgo progress report.
func stackHeader(text string) bool {
	return text == "Spec Goroutine" || text == "Goroutines of Interest" || text == "Other Goroutines"
}

// stackLine reports whether text is a line of a goroutine dump as Ginkgo prints it: a
// goroutine's head, a function, its file and line, a line of its source, or a blank.
func stackLine(text string) bool {
	switch {
	case text == "", stackHeader(text), goroutineHead.MatchString(text), strings.HasPrefix(text, "created by "),
		strings.HasPrefix(text, "|"), strings.HasPrefix(text, ">"), fileLine.MatchString(text):
		return true
	}
	return function.MatchString(inGoroutine.ReplaceAllString(text, ""))
}
