package schedule

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestClosedLoopCallsEveryIndexOnceWithinConcurrency(t *testing.T) {
	t.Parallel()
	const n, c = 200, 7
	var inFlight, peak atomic.Int64
	seen := make([]int, n)
	var mu sync.Mutex
	var busy [c]atomic.Bool
	ClosedLoop(context.Background(), n, c, func(_ context.Context, w, i int) {
		if w < 0 || w >= c || !busy[w].CompareAndSwap(false, true) {
			t.Errorf("request %d on worker %d: out of range or the worker is busy", i, w)
			return
		}
		defer busy[w].Store(false)
		cur := inFlight.Add(1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(100 * time.Microsecond)
		mu.Lock()
		seen[i]++
		mu.Unlock()
		inFlight.Add(-1)
	})
	for i, k := range seen {
		if k != 1 {
			t.Fatalf("index %d called %d times, want 1", i, k)
		}
	}
	if p := peak.Load(); p > c || p < 2 {
		t.Fatalf("peak in flight %d, want 2..%d", p, c)
	}
}

func TestClosedLoopStillCallsEveryIndexAfterCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var calls, afterCancel atomic.Int64
	ClosedLoop(ctx, 50, 3, func(ctx context.Context, _, i int) {
		calls.Add(1)
		if i == 5 {
			cancel()
		}
		if i < 5 {
			return
		}
		// The later calls wait for the cancellation: the other workers may take them while
		// request 5's worker is descheduled before it cancels.
		select {
		case <-ctx.Done():
			afterCancel.Add(1)
		case <-time.After(5 * time.Second):
		}
	})
	if calls.Load() != 50 {
		t.Fatalf("calls = %d, want 50", calls.Load())
	}
	if afterCancel.Load() != 45 {
		t.Fatalf("only %d calls saw the cancellation", afterCancel.Load())
	}
}

func TestClosedLoopMoreWorkersThanRequests(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	ClosedLoop(context.Background(), 3, 64, func(context.Context, int, int) { calls.Add(1) })
	if calls.Load() != 3 {
		t.Fatalf("calls = %d, want 3", calls.Load())
	}
}

func TestBurstPreparesAllThenReleasesTogether(t *testing.T) {
	t.Parallel()
	const n = 32
	var prepared atomic.Int64
	starts := make([]time.Time, n)
	Burst(context.Background(), n, func(_ context.Context, i int) {
		prepared.Add(1)
		time.Sleep(time.Millisecond) // preparing must not stagger the release
	}, func(_ context.Context, i int) {
		if prepared.Load() != n {
			t.Errorf("request %d sent before all were prepared", i)
		}
		starts[i] = time.Now()
	})
	lo, hi := starts[0], starts[0]
	for _, s := range starts {
		if s.Before(lo) {
			lo = s
		}
		if s.After(hi) {
			hi = s
		}
	}
	if spread := hi.Sub(lo); spread > 20*time.Millisecond {
		t.Fatalf("release spread %v, want all at once", spread)
	}
}
