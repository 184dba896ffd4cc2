package compare

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Sufficient reports, before any request is sent, whether a baseline can support a
// regression test of metric: it needs minRows requests with a figure. A baseline with
// enough requests whose spread is too wide for the gate makes the comparison inconclusive
// instead, and the verdict then says how many requests would resolve it.
func Sufficient(baseline *artifact.Benchmark, metric string) error {
	s, err := seriesOf(metric)
	if err != nil {
		return err
	}
	if baseline == nil {
		return fmt.Errorf("%s: no baseline artifact", s.name)
	}
	sd, err := s.read(baseline, "baseline")
	if sd.n < minRows {
		return fmt.Errorf("%s: the baseline has %d requests with a figure; a comparison needs at least %d", s.name, sd.n, minRows)
	}
	return err
}
