package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
)

// startSpread is what the A/A runs of one scenario measured of the spread between two
// starts of one build: the largest over the gate's metrics, which metric, over how many
// runs.
type startSpread struct {
	cv     float64
	metric string
	runs   int
}

// readStarts reads the interleaved runs under dir (ANVIL_GATE_STARTS), each main's build
// against a second start of it, and measures per scenario the spread between starts on
// each metric: E[θ²] = 2σ² + v for an A/A run's engine term θ (v what its blocks estimate
// of it), pooled over the runs, one degree of freedom each.
func readStarts(dir string, metrics []string) (map[string]startSpread, error) {
	files, err := filesOf(dir)
	if err != nil {
		return nil, err
	}
	type pair struct{ base, cur *artifact.Benchmark }
	pairs := map[string]*pair{}
	for _, f := range files {
		a, err := artifact.Read(f)
		if err != nil || a.Extension == nil || a.Extension.Interleaved == nil {
			continue
		}
		x := a.Extension.Interleaved
		p := pairs[x.Pairing]
		if p == nil {
			p = &pair{}
			pairs[x.Pairing] = p
		}
		if x.Role == artifact.RoleBaseline {
			p.base = a
		} else {
			p.cur = a
		}
	}
	if len(metrics) == 0 {
		metrics = gate.DefaultSpec().Metrics
	}
	sums := map[string]map[string][]float64{} // scenario, metric: estimates of σ²
	for _, p := range pairs {
		if p.base == nil || p.cur == nil {
			continue
		}
		name := ScenarioOf(p.cur)
		for _, m := range metrics {
			theta, v, err := compare.EngineTerm(p.base, p.cur, m)
			if err != nil {
				continue
			}
			if sums[name] == nil {
				sums[name] = map[string][]float64{}
			}
			sums[name][m] = append(sums[name][m], (theta*theta-v)/2)
		}
	}
	if len(sums) == 0 {
		return nil, errors.New("no interleaved run of a build against a second start of it there (anvilbench baseline -starts OUT_DIR DIR records one)")
	}
	out := map[string]startSpread{}
	for name, byMetric := range sums {
		var s startSpread
		for m, est := range byMetric {
			sum := 0.0
			for _, e := range est {
				sum += e
			}
			if cv := math.Expm1(math.Sqrt(max(sum/float64(len(est)), 0))); cv >= s.cv {
				s = startSpread{cv: cv, metric: m, runs: len(est)}
			}
		}
		out[name] = s
	}
	return out, nil
}

// countStarts has an interleaved scenario's comparisons count the spread between starts
// its A/A runs measured, when larger than gate_restart_cv, naming where it came from.
func (c Config) countStarts(spec *gate.Spec, scenario string) {
	s, ok := c.starts[scenario]
	if !ok || !spec.Interleaved {
		return
	}
	floor := cmp.Or(spec.RestartCV, compare.DefaultRestartCV)
	if s.cv <= floor {
		spec.RestartSource = fmt.Sprintf("at least what %d runs of main's build against a second start of it measured (%.2f%%, %s)", s.runs, 100*s.cv, c.GateStarts)
		return
	}
	spec.RestartCV = s.cv
	spec.RestartSource = fmt.Sprintf("measured over %d runs of main's build against a second start of it (%s, %s)", s.runs, s.metric, c.GateStarts)
}
