package artifact

import "iter"

// Group is one share of a run's requests that a traffic feature named: a LoRA adapter, a
// priority class. It holds its name, its weight and share of the requests as planned (a
// priority class's Priority, the request field it sent), how many requests it had and what
// became of them, and the v1 metrics block of its successful requests (the figures a budget
// or a regression names "tpot_p50_ms[name]"; its throughput is the group's output over the
// whole run's wall clock).
type Group struct {
	Name      string  `json:"name"`
	Weight    float64 `json:"weight"`
	Priority  *int    `json:"priority,omitempty"`
	Share     Float   `json:"share"`
	Requests  int     `json:"requests"`
	Completed int     `json:"completed"`
	Failed    int     `json:"failed"`
	Abandoned int     `json:"abandoned"`
	Metrics   Metrics `json:"metrics"`
}

// groupFields are the extension's blocks of groups (embedded in Extension, at their keys'
// place). Adapters are the LoRA adapters the run spread its requests over, in the order
// configured, each with its figures; AdapterMix how they were spread (weighted, zipf);
// Priorities its priority classes, each with its figures. Each is absent without them.
type groupFields struct {
	Adapters   []Group `json:"adapters,omitempty"`
	AdapterMix string  `json:"adapter_mix,omitempty"`
	Priorities []Group `json:"priorities,omitempty"`
}

// groupBlock is one block of groups, defined once: where the extension holds its groups,
// what its groups are called, which group a request belongs to, and what identity the
// block gives the workload. A new block of groups is a row here and its fields.
type groupBlock struct {
	// key is the block's JSON key, and its workload-identity row's ("anvilbench.adapters").
	key string
	// title is what one group is ("adapter"), for reports.
	title string
	// groups are the block's groups in ext; member the group a request's span names ("" none).
	groups func(ext *Extension) []Group
	member func(s RequestSpan) string
	// identity is the block's part of the workload beyond its groups' names and weights
	// (how requests were spread over them).
	identity func(ext *Extension) []any
	// models reports whether its groups are models the requests named.
	models bool
}

var groupBlocks = []groupBlock{
	{key: "anvilbench.adapters", title: "adapter", models: true,
		groups:   func(x *Extension) []Group { return x.Adapters },
		member:   func(s RequestSpan) string { return s.Adapter },
		identity: func(x *Extension) []any { return []any{x.AdapterMix} }},
	{key: "anvilbench.priorities", title: "priority class",
		groups: func(x *Extension) []Group { return x.Priorities },
		member: func(s RequestSpan) string { return s.PriorityClass },
		identity: func(x *Extension) []any {
			var p []any
			for _, g := range x.Priorities {
				p = append(p, g.Priority)
			}
			return p
		}},
}

// Groups yields each block of groups the run has, by what one group is ("adapter",
// "priority class"), in the order the blocks are defined.
func (b *Benchmark) Groups() iter.Seq2[string, []Group] {
	return func(yield func(string, []Group) bool) {
		if b.Extension == nil {
			return
		}
		for _, g := range groupBlocks {
			if gs := g.groups(b.Extension); len(gs) > 0 && !yield(g.title, gs) {
				return
			}
		}
	}
}

// PlannedModels are the groups whose names the run's requests sent in place of its model
// (its adapters); nil when every request named the run's model.
func (b *Benchmark) PlannedModels() []Group {
	var out []Group
	for _, g := range groupBlocks {
		if !g.models || b.Extension == nil {
			continue
		}
		out = append(out, g.groups(b.Extension)...)
	}
	return out
}

// group is the run's record of the group named name, and which requests belong to it; nil
// when it has none.
func (b *Benchmark) group(name string) (*Group, func(RequestSpan) bool) {
	if b.Extension == nil {
		return nil, nil
	}
	for _, g := range groupBlocks {
		gs := g.groups(b.Extension)
		for k := range gs {
			if gs[k].Name == name {
				return &gs[k], func(s RequestSpan) bool { return g.member(s) == name }
			}
		}
	}
	return nil, nil
}

// groupIdentity is the identity row of each block of groups: its groups' names and
// weights, and the block's own part; "null" without it.
func groupIdentity() []identityField {
	out := make([]identityField, len(groupBlocks))
	for k, g := range groupBlocks {
		out[k] = identityField{g.key, func(a *Benchmark) (string, bool) {
			if a.Extension == nil || len(g.groups(a.Extension)) == 0 {
				return "null", true
			}
			var plan []any
			for _, x := range g.groups(a.Extension) {
				plan = append(plan, x.Name, x.Weight)
			}
			return text(append([]any{plan}, g.identity(a.Extension)...)), true
		}}
	}
	return out
}
