package refengine

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"testing"
	"time"
)

// lastChunk posts a streamed chat request and returns its last data event before [DONE],
// decoded.
func lastChunk(t *testing.T, s *Server, body any, headers ...string) map[string]json.RawMessage {
	t.Helper()
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", body, headers...)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	evs := readEvents(t, resp.Body)
	if len(evs) < 2 || evs[len(evs)-1].data != "[DONE]" {
		t.Fatalf("stream did not end with [DONE]: %d events", len(evs))
	}
	var last map[string]json.RawMessage
	if err := json.Unmarshal([]byte(evs[len(evs)-2].data), &last); err != nil {
		t.Fatal(err)
	}
	return last
}

// The engine states its phases the way each engine does: vLLM's metrics object when the
// request asks (include_metrics), llama.cpp's timings always; a slower scheduler shows in
// the queue time, not in the prefill, each figure is the engine's own record of the
// request, and the header a client traces with is kept.
func TestPhasesAreStatedAsEachEngineStatesThem(t *testing.T) {
	const queue, overhead = 40 * time.Millisecond, 15 * time.Millisecond
	s := start(t, Options{QueueDelay: queue, PrefillOverhead: overhead, ITL: 2 * time.Millisecond, NativeInfo: NativeLlamaCpp})
	const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	last := lastChunk(t, s, chatBody(20, true, true, map[string]any{"include_metrics": true}), "traceparent", parent)
	var m struct {
		TTFT       float64 `json:"time_to_first_token_ms"`
		Generation float64 `json:"generation_time_ms"`
		Queue      float64 `json:"queue_time_ms"`
		MeanITL    float64 `json:"mean_itl_ms"`
	}
	if err := json.Unmarshal(last["metrics"], &m); err != nil {
		t.Fatalf("metrics %s: %v", last["metrics"], err)
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.002 } // the 3 decimals written
	tr := s.Traces()
	got := tr[len(tr)-1]
	if got.TraceParent != parent || got.Scheduled.Sub(got.Admitted) < queue {
		t.Errorf("trace: traceparent %q, scheduled %v after admission", got.TraceParent, got.Scheduled.Sub(got.Admitted))
	}
	// What it states is what it recorded: the queue until its prefill could start (the
	// scheduler's delay at least), the first token from arrival (a prefill of the overhead
	// at least after the queue), and a generation whose mean per token is its mean ITL.
	queued, first := got.Scheduled.Sub(got.Arrived), got.FirstToken.Sub(got.Arrived)
	if !near(m.Queue, ms(queued)) || m.Queue < ms(queue) {
		t.Errorf("queue_time_ms %.3f; the engine recorded %v, with a scheduler's delay of %v", m.Queue, queued, queue)
	}
	if !near(m.TTFT, ms(first)) || m.TTFT-m.Queue < ms(overhead) {
		t.Errorf("time_to_first_token_ms %.3f (queue %.3f); the engine recorded %v, with a prefill of %v", m.TTFT, m.Queue, first, overhead)
	}
	lastChunkAt := got.ChunkTimes[len(got.ChunkTimes)-1].Sub(got.FirstToken)
	if math.Abs(m.MeanITL*20-m.Generation) > 0.02 || m.Generation < ms(lastChunkAt)-0.001 {
		t.Errorf("mean_itl_ms %.3f over a generation of %.3f ms (20 gaps); the last token went out %v after the first", m.MeanITL, m.Generation, lastChunkAt)
	}
	var timings struct {
		PromptN    int     `json:"prompt_n"`
		PromptMs   float64 `json:"prompt_ms"`
		PredictedN int     `json:"predicted_n"`
		Predicted  float64 `json:"predicted_ms"`
	}
	if err := json.Unmarshal(last["timings"], &timings); err != nil {
		t.Fatalf("timings %s: %v", last["timings"], err)
	}
	if timings.PredictedN != 21 || timings.PromptN == 0 || !near(timings.PromptMs, ms(got.FirstToken.Sub(got.Scheduled))) || !near(timings.Predicted, m.Generation) {
		t.Errorf("timings %+v beside metrics %+v", timings, m)
	}

	// Without include_metrics vLLM writes no metrics; an engine without llama.cpp's info
	// endpoint writes no timings.
	plain := start(t, Options{})
	last = lastChunk(t, plain, chatBody(5, true, true, nil))
	if _, ok := last["metrics"]; ok {
		t.Error("metrics written unasked")
	}
	if _, ok := last["timings"]; ok {
		t.Error("timings written by an engine that is not llama.cpp")
	}
}
