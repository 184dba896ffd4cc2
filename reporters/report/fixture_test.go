package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

const (
	endpointA = "http://engine-a.example:8000/v1"
	endpointB = "http://engine-b.example:8000/v1"
	privateA  = "http://127.0.0.1:41001/v1"
	privateB  = "http://127.0.0.1:41002/v1"
)

// synthSpec describes a synthetic run: a closed loop of conc slots over n requests, each
// with a TTFT growing with context and load and a fixed TPOT.
type synthSpec struct {
	name, url string
	conc, ctx int
	n         int
	failEvery int // every failEvery-th request fails (0: none)
	ttftMs    float64
	tpotMs    float64
	selfTest  bool
}

func synth(s synthSpec) *artifact.Benchmark {
	const tokens = 33
	if s.url == "" {
		s.url = endpointA
	}
	b := &artifact.Benchmark{
		Schema: artifact.Schema, BaseURL: s.url, Model: "model-under-test",
		Engine: new("engine-x"), GPU: new("H100"), Requests: s.n, Concurrency: s.conc,
		ContextTokens: new(s.ctx), MaxTokens: 64, ResponseWords: 32,
		ContextDistribution:    map[string]int{fmt.Sprint(s.ctx): s.n},
		ControlledOutputPolicy: "strict", MeasurementProtocol: artifact.ProtocolV3, PromptCacheMode: "unique",
		RunID: "run-" + s.name, StartedAt: "2026-01-02T03:04:05Z", FinishedAt: "2026-01-02T03:05:06Z",
		Extension: &artifact.Extension{Version: artifact.ExtensionVersion, Scenario: s.name, Complete: true, SelfTest: s.selfTest, RunID: fixtureRun,
			Arrival: artifact.Arrival{Model: artifact.ArrivalClosedLoop, MaxInFlight: s.conc}},
	}
	slots := make([]float64, s.conc)
	var ttft, tpot, e2e []float64
	done, wall := 0, 0.0
	for i := range s.n {
		slot := i % s.conc
		start := slots[slot]
		t := s.ttftMs * (1 + 0.04*float64(i%5))
		end := t + s.tpotMs*float64(tokens-1)
		span := artifact.RequestSpan{RequestIndex: i, StartOffsetMs: artifact.F(start), Outcome: "ok", TTFTMs: artifact.F(t), E2EMs: artifact.F(end)}
		if s.failEvery > 0 && i%s.failEvery == s.failEvery-1 {
			b.Failures = append(b.Failures, artifact.Failure{RequestIndex: i, ErrorType: "request_error",
				ErrorMessage: "HTTP 503: engine overloaded", ElapsedMs: artifact.F(t / 2), FailureClass: artifact.FailureRequestError})
			span.Outcome, span.TTFTMs, span.E2EMs = "request_error", nil, nil
		} else {
			b.RequestTimings = append(b.RequestTimings, artifact.RequestTiming{RequestIndex: i, TTFTMs: artifact.Float(t),
				E2EMs: artifact.Float(end), TimeToFirstOutputMs: artifact.Float(t), TPOTMs: artifact.F(s.tpotMs),
				PlannedContextTokens: s.ctx, OutputTokens: new(tokens), OutputTokenSource: "usage"})
			ttft, tpot, e2e = append(ttft, t), append(tpot, s.tpotMs*(1+0.01*float64(i%3))), append(e2e, end)
			done++
		}
		slots[slot] = start + end
		wall = math.Max(wall, start+end)
		b.Extension.Timeline = append(b.Extension.Timeline, span)
	}
	b.Completed, b.Failed = len(b.RequestTimings), len(b.Failures)
	b.WallClockMs = artifact.Float(wall)
	b.PerformanceEligible = b.Failed == 0
	b.Metrics.TTFT, b.Metrics.TPOT, b.Metrics.E2E = dist(ttft), dist(tpot), dist(e2e)
	if b.Failed == 0 {
		b.Metrics.ThroughputPerformanceEligible = true
		b.Metrics.ThroughputTokS = artifact.F(float64(done*tokens) / (wall / 1000))
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
	rank := func(p float64) *artifact.Float { return artifact.F(s[max(int(math.Ceil(p/100*float64(len(s))))-1, 0)]) }
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	d.Mean, d.Min, d.Max = artifact.F(sum/float64(len(s))), artifact.F(s[0]), artifact.F(s[len(s)-1])
	d.P25, d.P50, d.P75, d.P90, d.P95, d.P99 = rank(25), rank(50), rank(75), rank(90), rank(95), rank(99)
	return d
}

// ladder is a concurrency ladder against url, in the given (shuffled) order.
func ladder(url string, tpot float64, concs ...int) []Run {
	var runs []Run
	for _, c := range concs {
		runs = append(runs, Run{Path: fmt.Sprintf("curves/concurrency-%d.json", c),
			Benchmark: synth(synthSpec{name: fmt.Sprintf("concurrency-%d", c), url: url, conc: c, ctx: 2048, n: max(8, 2*c), ttftMs: 40, tpotMs: tpot * (1 + 0.1*float64(c))})})
	}
	return runs
}

// fixture is a run as the suites leave it: the endpoint's configured scenario (with a
// baseline), a concurrency ladder and a context ladder against it, self-tests against
// private engines (a capacity search among them), and a gate whose budget broke.
// fixtureRun is the run every artifact of the fixture belongs to.
const fixtureRun = "run-fixture"

func fixture() Input {
	configured := synth(synthSpec{name: "configured", conc: 4, ctx: 2048, n: 40, ttftMs: 50, tpotMs: 6})
	configured.Extension.Baseline = &artifact.BaselineRef{Source: "baselines/main.json", RunID: "run-main",
		Metrics: map[string]float64{"ttft_p50_ms": 50, "tpot_p50_ms": 5, "tpot_p95_ms": 5, "throughput_tok_s": 1000}}
	in := Input{Title: "nightly", Runs: []Run{{Path: "capacity/configured.json", Benchmark: configured}}}
	in.Runs = append(in.Runs, ladder(endpointA, 4, 16, 2, 64, 1, 8, 4, 32)...)
	for _, k := range []int{64, 1, 32, 8} {
		in.Runs = append(in.Runs, Run{Path: fmt.Sprintf("curves/context-%dk.json", k),
			Benchmark: synth(synthSpec{name: fmt.Sprintf("context-%dk", k), conc: 1, ctx: k * 1000, n: 4, ttftMs: float64(k) * 12, tpotMs: 4})})
	}
	// self-tests: two private engines with a "ladder" of their own, and a capacity search
	for i, c := range []int{1, 2} {
		in.Runs = append(in.Runs, Run{Path: fmt.Sprintf("capacity/gate-unchanged-%d.json", i+1),
			Benchmark: synth(synthSpec{name: fmt.Sprintf("gate-unchanged-%d", i+1), url: []string{privateA, privateB}[i], conc: c, ctx: 1000, n: 8, ttftMs: 10, tpotMs: 1, selfTest: true})})
	}
	knee := synth(synthSpec{name: "knee", url: privateB, conc: 9, ctx: 1000, n: 18, ttftMs: 10, tpotMs: 1 + 0.75*9, selfTest: true})
	search := &artifact.Search{Over: "concurrency", Max: 64, SLO: []string{"tpot_p95_ms<=8"}}
	for _, c := range []int{1, 2, 4, 8, 16, 12, 10, 9} {
		verdict := map[bool]string{true: "held", false: "broke"}[c <= 9]
		search.Probes = append(search.Probes, artifact.SearchProbe{Load: artifact.Float(c), Attempt: 1, Requests: max(8, 2*c), Verdict: verdict, Decided: verdict,
			Figures: []artifact.SearchFigure{{Budget: "tpot_p95_ms<=8", Value: artifact.F(1 + 0.75*float64(c)), Verdict: verdict}}})
		search.Requests += max(8, 2*c)
	}
	search.Capacity, search.Broke, search.BrokeFirst = 9, artifact.F(10), []string{"tpot_p95_ms<=8"}
	knee.Extension.Search = search
	in.Runs = append(in.Runs, Run{Path: "curves/knee.json", Benchmark: knee})
	in.Gate = &gate.Summary{RunID: fixtureRun, Suites: []gate.SuiteState{{Name: "capacity", State: gate.SuiteFinished, Checks: 7}},
		Failed: []gate.Failure{{Suite: "capacity", Check: "configured scenario meets the budget tpot_p95_ms<=5", Kind: gate.KindBudget,
			State: "failed", Message: "tpot p95 6.12ms exceeds budget 5.00ms over 40 samples", Outcome: gate.BudgetBroken}}}
	in.Gate.Judge()
	return in
}

// render builds and renders in, failing the test on any error.
func render(t testing.TB, in Input) (*Model, string, string) {
	t.Helper()
	m, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	var h, md bytes.Buffer
	if err := m.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	return m, h.String(), md.String()
}

var svgRE = regexp.MustCompile(`(?s)<svg\b.*?</svg>`)

// svgs extracts every inline <svg> and checks it is well-formed XML with an accessible
// name; it returns them keyed by id.
func svgs(t *testing.T, page string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, frag := range svgRE.FindAllString(page, -1) {
		dec := xml.NewDecoder(strings.NewReader(frag))
		dec.Strict = true
		var root struct {
			XMLName xml.Name
			ID      string `xml:"id,attr"`
			Role    string `xml:"role,attr"`
			Labels  string `xml:"aria-labelledby,attr"`
			Title   string `xml:"title"`
		}
		if err := dec.Decode(&root); err != nil {
			t.Fatalf("svg fragment is not well-formed XML: %v\n%.400s", err, frag)
		}
		if root.Role != "img" || root.Labels == "" || root.Title == "" || root.ID == "" {
			t.Fatalf("svg %q lacks role=img, aria-labelledby, a title or an id", root.ID)
		}
		if _, dup := out[root.ID]; dup {
			t.Fatalf("duplicate svg id %q", root.ID)
		}
		out[root.ID] = frag
	}
	return out
}

// wellFormed parses the whole page as XML.
func wellFormed(t *testing.T, page string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			l, c := dec.InputPos()
			t.Fatalf("report.html is not well-formed at %d:%d: %v", l, c, err)
		}
	}
}

// drawnSeries are the series of one chart: each series' points' sources and x values, in
// document order.
type drawnSeries struct {
	name    string
	sources []string
	xs      []float64
}

var pointRE = regexp.MustCompile(`<g class="point" data-x="([^"]*)" data-source="([^"]*)">`)

func seriesOf(t *testing.T, svg string) []drawnSeries {
	t.Helper()
	var out []drawnSeries
	for _, part := range strings.Split(svg, `<g class="series">`)[1:] {
		name, _, _ := strings.Cut(strings.TrimPrefix(part, "<title>"), "</title>")
		s := drawnSeries{name: name}
		for _, p := range pointRE.FindAllStringSubmatch(part, -1) {
			var x float64
			if _, err := fmt.Sscan(p[1], &x); err != nil {
				t.Fatalf("data-x %q: %v", p[1], err)
			}
			s.xs, s.sources = append(s.xs, x), append(s.sources, p[2])
		}
		out = append(out, s)
	}
	return out
}
