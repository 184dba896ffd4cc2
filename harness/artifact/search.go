package artifact

// Search is what a search for the highest load within a scenario's SLO found
// (anvilbench.search): every probe, the capacity (the highest load that held) and the
// bracket it lies in. The artifact that holds it is the run at the capacity, or at the
// lowest load probed when none held.
type Search struct {
	// Over is the load searched, "concurrency" or "request_rate", up to Max.
	Over string `json:"over"`
	Max  Float  `json:"max"`
	// SLO are the budgets every probe was held to, as written.
	SLO []string `json:"slo"`
	SearchSide
	// Baseline is the same search of a baseline build served beside the engine, its probes
	// interleaved with the engine's; null without one.
	Baseline *SearchSide `json:"baseline,omitempty"`
	// Requests counts the requests of every probe of both sides.
	Requests int `json:"requests"`
	// Stopped says why the search ended before its brackets closed (interrupted, a probe
	// that could not start): its capacity is then only the highest load held so far.
	Stopped string `json:"stopped,omitempty"`
}

// SearchSide is one engine's search.
type SearchSide struct {
	// Capacity is the highest load that held (0 when even the lowest broke); Broke the
	// lowest load that broke, null when none did up to Max (the capacity is then at least
	// Capacity). BrokeFirst names the budgets that broke at Broke.
	Capacity   Float    `json:"capacity"`
	Broke      *Float   `json:"broke"`
	BrokeFirst []string `json:"broke_first"`
	// Unresolved counts the loads whose verdict did not resolve in the repeats a probe is
	// given, decided by their point figures instead.
	Unresolved int           `json:"unresolved"`
	Probes     []SearchProbe `json:"probes"`
}

// SearchProbe is one run of a search at one load.
type SearchProbe struct {
	Load     Float `json:"load"`
	Attempt  int   `json:"attempt"`
	Requests int   `json:"requests"`
	Failed   int   `json:"failed"`
	// Verdict is "held", "broke", "unresolved" (its confidence intervals straddled a
	// limit) or "interrupted" (judging nothing); Decided is what the search took it as.
	Verdict string `json:"verdict"`
	Decided string `json:"decided"`
	// Figures are each SLO budget's figure, with its 95% interval where one exists.
	Figures []SearchFigure `json:"figures"`
	// SLOAttainment and GoodputRPS are the probe's (Benchmark.SLO).
	SLOAttainment *Float `json:"slo_attainment"`
	GoodputRPS    *Float `json:"goodput_rps"`
	ThroughputRPS Float  `json:"throughput_rps"`
}

// SearchFigure is one budget's figure at a probe.
type SearchFigure struct {
	Budget string `json:"budget"`
	Value  *Float `json:"value"`
	Low95  *Float `json:"low95"`
	High95 *Float `json:"high95"`
	// Verdict is "held", "broke" or "unresolved".
	Verdict string `json:"verdict"`
}

// Below is where s's capacity lies below base's: the lowest load at which s broke its SLO
// and base held it at that load or above, both verdicts resolved by their 95% intervals
// (sure); else, when s's lowest broken load is at or below base's capacity by verdicts
// decided on point figures, that load and not sure. lower is false when neither.
func (s SearchSide) Below(base SearchSide) (load float64, sure, lower bool) {
	highest := -1.0
	for _, p := range base.Probes {
		if p.Verdict == "held" {
			highest = max(highest, float64(p.Load))
		}
	}
	for _, p := range s.Probes {
		if l := float64(p.Load); p.Verdict == "broke" && l <= highest && (!sure || l < load) {
			load, sure = l, true
		}
	}
	if sure {
		return load, true, true
	}
	if s.Broke != nil && base.Capacity > 0 && *s.Broke <= base.Capacity {
		return float64(*s.Broke), false, true
	}
	return 0, false, false
}

// capacityFigures are a search's capacity, run-level and higher better: budgets gate it
// (capacity_concurrency>=16).
func capacityFigures() []Figure {
	of := func(over string) func(*Benchmark) (*float64, int) {
		return func(b *Benchmark) (*float64, int) {
			if b.Extension == nil || b.Extension.Search == nil || b.Extension.Search.Over != over {
				return nil, -1
			}
			v := float64(b.Extension.Search.Capacity)
			return &v, 1
		}
	}
	return []Figure{
		{Key: "capacity_concurrency", of: of("concurrency")},
		{Key: "capacity_rps", of: of("request_rate")},
	}
}
