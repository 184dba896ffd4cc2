package report

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// A run's section says what its SLO, search, drift and energy came to, each from the
// artifact's own block.
func TestARunSaysWhatItsCapacityCameTo(t *testing.T) {
	b := synth(synthSpec{name: "configured", conc: 8, ctx: 1000, n: 40, ttftMs: 50, tpotMs: 5})
	x := b.Extension
	x.Budgets, x.SLOAttainment, x.GoodputRPS = []string{"ttft_p95_ms<=80"}, artifact.F(0.75), artifact.F(28.19)
	x.Search = &artifact.Search{Over: "concurrency", Max: 32, SLO: []string{"ttft_p95_ms<=80"}, Requests: 640,
		SearchSide: artifact.SearchSide{Capacity: 8, Broke: artifact.F(9), BrokeFirst: []string{"ttft_p95_ms<=80"}, Probes: make([]artifact.SearchProbe, 8)}}
	x.Steady = []artifact.Drift{{Figure: "tpot_ms", Requests: 292, FromMs: 100, ToMs: 11700, TrendPct: 36.7, TrendP: 3e-14, ShiftPct: 20.9, ShiftP: 5.6e-5}}
	x.GPU = &artifact.GPUTelemetry{Source: "dcgm", EnergyJ: artifact.F(2323.8), EnergySource: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"}
	b.Metrics.OutputTokens = new(2000)
	x.Search.Probes[0] = artifact.SearchProbe{Load: 9, Attempt: 2, Requests: 160, Verdict: "unresolved", Decided: "broke",
		Figures: []artifact.SearchFigure{{Budget: "ttft_p95_ms<=80", Value: artifact.F(81), Low95: artifact.F(70), High95: artifact.F(95)}}}
	_, page, md := render(t, Input{Runs: []Run{{Path: "capacity/configured.json", Benchmark: b}}})
	if !strings.Contains(md, "### configured: capacity") || !strings.Contains(md, "| 9 | 2 | 160 | unresolved, taken as broke | ttft_p95_ms<=80: 81 (70..95) |") {
		t.Errorf("report.md lacks the capacity section or its probes:\n%s", md)
	}
	for _, want := range []string{
		"75% of the requests attempted met every threshold of ttft_p95_ms&lt;=80; goodput 28.19 requests/s",
		"concurrency 8, the highest load within ttft_p95_ms&lt;=80; 9 broke it (ttft_p95_ms&lt;=80); 8 probes, 640 requests",
		"tpot &#43;36.7% (p=3e-14), level shift &#43;20.9% (p=5.6e-05), over 292 requests in 11.6 s",
		"2323.8 J over the measured phase (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION); joules per output token 1.1619",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the run's section lacks %q", want)
		}
	}
}
