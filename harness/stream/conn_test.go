package stream

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

// When the headers come with the first token (Ollama, llama.cpp), the first event is read
// with them, before the caller reads the body: its stamp must be the arrival of those
// bytes, not the body read. A client busy for 20 ms between headers and body must still
// time the first token within a millisecond of the engine's flush.
func TestFirstEventReadWithTheHeadersIsStampedOnArrival(t *testing.T) {
	t.Parallel()
	engine, err := refengine.Start(refengine.Options{
		PrefillOverhead: 20 * time.Millisecond, ITL: time.Millisecond,
		Faults: refengine.Faults{HeadersWithFirstToken: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	const busy = 20 * time.Millisecond
	c := New(Options{BaseURL: engine.BaseURL(), Timeout: 10 * time.Second, StallTimeout: 5 * time.Second})
	c.s.afterHeaders = func() { time.Sleep(busy) }
	defer c.Close()

	body, _ := json.Marshal(map[string]any{
		"model": refengine.DefaultModel, "stream": true, "max_tokens": 8,
		"messages": []map[string]string{{"role": "user", "content": "Reply with exactly 4 words, each the lowercase word \"code\", separated by single spaces, and nothing else."}},
	})
	var errs []time.Duration
	for range 9 {
		res, err := c.Stream(context.Background(), ChatPath, body, 8)
		if err != nil || !res.HasFirstContent {
			t.Fatalf("stream: %v", err)
		}
		traces := engine.Traces()
		flushed := traces[len(traces)-1].ChunkTimes[0]
		stamped := res.Start.Add(res.FirstContent)
		if d := stamped.Sub(flushed); d < -time.Millisecond || d > busy/2 {
			t.Errorf("first content stamped %v after the engine's flush: the body read, not the arrival", d)
		} else {
			errs = append(errs, d)
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i] < errs[j] })
	if len(errs) > 0 && errs[len(errs)/2] > time.Millisecond {
		t.Errorf("median first-token error %v, want under 1ms (all: %v)", errs[len(errs)/2], errs)
	}
	t.Logf("first-token stamp minus the engine's flush, sorted: %v", errs)
}
