package refengine

import (
	"context"
	"encoding/json"
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
// the queue time, not in the prefill, and the header a client traces with is kept.
func TestPhasesAreStatedAsEachEngineStatesThem(t *testing.T) {
	const queue, overhead, itl = 40 * time.Millisecond, 15 * time.Millisecond, 2 * time.Millisecond
	s := start(t, Options{QueueDelay: queue, PrefillOverhead: overhead, ITL: itl, NativeInfo: NativeLlamaCpp})
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
	if m.Queue < ms(queue) || m.Queue > ms(queue)+25 {
		t.Errorf("queue_time_ms %.1f, want about %v", m.Queue, queue)
	}
	if prefill := m.TTFT - m.Queue; prefill < ms(overhead) || prefill > ms(overhead)+25 {
		t.Errorf("ttft - queue = %.1f ms, want about the %v prefill", prefill, overhead)
	}
	if m.MeanITL < ms(itl)*0.9 || m.Generation < m.MeanITL*18 {
		t.Errorf("mean_itl_ms %.2f over a generation of %.1f ms, want about %v per token", m.MeanITL, m.Generation, itl)
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
	if timings.PredictedN != 21 || timings.PromptN == 0 || timings.PromptMs < ms(overhead) || timings.PromptMs > m.TTFT-m.Queue+1 {
		t.Errorf("timings %+v beside metrics %+v", timings, m)
	}
	tr := s.Traces()
	if got := tr[len(tr)-1]; got.TraceParent != parent || got.Scheduled.Sub(got.Admitted) < queue {
		t.Errorf("trace: traceparent %q, scheduled %v after admission", got.TraceParent, got.Scheduled.Sub(got.Admitted))
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
