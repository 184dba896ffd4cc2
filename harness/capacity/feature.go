package capacity

import (
	"context"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
)

// A feature is a per-request traffic feature: images, LoRA adapters, requests the client
// leaves, priority classes. Each is one type in its own file that registers itself
// (registerFeature, from init) and holds what a run asks of it: its configuration (a struct
// embedded in Scenario, its fields' keys in their tags), its validation, what it asks the
// engine before any request, its plan per request, what it adds to a request, what it
// notes of each outcome, its artifact block and how merged shards keep it. The runner,
// assemble, merge and validation iterate the features and name none.
//
// A run holds a fresh value of each feature its scenario uses (from the constructor its
// file registered), so a feature keeps its run's state in itself. Methods a feature has
// nothing for come from noFeatureHooks. A feature's gate check, where it has one, is in
// harness/gate, a floor above: the gate judges artifacts and needs no runner.
type feature interface {
	// on reports whether sc uses the feature.
	on(sc *Scenario) bool
	// validate adds what is wrong with sc's use of it, for a scenario of kind k; only
	// called when on.
	validate(sc *Scenario, k kind, add addProblem)
	// models are the model names its requests send in place of the scenario's (a GET
	// /models listing them beside the base model does not make the model ambiguous).
	models(sc *Scenario) []string
	// off takes the feature out of sc.
	off(sc *Scenario)
	// prepare asks the engine what it must before any request and plans each request of a
	// block (r.plan is planned, r.prompts not yet).
	prepare(ctx context.Context, r *run) error
	// begin starts what it does while a block's requests (r.indices) are sent; the
	// returned func stops it.
	begin(ctx context.Context, r *run) (stop func())
	// body adds request i's share to its body: in the warm-up too.
	body(r *run, i int, req *stream.ChatRequest) error
	// call adds request i's share to how it is streamed: measured requests only.
	call(r *run, i int, c *stream.Call)
	// span notes request i's share on its timeline span, once the blocks are gathered.
	span(r *run, i int, o *outcome, s *artifact.RequestSpan)
	// settle runs after the measured phase, before the engine's metrics are read for
	// the last time; record after, and writes its block.
	settle(ctx context.Context, r *run, b *artifact.Benchmark)
	record(ctx context.Context, r *run, b *artifact.Benchmark)
	// merge writes its block of a run merged from shards (spans the merged timeline),
	// from the shards' own; nothing when they have none.
	merge(shards []NamedArtifact, spans []artifact.RequestSpan, b *artifact.Benchmark)
}

// noFeatureHooks gives a feature the hooks it has nothing for.
type noFeatureHooks struct{}

func (noFeatureHooks) validate(*Scenario, kind, addProblem)                               {}
func (noFeatureHooks) models(*Scenario) []string                                          { return nil }
func (noFeatureHooks) prepare(context.Context, *run) error                                { return nil }
func (noFeatureHooks) begin(context.Context, *run) func()                                 { return func() {} }
func (noFeatureHooks) body(*run, int, *stream.ChatRequest) error                          { return nil }
func (noFeatureHooks) call(*run, int, *stream.Call)                                       {}
func (noFeatureHooks) span(*run, int, *outcome, *artifact.RequestSpan)                    {}
func (noFeatureHooks) settle(context.Context, *run, *artifact.Benchmark)                  {}
func (noFeatureHooks) record(context.Context, *run, *artifact.Benchmark)                  {}
func (noFeatureHooks) merge([]NamedArtifact, []artifact.RequestSpan, *artifact.Benchmark) {}

// features are the registered features, in the order their files rank them.
var features []registeredFeature

type registeredFeature struct {
	f     feature
	fresh func() feature
	rank  int
}

// registerFeature adds a feature by its constructor; each feature's file calls it from
// init, with its rank (the order a run asks them, and a merged artifact's blocks are
// written).
func registerFeature(fresh func() feature, rank int) {
	features = append(features, registeredFeature{fresh(), fresh, rank})
	slices.SortFunc(features, func(a, b registeredFeature) int { return a.rank - b.rank })
}

// featuresOf are fresh values of the features sc uses, for one run.
func featuresOf(sc *Scenario) []feature {
	var out []feature
	for _, r := range features {
		if r.f.on(sc) {
			out = append(out, r.fresh())
		}
	}
	return out
}

// featureProblems are the problems of sc's use of its features.
func (sc Scenario) featureProblems(k kind) []error {
	var errs []error
	add := problemsInto(&errs)
	for _, r := range features {
		if r.f.on(&sc) {
			r.f.validate(&sc, k, add)
		}
	}
	return errs
}

// featureModels are the model names sc's features send in place of its model.
func (sc *Scenario) featureModels() []string {
	var out []string
	for _, r := range features {
		if r.f.on(sc) {
			out = append(out, r.f.models(sc)...)
		}
	}
	return out
}

// Plain is the scenario without its traffic features (images, LoRA adapters, requests
// left, priority classes): for a run that asks the engine one thing at a time.
func (sc Scenario) Plain() Scenario {
	for _, r := range features {
		r.f.off(&sc)
	}
	return sc
}

// mergeFeatures writes every feature's block of a merged run.
func mergeFeatures(shards []NamedArtifact, spans []artifact.RequestSpan, b *artifact.Benchmark) {
	for _, r := range features {
		r.f.merge(shards, spans, b)
	}
}

// independentOnly adds, for a scenario whose kind is not independent requests, that field
// needs them, and why.
func independentOnly(k kind, add addProblem, field string, value any, why string) {
	if _, independent := k.(*independent); !independent {
		add(field, value, "needs independent requests: "+why)
	}
}

// beginFeatures starts what the run's features do while a block's requests are sent; the
// returned func stops them.
func (r *run) beginFeatures(ctx context.Context) (stop func()) {
	stops := make([]func(), len(r.features))
	for k, f := range r.features {
		stops[k] = f.begin(ctx, r)
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
