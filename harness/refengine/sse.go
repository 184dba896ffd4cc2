package refengine

import (
	"bytes"
	"net/http"
	"time"
)

// writeHeaders writes the stream's status and headers (not flushed).
func (g *run) writeHeaders() {
	g.headersSent = true
	if surfaces[g.j.api].ndjson {
		g.w.Header().Set("Content-Type", "application/x-ndjson")
	} else {
		g.w.Header().Set("Content-Type", "text/event-stream")
	}
	g.w.WriteHeader(http.StatusOK)
	g.tr.set(func(t *RequestTrace) { t.Status = http.StatusOK })
}

// send writes and flushes one event, headers first if they are still held back.
func (g *run) send(b []byte) error {
	if err := g.write(b); err != nil {
		return err
	}
	return g.rc.Flush()
}

// write writes one event without flushing it, headers first if they are still held back.
func (g *run) write(b []byte) error {
	if !g.headersSent {
		g.writeHeaders()
	}
	_, err := g.w.Write(b)
	return err
}

// chunkUsage is the usage object of a chunk after n tokens: the cumulative counts with
// continuous_usage_stats, else nil (null). The pointer is valid until the next call.
func (g *run) chunkUsage(n int) *usageCounts {
	if !g.j.continuousUsage || g.j.faults.NoUsage {
		return nil
	}
	g.u = g.usage(n)
	return &g.u
}

// emit sends the chunk that ends with token n (the role chunk first, on a chat stream).
func (g *run) emit(n int, reasoning bool, text []byte, finish string) error {
	f := &g.j.faults
	if !g.roleSent && !g.j.legacy {
		g.roleSent = true
		// With the headers held back, headers, role and first token go out in one flush,
		// as Ollama's and llama.cpp's first bytes do.
		write := g.send
		if f.HeadersWithFirstToken && !g.headersSent {
			write = g.write
		}
		if err := write(g.enc.role(g.chunkUsage(0))); err != nil {
			return err
		}
	}
	u := g.chunkUsage(n)
	if finish != "" && f.UsageWithFinish && g.j.includeUsage && !f.NoUsage {
		g.u = g.usage(n)
		u = &g.u
	}
	raw := ""
	if !reasoning && !g.contentSent {
		g.contentSent = true
		if f.InvalidUTF8 {
			raw = "\xff\xfe"
		}
	}
	var chunk []byte
	if g.j.tool != "" && !reasoning {
		chunk = g.enc.toolCall(!g.toolSent, g.callID(), g.j.tool, text, finish, u)
		g.toolSent = true
	} else {
		chunk = g.enc.text(reasoning, text, raw, finish, u)
	}
	if err := g.send(chunk); err != nil {
		return err
	}
	now := time.Now()
	if g.firstToken.IsZero() {
		g.firstToken = now
	}
	g.tr.chunk(now, n, g.j.plan.reasoningProduced(n))
	return nil
}

// afterChunk applies the faults that act right after the chunk ending with token n, and
// tells whether the response is over (trace finished).
func (g *run) afterChunk(n int) (over bool) {
	f := &g.j.faults
	first := !g.firstDone
	g.firstDone = true
	fail := func(err error) bool {
		if err != nil {
			g.tr.finish(0, "", true)
		}
		return err != nil
	}
	if first && f.HugeEvent > 0 {
		if fail(g.send(g.enc.text(false, bytes.Repeat([]byte{'x'}, f.HugeEvent), "", "", nil))) {
			return true
		}
	}
	if n == f.MalformedAfter && fail(g.send(malformedEvent)) {
		return true
	}
	var err error
	switch {
	case first && f.ErrorEvent:
		err = g.send(g.enc.errorEvent())
	case n == f.CloseMidEvent:
		err = g.send(halfEvent)
	case n == f.ResetAfter:
		g.reset()
		return true
	default:
		return false
	}
	g.tr.finish(0, "", err != nil)
	return true
}

// endStream ends a stream of limit tokens: the usage chunk and [DONE], unless truncated or
// faulted away.
func (g *run) endStream(truncated bool, limit int, finish string) {
	f := &g.j.faults
	if !truncated {
		if g.j.includeUsage && !f.NoUsage && !f.UsageWithFinish {
			u := g.usage(limit)
			if g.j.includeMetrics || g.s.opts.NativeInfo == NativeLlamaCpp {
				u.phases = &phaseTimes{arrived: g.tr.t.Arrived, scheduled: g.scheduled, firstToken: g.firstToken, end: time.Now(),
					metrics: g.j.includeMetrics, timings: g.s.opts.NativeInfo == NativeLlamaCpp}
			}
			if err := g.send(g.enc.usageChunk(u)); err != nil {
				g.tr.finish(0, "", true)
				return
			}
		}
		if !f.NoDone {
			if err := g.send(g.enc.done()); err != nil {
				g.tr.finish(0, "", true)
				return
			}
		}
	}
	g.tr.finish(0, finish, false)
}
