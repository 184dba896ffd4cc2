package compare

import (
	"fmt"
	"math"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/stats"
)

// Sufficient reports, before any request is sent, whether a baseline can support a
// regression test of metric at gate by: it needs MinRows requests with a figure, and a
// spread narrow enough that some current run could resolve a change of by against it.
// However many requests the current run sends, the baseline's own share of the ratio's
// variance remains; when that share alone puts the detectable change (see Regression)
// above by, no run can pass or fail the gate on this baseline. The error says how many
// requests a baseline needs.
func Sufficient(baseline *artifact.Benchmark, metric string, by float64) error {
	s, err := seriesOf(metric)
	if err != nil {
		return err
	}
	if baseline == nil {
		return fmt.Errorf("%s: no baseline artifact", s.name)
	}
	rows, err := s.samples(baseline)
	if err != nil {
		return err
	}
	if len(rows) < MinRows {
		return fmt.Errorf("%s: the baseline has %d requests with a figure; a comparison needs at least %d", s.name, len(rows), MinRows)
	}
	if !positive(rows) {
		return nil // Regression says what is wrong with the rows, with the current run's
	}
	// Two independent resamples of the baseline: their log ratio has twice the variance of
	// the baseline's own log statistic.
	var lo, hi float64
	if s.q > 0 {
		lo, hi, _ = stats.BootstrapQuantileRatio(rows, rows, s.q, DefaultResamples, 1)
	} else {
		lo, hi, _ = stats.BootstrapMeanRatio(rows, rows, DefaultResamples, 1)
	}
	own := logSE(lo, hi) / math.Sqrt2
	if floor := detectable(own, s.higherIsWorse); floor > by {
		need := requestsNeeded(own*math.Sqrt2, len(rows), len(rows), by, s.higherIsWorse)
		return fmt.Errorf("%s: the baseline's %d requests spread too widely to resolve a %s change whatever the current run sends (its own spread alone hides %s); record a baseline of at least %d requests",
			s.name, len(rows), percent(by), percent(floor), need)
	}
	return nil
}
