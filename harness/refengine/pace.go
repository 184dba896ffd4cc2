package refengine

import (
	"math/rand/v2"
	"time"
)

// pace is how long the engine takes over what Options.ITL and the prefill options say: the
// build's Speed times the start's run factor, the drift since the start, and the cold
// start of its first requests.
type pace struct {
	run     float64 // Speed times the run factor drawn at the start
	factor  float64 // the run factor alone
	drift   float64 // per minute
	started time.Time
	coldN   int
	coldF   float64
}

func newPace(o *Options, started time.Time) pace {
	p := pace{run: o.Speed, factor: 1, drift: o.Drift, started: started, coldN: o.ColdRequests, coldF: o.ColdFactor}
	if o.RunCV > 0 {
		seed := uint64(o.RunSeed)
		if seed == 0 {
			seed = uint64(started.UnixNano())
		}
		j := rand.New(rand.NewPCG(seed, 0x72756e)).NormFloat64() * o.RunCV
		p.factor = 1 + min(maxJitter, max(-maxJitter, j))
		p.run *= p.factor
	}
	return p
}

// at is the factor on the times of request index (its arrival order) at t.
func (p pace) at(index int, t time.Time) float64 {
	f := p.run
	if p.drift != 0 {
		f *= 1 + p.drift*t.Sub(p.started).Minutes()
	}
	if index < p.coldN {
		f *= p.coldF
	}
	return f
}

// RunFactor is the factor this start of the engine drew (Options.RunCV); 1 without one.
func (s *Server) RunFactor() float64 { return s.pace.factor }
