package capacity

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// An engine that cannot serve the workload (here it drips a byte every 0.3 s, past the
// timeout) stops the warm-up at its first wave of failures: no further warm-up request,
// no measured request sent, each measured index recorded as not sent saying why, within
// about one timeout rather than 32 of them.
func TestTheWarmUpStopsWhenTheEngineCannotServe(t *testing.T) {
	var posts atomic.Int32
	drip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		posts.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write([]byte(":")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	}))
	defer drip.Close()
	sc := Scenario{Model: "drip", Requests: 32, Concurrency: 2, ContextTokens: 200, MaxTokens: 16, WarmupRequests: 32}
	began := time.Now()
	b := mustRun(t, Target{BaseURL: drip.URL + "/v1", Timeout: time.Second, StallTimeout: time.Second, MetricsURL: metricsOff}, sc)
	took := time.Since(began)
	w := b.Extension.Warmup
	if w == nil || w.Completed != 0 || w.Failed != w.Requests {
		t.Fatalf("warm-up %+v", w)
	}
	// The first wave of 2, and at most one started while the second of them was failing.
	if n := posts.Load(); n < 2 || n > 3 {
		t.Errorf("the engine got %d requests; want the warm-up's first wave of 2, and at most 1 more", n)
	}
	if b.Completed != 0 || len(b.Failures) != 32 || !strings.Contains(b.Failures[0].ErrorMessage, "the warm-up stopped: its first 2 requests failed and none succeeded") {
		t.Errorf("completed %d, failures %+v", b.Completed, b.Failures)
	}
	if took > 8*time.Second { // 32 warm-up requests to their timeout would take 16 s
		t.Errorf("the run took %v against a 1 s timeout", took)
	}
	t.Logf("ended in %v (warm-up %v ms, calibration %+v): %s", took.Round(time.Millisecond), w.DurationMs, b.Extension.Calibration, b.Failures[0].ErrorMessage)
}

// The warm-up is sized to the run: WarmupRequests at most, and no more than the measured
// phase sends or two waves at the concurrency, whichever is more.
func TestTheWarmUpIsNoLargerThanTheRun(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sc   Scenario
		want int
	}{
		{Scenario{Requests: 2, Concurrency: 2, WarmupRequests: 32}, 4},    // 2 long requests: two waves of 2
		{Scenario{Requests: 2, Concurrency: 1, WarmupRequests: 32}, 2},    // one at a time: two
		{Scenario{Requests: 60, Concurrency: 20, WarmupRequests: 32}, 32}, // the default, whole
		{Scenario{Requests: 8, Concurrency: 2, Repeats: 6, WarmupRequests: 32}, 32},
		{Scenario{Requests: 8, Concurrency: 2, WarmupRequests: 32}, 8},
		{Scenario{Requests: 100, Concurrency: 4, WarmupRequests: 0}, 0},
		{Scenario{Requests: 2, Concurrency: 20, WarmupRequests: 32}, 4}, // 2 in flight, not 20
	} {
		if got := c.sc.warmupSize(c.sc.Requests); got != c.want {
			t.Errorf("%d requests x %d at concurrency %d, warm-up %d: sends %d, want %d", c.sc.Requests, max(c.sc.Repeats, 1), c.sc.Concurrency, c.sc.WarmupRequests, got, c.want)
		}
	}
}
