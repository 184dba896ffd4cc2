package capacity

import (
	"context"
	"errors"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// adapter is the LoRA adapter request i names in its model field; "" without adapters.
func (r *run) adapter(i int) string {
	if r.adapterOf == nil {
		return ""
	}
	return r.sc.Adapters[r.adapterOf[r.local(i)]].Name
}

// checkAdapters refuses, before any request, an adapter the engine does not serve: one GET
// /models does not list and a one-token request for which is refused, naming it, what is
// served and the nearest name.
func (r *run) checkAdapters(ctx context.Context) error {
	if len(r.sc.Adapters) == 0 {
		return nil
	}
	models, listErr := r.client.Models(ctx)
	var served []string
	for _, m := range models {
		served = append(served, m.ID)
	}
	for _, a := range r.sc.Adapters {
		if slices.Contains(served, a.Name) {
			continue
		}
		if _, err := probe(ctx, r.client, a.Name, r.sc.API); err != nil {
			err = notServed("adapter", a.Name, served, listErr, err, " (ANVIL_ADAPTERS: an engine loads LoRA adapters at its start, vLLM with --lora-modules)")
			return errors.New(r.san.clean(err.Error()))
		}
	}
	return nil
}

// adapterRecord is the artifact's anvilbench.adapters: each adapter's plan, what became of
// its requests and the v1 metrics of its successful ones; nil without adapters.
func (r *run) adapterRecord(b *artifact.Benchmark) []artifact.Adapter {
	if r.adapterOf == nil {
		return nil
	}
	shares := r.sc.Adapters.Shares(r.sc.AdapterMix)
	plan := make([]artifact.Adapter, len(r.sc.Adapters))
	for k, a := range r.sc.Adapters {
		plan[k] = artifact.Adapter{Name: a.Name, Weight: a.Weight, Share: artifact.Float(shares[k])}
	}
	return adapterFigures(plan, b)
}

// adapterFigures are the adapters of plan (their names, weights and shares) with what became
// of their requests in b and the metrics of their successes.
func adapterFigures(plan []artifact.Adapter, b *artifact.Benchmark) []artifact.Adapter {
	out := make([]artifact.Adapter, len(plan))
	for k, a := range plan {
		out[k] = artifact.Adapter{Name: a.Name, Weight: a.Weight, Share: a.Share}
	}
	at := map[string]int{}
	for k, a := range out {
		at[a.Name] = k
	}
	rows := make([][]artifact.RequestTiming, len(out))
	byIndex := map[int]int{}
	for _, s := range b.Extension.Timeline {
		k := at[s.Adapter]
		byIndex[s.RequestIndex] = k
		out[k].Requests++
		switch {
		case s.Outcome == artifact.OutcomeAbandoned:
			out[k].Abandoned++
		case s.Outcome != "ok":
			out[k].Failed++
		}
	}
	for _, row := range b.RequestTimings {
		k := byIndex[row.RequestIndex]
		rows[k] = append(rows[k], row)
	}
	wall := float64(b.WallClockMs) / 1000
	for k := range out {
		out[k].Completed = len(rows[k])
		out[k].Metrics = buildMetrics(rows[k], nil, wall, out[k].Failed == 0)
	}
	return out
}
