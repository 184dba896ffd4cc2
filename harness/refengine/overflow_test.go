package refengine

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStepperTimeslice(t *testing.T) {
	t.Parallel()
	var running atomic.Int64
	o := Options{ITL: 10 * time.Millisecond, BatchSlowdown: 0.5, MaxBatch: 4}
	st := newStepper(&o, pace{run: 1}, &running, 0)
	running.Store(8) // two slices: every other step, each of 4-sequence size
	if d := st.next(); d != 2*25*time.Millisecond {
		t.Errorf("8 running on 4: %v, want 2 steps of 25ms", d)
	}
	running.Store(6) // 1.5 steps on average, in whole steps: 1, 2, 1, 2
	var sum time.Duration
	for k := range 4 {
		d := st.next()
		if d != 25*time.Millisecond && d != 50*time.Millisecond {
			t.Errorf("gap %d = %v, not a whole number of 25ms steps", k, d)
		}
		sum += d
	}
	if sum != 4*3*25*time.Millisecond/2 {
		t.Errorf("4 gaps at 6 on 4 = %v, want 150ms", sum)
	}
	running.Store(3) // below the batch: plain steps
	if d := st.next(); d != 20*time.Millisecond {
		t.Errorf("3 running: %v", d)
	}
}

// overflowRun streams 16 concurrent requests of 40 words and returns each one's trace and
// client-measured mean inter-token gap over its first 30 gaps.
func overflowRun(t *testing.T, mode Overflow) ([]RequestTrace, []time.Duration) {
	s := start(t, Options{PrefillOverhead: 5 * time.Millisecond, ITL: 2 * time.Millisecond,
		BatchSlowdown: 0.1, MaxBatch: 8, Overflow: mode})
	gaps := make([]time.Duration, 16)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			got := stream(t, s, chatBody(40, true, false, nil))
			if len(got.times) != 41 {
				t.Errorf("%s: %d chunks", mode, len(got.times))
				return
			}
			gaps[i] = got.times[30].Sub(got.times[0]) / 30
		})
	}
	wg.Wait()
	return s.Traces(), gaps
}

// TestOverflow: 16 concurrent requests on MaxBatch 8. Timeslicing admits all and serves
// each every other step; queueing runs 8 at full step rate and delays the other 8's first
// token by a whole reply. Not parallel: it measures.
func TestOverflow(t *testing.T) {
	step8 := time.Duration(float64(2*time.Millisecond) * (1 + 0.1*7)) // 3.4ms
	mean := func(d []time.Duration) time.Duration {
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		return sum / time.Duration(len(d))
	}
	tr, gaps := overflowRun(t, OverflowTimeslice)
	if g := mean(gaps); relErr(g, 2*step8) > 0.15 {
		t.Errorf("timeslice: mean gap %v, want 2 x step(8) = %v", g, 2*step8)
	}
	for _, r := range tr {
		if w := r.Admitted.Sub(r.Arrived); w > 20*time.Millisecond {
			t.Errorf("timeslice: request %d waited %v for admission", r.Index, w)
		}
	}
	t.Logf("timeslice: mean gap %v (want %v)", mean(gaps), 2*step8)

	tr, gaps = overflowRun(t, overflowQueue)
	if g := mean(gaps); relErr(g, step8) > 0.15 {
		t.Errorf("queue: mean gap %v, want step(8) = %v", g, step8)
	}
	ttfts := make([]time.Duration, len(tr))
	for k, r := range tr {
		ttfts[k] = r.FirstToken.Sub(r.Arrived)
	}
	slices.Sort(ttfts)
	reply := 40 * step8 // the first 8's 41 tokens
	if ttfts[7] > 50*time.Millisecond || ttfts[8] < reply*8/10 {
		t.Errorf("queue: ttfts %v, want 8 fast ones and 8 delayed by about %v", ttfts, reply)
	}
	t.Logf("queue: mean gap %v (want %v), ttfts %v", mean(gaps), step8, ttfts)
}
