package artifact

import "testing"

// A budget on a latency percentile sets every request its threshold: slo_attainment counts
// the requests attempted that completed within all of them (a failed or left one misses),
// goodput_rps those per second of the measured phase; budgets on other figures, on a group
// or from below set none.
func TestTheBudgetsSetEachRequestItsSLO(t *testing.T) {
	b := &Benchmark{Requests: 5, WallClockMs: 2000, RequestTimings: []RequestTiming{
		{RequestIndex: 0, TTFTMs: 50, TPOTMs: F(5)},
		{RequestIndex: 1, TTFTMs: 80, TPOTMs: F(9)}, // at the TTFT limit, over the TPOT one
		{RequestIndex: 2, TTFTMs: 80},               // no TPOT (one token): not held against it
		{RequestIndex: 4, TTFTMs: 81, TPOTMs: F(1)},
	}, Failures: []Failure{{RequestIndex: 3}}, Extension: &Extension{Timeline: []RequestSpan{
		{RequestIndex: 0, Outcome: "ok"}, {RequestIndex: 1, Outcome: "ok"}, {RequestIndex: 2, Outcome: "ok"},
		{RequestIndex: 3, Outcome: "failed"}, {RequestIndex: 4, Outcome: "ok"},
	}}}
	b.Extension.Budgets = []string{"ttft_p95_ms<=80@upper95", "tpot_p50_ms<8, throughput_tok_s>=10", "ttft_p50_ms[lora-a]<=1"}
	a, g := b.SLO()
	if a == nil || g == nil || float64(*a) != 0.4 || float64(*g) != 1 {
		t.Fatalf("attainment %v, goodput %v; want 0.4 (2 of 5) and 1 per second", a, g)
	}
	f, ok := LookupFigure("slo_attainment")
	v, _ := f.Of(b)
	if !ok || v == nil || *v != 0.4 || f.HigherIsWorse || f.Label() != "slo_attainment" {
		t.Errorf("slo_attainment: %v, %+v", v, f)
	}
	b.Extension.Budgets = []string{"throughput_tok_s>=10"}
	if a, g := b.SLO(); a != nil || g != nil {
		t.Errorf("no threshold: attainment %v, goodput %v", a, g)
	}
}
