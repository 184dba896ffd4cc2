package reporters

// The human-readable report of a suite run: report.html (one self-contained file, inline
// CSS and SVG, no JavaScript, no external assets) and report.md (the same tables in
// GitHub-flavoured Markdown, for $GITHUB_STEP_SUMMARY). report.go holds the API, the
// loader and the view model both renderers share; report_svg.go draws the charts,
// report_html.go and report_markdown.go write the two files.

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// Report file names, written into the output directory.
const (
	ReportHTMLFile     = "report.html"
	ReportMarkdownFile = "report.md"
)

// DefaultReportTitle is the title of a report whose options name none.
const DefaultReportTitle = "anvilbench report"

// Caps on what the report lists, so a 10000-request run stays a readable, bounded file.
// Whatever is left out is counted in the report ("… and 40 more").
const (
	// ReportMaxFailuresHTML is the most failures listed per artifact in report.html.
	ReportMaxFailuresHTML = 500
	// ReportMaxFailuresMarkdown is the most failures listed per artifact in report.md
	// ($GITHUB_STEP_SUMMARY takes at most 1 MiB).
	ReportMaxFailuresMarkdown = 50
	// ReportMaxTimelineRequests is the most requests drawn in one timeline chart.
	ReportMaxTimelineRequests = 2000
)

// ReportOptions tune WriteReport. The zero value is a report with the default title, no
// budgets and no capacity curve.
type ReportOptions struct {
	// Title heads both files; empty is DefaultReportTitle.
	Title string
	// Budgets are judged against every artifact (a pass/fail table) and drawn as dashed
	// horizontal lines on the charts that plot their metric's family: ttft_* on the TTFT
	// chart, tpot_* (and its twins mean_time_per_output_token_*,
	// mean_inter_token_latency_ms_*) on the TPOT chart, throughput_tok_s on the throughput
	// chart, and any metric of the capacity curve on its chart.
	Budgets []ReportBudget
	// Curve is an optional knee search over load (a capacity curve), summarized as a
	// table, a chart and the highest passing load.
	Curve *CapacityCurve
	// Paths are the artifact files the runs were read from, parallel to runs (index i
	// names runs[i]), relative to the output directory ("capacity/reference.json"). A run
	// without Extension.Scenario is named after its file; a missing or empty entry names
	// it "run N". Paths may be shorter than runs, or nil.
	Paths []string
	// Notes are shown under "Files not included", e.g. the notes of LoadRuns.
	Notes []string
	// Generated is printed as the report's creation time; the zero value leaves it out,
	// so a report of the same artifacts is byte-for-byte the same file.
	Generated time.Time
}

// ReportBudget is one bound on a metric of the v1 metrics block, such as
// tpot_p95_ms <= 50, judged against every artifact with budget.Judge. A parsed
// ANVIL_BUDGETS term converts field for field:
// ReportBudget{Metric: b.Metric, Op: b.Op, Limit: b.Limit}.
type ReportBudget struct {
	// Metric is a key of the v1 metrics block: tpot_p95_ms, ttft_p50_ms,
	// decode_tok_s_p50, throughput_tok_s, ... It may carry budget.Parse's judging options
	// after the key ("tpot_p95_ms@upper95"), which budget.Judge applies. For the capacity
	// curve it may also be any key of CurvePoint.Metrics.
	Metric string
	// Op is one of "<=", "<", ">=", ">"; empty means "<=".
	Op string
	// Limit is in the metric's own unit (milliseconds for _ms keys, tokens/s for tok_s).
	Limit float64
}

// String is the budget as ANVIL_BUDGETS spells it: "tpot_p95_ms<=50".
func (b ReportBudget) String() string {
	return b.Metric + b.op() + strconv.FormatFloat(b.Limit, 'g', -1, 64)
}

func (b ReportBudget) op() string {
	if b.Op == "" {
		return budget.AtMost
	}
	return b.Op
}

// key is the metrics key without judging options.
func (b ReportBudget) key() string {
	k, _, _ := strings.Cut(b.Metric, "@")
	return strings.TrimSpace(k)
}

// label is the budget for people: "tpot p95 ≤ 50.00 ms", "tpot p95 ≤ 8.00 ms (upper95)".
func (b ReportBudget) label() string {
	sym := map[string]string{budget.AtMost: "≤", budget.Below: "<", budget.AtLeast: "≥", budget.Above: ">"}[b.op()]
	l := describeMetric(b.key()) + " " + sym + " " + fmtMetric(b.Limit, b.key())
	if _, opts, ok := strings.Cut(b.Metric, "@"); ok {
		l += " (" + strings.ReplaceAll(opts, "@", ", ") + ")"
	}
	return l
}

// describeMetric names a metrics key for people: "tpot p95", "throughput".
func describeMetric(key string) string {
	if d := budget.Describe(key); d != key {
		return d
	}
	if key == "throughput_tok_s" {
		return "throughput"
	}
	return strings.ReplaceAll(key, "_", " ")
}

// CapacityCurve is the outcome of a knee search: the same scenario measured at several
// loads, each point judged against the search's budgets. The report charts the points,
// marks the failed ones and names the knee (see CapacityCurve.Knee).
type CapacityCurve struct {
	// Title heads the curve's section; empty is "Capacity curve".
	Title string
	// Metrics are the keys of CurvePoint.Metrics to chart and tabulate, in order; empty
	// takes every key of any point, sorted. Keys of one unit share a chart (milliseconds,
	// tokens/s, ...); a metric of ReportOptions.Budgets is drawn as a dashed line on its
	// chart.
	Metrics []string
	// Points are the measured loads, in any order.
	Points []CurvePoint
}

// CurvePoint is one load of a capacity curve.
type CurvePoint struct {
	// Concurrency is the closed-loop load (requests in flight); 0 for an open-loop point.
	Concurrency int
	// RatePerSec is the open-loop arrival rate in requests per second; 0 for a
	// closed-loop point. The curve's x axis is concurrency when any point has one, else
	// the rate.
	RatePerSec float64
	// Metrics are the figures measured at this load, keyed like the v1 metrics block
	// (tpot_p95_ms, throughput_tok_s, ...). Non-finite values are ignored.
	Metrics map[string]float64
	// Passed reports that every budget of the search held at this load.
	Passed bool
}

// Knee returns the capacity the curve shows: the highest passing load below the lowest
// failing one (in load order), and that failing load. ok is false when no point passed
// below the first failure; failed is nil when no point failed. Points above the first
// failure that passed again (a noisy curve) do not move the knee.
func (c *CapacityCurve) Knee() (knee *CurvePoint, failed *CurvePoint, ok bool) {
	if c == nil {
		return nil, nil, false
	}
	pts := c.sorted()
	for i := range pts {
		if !pts[i].Passed {
			failed = &pts[i]
			break
		}
		knee = &pts[i]
	}
	return knee, failed, knee != nil
}

// byRate reports whether the curve's load axis is the arrival rate.
func (c *CapacityCurve) byRate() bool {
	for _, p := range c.Points {
		if p.Concurrency > 0 {
			return false
		}
	}
	return true
}

func (c *CapacityCurve) load(p CurvePoint) float64 {
	if c.byRate() {
		return p.RatePerSec
	}
	return float64(p.Concurrency)
}

func (c *CapacityCurve) loadLabel(p CurvePoint) string {
	if c.byRate() {
		return fmtNumber(p.RatePerSec, 3) + " req/s"
	}
	return strconv.Itoa(p.Concurrency) + " concurrent"
}

// sorted is a copy of the points in load order.
func (c *CapacityCurve) sorted() []CurvePoint {
	pts := slices.Clone(c.Points)
	slices.SortStableFunc(pts, func(a, b CurvePoint) int { return cmpFloat(c.load(a), c.load(b)) })
	return pts
}

// metricKeys are the curve's charted keys.
func (c *CapacityCurve) metricKeys() []string {
	if len(c.Metrics) > 0 {
		return c.Metrics
	}
	seen := map[string]bool{}
	for _, p := range c.Points {
		for k := range p.Metrics {
			seen[k] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// RunFile is one artifact read by LoadRunFiles.
type RunFile struct {
	// Path is the file relative to the output directory, slash-separated:
	// "capacity/reference.json".
	Path string
	Run  *artifact.Benchmark
}

// LoadRuns reads every v1 artifact at outDir/<suite>/<spec>.json, sorted by that
// relative path; see LoadRunFiles, of which it keeps the artifacts only.
func LoadRuns(outDir string) ([]*artifact.Benchmark, []string, error) {
	files, notes, err := LoadRunFiles(outDir)
	if err != nil {
		return nil, notes, err
	}
	runs := make([]*artifact.Benchmark, len(files))
	for i, f := range files {
		runs[i] = f.Run
	}
	return runs, notes, nil
}

// LoadRunFiles reads every outDir/*/*.json that is an anvil-serving.benchmark/v1
// artifact, sorted by its path relative to outDir. One bad file never fails the load: a
// JSON file of another schema (a summary, a tool's own output) is skipped with a note,
// and a file that cannot be read or decoded is left out with a note naming its path and
// error; the notes are in path order. Hidden files and directories (a leading ".") are
// ignored. The error is reserved for an outDir that cannot be listed.
func LoadRunFiles(outDir string) ([]RunFile, []string, error) {
	suites, err := os.ReadDir(outDir)
	if err != nil {
		return nil, nil, fmt.Errorf("load runs: %w", err)
	}
	var files []RunFile
	var notes []string
	for _, suite := range suites {
		if strings.HasPrefix(suite.Name(), ".") || !isDir(outDir, suite) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(outDir, suite.Name()))
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s/: not listed: %v", suite.Name(), err))
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") || strings.HasSuffix(name, CurveFileSuffix) {
				continue
			}
			rel := path.Join(suite.Name(), name)
			if isDir(filepath.Join(outDir, suite.Name()), e) {
				notes = append(notes, rel+": skipped: a directory")
				continue
			}
			b, err := artifact.Read(filepath.Join(outDir, suite.Name(), name))
			switch {
			case errors.Is(err, artifact.ErrNotArtifact):
				notes = append(notes, rel+": skipped: "+trimReadPrefix(err))
			case err != nil:
				notes = append(notes, rel+": not read: "+trimReadPrefix(err))
			default:
				files = append(files, RunFile{Path: rel, Run: b})
			}
		}
	}
	// ReadDir sorts by name, so both lists are already in suite/spec order.
	return files, notes, nil
}

func isDir(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && info.IsDir()
}

// trimReadPrefix drops artifact.Read's "read artifact <path>: " by unwrapping it, as the
// note names the path already (relative, not absolute); cutting the text at ": " would cut
// inside a path that holds one.
func trimReadPrefix(err error) string {
	if inner := errors.Unwrap(err); inner != nil {
		return inner.Error()
	}
	return err.Error()
}

// ReportDir loads outDir's artifacts (LoadRunFiles) and writes the report of them into
// outDir (WriteReport), naming runs after their files and listing the load's notes in the
// report. It returns the notes, so a caller can print them too. opts.Paths and
// opts.Notes are replaced and extended respectively.
func ReportDir(outDir string, opts ReportOptions) ([]string, error) {
	files, notes, err := LoadRunFiles(outDir)
	if err != nil {
		return nil, err
	}
	runs := make([]*artifact.Benchmark, len(files))
	opts.Paths = make([]string, len(files))
	for i, f := range files {
		runs[i], opts.Paths[i] = f.Run, f.Path
	}
	opts.Notes = append(slices.Clip(opts.Notes), notes...)
	return notes, WriteReport(outDir, runs, opts)
}

// WriteReport writes outDir/report.html and outDir/report.md for runs, each atomically
// (artifact.WriteFileAtomic). Both are rendered before either is written, so an invalid
// option (a budget of an unknown metric, a nil run) changes nothing. Zero runs still make
// a report, one that says so.
func WriteReport(outDir string, runs []*artifact.Benchmark, opts ReportOptions) error {
	rep, err := buildReport(runs, opts)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	html, err := renderHTML(rep)
	if err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	md := renderMarkdown(rep)
	if err := artifact.WriteFileAtomic(filepath.Join(outDir, ReportHTMLFile), html); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := artifact.WriteFileAtomic(filepath.Join(outDir, ReportMarkdownFile), md); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// reportModel is the view model both renderers share.
type reportModel struct {
	Title     string
	Generated string
	Identity  []identityItem
	Runs      []*runView
	Budgets   []ReportBudget
	Verdicts  [][]verdictCell // [run][budget]
	Curve     *curveView
	Charts    []reportChart // the cross-run charts
	Notes     []string
}

type identityItem struct{ Label, Value string }

type runView struct {
	N      int // 1-based
	ID     string
	Name   string
	Source string
	B      *artifact.Benchmark
	// Context is the run's planned context in tokens (x of the TTFT chart); 0 unknown.
	Context float64
	// ContextExact is false when Context is a mean of varying planned contexts.
	ContextExact bool
	Timeline     *reportChart // nil when the artifact carries no timeline
	TimelineNote string
	Failures     []failureView
	FailuresMore int // failures beyond the HTML cap
	Interrupted  bool
}

type failureView struct {
	Index     int
	Type      string
	Class     string
	Message   string
	Truncated bool
	Elapsed   string
}

type verdictCell struct {
	Pass  bool
	Err   bool
	Text  string // "42.1 ms" or the reason there is no value
	Title string // the verdict's full sentence
}

type curveView struct {
	Title   string
	Summary string
	LoadCol string
	Metrics []string
	Rows    []curveRow
	Charts  []reportChart
}

type curveRow struct {
	Load   string
	Passed bool
	Knee   bool
	Values []string
}

func buildReport(runs []*artifact.Benchmark, opts ReportOptions) (*reportModel, error) {
	rep := &reportModel{Title: opts.Title, Notes: opts.Notes}
	if strings.TrimSpace(rep.Title) == "" {
		rep.Title = DefaultReportTitle
	}
	if !opts.Generated.IsZero() {
		rep.Generated = opts.Generated.UTC().Format(time.RFC3339)
	}
	for i, b := range opts.Budgets {
		if err := checkBudget(b, opts.Curve); err != nil {
			return nil, fmt.Errorf("budget %d (%s): %w", i+1, b, err)
		}
		rep.Budgets = append(rep.Budgets, b)
	}
	for i, b := range runs {
		if b == nil {
			return nil, fmt.Errorf("run %d is nil", i+1)
		}
		src := ""
		if i < len(opts.Paths) {
			src = opts.Paths[i]
		}
		rep.Runs = append(rep.Runs, newRunView(i, b, src))
	}
	disambiguate(rep.Runs)
	rep.Identity = identityOf(rep.Runs)
	for _, r := range rep.Runs {
		var row []verdictCell
		for _, bud := range rep.Budgets {
			row = append(row, judgeBudget(bud, r.B))
		}
		rep.Verdicts = append(rep.Verdicts, row)
		r.Timeline, r.TimelineNote = timelineChart(r)
	}
	rep.Charts = []reportChart{ttftContextChart(rep), tpotConcurrencyChart(rep), throughputConcurrencyChart(rep)}
	if opts.Curve != nil && len(opts.Curve.Points) > 0 {
		rep.Curve = buildCurve(opts.Curve, rep.Budgets)
	}
	return rep, nil
}

func checkBudget(b ReportBudget, curve *CapacityCurve) error {
	switch b.op() {
	case budget.AtMost, budget.Below, budget.AtLeast, budget.Above:
	default:
		return fmt.Errorf("unknown operator %q (want one of <=, <, >=, >)", b.Op)
	}
	if math.IsNaN(b.Limit) || math.IsInf(b.Limit, 0) {
		return errors.New("limit is not a finite number")
	}
	if _, _, ok := new(artifact.Metrics).Lookup(b.key()); ok {
		return nil
	}
	if curve != nil && slices.Contains(curve.metricKeys(), b.key()) {
		return nil
	}
	return fmt.Errorf("unknown metric %q (want a key of the v1 metrics block or of the capacity curve)", b.Metric)
}

func newRunView(i int, b *artifact.Benchmark, src string) *runView {
	r := &runView{N: i + 1, ID: "run-" + strconv.Itoa(i+1), B: b, Source: src}
	switch {
	case b.Extension != nil && strings.TrimSpace(b.Extension.Scenario) != "":
		r.Name = b.Extension.Scenario
	case src != "":
		r.Name = strings.TrimSuffix(path.Base(filepath.ToSlash(src)), ".json")
	default:
		r.Name = "run " + strconv.Itoa(i+1)
	}
	r.Interrupted = b.Extension != nil && !b.Extension.Complete
	r.Context, r.ContextExact = plannedContext(b)
	for j, f := range b.Failures {
		if j == ReportMaxFailuresHTML {
			r.FailuresMore = len(b.Failures) - j
			break
		}
		fv := failureView{Index: f.RequestIndex, Type: f.ErrorType, Class: f.FailureClass,
			Message: f.ErrorMessage, Truncated: f.ErrorMessageTruncated}
		if f.ElapsedMs != nil {
			fv.Elapsed = fmtMs(float64(*f.ElapsedMs))
		}
		r.Failures = append(r.Failures, fv)
	}
	return r
}

// disambiguate gives runs sharing a name (one scenario in two suites) distinct names,
// after their source path when there is one.
func disambiguate(runs []*runView) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Name]++
	}
	for _, r := range runs {
		if count[r.Name] < 2 {
			continue
		}
		if r.Source != "" {
			r.Name += " (" + r.Source + ")"
		} else {
			r.Name += " #" + strconv.Itoa(r.N)
		}
	}
}

// plannedContext is context_tokens, else the mean planned context of the successful
// rows, else of the context distribution.
func plannedContext(b *artifact.Benchmark) (float64, bool) {
	if b.ContextTokens != nil && *b.ContextTokens > 0 {
		return float64(*b.ContextTokens), true
	}
	if len(b.RequestTimings) > 0 {
		sum, same := 0.0, true
		for _, row := range b.RequestTimings {
			sum += float64(row.PlannedContextTokens)
			same = same && row.PlannedContextTokens == b.RequestTimings[0].PlannedContextTokens
		}
		return sum / float64(len(b.RequestTimings)), same
	}
	sum, n := 0.0, 0
	for k, c := range b.ContextDistribution {
		if v, err := strconv.Atoi(k); err == nil && c > 0 {
			sum += float64(v) * float64(c)
			n += c
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), len(b.ContextDistribution) == 1
}

// identity is the header: each identity field once when every run agrees, else every
// distinct value.
func identityOf(runs []*runView) []identityItem {
	field := func(label string, get func(*artifact.Benchmark) string) identityItem {
		var vals []string
		for _, r := range runs {
			v := get(r.B)
			if v == "" {
				v = "—"
			}
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		return identityItem{Label: label, Value: strings.Join(vals, ", ")}
	}
	if len(runs) == 0 {
		return []identityItem{{Label: "artifacts", Value: "none"}}
	}
	items := []identityItem{
		field("model", func(b *artifact.Benchmark) string { return b.Model }),
		field("engine", func(b *artifact.Benchmark) string { return orEmpty(b.Engine) }),
		field("gpu", func(b *artifact.Benchmark) string { return orEmpty(b.GPU) }),
		field("base_url", func(b *artifact.Benchmark) string { return b.BaseURL }),
	}
	first, last := "", ""
	for _, r := range runs {
		if s := r.B.StartedAt; s != "" && (first == "" || s < first) {
			first = s
		}
		if f := r.B.FinishedAt; f != "" && f > last {
			last = f
		}
	}
	period := first + " – " + last
	if first == "" && last == "" {
		period = "—"
	}
	items = append(items,
		identityItem{Label: "period", Value: period},
		identityItem{Label: "artifacts", Value: strconv.Itoa(len(runs))})
	return items
}

func judgeBudget(b ReportBudget, a *artifact.Benchmark) verdictCell {
	v := budget.Judge(budget.Budget{Metric: b.Metric, Op: b.op(), Limit: b.Limit}, a)
	if v.Err != nil {
		// "tpot p95: insufficient samples: 6 of the 20 required" says its metric in the
		// column heading already.
		msg := v.Err.Error()
		name := budget.Describe(b.key())
		if rest, ok := strings.CutPrefix(msg, name); ok {
			msg = strings.TrimLeft(rest, ": ")
		}
		return verdictCell{Err: true, Text: "n/a: " + msg, Title: v.Message()}
	}
	return verdictCell{Pass: v.Pass, Text: fmtMetric(v.Value, b.key()), Title: v.Message()}
}

func buildCurve(c *CapacityCurve, budgets []ReportBudget) *curveView {
	cv := &curveView{Title: c.Title, LoadCol: "concurrency"}
	keys := c.metricKeys()
	for _, k := range keys {
		cv.Metrics = append(cv.Metrics, describeMetric(k))
	}
	if cv.Title == "" {
		cv.Title = "Capacity curve"
	}
	if c.byRate() {
		cv.LoadCol = "arrival rate"
	}
	knee, failed, ok := c.Knee()
	switch {
	case ok && failed != nil:
		cv.Summary = fmt.Sprintf("Capacity: %s, the highest passing load below the first failing one (%s); %d loads measured.",
			c.loadLabel(*knee), c.loadLabel(*failed), len(c.Points))
	case ok:
		cv.Summary = fmt.Sprintf("Capacity: at least %s: every one of the %d loads measured passed.", c.loadLabel(*knee), len(c.Points))
	default:
		cv.Summary = fmt.Sprintf("No capacity: the lowest load measured (%s) failed; %d loads measured.", c.loadLabel(*failed), len(c.Points))
	}
	for _, p := range c.sorted() {
		row := curveRow{Load: c.loadLabel(p), Passed: p.Passed, Knee: ok && c.load(p) == c.load(*knee) && p.Passed}
		for _, k := range keys {
			v, has := p.Metrics[k]
			if !has || !isFinite(v) {
				row.Values = append(row.Values, "—")
				continue
			}
			row.Values = append(row.Values, fmtMetric(v, k))
		}
		cv.Rows = append(cv.Rows, row)
	}
	cv.Charts = curveCharts(c, keys, budgets, knee)
	return cv
}

// summary cells of one run, shared by the HTML and Markdown tables.
type summaryCells struct {
	Requests, Concurrency, Context, Completed, Failed     string
	TTFTp50, TTFTp95, TPOTp50, TPOTp95, E2Ep50, DecodeP50 string
	Throughput, Protocol, Cache                           string
}

func (r *runView) Summary() summaryCells {
	b := r.B
	m := &b.Metrics
	ctx := "—"
	if r.Context > 0 {
		ctx = fmtTokens(r.Context)
		if !r.ContextExact {
			ctx = "mean " + ctx
		}
	}
	tput := fmtRatePtr(m.ThroughputTokS)
	if m.ThroughputTokS == nil && b.Failed > 0 {
		tput = "— (failures)"
	}
	return summaryCells{
		Requests:    fmtInt(b.Requests),
		Concurrency: fmtInt(b.Concurrency),
		Context:     ctx,
		Completed:   fmtInt(b.Completed),
		Failed:      fmtInt(b.Failed),
		TTFTp50:     fmtMsPtr(m.TTFT.P50),
		TTFTp95:     fmtMsPtr(m.TTFT.P95),
		TPOTp50:     fmtMsPtr(m.TPOT.P50),
		TPOTp95:     fmtMsPtr(m.TPOT.P95),
		E2Ep50:      fmtMsPtr(m.E2E.P50),
		DecodeP50:   fmtRatePtr(m.DecodeTokS.P50),
		Throughput:  tput,
		Protocol:    orDash(b.MeasurementProtocol),
		Cache:       orDash(b.PromptCacheMode),
	}
}

// distRow is one row of a run's distribution table.
type distRow struct {
	Name                                   string
	Samples, Mean, P50, P90, P95, P99, Max string
}

func (r *runView) Distributions() []distRow {
	m := &r.B.Metrics
	fams := []struct {
		name string
		d    *artifact.Distribution
		f    func(*artifact.Float) string
	}{
		{"ttft", &m.TTFT, fmtMsPtr},
		{"time to first output", &m.TimeToFirstOutput, fmtMsPtr},
		{"tpot", &m.TPOT, fmtMsPtr},
		{"e2e", &m.E2E, fmtMsPtr},
		{"generation", &m.Generation, fmtMsPtr},
		{"decode", &m.DecodeTokS, fmtRatePtr},
		{"effective prefill", &m.EffectivePrefillTokS, fmtRatePtr},
		{"prompt tokens", &m.PromptTokensDist, fmtTokensPtr},
		{"completion tokens", &m.CompletionTokens, fmtTokensPtr},
	}
	var rows []distRow
	for _, f := range fams {
		d := f.d
		rows = append(rows, distRow{Name: f.name, Samples: fmtInt(d.Samples), Mean: f.f(d.Mean),
			P50: f.f(d.P50), P90: f.f(d.P90), P95: f.f(d.P95), P99: f.f(d.P99), Max: f.f(d.Max)})
	}
	return rows
}

// Details are the run's identity and scenario, label and value.
func (r *runView) Details() []identityItem {
	b := r.B
	opt := func(p *string) string {
		if p == nil {
			return "—"
		}
		return *p
	}
	optInt := func(p *int) string {
		if p == nil {
			return "—"
		}
		return fmtInt(*p)
	}
	items := []identityItem{
		{"model", b.Model}, {"engine", opt(b.Engine)}, {"gpu", opt(b.GPU)}, {"tier", opt(b.Tier)},
		{"base_url", orDash(b.BaseURL)}, {"run_id", orDash(b.RunID)},
		{"started", orDash(b.StartedAt)}, {"finished", orDash(b.FinishedAt)},
		{"wall clock", fmtMs(float64(b.WallClockMs))},
		{"requests", fmtInt(b.Requests)}, {"concurrency", fmtInt(b.Concurrency)},
		{"context_tokens", optInt(b.ContextTokens)}, {"max_tokens", fmtInt(b.MaxTokens)},
		{"max_context_tokens", optInt(b.MaxContextTokens)}, {"response_words", fmtInt(b.ResponseWords)},
		{"controlled_output_policy", orDash(b.ControlledOutputPolicy)},
		{"measurement_protocol", orDash(b.MeasurementProtocol)}, {"prompt_cache_mode", orDash(b.PromptCacheMode)},
		{"performance_eligible", strconv.FormatBool(b.PerformanceEligible)},
	}
	if x := b.Extension; x != nil {
		items = append(items, contextItems(x)...)
		items = append(items, engineMetricItems(b, x.EngineMetrics)...)
	}
	if r.Source != "" {
		items = append(items, identityItem{"source", r.Source})
	}
	if r.Interrupted {
		items = append(items, identityItem{"complete", "false: the run was interrupted"})
	}
	return items
}

// contextItems say what context the engine saw and where the window came from.
func contextItems(x *artifact.Extension) []identityItem {
	var items []identityItem
	if src := x.Capabilities.MaxContextSource; src != nil {
		items = append(items, identityItem{"window source", fmt.Sprintf("%s (%s tokens)", *src, fmtInt(x.Capabilities.MaxContextTokens))})
	}
	acc := x.ContextAccuracy
	switch {
	case acc.Diagnosis != "":
		items = append(items, identityItem{"context served", acc.Diagnosis})
	case acc.Samples > 0 && acc.MeanErrorPct != nil && acc.MaxAbsErrorPct != nil:
		items = append(items, identityItem{"context served", fmt.Sprintf("prompt tokens %+.2f%% of plan on average, %.2f%% off at worst, over %d requests",
			float64(*acc.MeanErrorPct), float64(*acc.MaxAbsErrorPct), acc.Samples)})
	}
	return items
}

// engineMetricItems set the engine's own figures beside the client's.
func engineMetricItems(b *artifact.Benchmark, m artifact.EngineMetrics) []identityItem {
	if !m.Scraped {
		if m.Error == "" {
			return nil
		}
		return []identityItem{{"engine metrics", "not scraped: " + m.Error}}
	}
	items := []identityItem{{"engine metrics", fmt.Sprintf("%s, %d scrapes", m.URL, m.Scrapes)}}
	if t := m.TTFTMs; t != nil && t.P50Ms != nil {
		bucket := ""
		if len(t.P50BucketMs) == 2 {
			bucket = fmt.Sprintf(" (bucket %s to %s)", fmtMs(float64(t.P50BucketMs[0])), fmtMs(float64(t.P50BucketMs[1])))
		}
		items = append(items, identityItem{"ttft p50, client vs server", fmt.Sprintf("%s vs %s%s over %d server samples",
			fmtMsPtr(b.Metrics.TTFT.P50), fmtMs(float64(*t.P50Ms)), bucket, t.Count)})
	}
	if t := m.InterTokenMs; t != nil && t.P50Ms != nil {
		items = append(items, identityItem{"inter-token p50, server", fmtMs(float64(*t.P50Ms))})
	}
	if t := m.QueueMs; t != nil && t.P50Ms != nil {
		items = append(items, identityItem{"queue time p50, server", fmtMs(float64(*t.P50Ms))})
	}
	for _, f := range []struct {
		name string
		v    *artifact.Float
	}{{"preemptions", m.Preemptions}, {"kv cache usage peak", m.KVCacheUsagePeak}, {"prefix cache hit rate", m.PrefixCacheHitRate}} {
		if f.v != nil {
			items = append(items, identityItem{f.name, fmtNumber(float64(*f.v), 3)})
		}
	}
	return items
}

// number formatting: every figure carries its unit.

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// fmtMs prints a duration in milliseconds: "6.31 ms", "123.4 ms", "12.03 s".
func fmtMs(v float64) string {
	switch a := math.Abs(v); {
	case !isFinite(v):
		return "—"
	case a >= 1000:
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + " s"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64) + " ms"
	default:
		return strconv.FormatFloat(v, 'f', 3, 64) + " ms"
	}
}

func fmtMsPtr(v *artifact.Float) string {
	if v == nil {
		return "—"
	}
	return fmtMs(float64(*v))
}

// fmtRate prints tokens per second: "167.2 tok/s", "12,345 tok/s".
func fmtRate(v float64) string {
	if !isFinite(v) {
		return "—"
	}
	if math.Abs(v) >= 1000 {
		return fmtInt(int(math.Round(v))) + " tok/s"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " tok/s"
}

func fmtRatePtr(v *artifact.Float) string {
	if v == nil {
		return "—"
	}
	return fmtRate(float64(*v))
}

// fmtTokens prints a token count, rounded: "64,000 tok".
func fmtTokens(v float64) string {
	if !isFinite(v) {
		return "—"
	}
	return fmtInt(int(math.Round(v))) + " tok"
}

func fmtTokensPtr(v *artifact.Float) string {
	if v == nil {
		return "—"
	}
	return fmtTokens(float64(*v))
}

// fmtInt prints an integer with thousands separators.
func fmtInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtNumber prints v with at most prec significant decimals and no trailing zeros.
func fmtNumber(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fmtMetric prints a value of a metrics key in that key's unit.
func fmtMetric(v float64, key string) string {
	switch budget.Unit(key) {
	case "ms":
		return fmtMs(v)
	case "tok/s":
		return fmtRate(v)
	case "chunks/s":
		return fmtNumber(v, 1) + " chunks/s"
	}
	if strings.Contains(key, "tokens") {
		return fmtTokens(v)
	}
	if strings.Contains(key, "rate") || strings.Contains(key, "avg") {
		return fmtNumber(v, 3)
	}
	return fmtNumber(v, 2)
}
