package refengine

import (
	"math"
	"sync"
)

// speculation is the engine's speculative decoding (Options.SpecTokens): how many drafts
// each step accepts. Acceptance is diffused over the engine's steps, so the share accepted
// over every step served is SpecAccept to within one token whatever the order of requests:
// a run of a few thousand drafts measures the configured rate, not a sample of it.
type speculation struct {
	k     int
	share float64
	mu    sync.Mutex
	carry float64
}

// accept draws one step's accepted drafts, 0 to k.
func (s *speculation) accept() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.carry += s.share * float64(s.k)
	a := min(int(math.Floor(s.carry+1e-9)), s.k)
	s.carry -= float64(a)
	return a
}

// specStep is one request's decode under speculation: the tokens left in the current step
// and what its steps drafted and accepted.
type specStep struct {
	spec                      *speculation
	left                      int
	drafts, drafted, accepted int
	perPos                    []int
}

// begins reports whether token i (0-based, the first from prefill) starts a decode step,
// drawing the step's drafts when it does; ends reports whether it ends one.
func (p *specStep) begins(i int) bool {
	if p.spec == nil || i == 0 {
		return true
	}
	if p.left > 0 {
		return false
	}
	a := p.spec.accept()
	p.left = 1 + a
	p.drafts++
	p.drafted += p.spec.k
	p.accepted += a
	if p.perPos == nil {
		p.perPos = make([]int, p.spec.k)
	}
	for j := range a {
		p.perPos[j]++
	}
	return true
}

// consume takes token i from the current step and reports whether the step is over.
func (p *specStep) consume(i int) (stepEnds bool) {
	if p.spec == nil || i == 0 {
		return true
	}
	p.left--
	return p.left == 0
}
