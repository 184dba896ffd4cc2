package reporters

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden report files in testdata/")

const referenceArtifact = "../testdata/reference/benchmark-v1-example.json"

const hostile = `<script>alert(1)</script>`

func readReference(t testing.TB) *artifact.Benchmark {
	t.Helper()
	b, err := artifact.Read(referenceArtifact)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// synthSpec describes a synthetic run: a closed loop of conc slots over n requests, each
// with a TTFT growing with context and load and a fixed TPOT.
type synthSpec struct {
	name      string
	conc, ctx int
	n         int
	failEvery int // every failEvery-th request fails (0: none)
	ttftMs    float64
	tpotMs    float64
	tokens    int
	model     string
}

func synth(s synthSpec) *artifact.Benchmark {
	if s.tokens == 0 {
		s.tokens = 33
	}
	if s.model == "" {
		s.model = "synthetic-model"
	}
	b := &artifact.Benchmark{
		Schema: artifact.Schema, BaseURL: "http://127.0.0.1:8080/v1", Model: s.model,
		Engine: artifact.S("refengine"), GPU: artifact.S("none"), Requests: s.n, Concurrency: s.conc,
		ContextTokens: artifact.I(s.ctx), MaxTokens: 64, ResponseWords: 32,
		ContextDistribution:    map[string]int{fmt.Sprint(s.ctx): s.n},
		ControlledOutputPolicy: "strict", MeasurementProtocol: artifact.ProtocolV3, PromptCacheMode: "unique",
		RunID: "run-" + s.name, StartedAt: "2026-01-02T03:04:05Z", FinishedAt: "2026-01-02T03:05:06Z",
		Extension: &artifact.Extension{Version: artifact.ExtensionVersion, Scenario: s.name, Complete: true},
	}
	slots := make([]float64, s.conc)
	var ttft, tpot, e2e, decode []float64
	tokens, wall := 0, 0.0
	for i := range s.n {
		slot := i % s.conc
		start := slots[slot] + 0.4*float64(slot)
		t := s.ttftMs * (1 + 0.04*float64(i%5)) * (1 + 0.03*float64(s.conc-1))
		gen := s.tpotMs * float64(s.tokens-1)
		end := t + gen
		span := artifact.RequestSpan{RequestIndex: i, StartOffsetMs: artifact.F(start)}
		fail := s.failEvery > 0 && i%s.failEvery == s.failEvery-1
		switch {
		case fail && i%2 == 0: // no response: elapsed only
			end = t / 2
			b.Failures = append(b.Failures, artifact.Failure{RequestIndex: i, ErrorType: "request_error",
				ErrorMessage: "HTTP 503: engine overloaded", ElapsedMs: artifact.F(end),
				FailureClass: artifact.FailureRequestError, PlannedContextTokens: artifact.I(s.ctx)})
			span.Outcome = "request_error"
		case fail: // a response that broke the contract
			b.Failures = append(b.Failures, artifact.Failure{RequestIndex: i, ErrorType: "controlled_output_failed",
				ErrorMessage: "expected 32 code words, observed 31", ResponseReceived: true,
				FailureClass: artifact.FailureControlledOutput, ElapsedMs: artifact.F(end)})
			span.Outcome, span.TTFTMs, span.E2EMs = "controlled_output_failed", artifact.F(t), artifact.F(end)
		default:
			span.Outcome, span.TTFTMs, span.E2EMs = "ok", artifact.F(t), artifact.F(end)
			b.RequestTimings = append(b.RequestTimings, artifact.RequestTiming{RequestIndex: i,
				TTFTMs: artifact.Float(t), E2EMs: artifact.Float(end), TimeToFirstOutputMs: artifact.Float(t),
				GenerationMs: artifact.Float(gen), TPOTMs: artifact.F(s.tpotMs), PlannedContextTokens: s.ctx,
				OutputTokens: artifact.I(s.tokens), OutputTokenSource: "usage"})
			ttft, tpot, e2e = append(ttft, t), append(tpot, s.tpotMs*(1+0.01*float64(i%3))), append(e2e, end)
			decode = append(decode, 1000/s.tpotMs)
			tokens += s.tokens
		}
		slots[slot] = start + end
		wall = math.Max(wall, start+end)
		b.Extension.Timeline = append(b.Extension.Timeline, span)
	}
	b.Completed, b.Failed = len(b.RequestTimings), len(b.Failures)
	b.WallClockMs = artifact.Float(wall)
	b.PerformanceEligible = b.Failed == 0
	b.Metrics.TTFT, b.Metrics.TPOT, b.Metrics.E2E = dist(ttft), dist(tpot), dist(e2e)
	b.Metrics.MeanInterTokenLatency, b.Metrics.DecodeTokS = dist(tpot), dist(decode)
	if b.Failed == 0 {
		b.Metrics.ThroughputPerformanceEligible = true
		b.Metrics.ThroughputTokS = artifact.F(float64(tokens) / (wall / 1000))
	}
	return b
}

// dist is a nearest-rank summary, enough for the report.
func dist(vals []float64) artifact.Distribution {
	d := artifact.Distribution{Samples: len(vals)}
	if len(vals) == 0 {
		return d
	}
	s := slices.Sorted(slices.Values(vals))
	rank := func(p float64) *artifact.Float {
		i := int(math.Ceil(p/100*float64(len(s)))) - 1
		return artifact.F(s[max(i, 0)])
	}
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	d.Mean, d.Min, d.Max = artifact.F(sum/float64(len(s))), artifact.F(s[0]), artifact.F(s[len(s)-1])
	d.P25, d.P50, d.P75, d.P90, d.P95, d.P99 = rank(25), rank(50), rank(75), rank(90), rank(95), rank(99)
	return d
}

// suiteRuns is a sweep over concurrency and context, some runs with failures.
func suiteRuns() []*artifact.Benchmark {
	var runs []*artifact.Benchmark
	for i, c := range []int{1, 2, 4, 8, 16} {
		runs = append(runs, synth(synthSpec{name: fmt.Sprintf("concurrency-%d", c), conc: c, ctx: 4096,
			n: 12 + 2*c, ttftMs: 180, tpotMs: 5 + 1.6*float64(i*i), failEvery: map[bool]int{true: 7}[c == 8]}))
	}
	for _, ctx := range []int{16000, 32768, 65536} {
		runs = append(runs, synth(synthSpec{name: fmt.Sprintf("context-%dk", ctx/1000), conc: 2, ctx: ctx,
			n: 10, ttftMs: float64(ctx) / 40, tpotMs: 6}))
	}
	return runs
}

var suiteBudgets = []ReportBudget{
	{Metric: "tpot_p95_ms", Op: "<=", Limit: 30},
	{Metric: "ttft_p95_ms", Limit: 1500},
	{Metric: "throughput_tok_s", Op: ">=", Limit: 500},
	{Metric: "decode_tok_s_p50", Op: ">=", Limit: 100},
}

var suiteCurve = &CapacityCurve{
	Title:   "Knee search: tpot p95 ≤ 30 ms",
	Metrics: []string{"tpot_p95_ms", "ttft_p95_ms", "throughput_tok_s"},
	Points: []CurvePoint{
		{Concurrency: 32, Metrics: map[string]float64{"tpot_p95_ms": 41, "ttft_p95_ms": 1900, "throughput_tok_s": 2900}},
		{Concurrency: 4, Passed: true, Metrics: map[string]float64{"tpot_p95_ms": 9, "ttft_p95_ms": 260, "throughput_tok_s": 700}},
		{Concurrency: 8, Passed: true, Metrics: map[string]float64{"tpot_p95_ms": 14, "ttft_p95_ms": 380, "throughput_tok_s": 1300}},
		{Concurrency: 16, Passed: true, Metrics: map[string]float64{"tpot_p95_ms": 24, "ttft_p95_ms": 720, "throughput_tok_s": 2100}},
		{Concurrency: 24, Metrics: map[string]float64{"tpot_p95_ms": 33, "ttft_p95_ms": 1200, "throughput_tok_s": 2500}},
	},
}

// writeSuite writes the report of the reference artifact and the synthetic sweep.
func writeSuite(t testing.TB, dir string, mutate func([]*artifact.Benchmark)) (string, string) {
	t.Helper()
	runs := append([]*artifact.Benchmark{readReference(t)}, suiteRuns()...)
	if mutate != nil {
		mutate(runs)
	}
	opts := ReportOptions{Title: "anvilbench: nightly", Budgets: suiteBudgets, Curve: suiteCurve,
		Paths: []string{"capacity/reference.json"}, Notes: []string{"capacity/summary.json: skipped: not an artifact"}}
	if err := WriteReport(dir, runs, opts); err != nil {
		t.Fatal(err)
	}
	h, err := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(dir, ReportMarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(h), string(m)
}

var svgRE = regexp.MustCompile(`(?s)<svg\b.*?</svg>`)

// svgs extracts every inline <svg>…</svg> and checks it is well-formed XML with an
// accessible name; it returns them keyed by id.
func svgs(t *testing.T, page string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, frag := range svgRE.FindAllString(page, -1) {
		dec := xml.NewDecoder(strings.NewReader(frag))
		dec.Strict = true
		var root struct {
			XMLName   xml.Name
			ID        string `xml:"id,attr"`
			Class     string `xml:"class,attr"`
			Role      string `xml:"role,attr"`
			AriaLabel string `xml:"aria-label,attr"`
			ViewBox   string `xml:"viewBox,attr"`
			Title     string `xml:"title"`
		}
		if err := dec.Decode(&root); err != nil {
			t.Fatalf("svg fragment is not well-formed XML: %v\n%.400s", err, frag)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("trailing content after </svg>: %v", err)
		}
		if root.XMLName.Local != "svg" || root.Role != "img" || root.AriaLabel == "" || root.Title == "" || root.ViewBox == "" {
			t.Fatalf("svg %q lacks role=img, aria-label, <title> or viewBox: %+v", root.ID, root)
		}
		if !strings.HasPrefix(root.Class, "chart chart-") || root.ID == "" {
			t.Fatalf("svg has no stable id/class: id %q class %q", root.ID, root.Class)
		}
		if _, dup := out[root.ID]; dup {
			t.Fatalf("duplicate svg id %q", root.ID)
		}
		out[root.ID] = frag
	}
	return out
}

// wellFormed parses the whole page as XML: every element closed, attributes quoted,
// only XML entities.
func wellFormed(t *testing.T, page string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict = true
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := dec.InputPos
			l, c := line()
			t.Fatalf("report.html is not well-formed at %d:%d: %v", l, c, err)
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 {
		t.Fatalf("unbalanced elements: depth %d at the end", depth)
	}
}

func TestWriteReportContent(t *testing.T) {
	dir := t.TempDir()
	page, md := writeSuite(t, dir, nil)

	if !strings.HasPrefix(page, "<!DOCTYPE html>\n<html lang=\"en\">") || !strings.Contains(page, `<meta charset="utf-8"/>`) {
		t.Fatalf("not an HTML5 document:\n%.200s", page)
	}
	wellFormed(t, page)
	charts := svgs(t, page)
	for _, id := range []string{"chart-ttft-context", "chart-tpot-concurrency", "chart-throughput-concurrency",
		"chart-capacity-1", "chart-capacity-2", "chart-capacity-3"} {
		if _, ok := charts[id]; !ok {
			t.Errorf("no chart %s; have %v", id, keys(charts))
		}
	}
	// a timeline per run with one, the reference (no extension block) says why it has none
	for n := 2; n <= 9; n++ {
		if _, ok := charts[fmt.Sprintf("chart-timeline-%d", n)]; !ok {
			t.Errorf("no timeline for run %d", n)
		}
	}
	if _, ok := charts["chart-timeline-1"]; ok {
		t.Error("the reference artifact has no timeline, yet one was drawn")
	}
	if !strings.Contains(page, "No per-request timeline") {
		t.Error("the reference run does not say why it has no timeline")
	}

	for id, frag := range charts {
		for _, want := range []string{`class="axis axis-x"`, `class="axis axis-y"`, `class="axis-label"`, `class="legend"`} {
			if !strings.Contains(frag, want) {
				t.Errorf("%s lacks %s", id, want)
			}
		}
	}
	// budgets: dashed lines where their metric is plotted, nowhere else
	for id, want := range map[string]string{
		"chart-tpot-concurrency":       "tpot p95 ≤ 30.00 ms",
		"chart-ttft-context":           "ttft p95 ≤ 1.50 s",
		"chart-throughput-concurrency": "throughput ≥ 500.0 tok/s",
		"chart-capacity-1":             "tpot p95 ≤ 30.00 ms",
	} {
		if !strings.Contains(charts[id], `class="budget-line"`) || !strings.Contains(charts[id], want) {
			t.Errorf("%s has no budget line %q", id, want)
		}
	}
	if strings.Contains(page, `budget: decode p50`) {
		t.Error("decode p50 is not plotted, yet its budget was drawn")
	}
	if !strings.Contains(charts["chart-capacity-1"], `class="knee-line"`) || !strings.Contains(charts["chart-capacity-1"], "knee: 16 concurrent") {
		t.Error("the capacity chart does not mark the knee at 16")
	}
	if !strings.Contains(page, "Capacity: 16 concurrent, the highest passing load below the first failing one (24 concurrent)") {
		t.Error("no knee summary")
	}
	// timelines: the TTFT part, the decode part and red failures
	tl := charts["chart-timeline-5"] // concurrency-8 has failures
	for _, want := range []string{`class="bar-ttft"`, `class="bar-decode"`, `class="req req-failed"`, `fill="#D55E00"`} {
		if !strings.Contains(tl, want) {
			t.Errorf("timeline of a run with failures lacks %s", want)
		}
	}
	if strings.Contains(charts["chart-timeline-2"], "req-failed") {
		t.Error("a run without failures drew a failed request")
	}

	// header and summary: identity, figures with units, the reference's values
	for _, want := range []string{
		"<h1>anvilbench: nightly</h1>",
		"qwen38-huihui-ninfer-schemafix-mtp3-64k", "ninfer", "RTX5090", "http://127.0.0.1:8080/v1",
		"2026-01-02T03:04:05Z – 2026-09-19T23:30:34Z",
		"<td class=\"spec\"><a href=\"#run-1\">reference</a></td>", // named after its file
		"<td class=\"num\">6 / 0</td>",
		"<td class=\"num\">64,000 tok</td>",
		"12.03 s", "5.98 ms", "167.2 tok/s", "capacity-v3", "unique",
		`<table class="failures">`, "HTTP 503: engine overloaded", "request_error",
		"capacity/summary.json: skipped: not an artifact",
		`class="num fail"`, `class="num pass"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if n := strings.Count(page, "<table class=\"distributions\">"); n != 9 {
		t.Errorf("%d distribution tables, want one per run (9)", n)
	}

	// markdown: the same tables
	for _, want := range []string{
		"# anvilbench: nightly\n",
		"- **model**: qwen38-huihui-ninfer-schemafix-mtp3-64k, synthetic-model\n",
		"| spec | requests | concurrency | context | completed / failed | ttft p50 | ttft p95 | tpot p50 | tpot p95 | e2e p50 | decode p50 | throughput | measurement\\_protocol | prompt\\_cache\\_mode |\n| --- | ---: |",
		"| reference | 6 | 1 | 64,000 tok | 6 / 0 | 11.87 s | 12.03 s |",
		"## Budgets\n\n| spec | tpot p95 ≤ 30.00 ms |",
		"✅", "❌",
		"## Knee search: tpot p95 ≤ 30 ms\n\nCapacity: 16 concurrent",
		"| 16 concurrent | ✅ passed **(knee)** |",
		"### concurrency-8: 4 of 28 requests failed\n\n| index | error\\_type | message |\n| ---: | --- | --- |\n| 6 | request\\_error | HTTP 503: engine overloaded |",
		"## Files not included\n\n- capacity/summary.json: skipped: not an artifact",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	checkMarkdownTables(t, md)
}

func keys(m map[string]string) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// checkMarkdownTables checks every table's rows have the header's cell count.
func checkMarkdownTables(t *testing.T, md string) {
	t.Helper()
	cells := func(line string) int {
		line = strings.ReplaceAll(line, `\|`, "")
		return strings.Count(line, "|") - 1
	}
	want := -1
	tables := 0
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		if want < 0 {
			want = cells(line)
			tables++
			continue
		}
		if got := cells(line); got != want {
			t.Errorf("report.md line %d has %d cells, its table %d: %s", i+1, got, want, line)
		}
	}
	if tables < 4 {
		t.Errorf("report.md has %d tables, want summary, budgets, capacity and failures", tables)
	}
}

func TestWriteReportEscapesArtifactStrings(t *testing.T) {
	dir := t.TempDir()
	page, md := writeSuite(t, dir, func(runs []*artifact.Benchmark) {
		r := runs[2]
		r.Model = hostile
		r.Engine = artifact.S(`"><img src=x onerror=alert(2)>`)
		r.BaseURL = `javascript:alert(3)//<b>`
		r.Extension.Scenario = `spec </svg><script>alert(4)</script> & "quotes" | pipes`
		r.Failures = append(r.Failures, artifact.Failure{RequestIndex: 99, ErrorType: "request_error<i>",
			ErrorMessage: "boom </td></tr></table><script>alert(5)</script>\nsecond line | with pipe \x00\x1b[31m"})
		r.Failed = len(r.Failures)
	})
	wellFormed(t, page)
	charts := svgs(t, page)
	if len(charts) < 10 {
		t.Fatalf("only %d charts survived the hostile strings", len(charts))
	}
	for _, bad := range []string{"<script", "<img", "<b>", "<i>", "javascript:alert(3)//<"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains raw %q", bad)
		}
	}
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		if regexp.MustCompile(`(?i)\son[a-z]+\s*=`).MatchString(tag) {
			t.Errorf("an event handler attribute: %s", tag)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;/svg&gt;&lt;script&gt;alert(4)"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks the escaped %q", want)
		}
	}
	if !strings.Contains(charts["chart-timeline-3"], "spec &lt;/svg&gt;&lt;script&gt;") {
		t.Error("the hostile scenario name is not escaped in its timeline's title")
	}
	for _, bad := range []string{"<script", "<img", "<b>", "<i>", "\x00", "\x1b"} {
		if strings.Contains(md, bad) {
			t.Errorf("report.md contains raw %q", bad)
		}
	}
	if !strings.Contains(md, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("report.md does not escape the hostile model name")
	}
	if !strings.Contains(md, `second line \| with pipe`) {
		t.Error("a failure message's newline or pipe broke out of its table cell")
	}
	checkMarkdownTables(t, md)
}

// TestReportIsSelfContained: no script, no external asset, no event handler.
func TestReportIsSelfContained(t *testing.T) {
	page, _ := writeSuite(t, t.TempDir(), nil)
	attr := regexp.MustCompile(`(?i)\s(src|href|xlink:href|action|srcset|poster|data)\s*=\s*"([^"]*)"`)
	for _, m := range attr.FindAllStringSubmatch(page, -1) {
		if m[1] != "href" || !strings.HasPrefix(m[2], "#") {
			t.Errorf("report.html references %s=%q; only in-page #anchors are allowed", m[1], m[2])
		}
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<script`), regexp.MustCompile(`(?i)<link\b`), regexp.MustCompile(`(?i)<img\b`),
		regexp.MustCompile(`(?i)<iframe\b`), regexp.MustCompile(`(?i)<object\b`), regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)url\(`), regexp.MustCompile(`(?i)\son[a-z]+\s*=`), regexp.MustCompile(`(?i)@font-face`),
	} {
		if loc := bad.FindStringIndex(page); loc != nil {
			t.Errorf("report.html contains %s: %q", bad, page[max(loc[0]-40, 0):min(loc[1]+40, len(page))])
		}
	}
	// http(s) may appear only as escaped text (the base_url values), never in markup
	text := regexp.MustCompile(`(?s)<[^>]*>`)
	for _, tag := range text.FindAllString(page, -1) {
		if strings.Contains(tag, "http://") || strings.Contains(tag, "https://") {
			t.Errorf("a tag carries a URL: %s", tag)
		}
	}
	if !strings.Contains(page, "http://127.0.0.1:8080/v1") {
		t.Error("the base_url is not shown as text")
	}
}

func TestReportFewPoints(t *testing.T) {
	dir := t.TempDir()
	ref := readReference(t)
	if err := WriteReport(dir, []*artifact.Benchmark{ref}, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	charts := svgs(t, string(page))
	for _, id := range []string{"chart-ttft-context", "chart-tpot-concurrency", "chart-throughput-concurrency"} {
		c := charts[id]
		if !strings.Contains(c, `class="chart-note"`) || !strings.Contains(c, "needs runs at ≥2") {
			t.Errorf("%s with one run lacks the ≥2 note", id)
		}
		if !strings.Contains(c, `class="point"`) {
			t.Errorf("%s does not draw its single point", id)
		}
	}
	if !strings.Contains(string(page), "<h1>"+DefaultReportTitle+"</h1>") {
		t.Error("no default title")
	}

	// no runs at all: still a report, saying so
	empty := t.TempDir()
	if err := WriteReport(empty, nil, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	page, _ = os.ReadFile(filepath.Join(empty, ReportHTMLFile))
	md, _ := os.ReadFile(filepath.Join(empty, ReportMarkdownFile))
	wellFormed(t, string(page))
	svgs(t, string(page))
	for _, f := range [][]byte{page, md} {
		if !bytes.Contains(f, []byte("No anvil-serving.benchmark/v1 artifacts were found.")) {
			t.Errorf("an empty report does not say it is empty:\n%s", f)
		}
	}
}

func TestWriteReportRejectsBadOptions(t *testing.T) {
	for name, opts := range map[string]ReportOptions{
		"unknown metric": {Budgets: []ReportBudget{{Metric: "tpot_p42_ms", Limit: 1}}},
		"bad operator":   {Budgets: []ReportBudget{{Metric: "tpot_p50_ms", Op: "==", Limit: 1}}},
		"NaN limit":      {Budgets: []ReportBudget{{Metric: "tpot_p50_ms", Limit: math.NaN()}}},
	} {
		dir := t.TempDir()
		if err := WriteReport(dir, []*artifact.Benchmark{readReference(t)}, opts); err == nil {
			t.Errorf("%s: no error", name)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: a rejected report left files behind", name)
		}
	}
	if err := WriteReport(t.TempDir(), []*artifact.Benchmark{nil}, ReportOptions{}); err == nil {
		t.Error("a nil run was accepted")
	}
	// a curve metric may be budgeted even though it is no v1 key
	curve := &CapacityCurve{Points: []CurvePoint{{Concurrency: 1, Passed: true, Metrics: map[string]float64{"goodput_req_s": 3}}}}
	if err := WriteReport(t.TempDir(), nil, ReportOptions{Curve: curve, Budgets: []ReportBudget{{Metric: "goodput_req_s", Op: ">=", Limit: 2}}}); err != nil {
		t.Errorf("a budget on a curve metric: %v", err)
	}
}

func TestReportBudgetConvertsFromBudget(t *testing.T) {
	bs, err := budget.Parse("tpot_p95_ms<=50, throughput_tok_s>=100")
	if err != nil {
		t.Fatal(err)
	}
	rb := ReportBudget(bs[0])
	if rb.String() != "tpot_p95_ms<=50" || rb.label() != "tpot p95 ≤ 50.00 ms" || ReportBudget(bs[1]).label() != "throughput ≥ 100.0 tok/s" {
		t.Fatalf("converted budget: %s / %s", rb, rb.label())
	}
	if got := (ReportBudget{Metric: "ttft_p50_ms", Limit: 1500}).String(); got != "ttft_p50_ms<=1500" {
		t.Fatalf("empty Op is <=: %s", got)
	}
}

func TestCapacityCurveKnee(t *testing.T) {
	knee, failed, ok := suiteCurve.Knee()
	if !ok || knee.Concurrency != 16 || failed == nil || failed.Concurrency != 24 {
		t.Fatalf("knee %+v failed %+v ok %v", knee, failed, ok)
	}
	noisy := &CapacityCurve{Points: []CurvePoint{{Concurrency: 2, Passed: true}, {Concurrency: 4}, {Concurrency: 8, Passed: true}}}
	if k, f, _ := noisy.Knee(); k.Concurrency != 2 || f.Concurrency != 4 {
		t.Fatalf("a pass above the first failure moved the knee: %+v %+v", k, f)
	}
	if _, _, ok := (&CapacityCurve{Points: []CurvePoint{{RatePerSec: 1}}}).Knee(); ok {
		t.Fatal("a curve failing at its lowest load has a knee")
	}
	all := &CapacityCurve{Points: []CurvePoint{{RatePerSec: 2.5, Passed: true}, {RatePerSec: 0.5, Passed: true}}}
	k, f, ok := all.Knee()
	if !ok || f != nil || k.RatePerSec != 2.5 {
		t.Fatalf("all passing: %+v %+v %v", k, f, ok)
	}
	// an open-loop curve charts the rate
	dir := t.TempDir()
	if err := WriteReport(dir, nil, ReportOptions{Curve: &CapacityCurve{Points: []CurvePoint{
		{RatePerSec: 0.5, Passed: true, Metrics: map[string]float64{"ttft_p95_ms": 300}},
		{RatePerSec: 4, Metrics: map[string]float64{"ttft_p95_ms": 2600}},
	}}}); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	c := svgs(t, string(page))["chart-capacity-1"]
	for _, want := range []string{"arrival rate (requests/s)", "knee: 0.5 req/s", `class="point point-failed"`, "ttft p95 (s)"} {
		if !strings.Contains(c, want) {
			t.Errorf("open-loop curve chart lacks %q", want)
		}
	}
}

func TestLoadRuns(t *testing.T) {
	dir := t.TempDir()
	ref, err := os.ReadFile(referenceArtifact)
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	syn := synth(synthSpec{name: "configured", conc: 4, ctx: 2048, n: 8, ttftMs: 50, tpotMs: 3})
	if err := artifact.Write(filepath.Join(dir, "capacity", "configured.json"), syn); err != nil {
		t.Fatal(err)
	}
	write("capacity/reference.json", ref)
	write("capacity/summary.json", []byte(`{"schema": "something-else/v2", "ok": true}`))
	write("capacity/broken.json", []byte(`{"schema": "anvil-serving.benchmark/v1", "requests": "six"}`))
	write("capacity/garbage.json", []byte(`not json`))
	write("capacity/.hidden.json", ref)
	write("capacity/notes.txt", []byte("ignored"))
	write("aaa/reference.json", ref)
	write("junit.xml", []byte("<testsuites/>"))
	write("top.json", ref) // not <suite>/<spec>.json

	runs, notes, err := LoadRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].Model != "qwen38-huihui-ninfer-schemafix-mtp3-64k" || runs[1].Extension.Scenario != "configured" || runs[2].Extension != nil {
		t.Fatalf("runs not aaa/reference, capacity/configured, capacity/reference: %d runs", len(runs))
	}
	if len(notes) != 3 {
		t.Fatalf("notes: %q", notes)
	}
	for i, want := range []string{"capacity/broken.json: not read: decode artifact", "capacity/garbage.json: not read: ", "capacity/summary.json: skipped: not an anvil-serving.benchmark/v1 artifact"} {
		if !strings.HasPrefix(notes[i], want) {
			t.Errorf("note %d %q, want prefix %q", i, notes[i], want)
		}
	}
	files, _, _ := LoadRunFiles(dir)
	if files[0].Path != "aaa/reference.json" || files[2].Path != "capacity/reference.json" {
		t.Fatalf("paths %q %q", files[0].Path, files[2].Path)
	}
	if _, _, err := LoadRuns(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory loaded")
	}

	// ReportDir: runs named after their files (disambiguated), notes listed
	got, err := ReportDir(dir, ReportOptions{})
	if err != nil || len(got) != 3 {
		t.Fatalf("ReportDir: %v, notes %q", err, got)
	}
	page, _ := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	md, _ := os.ReadFile(filepath.Join(dir, ReportMarkdownFile))
	for _, want := range []string{"reference (aaa/reference.json)", "reference (capacity/reference.json)", "configured", "capacity/garbage.json: not read"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !strings.Contains(string(md), "| reference (aaa/reference.json) |") {
		t.Errorf("report.md does not name a run after its file:\n%s", md)
	}
	// the report files themselves are not artifacts and do not disturb a second load
	if runs2, notes2, _ := LoadRuns(dir); len(runs2) != 3 || len(notes2) != 3 {
		t.Fatalf("after writing the report: %d runs, notes %q", len(runs2), notes2)
	}
}

func TestReportFormatting(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtMs(0.1234), "0.123 ms"}, {fmtMs(5.977), "5.98 ms"}, {fmtMs(123.44), "123.4 ms"}, {fmtMs(12025.5), "12.03 s"},
		{fmtRate(167.2), "167.2 tok/s"}, {fmtRate(12345.6), "12,346 tok/s"}, {fmtTokens(64000), "64,000 tok"},
		{fmtInt(-1234567), "-1,234,567"}, {fmtMetric(0.5, "prefix_cache_hit_avg"), "0.5"},
		{tickLabel(50000, 0, 1e3), "50k"}, {tickLabel(2.5, 1, 1e3), "2.5"}, {tickLabel(1.5e6, 0, 1e3), "1.5M"},
		{tickLabel(1500, 0, 1e3), "1.5k"}, {tickLabel(1500, 0, 1e4), "1500"},
		{mdText("a|b_c*<x>\n"), `a\|b\_c\*&lt;x&gt; `},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, c := range []struct {
		vals  []float64
		o     axisOpts
		log   bool
		ticks string
	}{
		{[]float64{1, 2, 4, 8, 16}, axisOpts{logOK: true, pow2: true, zero: true, integer: true}, true, "[1 2 4 8 16]"},
		{[]float64{16000, 65536}, axisOpts{logOK: true, zero: true}, false, "[0 20000 40000 60000 80000]"},
		{[]float64{16000, 262144}, axisOpts{logOK: true, zero: true}, true, "[20000 50000 100000 200000]"},
		{[]float64{3}, axisOpts{zero: true, integer: true}, false, "[0 2 4 6]"},
		{[]float64{0, 7.2}, axisOpts{zero: true}, false, "[0 2 4 6 8]"},
	} {
		a := newAxis(c.vals, c.o)
		if a.log != c.log || fmt.Sprint(a.ticks) != c.ticks {
			t.Errorf("axis of %v: log %v ticks %v, want log %v ticks %s", c.vals, a.log, a.ticks, c.log, c.ticks)
		}
	}
}

func TestWriteReportIsAtomicAndReplaces(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir, nil)
	first, _ := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if err := WriteReport(dir, nil, ReportOptions{Title: "second"}); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if bytes.Equal(first, second) || !bytes.Contains(second, []byte("<h1>second</h1>")) {
		t.Fatal("the report was not replaced")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	// a path that cannot be written reports the error
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	if err := WriteReport(blocker, nil, ReportOptions{}); err == nil {
		t.Fatal("writing under a regular file succeeded")
	}
}

func TestReportLargeRunStaysBounded(t *testing.T) {
	big := synth(synthSpec{name: "soak", conc: 64, ctx: 8192, n: 5000, failEvery: 50, ttftMs: 300, tpotMs: 8})
	big.Extension.Complete = false
	dir := t.TempDir()
	if err := WriteReport(dir, []*artifact.Benchmark{big}, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	md, _ := os.ReadFile(filepath.Join(dir, ReportMarkdownFile))
	if len(page) > 4<<20 {
		t.Errorf("report.html of a 5000-request run is %d bytes", len(page))
	}
	tl := svgs(t, string(page))["chart-timeline-1"]
	if n := strings.Count(tl, `<g class="req`); n != ReportMaxTimelineRequests {
		t.Errorf("timeline draws %d requests, want the first %d", n, ReportMaxTimelineRequests)
	}
	for _, want := range []string{"showing the first 2,000 of 5,000 requests", `<span class="badge badge-fail">interrupted</span>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !strings.Contains(string(md), "| soak (interrupted) |") || !strings.Contains(string(md), "… and 50 more failures") {
		t.Errorf("report.md does not mark the interrupted run or cap its failures")
	}
	if n := strings.Count(string(md), "| request\\_error |") + strings.Count(string(md), "| controlled\\_output\\_failed |"); n != ReportMaxFailuresMarkdown {
		t.Errorf("report.md lists %d failures, want %d", n, ReportMaxFailuresMarkdown)
	}
}

// TestReportGolden compares the report of fixed artifacts with testdata/; run with
// -update to rewrite them after an intended change, and look at the diff.
func TestReportGolden(t *testing.T) {
	dir := t.TempDir()
	runs := append([]*artifact.Benchmark{readReference(t)}, suiteRuns()...)
	// No budgets: their verdicts are budget.Judge's sentences, which that package owns;
	// TestWriteReportContent checks the budget table and lines.
	opts := ReportOptions{Title: "golden", Curve: suiteCurve,
		Paths: []string{"capacity/reference.json"}, Generated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := WriteReport(dir, runs, opts); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ReportHTMLFile, ReportMarkdownFile} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "report-golden."+strings.TrimPrefix(filepath.Ext(name), "."))
		if *updateGolden {
			if err := artifact.WriteFileAtomic(golden, got); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./reporters -run TestReportGolden -update)", err)
		}
		if !bytes.Equal(got, want) {
			gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%s differs from %s at line %d:\ngot  %.300s\nwant %.300s\n(run with -update if intended)", name, golden, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("%s differs from %s in length (%d vs %d lines)", name, golden, len(gl), len(wl))
		}
	}
}
