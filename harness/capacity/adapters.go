package capacity

import (
	"context"
	"errors"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// adapterSpread is the scenario's LoRA adapters (embedded in Scenario).
type adapterSpread struct {
	// Adapters spreads the requests over LoRA adapters, each request naming its adapter in
	// the model field: "lora-a:3,lora-b:1" by weight, "lora-a,lora-b" evenly, or by Zipf's
	// law over the order listed when AdapterMix is zipf. Each adapter gets its share of the
	// requests exactly (largest remainder), in an order ContextSeed shuffles; a run checks
	// first that the engine serves each. The artifact holds each adapter's figures
	// (anvilbench.adapters), and a budget or regression names one adapter's figure as
	// "tpot_p50_ms[lora-b]".
	Adapters   workload.Adapters   `key:"adapters"`
	AdapterMix workload.AdapterMix `key:"adapter_mix" default:"weighted" zero:"default"`
}

func init() { registerFeature(func() feature { return &adapters{} }, 20) }

// adapters is the feature of a run spread over LoRA adapters. of[i] is the adapter request
// i of a block names (an index into the scenario's Adapters).
type adapters struct {
	noFeatureHooks
	of []int
}

func (adapters) on(sc *Scenario) bool { return len(sc.Adapters) > 0 }
func (adapters) off(sc *Scenario)     { sc.adapterSpread = adapterSpread{} }

func (adapters) validate(sc *Scenario, k kind, add addProblem) {
	independentOnly(k, add, "Adapters", sc.Adapters.String(), "a trace's lines and a session's turns keep their model")
}

// models: an engine lists the LoRA adapters it serves beside their base model.
func (adapters) models(sc *Scenario) []string {
	out := make([]string, len(sc.Adapters))
	for k, a := range sc.Adapters {
		out[k] = a.Name
	}
	return out
}

// prepare refuses, before any request, an adapter the engine does not serve: one GET
// /models does not list and a one-token request for which is refused, naming it, what is
// served and the nearest name. Then it spreads a block's requests over the adapters.
func (a *adapters) prepare(ctx context.Context, r *run) error {
	models, listErr := r.client.Models(ctx)
	var served []string
	for _, m := range models {
		served = append(served, m.ID)
	}
	for _, ad := range r.sc.Adapters {
		if slices.Contains(served, ad.Name) {
			continue
		}
		if _, err := probe(ctx, r.client, ad.Name, r.sc.API); err != nil {
			err = notServed("adapter", ad.Name, served, listErr, err, " (ANVIL_ADAPTERS: an engine loads LoRA adapters at its start, vLLM with --lora-modules)")
			return errors.New(r.san.clean(err.Error()))
		}
	}
	a.of = r.sc.Adapters.Assign(len(r.plan), r.sc.AdapterMix, r.sc.ContextSeed)
	return nil
}

// name is the adapter request i names.
func (a *adapters) name(r *run, i int) string { return r.sc.Adapters[a.of[r.local(i)]].Name }

func (a *adapters) body(r *run, i int, req *stream.ChatRequest) error {
	req.Model = a.name(r, i)
	return nil
}

func (a *adapters) span(r *run, i int, _ *outcome, s *artifact.RequestSpan) {
	s.Adapter = a.name(r, i)
}

// record writes anvilbench.adapters: each adapter's plan, what became of its requests and
// the v1 metrics of its successful ones.
func (a *adapters) record(_ context.Context, r *run, b *artifact.Benchmark) {
	shares := r.sc.Adapters.Shares(r.sc.AdapterMix)
	plan := make([]artifact.Group, len(r.sc.Adapters))
	for k, ad := range r.sc.Adapters {
		plan[k] = artifact.Group{Name: ad.Name, Weight: ad.Weight, Share: artifact.Float(shares[k])}
	}
	b.Extension.Adapters, b.Extension.AdapterMix = groupFigures(plan, b, adapterOf), string(r.sc.AdapterMix)
}

func (adapters) merge(shards []NamedArtifact, _ []artifact.RequestSpan, b *artifact.Benchmark) {
	first := shards[0].Extension
	if len(first.Adapters) > 0 {
		b.Extension.Adapters, b.Extension.AdapterMix = groupFigures(first.Adapters, b, adapterOf), first.AdapterMix
	}
}

// adapterOf is the adapter a span's request named.
func adapterOf(s artifact.RequestSpan) string { return s.Adapter }
