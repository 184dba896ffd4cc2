package capacity

import (
	"context"
	"fmt"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// priorityClasses is the scenario's priority classes (embedded in Scenario).
type priorityClasses struct {
	// Priorities spreads the requests over priority classes, "interactive:1:0,batch:3:10"
	// (name:weight:priority): each class gets its share of the requests exactly (largest
	// remainder, in an order ContextSeed shuffles), and each request sends its class's
	// priority (vLLM's and SGLang's request field; lower is served first, by an engine
	// that schedules by priority). The artifact holds each class's figures
	// (anvilbench.priorities), and a budget or regression names one class's figure as
	// "ttft_p95_ms[interactive]".
	Priorities workload.Classes `key:"priorities"`
}

func init() { registerFeature(func() feature { return &priorities{} }, 40) }

// priorities is the feature of a run spread over priority classes. of[i] is the class of
// request i of a block (an index into the scenario's Priorities).
type priorities struct {
	noFeatureHooks
	of []int
}

func (priorities) on(sc *Scenario) bool { return len(sc.Priorities) > 0 }
func (priorities) off(sc *Scenario)     { sc.priorityClasses = priorityClasses{} }

func (priorities) validate(sc *Scenario, k kind, add addProblem) {
	if !sc.API.supports().Priority {
		add("Priorities", sc.Priorities.String(), "needs %s "+apisWith(func(s stream.Support) bool { return s.Priority })+
			": "+sc.API.Name()+" has no request priority", "API")
	}
	independentOnly(k, add, "Priorities", sc.Priorities.String(), "a trace's lines and a session's turns keep their order")
	// A class's figures are named as an adapter's are ("ttft_p95_ms[name]"): one name each.
	for _, m := range sc.featureModels() {
		if slices.ContainsFunc(sc.Priorities, func(c workload.Class) bool { return c.Name == m }) {
			add("Priorities", sc.Priorities.String(), fmt.Sprintf("names %q, which a request's model names too: its figures would name either", m))
		}
	}
}

// prepare spreads a block's requests over the classes, drawn apart from any other spread.
func (p *priorities) prepare(_ context.Context, r *run) error {
	p.of = workload.Spread(r.sc.Priorities.Shares(), len(r.plan), r.sc.ContextSeed, 0x9e10)
	return nil
}

// class is request i's class.
func (p *priorities) class(r *run, i int) workload.Class { return r.sc.Priorities[p.of[r.local(i)]] }

func (p *priorities) body(r *run, i int, req *stream.ChatRequest) error {
	req.Priority = new(p.class(r, i).Priority)
	return nil
}

func (p *priorities) span(r *run, i int, _ *outcome, s *artifact.RequestSpan) {
	s.PriorityClass = p.class(r, i).Name
}

// record writes anvilbench.priorities: each class's plan, what became of its requests and
// the v1 metrics of its successful ones.
func (p *priorities) record(_ context.Context, r *run, b *artifact.Benchmark) {
	shares := r.sc.Priorities.Shares()
	plan := make([]artifact.Group, len(r.sc.Priorities))
	for k, c := range r.sc.Priorities {
		plan[k] = artifact.Group{Name: c.Name, Weight: c.Weight, Priority: new(c.Priority), Share: artifact.Float(shares[k])}
	}
	b.Extension.Priorities = groupFigures(plan, b, classOf)
}

func (priorities) merge(shards []NamedArtifact, _ []artifact.RequestSpan, b *artifact.Benchmark) {
	if plan := shards[0].Extension.Priorities; len(plan) > 0 {
		b.Extension.Priorities = groupFigures(plan, b, classOf)
	}
}

// classOf is the priority class a span's request was sent in.
func classOf(s artifact.RequestSpan) string { return s.PriorityClass }
