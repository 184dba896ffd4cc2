package budget

import (
	"errors"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/units"
)

// ErrInsufficientSamples marks a verdict that could not be reached because the figure stands
// on too few samples; test for it with errors.Is. It is never a pass.
var ErrInsufficientSamples = errors.New("insufficient samples")

// defaultMinSamples is the sample count a budget on metric needs unless its @min option says
// otherwise: 100 for a p99 (artifact.P99MinimumSamples), 20 for a p95, 10 for a p90 and 1 for
// every other key (a scalar counts the completed requests).
//
// Below these counts the nearest-rank percentile is simply the sample maximum (⌈0.95·n⌉ = n
// for every n < 20, and likewise below 10 for p90 and 100 for p99), so a budget on it would
// judge the single slowest request rather than the tail it names.
func defaultMinSamples(metric string) int {
	f, _ := artifact.LookupFigure(metric)
	switch f.Stat {
	case "p99":
		return artifact.P99MinimumSamples
	case "p95":
		return 20
	case "p90":
		return 10
	}
	return 1
}

// RequiredSamples is the sample count b needs: its MinSamples (@min), or
// DefaultMinSamples of its metric.
func (b Budget) RequiredSamples() int {
	if b.MinSamples > 0 {
		return b.MinSamples
	}
	return defaultMinSamples(b.Metric)
}

// BoundSamples is how many samples one block must hold for b's bound to exist when it is
// the CI95 end of a percentile (a p95's upper bound needs 72, a p99's 299): 0 when b
// judges no percentile bound. With two blocks or more the bound is taken over the blocks
// instead, and this does not apply.
func (b Budget) BoundSamples() int {
	if b.Bound == "" || b.Bound == Point {
		return 0
	}
	f, _ := artifact.LookupFigure(b.Metric)
	q := units.PercentileOf(f.Stat)
	if q == 0 {
		return 0
	}
	return ciMinSamples(q, b.Bound)
}
