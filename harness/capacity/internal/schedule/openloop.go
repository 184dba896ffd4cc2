package schedule

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// Arrival is an open loop's model of the gaps between request starts.
type Arrival string

// Arrival models.
const (
	Poisson  Arrival = "poisson"  // exponential gaps: independent arrivals at a mean rate
	Constant Arrival = "constant" // one arrival every 1/rate seconds
)

// Choices lists the arrival models.
func (Arrival) Choices() []string { return []string{string(Poisson), string(Constant)} }

// Valid reports whether a is one of Choices.
func (a Arrival) Valid() bool { return slices.Contains(a.Choices(), string(a)) }

// Arrivals returns the intended start of each of n requests as an offset from the start
// of the run: arrivals at rate per second, Poisson (seeded) or constant. The first request
// is due at 0.
func Arrivals(n int, rate float64, model Arrival, seed int64) ([]time.Duration, error) {
	if !(rate > 0) {
		return nil, fmt.Errorf("arrival rate %v: want a positive number of requests per second", rate)
	}
	out := make([]time.Duration, n)
	switch model {
	case Constant:
		for i := range out {
			out[i] = time.Duration(float64(i) / rate * float64(time.Second))
		}
	case Poisson:
		rng := rand.New(rand.NewPCG(uint64(seed), 0x616e76696c))
		t := 0.0
		for i := 1; i < n; i++ {
			t += rng.ExpFloat64() / rate
			out[i] = time.Duration(t * float64(time.Second))
		}
	default:
		return nil, fmt.Errorf("arrival model %q: want %s or %s", model, Poisson, Constant)
	}
	return out, nil
}

// OpenLoop starts request i at start+offsets[i] whether or not earlier requests have
// finished, so queueing in the server shows up in latency instead of slowing the arrivals
// down (a closed loop hides it: coordinated omission). maxInFlight > 0 caps concurrent
// requests; a request that finds the cap full starts late, and its due time tells by how
// much. do receives the intended start and the instant the request could start: due, or
// when the cap was full the moment a slot freed, so that what remains of its lateness is
// the client's own. It is called exactly once per index, also after ctx is cancelled (it
// must then return quickly). OpenLoop returns when all calls have.
func OpenLoop(ctx context.Context, start time.Time, offsets []time.Duration, maxInFlight int, do func(ctx context.Context, i int, due, ready time.Time)) {
	var slots chan struct{}
	if maxInFlight > 0 {
		slots = make(chan struct{}, maxInFlight)
	}
	var wg sync.WaitGroup
	for i, off := range offsets {
		due := start.Add(off)
		if ctx.Err() == nil {
			sleepUntil(ctx, due)
		}
		acquired, ready := false, due
		if slots != nil && ctx.Err() == nil {
			select {
			case slots <- struct{}{}:
				acquired = true
			default:
				select {
				case slots <- struct{}{}:
					acquired, ready = true, later(due, time.Now())
				case <-ctx.Done():
				}
			}
		}
		wg.Go(func() {
			if acquired {
				defer func() { <-slots }()
			}
			do(ctx, i, due, ready)
		})
	}
	wg.Wait()
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func sleepUntil(ctx context.Context, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}
