package refengine

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// gate admits at most max running requests (0 = unlimited), first come first served or by
// priority (priority.go), and counts the running ones for the batch slowdown.
type gate struct {
	max        int
	byPriority bool
	mu         sync.Mutex
	queue      []*waiter
	running    atomic.Int64 // written under mu, read lock-free on every decode step
}

type waiter struct {
	ready    chan struct{}
	granted  bool // set under gate.mu when a slot was handed over
	priority int
}

// acquire blocks until the caller holds a slot or ctx is done. On success the caller must
// call release exactly once.
func (g *gate) acquire(ctx context.Context, priority *int) error {
	g.mu.Lock()
	if len(g.queue) == 0 && (g.max == 0 || int(g.running.Load()) < g.max) {
		g.running.Add(1)
		g.mu.Unlock()
		return nil
	}
	w := &waiter{ready: make(chan struct{})}
	if priority != nil {
		w.priority = *priority
	}
	g.queue = append(g.queue, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if w.granted { // the slot arrived together with the cancellation: pass it on
		g.mu.Unlock()
		g.release()
		return ctx.Err()
	}
	for i, q := range g.queue {
		if q == w {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
	g.mu.Unlock()
	return ctx.Err()
}

// release frees a slot, handing it directly to the next waiter if there is one (so the
// running count does not dip and no later arrival can overtake).
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 {
		g.running.Add(-1)
		return
	}
	k := g.next()
	w := g.queue[k]
	g.queue = append(g.queue[:k], g.queue[k+1:]...)
	w.granted = true
	close(w.ready)
}

// lane is the shared prefill compute: reservations run back to back, never overlapping.
type lane struct {
	mu   sync.Mutex
	free time.Time // when the last reservation ends
}

// reserve books d of compute starting no earlier than at and returns when it ends.
func (l *lane) reserve(at time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return at
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	start := at
	if l.free.After(start) {
		start = l.free
	}
	l.free = start.Add(d)
	return l.free
}

// prefillCompute is the compute time of a prompt at rate tokens/s (0 = free).
func prefillCompute(promptTokens int, rate float64) time.Duration {
	if rate <= 0 || promptTokens <= 0 {
		return 0
	}
	return time.Duration(float64(promptTokens) / rate * float64(time.Second))
}

// stepper produces the times between the tokens of one request.
type stepper struct {
	itl      time.Duration
	slowdown float64
	jitter   float64
	batch    int // sequences one step serves (0 = all)
	running  *atomic.Int64
	rng      *rand.Rand // nil without jitter
	slices   float64    // fractional steps owed while time-sliced
	// factor scales the request's prefill overhead and each of its steps (RequestJitter).
	factor float64
	// pace scales them with the engine's speed when each is taken (Options.Speed, RunCV,
	// Drift, ColdRequests); index is the request's arrival order.
	pace  pace
	index int
}

func newStepper(o *Options, p pace, running *atomic.Int64, index int) stepper {
	s := stepper{itl: o.ITL, slowdown: o.BatchSlowdown, jitter: o.ITLJitter, batch: o.MaxBatch, running: running, factor: 1, pace: p, index: index}
	if s.jitter > 0 {
		// Seeded per request index, so a request's steps do not depend on its neighbours.
		s.rng = rand.New(rand.NewPCG(uint64(o.Seed), uint64(index)))
	}
	if o.RequestJitter > 0 {
		j := rand.New(rand.NewPCG(uint64(o.Seed), ^uint64(index))).NormFloat64() * o.RequestJitter
		s.factor = 1 + min(maxJitter, max(-maxJitter, j))
	}
	return s
}

// next returns the time to this request's next token under the current load: one decode
// step of ITL*(1+BatchSlowdown*(b-1)) with b = min(running, batch); with more running than
// batch (time-slicing), round-robin serves this request every running/batch steps on
// average, in whole steps.
func (s *stepper) next() time.Duration {
	r := int(s.running.Load())
	b := r
	if s.batch > 0 {
		b = min(r, s.batch)
	}
	f := s.factor
	if s.slowdown > 0 && b > 1 {
		f += s.slowdown * float64(b-1)
	}
	if s.batch > 0 && r > s.batch {
		s.slices += float64(r) / float64(s.batch)
		whole := math.Floor(s.slices)
		s.slices -= whole
		f *= whole
	}
	if s.rng != nil {
		j := s.rng.NormFloat64() * s.jitter
		f *= 1 + min(maxJitter, max(-maxJitter, j))
	}
	return time.Duration(float64(s.itl) * f * s.pace.at(s.index, time.Now()))
}
