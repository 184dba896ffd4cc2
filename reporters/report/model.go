package report

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// Model is the report both renderers draw: built once from an Input by Build.
type Model struct {
	Title     string
	Generated string
	// Verdict says whether the run passed and why not.
	Verdict verdictView
	// UnderTest names the endpoint under test: the endpoint, model, engine and GPU of its
	// runs (every distinct value), the period and the number of scenarios.
	UnderTest []fieldView
	// Scenarios are the runs of the endpoint under test, in path order with numbers
	// compared as numbers; Baselined is true when any has a baseline.
	Scenarios []*runView
	Baselined bool
	// Endpoints is true when the scenarios ran against more than one endpoint, so the
	// table names each one's.
	Endpoints bool
	// Charts draw the comparable sets of those runs; Curves their capacity searches.
	Charts []chartView
	Curves []chartView
	// SelfTests are the runs that proved the harness against private engines, and
	// SelfTestCurves their capacity searches: kept apart, collapsed.
	SelfTests      []*runView
	SelfTestCurves []chartView
	// Conformance is what the endpoint honoured per API, when the run asked (nil otherwise).
	Conformance *conformanceTable
	Notes       []string
}

// fieldView is one labelled value.
type fieldView struct{ Label, Value string }

// Build turns an Input into the report's Model. It fails only on input no report can
// show: a nil artifact or a budget of an unknown metric. A search whose SLO it cannot read
// is drawn with no curve, and a note.
func Build(in Input) (*Model, error) {
	runs := thisRun(&in)
	m := &Model{Title: strings.TrimSpace(in.Title), Notes: slices.Clip(in.Notes)}
	if m.Title == "" {
		m.Title = defaultTitle
	}
	if !in.Generated.IsZero() {
		m.Generated = in.Generated.UTC().Format(time.RFC3339)
	}
	for i, b := range in.Budgets {
		if _, known := artifact.LookupFigure(b.Metric); !known {
			return nil, fmt.Errorf("budget %d (%s): unknown metric %q", i+1, b, b.Metric)
		}
	}
	baseline := map[string]*artifact.Benchmark{}
	for _, r := range in.Baseline {
		if r.Benchmark != nil {
			baseline[r.Path] = r.Benchmark
		}
	}
	slices.SortStableFunc(runs, func(a, b Run) int { return naturalLess(a.Path, b.Path) })
	for i, r := range runs {
		if r.Benchmark == nil {
			return nil, fmt.Errorf("run %d (%s) is nil", i+1, r.Path)
		}
		v := newRunView(r, baseline[r.Path], interleavedPartner(r.Benchmark, runs))
		if v.SelfTest {
			m.SelfTests = append(m.SelfTests, v)
			continue
		}
		m.Scenarios = append(m.Scenarios, v)
		m.Baselined = m.Baselined || v.Baseline != ""
	}
	m.Scenarios = partnersTogether(m.Scenarios)
	all := append(slices.Clone(m.Scenarios), m.SelfTests...)
	uniqueIDs(all)
	for _, v := range all {
		v.Timeline, v.TimelineNote = timeline(v)
		v.Charts = kindCharts(v, partnerOf(v, all))
	}
	m.UnderTest = underTest(ownRuns(m.Scenarios))
	m.Conformance = conformanceOf(in.Gate)
	if c := m.Conformance; c != nil && len(m.Scenarios) == 0 {
		// A run of conformance specs alone asked an endpoint, and ran no scenario of it.
		m.UnderTest = []fieldView{{"endpoint", orDash(c.Endpoint)}, {"model", orDash(c.Model)}, {"scenarios", "none: the conformance below asked what the engine honours"}}
	}
	for _, v := range m.Scenarios {
		m.Endpoints = m.Endpoints || v.B.BaseURL != m.Scenarios[0].B.BaseURL
	}
	m.Verdict = verdictOf(in, ownRuns(m.Scenarios))

	var err error
	if m.Charts, err = comparableCharts(m.Scenarios, in.Baseline, in.Budgets); err != nil {
		return nil, err
	}
	n := 0
	for _, r := range runs {
		if r.Benchmark == nil || r.Extension == nil || r.Extension.Search == nil || r.Extension.Interleaved != nil && r.Extension.Interleaved.Role == artifact.RoleBaseline {
			continue
		}
		n++
		ch, ok, err := curveChart(n, r)
		if err != nil {
			m.Notes = append(m.Notes, err.Error())
			continue
		}
		if !ok {
			continue
		}
		if r.Extension.SelfTest {
			m.SelfTestCurves = append(m.SelfTestCurves, ch)
		} else {
			m.Curves = append(m.Curves, ch)
		}
	}
	return m, nil
}

// ownRuns are the runs of the endpoint under test: not the baseline build's runs of
// interleaved ones, which the table shows beside them.
func ownRuns(runs []*runView) []*runView {
	return slices.DeleteFunc(slices.Clone(runs), baselineBuild)
}

// baselineBuild reports whether v is the baseline build's run of an interleaved run.
func baselineBuild(v *runView) bool {
	x := v.B.Extension
	return x != nil && x.Interleaved != nil && x.Interleaved.Role == artifact.RoleBaseline
}

// partnersTogether moves the baseline build's run of an interleaved run right after the
// run of the build under test, so the two read as a pair.
func partnersTogether(runs []*runView) []*runView {
	var out, partners []*runView
	for _, v := range runs {
		if baselineBuild(v) && partnerOf(v, runs) != nil {
			partners = append(partners, v)
			continue
		}
		out = append(out, v)
	}
	for _, p := range partners {
		at := slices.Index(out, partnerOf(p, out)) + 1
		out = slices.Insert(out, at, p)
	}
	return out
}

// underTest is the header: each field once when every run agrees, else every distinct
// value.
func underTest(runs []*runView) []fieldView {
	if len(runs) == 0 {
		return []fieldView{{"endpoint", "none: no run of an endpoint under test was found"}}
	}
	field := func(label string, get func(*artifact.Benchmark) string) fieldView {
		var vals []string
		for _, r := range runs {
			if v := orDash(get(r.B)); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		return fieldView{label, strings.Join(vals, ", ")}
	}
	first, last := "", ""
	for _, r := range runs {
		if s := r.B.StartedAt; s != "" && (first == "" || s < first) {
			first = s
		}
		if f := r.B.FinishedAt; f > last {
			last = f
		}
	}
	period := "—"
	if first != "" || last != "" {
		period = first + " – " + last
	}
	return []fieldView{
		field("endpoint", func(b *artifact.Benchmark) string { return b.BaseURL }),
		field("model", func(b *artifact.Benchmark) string { return b.Model }),
		field("engine", func(b *artifact.Benchmark) string { return deref(b.Engine) }),
		field("engine version", engineVersion),
		field("gpu", func(b *artifact.Benchmark) string { return deref(b.GPU) }),
		{"period", period},
		{"scenarios", fmtInt(len(runs))},
	}
}

// engineVersion is the version the engine stated and where, "" when it stated none.
func engineVersion(b *artifact.Benchmark) string {
	if b.Extension == nil || b.Extension.Capabilities.EngineVersion == nil {
		return ""
	}
	c := b.Extension.Capabilities
	return *c.EngineVersion + " (" + deref(c.EngineVersionSource) + ")"
}

// uniqueIDs gives every run an anchor id of its own, from its path.
func uniqueIDs(runs []*runView) {
	seen := map[string]int{}
	for _, r := range runs {
		id := "run-" + slug(strings.TrimSuffix(r.Path, ".json"))
		if id == "run-" {
			id = "run"
		}
		seen[id]++
		if n := seen[id]; n > 1 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		r.ID = id
	}
}

func slug(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// figureView is one figure of the scenarios table and its change from the baseline.
type figureView struct {
	Text string
	// Delta is the relative change from the baseline ("+3.2%"), empty without one;
	// DeltaClass is "worse", "better" or "same" (within the regression rule's threshold,
	// half the gate's change), DeltaTitle the two values.
	Delta, DeltaClass, DeltaTitle string
}

// figures are the headline figures of b, each with its change from base; a change beyond
// threshold (a fraction) is worse or better, as the gate's rule reads a change.
func figures(b *artifact.Benchmark, base map[string]float64, threshold float64) []figureView {
	heads := artifact.HeadlineFigures()
	out := make([]figureView, len(heads))
	for i, h := range heads {
		v, _ := h.Of(b)
		f := figureView{Text: "—"}
		if v != nil {
			f.Text = fmtMetric(*v, h.Key)
		}
		if bv, ok := base[h.Key]; ok && v != nil && bv != 0 && isFinite(bv) {
			d := (*v - bv) / bv
			f.Delta = signedPct(d)
			switch {
			case math.Abs(d) <= threshold:
				f.DeltaClass = "same"
			case (d > 0) == h.HigherIsWorse:
				f.DeltaClass = "worse"
			default:
				f.DeltaClass = "better"
			}
			f.DeltaTitle = fmt.Sprintf("%s: %s now, %s in the baseline", describeMetric(h.Key), f.Text, fmtMetric(bv, h.Key))
		}
		out[i] = f
	}
	return out
}

// HeadlineNames are the scenarios table's figure columns.
func (m *Model) HeadlineNames() []string {
	heads := artifact.HeadlineFigures()
	out := make([]string, len(heads))
	for i, h := range heads {
		out[i] = describeMetric(h.Key)
	}
	return out
}

// budgetFamily is the family a budget's key charts with: "tpot" for tpot_p95_ms and its
// twins, "ttft", "throughput".
func budgetFamily(key string) string {
	switch {
	case strings.HasPrefix(key, "tpot_"), strings.HasPrefix(key, "mean_time_per_output_token"), strings.HasPrefix(key, "mean_inter_token_latency"):
		return "tpot"
	case strings.HasPrefix(key, "ttft_"):
		return "ttft"
	case key == "throughput_tok_s":
		return "throughput"
	}
	return ""
}

// budgetsOf are the budgets on one family, and the key to chart for it: the budgeted key
// when there is one, else def.
func budgetsOf(budgets []budget.Budget, family, def string) (string, []budget.Budget) {
	var out []budget.Budget
	key := def
	for _, b := range budgets {
		if budgetFamily(b.Metric) == family {
			if len(out) == 0 {
				key = b.Metric
			}
			if b.Metric == key {
				out = append(out, b)
			}
		}
	}
	return key, out
}

// suiteOf is the suite directory of an artifact path.
func suiteOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// thisRun are the runs of the run the report shows (in.RunID): those of earlier runs left
// in the directory are left out, with a note naming them, so nothing an earlier run wrote
// is presented as this run's.
func thisRun(in *Input) []Run {
	if in.RunID == "" {
		return slices.Clone(in.Runs)
	}
	var runs []Run
	var stale []string
	for _, r := range in.Runs {
		if r.Benchmark != nil && (r.Extension == nil || r.Extension.RunID != in.RunID) {
			stale = append(stale, r.Path)
			continue
		}
		runs = append(runs, r)
	}
	if len(stale) > 0 {
		shown := stale
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(stale)-5))
		}
		in.Notes = append(in.Notes, fmt.Sprintf("%s of other runs in this directory left out, not run %s's: %s",
			plural(len(stale), "file", "files"), in.RunID, strings.Join(shown, ", ")))
	}
	return runs
}

// interleavedPartner is the baseline build's artifact of the interleaved run b is the
// current engine's artifact of; nil for any other run.
func interleavedPartner(b *artifact.Benchmark, runs []Run) *artifact.Benchmark {
	if b.Extension == nil || b.Extension.Interleaved == nil || b.Extension.Interleaved.Role != artifact.RoleCurrent {
		return nil
	}
	for _, r := range runs {
		if x := r.Benchmark.Extension; x != nil && x.Interleaved != nil && x.Interleaved.Role == artifact.RoleBaseline &&
			x.Interleaved.Pairing == b.Extension.Interleaved.Pairing {
			return r.Benchmark
		}
	}
	return nil
}
