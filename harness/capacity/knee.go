package capacity

import (
	"context"
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// CurveSchema names the capacity-curve summary.
const CurveSchema = "anvilbench.capacity-curve/v1"

// KneeOptions configure FindKnee.
type KneeOptions struct {
	// Budgets must all hold, and no request may fail, for a probe to pass.
	Budgets []budget.Budget
	// MaxConcurrency bounds the search (default 64).
	MaxConcurrency int
	// Requests gives the request count of a probe at concurrency c (default max(8, 2c)),
	// so every probe has enough samples for its percentiles.
	Requests func(c int) int
	// Recorded is called with every probe's scenario and artifact as soon as it ends, so
	// the caller can write it; it returns the path recorded in the curve.
	Recorded func(sc Scenario, run *artifact.Benchmark) string
}

// Curve is the result of a knee search: every probe, in the order run, and the highest
// concurrency at which every budget held.
type Curve struct {
	Schema string `json:"schema"`
	// RunID names the run the search belongs to (see artifact.Extension.RunID).
	RunID   string   `json:"run_id"`
	Budgets []string `json:"budgets"`
	// Knee is the highest passing concurrency below the lowest failing one; 0 when even
	// concurrency 1 failed. Bounded is false when no probe failed up to MaxConcurrency, so
	// the knee is at least Knee.
	Knee    int          `json:"knee"`
	Bounded bool         `json:"bounded"`
	Probes  []CurveProbe `json:"probes"`
	// GoodputSLO is the per-request SLO goodput counts against (from the ttft and tpot
	// budgets' limits).
	GoodputSLO map[string]float64 `json:"goodput_slo"`
}

// CurveProbe is one run of the search.
type CurveProbe struct {
	Concurrency int      `json:"concurrency"`
	Requests    int      `json:"requests"`
	Passed      bool     `json:"passed"`
	Verdicts    []string `json:"verdicts"`
	// Metrics holds the budgeted metrics and the headline figures of the probe.
	Metrics map[string]float64 `json:"metrics"`
	// GoodputRPS is requests per second that met every per-request SLO (vLLM's goodput);
	// ThroughputRPS all completed requests per second.
	GoodputRPS    float64 `json:"goodput_rps"`
	ThroughputRPS float64 `json:"throughput_rps"`
	Artifact      string  `json:"artifact"`
}

// FindKnee searches the highest concurrency at which the budgets still hold: concurrency
// doubles from 1 until a probe fails, then a binary search between the last passing and
// the first failing concurrency. Each probe is a full run of base at that concurrency.
func FindKnee(ctx context.Context, target Target, base Scenario, opts KneeOptions) (*Curve, error) {
	if opts.MaxConcurrency <= 0 {
		opts.MaxConcurrency = 64
	}
	if opts.Requests == nil {
		opts.Requests = func(c int) int { return max(8, 2*c) }
	}
	curve := &Curve{Schema: CurveSchema, GoodputSLO: goodputSLO(opts.Budgets)}
	for _, b := range opts.Budgets {
		curve.Budgets = append(curve.Budgets, b.String())
	}
	probe := func(c int) (bool, error) {
		sc := base
		sc.Concurrency, sc.Requests, sc.Burst, sc.RequestRate = c, opts.Requests(c), 0, 0
		sc.Name = fmt.Sprintf("%s-c%d", base.Name, c)
		run, err := Run(ctx, target, sc)
		if err != nil {
			return false, fmt.Errorf("probe at concurrency %d: %w", c, err)
		}
		p := judgeProbe(run, opts.Budgets, curve.GoodputSLO)
		if opts.Recorded != nil {
			p.Artifact = opts.Recorded(sc, run)
		}
		curve.Probes = append(curve.Probes, p)
		return p.Passed, ctx.Err()
	}

	pass, fail := 0, 0
	for c := 1; c <= opts.MaxConcurrency; c *= 2 {
		ok, err := probe(c)
		if err != nil {
			return curve, err
		}
		if !ok {
			fail = c
			break
		}
		pass = c
	}
	if fail == 0 {
		curve.Knee = pass
		return curve, nil
	}
	for fail-pass > 1 {
		mid := (pass + fail) / 2
		ok, err := probe(mid)
		if err != nil {
			return curve, err
		}
		if ok {
			pass = mid
		} else {
			fail = mid
		}
	}
	curve.Knee, curve.Bounded = pass, true
	return curve, nil
}

// judgeProbe decides whether a probe passed: no failed request and every budget held.
func judgeProbe(run *artifact.Benchmark, budgets []budget.Budget, slo map[string]float64) CurveProbe {
	p := CurveProbe{Concurrency: run.Concurrency, Requests: run.Requests, Passed: run.Failed == 0, Metrics: map[string]float64{}}
	if run.Failed > 0 {
		p.Verdicts = append(p.Verdicts, fmt.Sprintf("%d of %d requests failed", run.Failed, run.Requests))
	}
	for _, b := range budgets {
		v := budget.Judge(b, run)
		p.Verdicts = append(p.Verdicts, v.Message())
		p.Passed = p.Passed && v.Err == nil && v.Pass
		if v.Err == nil {
			p.Metrics[b.Metric] = v.Value
		}
	}
	for _, key := range []string{"ttft_p50_ms", "tpot_p50_ms", "tpot_p95_ms", "throughput_tok_s"} {
		if v, _, ok := run.Metrics.Lookup(key); ok && v != nil {
			p.Metrics[key] = *v
		}
	}
	wall := float64(run.WallClockMs) / 1000
	if wall > 0 {
		good := 0
		for _, r := range run.RequestTimings {
			if meetsSLO(r, slo) {
				good++
			}
		}
		p.GoodputRPS, p.ThroughputRPS = float64(good)/wall, float64(run.Completed)/wall
	}
	return p
}

// goodputSLO takes the per-request SLO from the budgets on ttft and tpot figures: a
// request is good when its own ttft_ms and tpot_ms are within those limits.
func goodputSLO(budgets []budget.Budget) map[string]float64 {
	slo := map[string]float64{}
	for _, b := range budgets {
		f, _ := artifact.LookupFigure(b.Metric)
		if b.Op != budget.AtMost && b.Op != budget.Below {
			continue
		}
		switch family := f.Family; family {
		case "ttft", "tpot":
			key := family + "_ms"
			if cur, seen := slo[key]; !seen || b.Limit < cur {
				slo[key] = b.Limit
			}
		}
	}
	return slo
}

func meetsSLO(r artifact.RequestTiming, slo map[string]float64) bool {
	if limit, ok := slo["ttft_ms"]; ok && float64(r.TTFTMs) > limit {
		return false
	}
	if limit, ok := slo["tpot_ms"]; ok && (r.TPOTMs == nil || float64(*r.TPOTMs) > limit) {
		return false
	}
	return true
}
