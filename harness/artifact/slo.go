package artifact

import (
	"strconv"
	"strings"
)

// The SLO a run's budgets set each request, and the two figures it gives the run. A budget
// on a latency of the v1 metrics block ("ttft_p95_ms<=80": its 95th percentile at most 80
// ms) asks every request to be at most that: a request meets the SLO when it completed and
// met every such threshold. slo_attainment is the share of the requests attempted that met
// it (a failed or left request misses, so shedding load cannot score 1), goodput_rps those
// requests per second of the measured phase (AIPerf's and vLLM's goodput). Budgets on
// other figures, on one group's requests, or with >= set no threshold.

// Keys of the SLO's figures.
const (
	attainmentKey = "slo_attainment"
	goodputKey    = "goodput_rps"
)

// threshold is one budget's limit on each request.
type threshold struct {
	row    func(*RequestTiming) (float64, bool)
	limit  float64
	strict bool
}

// thresholds are the per-request thresholds of budgets written as Budget.String writes them.
func thresholds(budgets []string) []threshold {
	var out []threshold
	for _, text := range budgets {
		for term := range strings.SplitSeq(text, ",") {
			term, _, _ = strings.Cut(strings.TrimSpace(term), "@")
			metric, limit, strict := "", "", false
			if m, l, ok := strings.Cut(term, "<="); ok {
				metric, limit = m, l
			} else if m, l, ok := strings.Cut(term, "<"); ok {
				metric, limit, strict = m, l, true
			} else {
				continue
			}
			ref, known := metricIndex[strings.TrimSpace(metric)]
			v, err := strconv.ParseFloat(strings.TrimSpace(limit), 64)
			if !known || err != nil || ref.family < 0 || ref.stat < 0 {
				continue
			}
			if fam := families[ref.family]; fam.worse == worseHigher && fam.unit == "_ms" {
				out = append(out, threshold{row: fam.row, limit: v, strict: strict})
			}
		}
	}
	return out
}

// meets reports whether a completed request's row meets every threshold; a figure it has
// none of (a one-token answer's TPOT) does not count against it.
func meets(r *RequestTiming, ts []threshold) bool {
	for _, t := range ts {
		v, ok := t.row(r)
		if ok && (v > t.limit || t.strict && v == t.limit) {
			return false
		}
	}
	return true
}

// sloMet is, for each request index the run attempted, whether it met the SLO of its
// recorded budgets; nil when they set no threshold.
func (b *Benchmark) sloMet(budgets []string) map[int]bool {
	if b.Extension == nil {
		return nil
	}
	ts := thresholds(budgets)
	if len(ts) == 0 {
		return nil
	}
	met := make(map[int]bool, b.Requests)
	for _, f := range b.Failures {
		met[f.RequestIndex] = false
	}
	for _, s := range b.Extension.Timeline {
		if s.Outcome != "ok" {
			met[s.RequestIndex] = false
		}
	}
	for i := range b.RequestTimings {
		met[b.RequestTimings[i].RequestIndex] = meets(&b.RequestTimings[i], ts)
	}
	return met
}

// SLO is the run's slo_attainment and goodput_rps by the per-request thresholds its
// recorded budgets set, recounted from its rows; nil when they set none or it attempted no
// request.
func (b *Benchmark) SLO() (attainment, goodputRPS *Float) {
	if b.Extension == nil {
		return nil, nil
	}
	return b.SLOOf(b.Extension.Budgets)
}

// SLOOf is SLO by the thresholds of budgets written as Budget.String writes them, whatever
// budgets the run recorded: a search holds each probe to its own SLO.
func (b *Benchmark) SLOOf(budgets []string) (attainment, goodputRPS *Float) {
	met := b.sloMet(budgets)
	attempted := max(b.Requests, len(met))
	if met == nil || attempted == 0 {
		return nil, nil
	}
	good := 0
	for _, ok := range met {
		if ok {
			good++
		}
	}
	attainment = F(float64(good) / float64(attempted))
	if wall := float64(b.WallClockMs) / 1000; wall > 0 {
		goodputRPS = F(float64(good) / wall)
	}
	return attainment, goodputRPS
}

// sloFigures are the SLO's figures, run-level, higher better: budgets
// (slo_attainment>=0.99) and the report read them. No regression test judges them yet: the
// tests compare logs of positive per-request values, and a request's part in attainment is
// 0 or 1.
func sloFigures() []Figure {
	of := func(pick func(a, g *Float) *Float) func(*Benchmark) (*float64, int) {
		return func(b *Benchmark) (*float64, int) {
			if v := pick(b.SLO()); v != nil {
				x := float64(*v)
				return &x, -1
			}
			return nil, -1
		}
	}
	return []Figure{
		{Key: attainmentKey, of: of(func(a, _ *Float) *Float { return a })},
		{Key: goodputKey, of: of(func(_, g *Float) *Float { return g })},
	}
}
