package schedule

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestArrivals(t *testing.T) {
	t.Parallel()
	c, err := Arrivals(5, 10, Constant, 0)
	if err != nil || c[0] != 0 || c[4] != 400*time.Millisecond {
		t.Fatalf("constant arrivals %v %v", c, err)
	}
	p1, _ := Arrivals(2000, 50, Poisson, 7)
	p2, _ := Arrivals(2000, 50, Poisson, 7)
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatal("the same seed must give the same arrivals")
		}
	}
	meanGap := p1[len(p1)-1].Seconds() / float64(len(p1)-1)
	if math.Abs(meanGap-0.02)/0.02 > 0.1 {
		t.Fatalf("mean Poisson gap %.4fs, want about 0.02s", meanGap)
	}
	if _, err := Arrivals(3, 0, Poisson, 0); err == nil {
		t.Fatal("a zero rate must be refused")
	}
	if _, err := Arrivals(3, 1, "bursty", 0); err == nil {
		t.Fatal("an unknown model must be refused")
	}
}

func TestOpenLoopStartsOnScheduleWhateverTheLatency(t *testing.T) {
	t.Parallel()
	offsets, _ := Arrivals(10, 100, Constant, 0) // every 10 ms, each request takes 50 ms
	start := time.Now()
	var mu sync.Mutex
	lateness := make([]time.Duration, 10)
	OpenLoop(context.Background(), start, offsets, 0, func(_ context.Context, i int, due, ready time.Time) {
		if !ready.Equal(due) {
			t.Errorf("request %d: ready %v, want its due time: nothing held it back", i, ready.Sub(due))
		}
		mu.Lock()
		lateness[i] = time.Since(due)
		mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	})
	for i, l := range lateness {
		if l > 15*time.Millisecond {
			t.Errorf("request %d started %v late; an open loop must not wait for earlier requests", i, l)
		}
	}
}

func TestOpenLoopCapDelaysAndEveryIndexRuns(t *testing.T) {
	t.Parallel()
	offsets, _ := Arrivals(8, 1000, Constant, 0)
	var inFlight, peak, calls atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var heldBack atomic.Int64
	OpenLoop(ctx, time.Now(), offsets, 2, func(_ context.Context, i int, due, ready time.Time) {
		calls.Add(1)
		// Every 1 ms a request is due and each takes 10 ms: past the first two, each waited
		// for a slot, and is ready when it got one, not when it was due.
		if ready.Sub(due) > 5*time.Millisecond {
			heldBack.Add(1)
		}
		// Ready marks the slot, so the call follows it at once; a loaded 2-core machine
		// can hold the goroutine 20 ms (seen under go test ./...), hence the margin.
		// heldBack below checks that ready is not simply the due time.
		if ready.Before(due) || time.Since(ready) > 100*time.Millisecond {
			t.Errorf("request %d: ready %v after due, %v before it ran", i, ready.Sub(due), time.Since(ready))
		}
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(10 * time.Millisecond)
		inFlight.Add(-1)
	})
	if calls.Load() != 8 || peak.Load() > 2 || heldBack.Load() < 4 {
		t.Fatalf("calls %d peak %d, %d held back by the cap", calls.Load(), peak.Load(), heldBack.Load())
	}
	cancel()
	calls.Store(0)
	OpenLoop(ctx, time.Now(), offsets, 2, func(context.Context, int, time.Time, time.Time) { calls.Add(1) })
	if calls.Load() != 8 {
		t.Fatalf("after cancellation %d calls, want every index", calls.Load())
	}
}
