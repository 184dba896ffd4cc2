package report

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// withBlocks gives b k blocks of its requests, a minute apart, with tpot p50 values tpot
// and ttft p50 values ttft.
func withBlocks(b *artifact.Benchmark, tpot, ttft []float64) {
	k := len(tpot)
	bl := &artifact.Blocks{Repeats: k, RequestsPerBlock: b.Requests / k, Figures: map[string]artifact.BlockFigures{}}
	fig := func(vals []float64) artifact.BlockFigures {
		f := artifact.BlockFigures{}
		for _, v := range vals {
			f.Values = append(f.Values, artifact.F(v))
		}
		f.Mean, f.SD, f.CV, f.CI95Low, f.CI95High = artifact.F(5.5), artifact.F(0.5), artifact.F(0.09), artifact.F(4.7), artifact.F(6.3)
		return f
	}
	for j := range k {
		bl.Blocks = append(bl.Blocks, artifact.Block{Index: j, StartOffsetMs: artifact.Float(60000 * float64(j)), DurationMs: 50000})
	}
	bl.Figures["tpot_p50_ms"], bl.Figures["ttft_p50_ms"] = fig(tpot), fig(ttft)
	b.Extension.Blocks = bl
}

// A run of repeated blocks shows them in a table and a chart; an interleaved run draws both
// builds' blocks in one chart and names the baseline build's run; a run judged against a
// history draws it with its levels and this run after it.
func TestBlocksInterleavingAndHistoryAreShown(t *testing.T) {
	t.Parallel()
	in := fixture()
	cur := in.Runs[0].Benchmark
	withBlocks(cur, []float64{5, 5.5, 6, 6.5}, []float64{50, 51, 52, 53})
	cur.Extension.Warmup = &artifact.Warmup{Requests: 32, DurationMs: 4100, LastRequests: 8, LastTPOTP50Ms: artifact.F(5.1)}
	cur.Extension.Interleaved = &artifact.Interleaved{Role: artifact.RoleCurrent, Pairing: "p1", Order: "ABBAABBA", PartnerBaseURL: "http://main-build:8000/v1", PartnerModel: "m"}
	base := synth(synthSpec{name: "configured", url: "http://main-build:8000/v1", conc: 4, ctx: 2048, n: 40, ttftMs: 50, tpotMs: 6})
	withBlocks(base, []float64{4.9, 5.4, 5.9, 6.4}, []float64{49, 50, 51, 52})
	base.Extension.Interleaved = &artifact.Interleaved{Role: artifact.RoleBaseline, Pairing: "p1", Order: "ABBAABBA", PartnerBaseURL: endpointA, PartnerModel: "m"}
	in.Runs = append(in.Runs, Run{Path: "capacity/configured-baseline.json", Benchmark: base})

	history := synth(synthSpec{name: "long-context", conc: 2, ctx: 8000, n: 8, ttftMs: 300, tpotMs: 7})
	history.Extension.Baseline = &artifact.BaselineRef{Design: artifact.DesignHistory, Source: "main-runs/", Metrics: map[string]float64{"tpot_p50_ms": 7.7}}
	for i, v := range []float64{7, 7.1, 6.9, 7.7, 7.6, 7.8} {
		level := 7.0
		if i >= 3 {
			level = 7.7
		}
		history.Extension.Baseline.History = append(history.Extension.Baseline.History, artifact.HistoryRun{RunID: "main-" + string(rune('a'+i)),
			Metrics: map[string]float64{"tpot_p50_ms": v, "ttft_p50_ms": 300}, Levels: map[string]float64{"tpot_p50_ms": level, "ttft_p50_ms": 300}})
	}
	in.Runs = append(in.Runs, Run{Path: "capacity/long-context.json", Benchmark: history})

	m, page, md := render(t, in)
	var names []string
	for _, s := range m.Scenarios {
		names = append(names, s.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "configured,configured (baseline build)") {
		t.Errorf("scenarios %v", names)
	}
	// The baseline build is shown beside its partner, not counted as the endpoint under test.
	for _, f := range m.UnderTest {
		if (f.Label == "endpoint" && strings.Contains(f.Value, "main-build")) || (f.Label == "scenarios" && f.Value != "13") {
			t.Errorf("under test: %s %s", f.Label, f.Value)
		}
	}
	charts := svgs(t, page)
	var blocks, trend string
	for id, svg := range charts {
		switch {
		case strings.HasPrefix(id, "chart-blocks-configured-baseline"):
			t.Errorf("the baseline build's run draws its blocks again: %s", id)
		case strings.HasPrefix(id, "chart-blocks-"):
			blocks = svg
		case strings.HasPrefix(id, "chart-trend-"):
			trend = svg
		}
	}
	got := seriesOf(t, blocks)
	if len(got) != 4 || got[0].name != "tpot p50, this build" || got[1].name != "tpot p50, baseline build" || len(got[0].xs) != 4 || got[0].xs[3] != 3 {
		t.Errorf("blocks chart: %+v", got)
	}
	if got := seriesOf(t, trend); len(got) != 4 || len(got[0].xs) != 7 || got[0].xs[6] != 7 {
		t.Errorf("trend chart: %+v", got)
	}
	for _, want := range []string{"6 earlier runs (main-runs/), then this run", "tpot p50 changed level at run 4 (&#43;10.0%).",
		"<tr><td>4</td><td class=\"num\">53.00 ms</td><td class=\"num\">6.50 ms</td></tr>", "<tr class=\"summary\"><td>95% CI of the mean</td>", "blocks in the order ABBAABBA (A the baseline build)", "32 requests (0 failed) in 4.10 s, excluded from every figure; its last 8: TPOT p50 5.10 ms"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, want := range []string{"### configured: 4 blocks", "| tpot p50 | 5.00 ms | 5.50 ms | 6.00 ms | 6.50 ms | 5.50 ms | 0.500 ms | 9% | 4.70 ms – 6.30 ms |",
		"### long-context against a history of 6 runs", "| tpot p50 | 7.00 ms | 7.70 ms | 7.07 ms | run 4 (+10.0%) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}
