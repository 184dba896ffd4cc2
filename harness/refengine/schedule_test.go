package refengine

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/internal/busy"
)

func TestGateFIFO(t *testing.T) {
	t.Parallel()
	g := &gate{max: 1}
	ctx := context.Background()
	if err := g.acquire(ctx, nil); err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			if err := g.acquire(ctx, nil); err == nil {
				order <- i
			}
		}()
		// Queue them in a known order.
		waitFor(time.Second, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.queue) == i+1 })
	}
	for want := range 3 {
		g.release()
		if got := <-order; got != want {
			t.Fatalf("admitted %d, want %d (FIFO)", got, want)
		}
		if r := g.running.Load(); r != 1 {
			t.Fatalf("running = %d during handoff, want 1", r)
		}
	}
	g.release()
	if r := g.running.Load(); r != 0 {
		t.Errorf("running = %d at the end", r)
	}
}

func TestGateCancelledWaiter(t *testing.T) {
	t.Parallel()
	g := &gate{max: 1}
	_ = g.acquire(context.Background(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- g.acquire(ctx, nil) }()
	waitFor(time.Second, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.queue) == 1 })
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("cancelled waiter admitted")
	}
	g.release()
	if r, q := g.running.Load(), len(g.queue); r != 0 || q != 0 {
		t.Errorf("running %d queue %d after the waiter left", r, q)
	}
	g2 := &gate{} // unlimited
	for range 5 {
		_ = g2.acquire(context.Background(), nil)
	}
	if g2.running.Load() != 5 {
		t.Errorf("unlimited gate running = %d", g2.running.Load())
	}
}

func TestLane(t *testing.T) {
	t.Parallel()
	var l lane
	t0 := time.Now()
	if end := l.reserve(t0, 0); !end.Equal(t0) {
		t.Errorf("free prefill took time")
	}
	a := l.reserve(t0, 100*time.Millisecond)
	b := l.reserve(t0.Add(10*time.Millisecond), 50*time.Millisecond)
	c := l.reserve(t0.Add(time.Second), 10*time.Millisecond)
	if a.Sub(t0) != 100*time.Millisecond || b.Sub(t0) != 150*time.Millisecond || c.Sub(t0) != 1010*time.Millisecond {
		t.Errorf("lane ends %v %v %v", a.Sub(t0), b.Sub(t0), c.Sub(t0))
	}
	if d := prefillCompute(500, 1000); d != 500*time.Millisecond {
		t.Errorf("prefillCompute = %v", d)
	}
}

func TestStepper(t *testing.T) {
	t.Parallel()
	var running atomic.Int64
	running.Store(3)
	o := Options{ITL: 10 * time.Millisecond, BatchSlowdown: 0.5}
	st := newStepper(&o, pace{run: 1}, &running, 0)
	if d := st.next(); d != 20*time.Millisecond {
		t.Errorf("step at 3 running = %v, want ITL*(1+0.5*2)", d)
	}
	running.Store(1)
	o = Options{ITL: 10 * time.Millisecond, ITLJitter: 2, Seed: 42}
	seq := func(index int) []time.Duration {
		st := newStepper(&o, pace{run: 1}, &running, index)
		out := make([]time.Duration, 200)
		for i := range out {
			out[i] = st.next()
		}
		return out
	}
	a, b, c := seq(1), seq(1), seq(2)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed and index, different step %d", i)
		}
		if a[i] < 3*time.Millisecond || a[i] > 17*time.Millisecond {
			t.Errorf("step %v outside ±70%% of ITL", a[i])
		}
		same = same && a[i] == c[i]
	}
	if same {
		t.Errorf("different requests share a step sequence")
	}
}

// TestSleepPrecision measures the lateness the timing model relies on, for the
// high-resolution timer and the time.Timer fallback, and holds it to a millisecond where
// the machine keeps time (a loaded CPU makes every sleep late, the engine's and the
// probe's alike). Not parallel: it measures.
func TestSleepPrecision(t *testing.T) {
	const n, step = 100, 5 * time.Millisecond
	machine := busy.Now()
	for _, precise := range []bool{true, false} {
		sl := newSleeper(context.Background(), precise)
		var worst, sum time.Duration
		deadline := time.Now()
		for range n {
			deadline = deadline.Add(step)
			if err := sl.until(deadline); err != nil {
				t.Fatal(err)
			}
			late := time.Since(deadline)
			sum += late
			worst = max(worst, late)
		}
		sl.close()
		t.Logf("precise=%v (hr timer in use: %v): lateness over %d x %v: mean %v, worst %v",
			precise, sl.hr != nil, n, step, sum/n, worst)
		// 1ms: the time.Timer fallback is up to 1ms late on an idle process.
		if mean := sum / n; mean > time.Millisecond && machine.KeepsTime() && busy.Now().KeepsTime() {
			t.Errorf("precise=%v: mean lateness %v on a machine that keeps time (%s)", precise, mean, machine)
		}
	}
	for _, precise := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		sl := newSleeper(ctx, precise)
		time.AfterFunc(10*time.Millisecond, cancel)
		startAt := time.Now()
		if err := sl.until(time.Now().Add(time.Hour)); err == nil || time.Since(startAt) > time.Second {
			t.Errorf("precise=%v: sleep not cut by cancellation (err %v after %v)", precise, err, time.Since(startAt))
		}
		if err := sl.until(time.Now().Add(time.Hour)); err == nil {
			t.Errorf("precise=%v: sleep after cancellation did not fail", precise)
		}
		sl.close()
	}
}

// RequestJitter draws one factor per request, by its index: the same seed gives the same
// factors, and over many requests their spread is the jitter asked for.
func TestRequestJitterScalesAWholeRequest(t *testing.T) {
	t.Parallel()
	o := Options{ITL: time.Millisecond, RequestJitter: 0.15, Seed: 3}
	var running atomic.Int64
	running.Store(1)
	var sum, sq float64
	const n = 4000
	for i := range n {
		s := newStepper(&o, pace{run: 1}, &running, i)
		if again := newStepper(&o, pace{run: 1}, &running, i); again.factor != s.factor {
			t.Fatalf("request %d: factor %v then %v", i, s.factor, again.factor)
		}
		if step := s.next(); step != time.Duration(float64(time.Millisecond)*s.factor) {
			t.Fatalf("request %d: step %v with factor %v", i, step, s.factor)
		}
		sum += s.factor
		sq += s.factor * s.factor
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	if math.Abs(mean-1) > 0.01 || math.Abs(sd-0.15) > 0.01 {
		t.Errorf("factors mean %.3f sd %.3f, want 1 and 0.15", mean, sd)
	}
}
