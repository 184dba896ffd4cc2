package gate

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// warmRun is a run of n requests at tpot ms a token, the first slow of them at slow ms,
// started in index order.
func warmRun(n, slow int, tpot, slowTPOT float64) *artifact.Benchmark {
	a := &artifact.Benchmark{Requests: n, Extension: &artifact.Extension{}}
	var all []float64
	for i := range n {
		v := tpot
		if i < slow {
			v = slowTPOT
		}
		all = append(all, v)
		a.RequestTimings = append(a.RequestTimings, artifact.RequestTiming{RequestIndex: i, TPOTMs: artifact.F(v)})
		a.Extension.Timeline = append(a.Extension.Timeline, artifact.RequestSpan{RequestIndex: i, StartOffsetMs: artifact.F(float64(i))})
	}
	a.Metrics.TPOT = artifact.Distribution{Samples: n, P50: artifact.F(median(all))}
	return a
}

// A warm-up whose last requests decoded far slower than the measured phase, or without a
// warm-up first requests far slower than the rest, make an invalid run naming the figures;
// a warm start holds.
func TestStartedWarm(t *testing.T) {
	t.Parallel()
	a := warmRun(40, 0, 5, 5)
	a.Extension.Warmup = &artifact.Warmup{Requests: 32, LastRequests: 8, LastTPOTP50Ms: artifact.F(15)}
	if r := StartedWarm().Judge(a); r.Outcome != InvalidRun || !strings.Contains(r.Message, "still cold when the measured phase began: the warm-up's last 8 requests decoded at 15.00ms a token, the measured phase's p50 at 5.00ms (200% slower") {
		t.Errorf("a cold warm-up: %+v", r)
	}
	a.Extension.Warmup.LastTPOTP50Ms = artifact.F(5.5)
	if r := StartedWarm().Judge(a); r.Outcome != Pass || r.Skipped != "" {
		t.Errorf("a warm warm-up: %+v", r)
	}
	a = warmRun(40, 8, 5, 15)
	if r := StartedWarm().Judge(a); r.Outcome != InvalidRun || !strings.Contains(r.Message, "a cold engine: without a warm-up, the run's first 8 requests decoded at 15.00ms a token, the rest at 5.00ms") {
		t.Errorf("no warm-up, a cold start: %+v", r)
	}
	if r := StartedWarm().Judge(warmRun(40, 8, 5, 5.5)); r.Outcome != Pass || r.Skipped != "" {
		t.Errorf("no warm-up, a warm start: %+v", r)
	}
	if r := StartedWarm().Judge(warmRun(10, 0, 5, 5)); r.Skipped == "" {
		t.Errorf("ten requests cannot tell a start from the rest: %+v", r)
	}
}
