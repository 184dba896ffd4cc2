package budget

import (
	"errors"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// ErrInsufficientSamples marks a verdict that could not be reached because the figure stands
// on too few samples; test for it with errors.Is. It is never a pass.
var ErrInsufficientSamples = errors.New("insufficient samples")

// DefaultMinSamples is the sample count a budget on metric needs unless its @min option says
// otherwise: 100 for a p99 (artifact.P99MinimumSamples), 20 for a p95, 10 for a p90 and 1 for
// every other key (a scalar counts the completed requests).
//
// Below these counts the nearest-rank percentile is simply the sample maximum (⌈0.95·n⌉ = n
// for every n < 20, and likewise below 10 for p90 and 100 for p99), so a budget on it would
// judge the single slowest request rather than the tail it names.
func DefaultMinSamples(metric string) int {
	_, stat, ok := artifact.ParseMetricKey(metric)
	if !ok {
		return 1
	}
	switch stat {
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
	return DefaultMinSamples(b.Metric)
}
