package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

func TestTheVerdictComesFirst(t *testing.T) {
	_, page, md := render(t, fixture())
	verdict := strings.Index(page, `<section id="verdict" class="fail"`)
	underTest, scenarios := strings.Index(page, `<dl id="under-test"`), strings.Index(page, `<section id="scenarios">`)
	if verdict < 0 || underTest < verdict || scenarios < underTest {
		t.Fatalf("the page does not open with the verdict, then the endpoint, then the scenarios (at %d, %d, %d)", verdict, underTest, scenarios)
	}
	head := page[verdict:underTest]
	for _, want := range []string{`<span class="word">FAIL</span>1 check of 7 failed`, "budget broken",
		"configured scenario meets the budget tpot_p95_ms&lt;=5", "tpot p95 6.12ms exceeds budget 5.00ms over 40 samples"} {
		if !strings.Contains(head, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, head)
		}
	}
	first, _, _ := strings.Cut(md, "\n")
	if want := "# ❌ FAIL (budget broken): configured scenario meets the budget tpot_p95_ms<=5: tpot p95 6.12ms exceeds budget 5.00ms over 40 samples"; first != want {
		t.Errorf("report.md's first line\n%s\nwant\n%s", first, want)
	}
	if !strings.Contains(page, "<title>FAIL: nightly</title>") {
		t.Error("the page's title does not carry the verdict")
	}
}

func TestTheVerdictOfEachGateOutcome(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(*Input)
		first string
	}{
		{"gate passed", func(in *Input) {
			in.Gate = &gate.Summary{RunID: "run-fixture", Suites: []gate.SuiteState{{Name: "capacity", State: gate.SuiteFinished, Checks: 13}}}
			in.Gate.Judge()
		}, "# ✅ PASS: 13 checks held over 12 scenarios"},
		{"most severe first", func(in *Input) {
			in.Gate.Failed = append(in.Gate.Failed, gate.Failure{Check: "configured scenario completes every request",
				Message: "2 of 40 requests failed: request_error x2", Outcome: gate.RunFailed})
			in.Gate.Judge()
		}, "# ❌ FAIL (run failed): configured scenario completes every request: 2 of 40 requests failed: request_error x2 (and 1 more)"},
		{"budgets judged without a gate", func(in *Input) {
			in.Gate = nil
			in.Budgets, _ = budget.Parse("tpot_p50_ms<=5.5")
		}, "# ❌ FAIL (budget broken): configured meets the budget tpot_p50_ms<=5.5: tpot p50 "},
		{"nothing gated", func(in *Input) { in.Gate = nil }, "# ➖ NOT GATED: 12 scenarios measured, not judged"},
		{"nothing judged", func(in *Input) {
			in.Gate = &gate.Summary{RunID: "run-fixture", Suites: []gate.SuiteState{{Name: "capacity", State: gate.SuiteFinished}}}
			in.Gate.Judge()
		}, "# ❌ FAIL (run failed): the run: no check ran"},
		{"a suite that never reported", func(in *Input) {
			in.Gate.Suites = append(in.Gate.Suites, gate.SuiteState{Name: "curves", State: gate.SuiteRunning, StartedAt: "2026-12-03T10:00:00.000Z"})
			in.Gate.Judge()
		}, "# ❌ FAIL (run failed): suite curves: suite curves started at 2026-12-03T10:00:00.000Z and has not finished"},
		{"a run with no verdict of its own", func(in *Input) {
			in.Gate, in.RunID = nil, "run-2"
		}, "# ❌ FAIL (run failed): the run: gate.json holds no verdict of run run-2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fixture()
			c.edit(&in)
			_, _, md := render(t, in)
			if first, _, _ := strings.Cut(md, "\n"); !strings.HasPrefix(first, c.first) {
				t.Errorf("first line\n%s\nwant a line starting\n%s", first, c.first)
			}
		})
	}
}

func TestTheHeaderNamesOnlyTheEndpointUnderTest(t *testing.T) {
	m, page, md := render(t, fixture())
	header := page[strings.Index(page, `<dl id="under-test"`):strings.Index(page, `</header>`)]
	for _, want := range []string{"<dt>endpoint</dt><dd>" + endpointA + "</dd>", "<dt>model</dt><dd>model-under-test</dd>",
		"<dt>engine</dt><dd>engine-x</dd>", "<dt>gpu</dt><dd>H100</dd>", "<dt>scenarios</dt><dd>12</dd>"} {
		if !strings.Contains(header, want) {
			t.Errorf("the header lacks %s:\n%s", want, header)
		}
	}
	for _, private := range []string{privateA, privateB} {
		if strings.Contains(header, private) || strings.Contains(md[:strings.Index(md, "## Scenarios")], private) {
			t.Errorf("the header names the private engine %s", private)
		}
	}
	if len(m.Scenarios) != 12 || len(m.SelfTests) != 3 {
		t.Errorf("%d scenarios and %d self-tests, want 12 and 3", len(m.Scenarios), len(m.SelfTests))
	}
}

func TestScenariosAreInNumericOrder(t *testing.T) {
	m, page, _ := render(t, fixture())
	var names []string
	for _, r := range m.Scenarios {
		names = append(names, r.Name)
	}
	want := "configured concurrency-1 concurrency-2 concurrency-4 concurrency-8 concurrency-16 concurrency-32 concurrency-64 context-1k context-8k context-32k context-64k"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("scenarios in the order\n%s\nwant\n%s", got, want)
	}
	table := page[strings.Index(page, `<table class="scenarios">`):]
	table = table[:strings.Index(table, "</table>")]
	if got := regexp.MustCompile(`<a href="#run-[^"]*">([^<]*)</a>`).FindAllStringSubmatch(table, -1); len(got) != 12 || got[5][1] != "concurrency-16" {
		t.Errorf("the scenarios table is not in numeric order: %q", got)
	}
	for _, p := range [][2]string{{"context-8k", "context-32k"}, {"concurrency-9", "concurrency-10"}, {"x10", "x10a"}, {"x9", "x10"}, {"a007", "a8"}, {"a", "b"}} {
		if naturalLess(p[0], p[1]) >= 0 || naturalLess(p[1], p[0]) <= 0 {
			t.Errorf("naturalLess does not order %q before %q", p[0], p[1])
		}
	}
}

func TestBaselineDeltas(t *testing.T) {
	m, page, md := render(t, fixture())
	configured := m.Scenarios[0]
	if configured.Baseline != "baselines/main.json" {
		t.Fatalf("baseline %q", configured.Baseline)
	}
	// tpot p50 6.06 ms against 5 ms: +21.2%, worse; ttft p50 52 ms against 50: +4.0%
	tpot := configured.Figures[2]
	if tpot.Delta != "+21.2%" || tpot.DeltaClass != "worse" {
		t.Errorf("tpot p50 delta %q (%s), want +21.2%% worse", tpot.Delta, tpot.DeltaClass)
	}
	// ttft p50 +8.0%: worse than half the default 5% gate; within half a 20% gate, the
	// regression rule's own threshold, the same.
	if ttft := configured.Figures[0]; ttft.Delta != "+8.0%" || ttft.DeltaClass != "worse" {
		t.Errorf("ttft p50 delta %q (%s) at the default gate, want +8.0%% worse", ttft.Delta, ttft.DeltaClass)
	}
	wide := fixture()
	wide.Runs[0].Benchmark.Extension.Baseline.GateBy = 0.20
	if m, _, _ := render(t, wide); m.Scenarios[0].Figures[0].DeltaClass != "same" {
		t.Errorf("ttft p50 +8.0%% under a 20%% gate: %s, want same", m.Scenarios[0].Figures[0].DeltaClass)
	}
	if e2e := configured.Figures[4]; e2e.Delta != "" {
		t.Errorf("e2e p50 has a delta %q without a baseline figure", e2e.Delta)
	}
	if !strings.Contains(page, `<span class="delta worse" title="tpot p50: 6.06 ms now, 5.00 ms in the baseline">&#43;21.2% vs baseline</span>`) {
		t.Error("the scenarios table does not show the tpot delta")
	}
	if !strings.Contains(md, "**6.06 ms (+21.2%)**") {
		t.Error("report.md does not show the tpot delta in bold")
	}
	// a baseline run's artifact at the same path takes precedence
	in := fixture()
	base := synth(synthSpec{name: "configured", conc: 4, ctx: 2048, n: 40, ttftMs: 50, tpotMs: 6.06 / 1.02})
	in.Baseline = []Run{{Path: "capacity/configured.json", Benchmark: base}}
	m, _, _ = render(t, in)
	if got := m.Scenarios[0].Figures[2]; got.Delta != "+1.0%" || got.DeltaClass != "same" || !strings.HasPrefix(m.Scenarios[0].Baseline, "the baseline run's") {
		t.Errorf("against the baseline run: %+v, %q", got, m.Scenarios[0].Baseline)
	}
}

func TestChartsDrawOneLinePerComparableSet(t *testing.T) {
	in := fixture()
	in.Runs = append(in.Runs, ladder(endpointB, 5, 4, 1, 2)...) // the same ladder against another engine
	for i := range in.Runs[len(in.Runs)-3:] {
		r := &in.Runs[len(in.Runs)-3+i]
		r.Path = "engine-b/" + strings.TrimPrefix(r.Path, "curves/")
	}
	in.Baseline = ladder(endpointA, 3, 1, 2, 4, 8)
	in.Budgets, _ = budget.Parse("tpot_p95_ms<=9")
	_, page, _ := render(t, in)
	charts := svgs(t, page)
	if !strings.Contains(page, "<th>endpoint</th>") || !strings.Contains(page, `<td class="host">engine-b.example:8000</td>`) {
		t.Error("with two endpoints the scenarios table does not name each run's")
	}

	want := map[string][]string{
		"chart-concurrency-tpot":       {"concurrency-N · model-under-test @ engine-a.example:8000", "concurrency-N · model-under-test @ engine-a.example:8000 (baseline)", "concurrency-N · model-under-test @ engine-b.example:8000"},
		"chart-concurrency-ttft":       nil,
		"chart-concurrency-throughput": nil,
		"chart-context-ttft":           {"context-Nk · model-under-test @ engine-a.example:8000"},
	}
	for id, names := range want {
		svg, ok := charts[id]
		if !ok {
			t.Errorf("no chart %s", id)
			continue
		}
		series := seriesOf(t, svg)
		var got []string
		for _, s := range series {
			got = append(got, s.name)
			if len(s.sources) < 2 {
				t.Errorf("%s: series %q has %d points", id, s.name, len(s.sources))
			}
			if len(slices.Compact(slices.Clone(s.sources))) != 1 {
				t.Errorf("%s: series %q joins %q", id, s.name, slices.Compact(s.sources))
			}
			if !slices.IsSorted(s.xs) || len(slices.Compact(slices.Clone(s.xs))) != len(s.xs) {
				t.Errorf("%s: series %q is not in increasing x: %v", id, s.name, s.xs)
			}
			for _, src := range s.sources {
				if src == privateA || src == privateB {
					t.Errorf("%s: a self-test's point in %q", id, s.name)
				}
			}
		}
		if names != nil && !slices.Equal(got, names) {
			t.Errorf("%s: series %q, want %q", id, got, names)
		}
	}
	if tpot := charts["chart-concurrency-tpot"]; !strings.Contains(tpot, "budget tpot_p95_ms&lt;=9") || !strings.Contains(tpot, "tpot p95 (ms)") {
		t.Error("the TPOT chart does not plot the budgeted p95 with its budget line")
	}
	if xs := seriesOf(t, charts["chart-context-ttft"])[0].xs; fmt.Sprint(xs) != "[1000 8000 32000 64000]" {
		t.Errorf("the context ladder's x: %v", xs)
	}
	if _, ok := charts["chart-context-tpot"]; ok {
		t.Error("a context chart of a figure the context ladder does not chart")
	}
}

func TestAChartWithNothingComparableIsLeftOut(t *testing.T) {
	in := fixture()
	in.Runs = in.Runs[:1] // the configured scenario alone
	in.Runs = append(in.Runs, Run{Path: "curves/open-loop-20rps.json", Benchmark: synth(synthSpec{name: "open-loop-20rps", conc: 8, ctx: 2048, n: 20, ttftMs: 40, tpotMs: 4})})
	in.Runs[1].Extension.Arrival.Model = artifact.ArrivalPoisson
	in.Runs = append(in.Runs, Run{Path: "curves/open-loop-40rps.json", Benchmark: synth(synthSpec{name: "open-loop-40rps", conc: 16, ctx: 2048, n: 20, ttftMs: 40, tpotMs: 4})})
	in.Runs[2].Extension.Arrival.Model = artifact.ArrivalPoisson
	m, page, _ := render(t, in)
	if len(m.Charts) != 0 || strings.Contains(page, `<section id="charts">`) {
		t.Errorf("charts drawn from runs of no ladder: %d", len(m.Charts))
	}
	for id := range svgs(t, page) {
		if strings.HasPrefix(id, "chart-concurrency") || strings.HasPrefix(id, "chart-context") {
			t.Errorf("chart %s drawn", id)
		}
	}
}

func TestSelfTestsAreCollapsedAndApart(t *testing.T) {
	_, page, md := render(t, fixture())
	i := strings.Index(page, `<details id="self-tests">`)
	if i < 0 {
		t.Fatal("no collapsed self-tests section")
	}
	self := page[i:strings.LastIndex(page, "</details>")]
	if !strings.Contains(self, "Self-tests of the harness (3 runs against private engines)") {
		t.Error("the self-tests section does not say what it holds")
	}
	for _, id := range []string{"run-capacity-gate-unchanged-1", "run-curves-knee", "chart-search-1"} {
		if !strings.Contains(self, `id="`+id+`"`) {
			t.Errorf("%s is not in the self-tests section", id)
		}
		if strings.Count(page, `id="`+id+`"`) != 1 {
			t.Errorf("%s appears outside the self-tests section", id)
		}
	}
	before := page[:i]
	for _, name := range []string{"gate-unchanged-1", "curves/knee", privateB} {
		if strings.Contains(before, name) {
			t.Errorf("%s appears before the self-tests section", name)
		}
	}
	if !strings.Contains(self, "Capacity: concurrency 9, the highest load held; 10 broke it (tpot_p95_ms&lt;=8); 8 probes, 134 requests.") {
		t.Error("the search's caption does not give the capacity")
	}
	knee := svgs(t, page)["chart-search-1"]
	if n := strings.Count(knee, `stroke="#cf222e" stroke-width="2"`); n != 3 {
		t.Errorf("the search's chart marks %d broken probes hollow, want 3 (10, 12, 16)", n)
	}
	if !strings.Contains(knee, "SLO tpot_p95_ms&lt;=8") || !strings.Contains(knee, ">capacity 9</text>") {
		t.Error("the search's chart lacks its SLO line or its capacity mark")
	}
	if !strings.Contains(md, "<details><summary>Self-tests of the harness: 3 runs against private engines</summary>") {
		t.Error("report.md does not fold the self-tests away")
	}
}

func TestEachRunHasItsSection(t *testing.T) {
	in := fixture()
	in.Runs[1].Benchmark = synth(synthSpec{name: "concurrency-16", conc: 16, ctx: 2048, n: 32, failEvery: 8, ttftMs: 40, tpotMs: 5})
	in.Runs[1].Extension.ClientOverhead = artifact.ClientOverhead{DispatchDelayP50Ms: artifact.F(0.05), EventLagMaxUs: artifact.F(31), CPUSharePct: artifact.F(12.5), GCCycles: new(0)}
	in.Runs[1].Extension.Clock = artifact.Clock{Source: "kernel-receive", KernelStampedReads: 1200}
	in.Runs[1].Extension.ITL = artifact.ITLSummary{Basis: artifact.ITLPerChunk, Samples: 62, SharedReadGaps: 1, P50Ms: artifact.F(20), P99Ms: artifact.F(20.4),
		TokensPerChunk: artifact.F(4), Note: "chunks carried 4.0 tokens on average"}
	in.Runs[1].Extension.PromptNonce = "qwertyui"
	in.Runs[1].Extension.ServedModels = map[string]int{"model-under-test": 20, "model-small": 12}
	in.Runs[1].Extension.Send = artifact.SendSplit{Source: artifact.SendKernelTransmit, Stamped: 28,
		ClientSendMs: &artifact.Percentiles{Samples: 28, P50: 0.012, P95: 0.03, P99: 0.05, Max: 0.08},
		ServerTTFTMs: &artifact.Percentiles{Samples: 28, P50: 39.9, P95: 41, P99: 42, Max: 43}}
	in.Runs[1].Metrics.PrefixCacheHitAvg = artifact.F(0.004)
	_, page, md := render(t, in)
	charts := svgs(t, page)
	art := page[strings.Index(page, `<article class="run" id="run-curves-concurrency-16">`):]
	art = art[:strings.Index(art, "</article>")]
	for _, want := range []string{`<span class="badge">4 failed</span>`, `<svg id="timeline-run-curves-concurrency-16"`,
		`<table class="distributions">`, `<table class="failures">`, "HTTP 503: engine overloaded",
		"The client's own overhead and timing clock", "kernel-receive (1200 reads kernel-stamped, 0 user-space)", "12.5%",
		"4 tokens per chunk; gap p50 20.00 ms, p99 20.40 ms over 62 gaps (per-chunk); 1 chunk gap fell inside one read",
		"served model", "model-under-test: 20 responses; model-small: 12 responses (as the responses named it)", "tpot caveat", "chunks carried 4.0 tokens on average",
		"0.4% of prompt tokens served from the engine&#39;s cache on average (unique prompts, nonce qwertyui)",
		"kernel-transmit (28 requests stamped)", "<td>ttft: client send</td><td class=\"num\">28</td><td class=\"num\">—</td><td class=\"num\">0.012 ms",
		"<td>ttft: after the request left</td><td class=\"num\">28</td><td class=\"num\">—</td><td class=\"num\">39.90 ms"} {
		if !strings.Contains(art, want) {
			t.Errorf("the run's section lacks %q", want)
		}
	}
	if n := strings.Count(charts["timeline-run-curves-concurrency-16"], `<g class="request">`); n != 32 {
		t.Errorf("the timeline draws %d requests, want 32", n)
	}
	if !strings.Contains(page, `<a href="#run-curves-concurrency-16">concurrency-16</a>`) {
		t.Error("the scenarios table does not link the run's section")
	}
	if !strings.Contains(md, "### concurrency-16: 4 of 32 requests failed") {
		t.Error("report.md does not list the failed requests")
	}
}

func TestHostileArtifactStringsAreEscaped(t *testing.T) {
	const hostile = `<script>alert(1)</script>`
	in := fixture()
	r := in.Runs[1].Benchmark
	r.Model = hostile
	r.Engine = new(`"><img src=x onerror=alert(2)>`)
	r.Extension.Scenario = `spec </svg><script>alert(4)</script> & "quotes" | pipes`
	r.Failures = append(r.Failures, artifact.Failure{RequestIndex: 99, ErrorType: "request_error<i>",
		ErrorMessage: "boom </td></tr></table><script>alert(5)</script>\nsecond line | with pipe \x00\x1b[31m"})
	r.Failed = len(r.Failures)
	in.Gate.Failed[0].Message = "figure </pre><script>alert(6)</script>"
	_, page, md := render(t, in)
	wellFormed(t, page)
	svgs(t, page)
	for _, bad := range []string{"<script", "<img", "<i>", "\x00", "\x1b"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains raw %q", bad)
		}
		if strings.Contains(strings.ReplaceAll(md, `\<`, "&lt;"), bad) {
			t.Errorf("report.md contains raw %q, not backslash-escaped", bad)
		}
	}
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		if regexp.MustCompile(`(?i)\son[a-z]+\s*=`).MatchString(tag) {
			t.Errorf("an event handler attribute: %s", tag)
		}
	}
	if !strings.Contains(md, `second line \| with pipe`) {
		t.Error("a failure message's newline or pipe broke out of its table cell")
	}
}

// TestTheReportIsSelfContained: no script, no external asset, no event handler.
func TestTheReportIsSelfContained(t *testing.T) {
	_, page, _ := render(t, fixture())
	attr := regexp.MustCompile(`(?i)\s(src|href|xlink:href|action|srcset|poster|data)\s*=\s*"([^"]*)"`)
	for _, m := range attr.FindAllStringSubmatch(page, -1) {
		if m[1] != "href" || !strings.HasPrefix(m[2], "#") {
			t.Errorf("report.html references %s=%q; only in-page #anchors are allowed", m[1], m[2])
		}
	}
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "@import", "url(", "@font-face"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("report.html contains %s", bad)
		}
	}
	for _, tag := range regexp.MustCompile(`(?s)<[^>]*>`).FindAllString(page, -1) {
		if (strings.Contains(tag, "http://") || strings.Contains(tag, "https://")) && !strings.Contains(tag, "data-source=") && !strings.Contains(tag, "xmlns=") {
			t.Errorf("a tag carries a URL: %s", tag)
		}
	}
}

func TestBuildRejectsWhatNoReportCanShow(t *testing.T) {
	in := fixture()
	in.Budgets = []budget.Budget{{Metric: "tpot_p42_ms", Op: "<=", Limit: 1}}
	if _, err := Build(in); err == nil || !strings.Contains(err.Error(), "tpot_p42_ms") {
		t.Errorf("a budget of an unknown metric: %v", err)
	}
	if _, err := Build(Input{Runs: []Run{{Path: "a/b.json"}}}); err == nil {
		t.Error("a nil artifact was accepted")
	}
	in = fixture()
	for _, r := range in.Runs {
		if r.Extension.Search != nil {
			r.Extension.Search.SLO = []string{"tpot<="}
		}
	}
	if m, err := Build(in); err != nil || len(m.SelfTestCurves) != 0 || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "capacity search curves/knee.json: ") {
		t.Errorf("a search of an unreadable budget: %v %v", err, m.Notes)
	}
	m, page, md := render(t, Input{})
	if m.Verdict.Outcome != ungatedView || !strings.Contains(page, "No run of an endpoint under test was found") || !strings.HasPrefix(md, "# ➖ NOT GATED: 0 scenarios") {
		t.Errorf("an empty report does not say it is empty:\n%s", md)
	}
	wellFormed(t, page)
}

func TestLoadAndWriteDir(t *testing.T) {
	dir := t.TempDir()
	in := fixture()
	for _, r := range in.Runs {
		if err := artifact.Write(filepath.Join(dir, filepath.FromSlash(r.Path)), r.Benchmark); err != nil {
			t.Fatal(err)
		}
	}
	if err := gate.WriteSummary(filepath.Join(dir, runrecord.SummaryFile), *in.Gate); err != nil {
		t.Fatal(err)
	}
	write := func(rel, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("capacity/summary.json", `{"schema": "something-else/v2"}`)
	write("capacity/garbage.json", `not json`)
	write("capacity/.hidden.json", `not json`)

	m, err := WriteDir(dir, Options{Title: "from disk"})
	if err != nil {
		t.Fatal(err)
	}
	notes := m.Notes
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "capacity/garbage.json: not read: ") || !strings.HasPrefix(notes[1], "capacity/summary.json: skipped: ") {
		t.Errorf("notes %q", notes)
	}
	page, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if !strings.HasPrefix(string(md), "# ❌ FAIL (budget broken): configured scenario meets the budget") {
		t.Errorf("the verdict from gate.json is not report.md's first line:\n%.200s", md)
	}
	if !strings.Contains(string(page), `id="chart-search-1"`) || !strings.Contains(string(page), "capacity/garbage.json: not read") {
		t.Error("the search's curve or the notes did not reach the report")
	}
	// the report files do not disturb a second load; for another run, neither the verdict
	// nor the artifacts of this one are shown as its own
	m, err = WriteDir(dir, Options{RunID: "run-2"})
	if err != nil || len(m.Notes) != 3 || !strings.Contains(m.Notes[2], "files of other runs in this directory left out, not run run-2's") {
		t.Fatalf("second write: %v %q", err, m.Notes)
	}
	md, _ = os.ReadFile(filepath.Join(dir, MarkdownFile))
	if !strings.HasPrefix(string(md), "# ❌ FAIL (run failed): the run: gate.json holds no verdict of run run-2") || len(m.Scenarios)+len(m.SelfTests) != 0 {
		t.Errorf("a stale gate summary became the verdict, or stale runs were shown:\n%.200s", md)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	// a baseline directory: deltas by path, and a missing one is a note, not a failure
	if _, err = WriteDir(dir, Options{BaselineDir: dir}); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(dir, MarkdownFile))
	if !strings.Contains(string(md), "(+0.0%)") {
		t.Error("a run compared with itself shows no +0.0% delta")
	}
	if m, err = WriteDir(dir, Options{BaselineDir: filepath.Join(dir, "missing")}); err != nil || !strings.Contains(strings.Join(m.Notes, "\n"), "missing: not read") {
		t.Errorf("a missing baseline directory: %v", err)
	}
	if _, err := WriteDir(filepath.Join(dir, "nowhere"), Options{}); err == nil {
		t.Error("a missing output directory was reported on")
	}
}

func TestALargeRunStaysBounded(t *testing.T) {
	big := synth(synthSpec{name: "soak", conc: 64, ctx: 8192, n: 5000, failEvery: 50, ttftMs: 300, tpotMs: 8})
	big.Extension.Complete = false
	_, page, md := render(t, Input{Runs: []Run{{Path: "capacity/soak.json", Benchmark: big}}})
	if len(page) > 4<<20 {
		t.Errorf("report.html of a 5000-request run is %d bytes", len(page))
	}
	tl := svgs(t, page)["timeline-run-capacity-soak"]
	if n := strings.Count(tl, `<g class="request">`); n != maxTimelineRequests {
		t.Errorf("the timeline draws %d requests, want the first %d", n, maxTimelineRequests)
	}
	for _, want := range []string{"the first 2,000 of 5,000 requests", `<span class="badge">interrupted</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !strings.Contains(md, "| soak (interrupted) |") || !strings.Contains(md, "… and 80 more failures") {
		t.Errorf("report.md does not mark the interrupted run or cap its failures")
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtMs(0.1234), "0.123 ms"}, {fmtMs(5.977), "5.98 ms"}, {fmtMs(123.44), "123.4 ms"}, {fmtMs(12025.5), "12.03 s"},
		{fmtRate(167.2), "167.2 tok/s"}, {fmtRate(12345.6), "12,346 tok/s"}, {fmtTokens(64000), "64,000 tok"},
		{fmtInt(-1234567), "-1,234,567"}, {signedPct(0.212), "+21.2%"}, {signedPct(-0.004), "−0.4%"},
		{stem("context-32k"), "context-Nk"}, {stem("knee-c10"), "knee-cN"},
		{mdText("a|b_c*<x> & 5ms -> 6ms _x_ <b>&amp;\n"), `a\|b_c\*\<x> & 5ms -> 6ms \_x\_ \<b>\&amp; `},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// A sessions run draws TTFT by turn and lists it in report.md; a trace replay draws its
// starts against its schedule.
func TestWorkloadKindsHaveTheirCharts(t *testing.T) {
	in := fixture()
	sessions := in.Runs[1].Extension
	turn := func(n int, p50, hit float64) artifact.TurnFigures {
		return artifact.TurnFigures{Turn: n, Requests: 8, TTFTMs: &artifact.Percentiles{Samples: 8, P50: artifact.Float(p50), P95: artifact.Float(p50 * 1.2)},
			CacheHitRate: artifact.F(hit), ExpectedHitRate: artifact.F(hit + 0.01)}
	}
	sessions.Sessions = &artifact.Sessions{Sessions: 8, Turns: 3, ByTurn: []artifact.TurnFigures{turn(1, 80, 0), turn(2, 20, 0.9), turn(3, 21, 0.93)}}
	trace := in.Runs[2].Extension
	trace.Trace = &artifact.TraceReplay{File: "agentic-300.jsonl", Selected: 3, FileLines: 300, Speedup: 4,
		StartErrorMs: &artifact.Percentiles{Samples: 3, P50: 0.5, P99: 1.5}}
	for k := range trace.Timeline {
		trace.Timeline[k].IntendedStartOffsetMs = artifact.F(float64(*trace.Timeline[k].StartOffsetMs) - 0.5)
		trace.Timeline[k].TraceLine = new(k + 1)
	}
	_, page, md := render(t, in)
	charts := svgs(t, page)
	var turns, starts string
	for id, svg := range charts {
		switch {
		case strings.HasPrefix(id, "chart-turns-"):
			turns = svg
		case strings.HasPrefix(id, "chart-trace-"):
			starts = svg
		}
	}
	if got := seriesOf(t, turns); len(got) != 2 || len(got[0].xs) != 3 {
		t.Errorf("TTFT by turn: %+v", got)
	}
	if got := seriesOf(t, starts); len(got) != 2 || len(got[0].xs) != len(trace.Timeline) {
		t.Errorf("trace starts: %+v", got)
	}
	for _, want := range []string{"Turn 2: 90% of prompt tokens cached (91% expected).", "agentic-300.jsonl: 3 of 300 lines at 4× speed. Start error p50 0.500 ms, p99 1.50 ms."} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(md, "| 2 | 8 | 20.00 ms | 24.00 ms | 90% | 91% |") {
		t.Errorf("report.md lacks the figures by turn:\n%s", md)
	}
}

// The engine's version, as it stated it, is among what the page says was under test.
func TestTheEngineVersionIsUnderTest(t *testing.T) {
	in := fixture()
	c := &in.Runs[0].Benchmark.Extension.Capabilities
	c.EngineVersion, c.EngineVersionSource = new("0.17.4"), new("ollama GET /api/version")
	m, page, _ := render(t, in)
	var got string
	for _, f := range m.UnderTest {
		if f.Label == "engine version" {
			got = f.Value
		}
	}
	if !strings.Contains(got, "0.17.4 (ollama GET /api/version)") || !strings.Contains(page, "0.17.4 (ollama GET /api/version)") {
		t.Errorf("engine version %q", got)
	}
}

// A session's prompts grow turn by turn: the workload says the range it sent, not the
// size the scenario starts from.
func TestTheWorkloadSaysTheRangeOfContextsSent(t *testing.T) {
	in := fixture()
	b := in.Runs[0].Benchmark
	for i := range b.RequestTimings {
		b.RequestTimings[i].PlannedContextTokens = 500 + 649*(i%2)
	}
	m, _, _ := render(t, in)
	if got := m.Scenarios[0].Workload; !strings.HasSuffix(got, " at 500–1,149 tok") {
		t.Errorf("workload %q, want the range 500–1,149 tok", got)
	}
}

// A scenario's budgets, as its gate judged them, with their figures and margins.
func TestBudgetsWithTheirFigureAndMargin(t *testing.T) {
	in := fixture()
	b := in.Runs[0].Benchmark // tpot p50 6.06 ms
	b.Extension.Budgets = []string{"tpot_p50_ms<=8", "tpot_p50_ms<=5", "throughput_tok_s>=1"}
	m, page, md := render(t, in)
	got := m.Scenarios[0].Budgets
	if len(got) != 3 || !got[0].Held || got[1].Held || !got[2].Held {
		t.Fatalf("budgets %+v", got)
	}
	if got[0].Figure != "6.06ms" || got[0].Margin != "1.94ms to spare (24%)" || got[1].Margin != "over by 1.06ms (21%)" {
		t.Errorf("margins %q, %q; figures %q, %q", got[0].Margin, got[1].Margin, got[0].Figure, got[1].Figure)
	}
	if !strings.Contains(page, `<table class="budgets">`) || !strings.Contains(md, "### configured: budgets") || !strings.Contains(md, "| tpot_p50_ms<=5 | ") {
		t.Errorf("the page or report.md lacks the budgets table:\n%s", md)
	}
}

// A strict run whose answers missed the words keeps their timings out of the figures; the
// report still gives them, as information.
func TestTheTimingsOfAnswersThatMissedTheWords(t *testing.T) {
	in := fixture()
	b := in.Runs[0].Benchmark
	for i := range 3 {
		row := b.RequestTimings[i]
		b.Failures = append(b.Failures, artifact.Failure{RequestIndex: 100 + i, ErrorType: "controlled_output_mismatch",
			ErrorMessage: "32 code words and 5 other words", ResponseTiming: artifact.OptionalTiming{Present: true, Row: &row}})
	}
	b.Failed = len(b.Failures)
	m, page, md := render(t, in)
	got := m.Scenarios[0].MissedTimings
	if !strings.HasPrefix(got, "3 answers failed for their words streamed at TTFT p50 ") || !strings.Contains(got, "TPOT p50 ") {
		t.Fatalf("missed timings %q", got)
	}
	if !strings.Contains(page, "information, not gated") || !strings.Contains(md, "3 answers failed for their words") {
		t.Error("the page or report.md lacks the missed answers' timings")
	}
}
