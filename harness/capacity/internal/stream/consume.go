package stream

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// stamper returns the arrival of the bytes a read just returned.
type stamper func() time.Time

// consume reads the event stream of body to its end into res, stamping every read that
// delivers bytes on the monotonic clock before anything of it is parsed: with the arrival
// of those bytes at the socket (stamps, the connection's) or, reading from anything else,
// when the read returned. stall, when not nil, is called after s.stall without bytes once
// the first event arrived (it must make the next read fail, e.g. by cancelling the request
// context). maxChunks (0: none) bounds the output chunks; abandonAfter (0: never) ends the
// read after that many, as a client that leaves (res.Abandoned). The error is nil or an
// *Error.
//
// api names the event grammar: its protocol folds each event into res, and may end the
// stream with an event of its own in place of [DONE].
//
// It is the whole per-event path of Stream, so it can be measured on any io.Reader.
func (s *settings) consume(ctx context.Context, body io.Reader, res *Result, maxChunks, abandonAfter int, stall func(), stamps stamper, api API) error {
	st := streamStates.Get().(*streamState)
	defer st.release()
	proto := api.proto()
	proto.start(st)
	sr, events, lines := &st.sr, &st.events, &st.lines
	*sr = stampReader{r: body, now: s.now, stamps: stamps}
	perLine := proto.mediaType() == ndjson
	if perLine {
		lines.Reset(sr, s.maxEvent)
	} else {
		events.Reset(sr, s.maxEvent)
	}
	n := 0
	for {
		var ev wire.Event
		var err error
		var ok bool
		if perLine {
			ev.Data, err, ok = lines.Next()
		} else {
			ev, err, ok = events.Next()
		}
		if err != nil {
			return classify(ctx, err, "read stream", s, n)
		}
		if !ok {
			break
		}
		at := sr.last.Sub(res.Start)
		if n == 0 && stall != nil {
			st.watch.arm(s.stall, stall, sr.last)
			sr.watch = &st.watch
		}
		n++
		res.Events = n
		data := ev.Data
		if string(ev.Type) == "error" {
			return &Error{Kind: KindServerError, Message: "server sent an error event: " + clip(string(data))}
		}
		if string(data) == "[DONE]" {
			res.Terminal = true
			res.End = at
			return nil
		}
		if len(data) == 0 {
			continue
		}
		if !utf8.Valid(data) {
			return &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not valid UTF-8", n)}
		}
		terminal, err := proto.fold(st, s, data, res, at)
		if err != nil {
			return err
		}
		if terminal {
			res.Terminal, res.End = true, at
			return nil
		}
		res.lag(sr.last)
		if s.afterEvent != nil {
			s.afterEvent(n)
		}
		if abandonAfter > 0 && len(res.Arrivals) >= abandonAfter {
			res.Abandoned, res.End = true, at
			return nil
		}
		if maxChunks > 0 && len(res.Arrivals) > maxChunks {
			return &Error{Kind: KindOverrun, Message: fmt.Sprintf("stream sent %d output chunks, more than max_tokens allows; stopped reading", len(res.Arrivals))}
		}
	}
	// The body ended without [DONE]. A stall or deadline surfaces as a read error above, so
	// this is a close by the server: complete only if a finish_reason was seen.
	res.End = time.Since(res.Start)
	if cause := context.Cause(ctx); cause != nil {
		return classify(ctx, cause, "read stream", s, n)
	}
	if !res.Complete() {
		return &Error{Kind: KindTruncated, Message: fmt.Sprintf("stream closed after %d events without [DONE] or a finish_reason", n)}
	}
	return nil
}

// streamState is what one stream's read loop needs, recycled between streams so that the
// steady state allocates nothing: the event (or line) reader and its buffer, the stamping reader, the
// chunk decoder and the stall watchdog with its timer.
type streamState struct {
	events wire.EventReader
	lines  wire.LineReader
	sr     stampReader
	ch     wire.Chunk
	ev     eventState
	watch  stallWatch
	model  string // the model the previous stream named, kept so the next need not copy it
}

// name returns the model a chunk named as a string of its own (the chunk's is a view of the
// read buffer), copying it only when it differs from the previous stream's.
func (st *streamState) name(m wire.Name) string {
	if string(m) != st.model {
		st.model = strings.Clone(string(m))
	}
	return st.model
}

var streamStates = sync.Pool{New: func() any { return new(streamState) }}

// release stops the watchdog and recycles the state, unless a watchdog callback may still
// be running: then it is left to the collector.
func (st *streamState) release() {
	if !st.watch.stop() {
		return
	}
	st.sr = stampReader{}
	st.events.Reset(nil, 0)
	st.lines.Reset(nil, 0)
	streamStates.Put(st)
}

// stampReader records when each read that delivered bytes returned, and keeps the stall
// watchdog from firing while bytes keep arriving. The event reader only reads when no
// complete event is buffered, so the event being processed was completed by the latest
// read: its arrival is last.
type stampReader struct {
	r      io.Reader
	now    func() time.Time // nil: time.Now (a test hook)
	stamps stamper          // the socket's arrival stamps; nil: when the read returned
	last   time.Time
	watch  *stallWatch
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		switch {
		case s.now != nil:
			s.last = s.now()
		case s.stamps != nil:
			s.last = s.stamps()
		default:
			s.last = time.Now()
		}
		if w := s.watch; w != nil {
			w.lastRead.Store(int64(s.last.Sub(w.origin)))
		}
	}
	return n, err
}
