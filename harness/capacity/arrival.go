package capacity

import (
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// arrival records how requests were started and, for an open loop, the latencies from
// each request's intended start beside the service latencies from its actual start.
func (r *run) arrival(wallSeconds float64) artifact.Arrival {
	sc := r.sc
	a := artifact.Arrival{Model: artifact.ArrivalClosedLoop, MaxInFlight: sc.Concurrency}
	switch {
	case sc.Burst > 0:
		a.Model = artifact.ArrivalBurst
	case sc.RequestRate > 0:
		a.Model, a.RatePerSec, a.Seed = string(sc.Arrival), artifact.F(sc.RequestRate), &sc.ContextSeed
	}
	if wallSeconds > 0 {
		sent := 0
		for _, o := range r.outcomes {
			if !o.sent.IsZero() {
				sent++
			}
		}
		a.AchievedRateSec = artifact.F(float64(sent) / wallSeconds)
	}
	if sc.RequestRate <= 0 {
		return a
	}
	var lag, ttft, e2e, service []float64
	for _, o := range r.outcomes {
		if o.sent.IsZero() || o.due.IsZero() {
			continue
		}
		late := o.sent.Sub(o.due).Seconds() * 1000
		lag = append(lag, late)
		if o.row != nil {
			ttft = append(ttft, late+float64(o.row.TTFTMs))
			e2e = append(e2e, late+float64(o.row.E2EMs))
			service = append(service, float64(o.row.TTFTMs))
		}
	}
	a.ScheduleLagMs, a.IntendedTTFTMs, a.IntendedE2EMs, a.ServiceTTFTMs = percentiles(lag), percentiles(ttft), percentiles(e2e), percentiles(service)
	return a
}

// percentiles is the nearest-rank summary of values; nil when there are none.
func percentiles(values []float64) *artifact.Percentiles {
	if len(values) == 0 {
		return nil
	}
	s := slices.Clone(values)
	slices.Sort(s)
	at := func(q float64) artifact.Float { v, _ := stats.Percentile(s, q); return artifact.Float(v) }
	return &artifact.Percentiles{Samples: len(s), P50: at(50), P95: at(95), P99: at(99), Max: artifact.Float(s[len(s)-1])}
}
