package refengine

import (
	"math"
	"testing"
	"time"
)

// Each pace option scales what it says: the build's speed every time, the start's run
// factor one draw per start (the same seed, the same factor; the spread of many starts its
// RunCV), the drift with the minutes since the start, the cold start the first requests.
func TestThePaceScalesTheEnginesTimes(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_000_000, 0)
	o := Options{Speed: 1.1, ColdFactor: 1}
	if f := newPace(&o, start).at(0, start); math.Abs(f-1.1) > 1e-12 {
		t.Errorf("speed 1.1: factor %v", f)
	}
	o = Options{Speed: 1, Drift: 0.05, ColdFactor: 1}
	if f := newPace(&o, start).at(0, start.Add(2*time.Minute)); math.Abs(f-1.1) > 1e-12 {
		t.Errorf("drift 5%% a minute, 2 minutes in: factor %v", f)
	}
	o = Options{Speed: 1, ColdRequests: 20, ColdFactor: 3}
	p := newPace(&o, start)
	if p.at(19, start) != 3 || p.at(20, start) != 1 {
		t.Errorf("cold: request 19 %v, request 20 %v", p.at(19, start), p.at(20, start))
	}
	o = Options{Speed: 1, RunCV: 0.03, RunSeed: 7, ColdFactor: 1}
	if a, b := newPace(&o, start).factor, newPace(&o, start.Add(time.Hour)).factor; a != b || a == 1 {
		t.Errorf("a seeded run factor: %v then %v", a, b)
	}
	var sum, sq float64
	const starts = 4000
	for i := range starts {
		o.RunSeed = int64(i + 1)
		f := newPace(&o, start).factor
		sum, sq = sum+f, sq+f*f
	}
	mean := sum / starts
	sd := math.Sqrt(sq/starts - mean*mean)
	if math.Abs(mean-1) > 0.003 || math.Abs(sd-0.03) > 0.003 {
		t.Errorf("run factors over %d starts: mean %.4f, sd %.4f; want 1 and 0.03", starts, mean, sd)
	}
}

// The pace reaches the wire: a build 50% slower streams its tokens 50% further apart, and
// takes 50% longer to its first token.
func TestASlowerBuildStreamsSlower(t *testing.T) {
	t.Parallel()
	// The least of three streams each: a loaded machine only adds to a latency (a 6 ms
	// stall on the first stream read 1.31 for 1.5).
	measure := func(speed float64) (ttft, itl time.Duration) {
		s := start(t, Options{ITL: 4 * time.Millisecond, PrefillOverhead: 40 * time.Millisecond, Speed: speed})
		ttft, itl = time.Hour, time.Hour
		for range 3 {
			sent := time.Now()
			got := stream(t, s, chatBody(32, true, true, nil))
			n := len(got.times) - 1
			ttft, itl = min(ttft, got.times[0].Sub(sent)), min(itl, got.times[n].Sub(got.times[0])/time.Duration(n))
		}
		return ttft, itl
	}
	ttft, itl := measure(1)
	slowTTFT, slowITL := measure(1.5)
	if r := float64(slowITL) / float64(itl); r < 1.4 || r > 1.6 {
		t.Errorf("step at speed 1 %v, at 1.5 %v: ratio %.2f", itl, slowITL, r)
	}
	if r := float64(slowTTFT) / float64(ttft); r < 1.4 || r > 1.6 {
		t.Errorf("first token at speed 1 %v, at 1.5 %v: ratio %.2f", ttft, slowTTFT, r)
	}
}
