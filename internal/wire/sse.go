package wire

import (
	"bufio"
	"bytes"
	"io"
)

// Event is one server-sent event. Its slices are views into the reader's buffer, valid
// until the next call of Next.
type Event struct {
	Type, Data, LastEventID []byte
}

// EventReader reads server-sent events exactly as go-sse's Read (github.com/tmaxmax/go-sse)
// does, event for event and error for error, which a differential fuzz test holds it to
// (FuzzEventReaderMatchesGoSSE), but without allocating
// per event: go-sse's Read builds a new string per event, garbage that at hundreds of
// thousands of events a second makes the collector stall the stamps. Its steps mirror
// go-sse's: a bufio.Scanner-style buffer split into events at a blank line (\n, \r or
// \r\n), each split into fields (data, event, id, retry; comments and unknown fields
// skipped; a UTF-8 BOM removed before the first), dispatched at the blank line when any
// field marked the event.
type EventReader struct {
	r   io.Reader
	buf []byte
	// start and end delimit the unread data of buf.
	start, end int
	maxToken   int
	err        error // the first read error (io.EOF included)
	done       bool  // the stream has ended

	// BOM handling: fields of the first event are parsed with the BOM removed.
	started bool

	// The event being built.
	data    []byte // the data lines joined by "\n", each followed by one
	typ     []byte
	lastID  []byte // owned: it outlives the token it came from
	dirty   bool
	pending []byte // the rest of the current event's fields
}

// startBufSize is bufio.Scanner's first buffer size.
const startBufSize = 4096

// maxConsecutiveEmptyReads is bufio.Scanner's bound on reads that return nothing.
const maxConsecutiveEmptyReads = 100

// Reset prepares the reader for a new stream, keeping its buffers.
func (e *EventReader) Reset(r io.Reader, maxEvent int) {
	if maxEvent <= 0 {
		maxEvent = bufio.MaxScanTokenSize
	}
	// The buffer starts empty and grows as bufio.Scanner's does, within what a recycled
	// one already holds, so reads are the same size as go-sse's.
	*e = EventReader{r: r, buf: e.buf[:0], maxToken: maxEvent, data: e.data[:0], lastID: e.lastID[:0]}
}

// Next returns the next event; ok false ends the stream, with err nil at its end (a final
// event without a blank line is not dispatched, as go-sse's Read does) or the error that
// ended it.
func (e *EventReader) Next() (ev Event, err error, ok bool) {
	for !e.done {
		if len(e.pending) == 0 {
			token, err, more := e.scan()
			if !more {
				e.done = true
				return Event{}, err, false
			}
			if len(token) == 0 {
				// A token without a line (blank lines at the end of input) ends go-sse's
				// field loop.
				e.done = true
				return Event{}, e.finalErr(), false
			}
			e.pending = token
			if !e.started {
				e.pending = bytes.TrimPrefix(token, bom)
			}
		}
		e.started = true
		line, rest, newline := nextLine(e.pending)
		if !newline {
			// An incomplete final line: the end of input, never an event.
			e.done = true
			return Event{}, e.finalErr(), false
		}
		e.pending = rest
		name, value, isField := field(line)
		if !isField {
			continue
		}
		switch string(name) {
		case "data":
			e.data = append(e.data, value...)
			e.data = append(e.data, '\n')
			e.dirty = true
		case "event":
			e.typ = value
			e.dirty = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				e.lastID = append(e.lastID[:0], value...)
				e.dirty = true
			}
		case "retry":
			// Read has no retry callback: the field changes nothing.
		default: // the blank line
			if e.dirty {
				data := e.data
				if len(data) > 0 {
					data = data[:len(data)-1]
				}
				ev = Event{Type: e.typ, Data: data, LastEventID: e.lastID}
				e.data, e.typ, e.dirty = e.data[:0], nil, false
				return ev, nil, true
			}
		}
	}
	return Event{}, nil, false
}

var bom = []byte("\xEF\xBB\xBF")

// finalErr is the error go-sse's Read yields when its field loop ends: a read error other
// than the end of input, else none.
func (e *EventReader) finalErr() error {
	if e.err != nil && e.err != io.EOF {
		return e.err
	}
	return nil
}

// field splits a line into a known field's name and value (one leading space removed). A
// blank line is the field with an empty name; comments, unknown names and names longer
// than five bytes are not fields.
func field(line []byte) (name, value []byte, ok bool) {
	colon := bytes.IndexByte(line, ':')
	if colon > 5 {
		return nil, nil, false
	}
	if colon < 0 {
		colon = len(line)
	}
	switch string(line[:colon]) {
	case "data", "event", "id", "retry":
		value = line[min(colon+1, len(line)):]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		return line[:colon], value, true
	}
	if len(line) == 0 {
		return nil, nil, true
	}
	return nil, nil, false
}

// nextLine splits off the first line of s and its end-of-line (\n, \r or \r\n).
func nextLine(s []byte) (line, rest []byte, newline bool) {
	i, n := newlineIndex(s)
	return s[:i], s[i+n:], n != 0
}

// newlineIndex is the index and length of the first end-of-line of s, or len(s) and 0. It
// finds \n and \r with the vectorized byte search: a stream's lines are hundreds of bytes.
func newlineIndex(s []byte) (index, length int) {
	lf := bytes.IndexByte(s, '\n')
	before := s
	if lf >= 0 {
		before = s[:lf]
	}
	if cr := bytes.IndexByte(before, '\r'); cr >= 0 {
		if cr+1 < len(s) && s[cr+1] == '\n' {
			return cr, 2
		}
		return cr, 1
	}
	if lf >= 0 {
		return lf, 1
	}
	return len(s), 0
}

// split finds the next event in data: its lines up to and including the blank line that
// ends it, leading blank lines skipped. It asks for more data (advance 0, nil token) until
// the byte after the event's end is known, or at the end of input takes what is left.
func split(data []byte, atEOF bool) (advance int, token []byte) {
	if len(data) == 0 {
		return 0, nil
	}
	start := 0
	for {
		index, n := newlineIndex(data[advance:])
		advance += index + n
		if index == 0 {
			start += n
		}
		if advance == len(data) || ((data[advance] == '\n' || data[advance] == '\r') && index > 0) {
			break
		}
	}
	if advance == len(data) && !atEOF {
		return 0, nil
	} else if advance < len(data) {
		advance++
		if advance < len(data) && data[advance-1] == '\r' && data[advance] == '\n' {
			advance++
		}
	}
	return advance, data[start:advance]
}

// scan returns the next event's token as bufio.Scanner.Scan with split would, reading more
// when needed. more is false at the end, with the error that ended the input unless it was
// the end of input.
func (e *EventReader) scan() (token []byte, err error, more bool) {
	for {
		if e.end > e.start || e.err != nil {
			// split never returns a token without advancing: bufio's empty-token guard
			// has nothing to guard.
			advance, tok := split(e.buf[e.start:e.end], e.err != nil)
			e.start += advance
			if tok != nil {
				return tok, nil, true
			}
		}
		if e.err != nil {
			e.start, e.end = 0, 0
			return nil, e.scanErr(), false
		}
		if e.start > 0 && (e.end == len(e.buf) || e.start > len(e.buf)/2) {
			copy(e.buf, e.buf[e.start:e.end])
			e.end -= e.start
			e.start = 0
		}
		if e.end == len(e.buf) {
			const maxInt = int(^uint(0) >> 1)
			if len(e.buf) >= e.maxToken || len(e.buf) > maxInt/2 {
				e.setErr(bufio.ErrTooLong)
				return nil, e.scanErr(), false
			}
			size := len(e.buf) * 2
			if size == 0 {
				size = startBufSize
			}
			size = min(size, e.maxToken)
			if size <= cap(e.buf) { // a recycled buffer; start is 0 here
				e.buf = e.buf[:size]
			} else {
				grown := make([]byte, size)
				copy(grown, e.buf[e.start:e.end])
				e.buf = grown
			}
			e.end -= e.start
			e.start = 0
		}
		for loop := 0; ; {
			n, err := e.r.Read(e.buf[e.end:len(e.buf)])
			if n < 0 || len(e.buf)-e.end < n {
				e.setErr(bufio.ErrBadReadCount)
				break
			}
			e.end += n
			if err != nil {
				e.setErr(err)
				break
			}
			if n > 0 {
				break
			}
			loop++
			if loop > maxConsecutiveEmptyReads {
				e.setErr(io.ErrNoProgress)
				break
			}
		}
	}
}

func (e *EventReader) setErr(err error) {
	if e.err == nil || e.err == io.EOF {
		e.err = err
	}
}

// scanErr is the error of an ended scan: none at the end of input.
func (e *EventReader) scanErr() error {
	if e.err == io.EOF {
		return nil
	}
	return e.err
}
