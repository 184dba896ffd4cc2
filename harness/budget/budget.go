// Package budget states latency and throughput budgets over the metrics of a v1 artifact
// and judges an artifact against them.
package budget

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/suggest"
	"github.com/anvilbench/anvilbench/internal/units"
)

// Op is a budget's comparison.
type Op string

// Comparison operators.
const (
	AtMost    Op = "<="
	Below     Op = "<"
	AtLeast   Op = ">="
	Above     Op = ">"
	operators    = "<= < >= >"
)

// Budget bounds one metric of the v1 metrics block, e.g. tpot_p50_ms <= 6.
type Budget struct {
	// Metric is a key of the metrics block: tpot_p50_ms, decode_tok_s_p95, throughput_tok_s.
	Metric string
	Op     Op
	// Limit is in the metric's own unit.
	Limit float64
	// Bound is the figure judged: the metric's own ("" or Point), or the upper or lower end
	// of its 95% confidence interval (Upper95, Lower95: _mean and percentile keys only).
	Bound Bound
	// MinSamples is the sample count the figure needs; 0 is DefaultMinSamples(Metric).
	MinSamples int
}

// String writes b in the grammar of Parse: "tpot_p50_ms<=6", "tpot_p95_ms<=8@upper95@min=50".
func (b Budget) String() string {
	s := b.Metric + string(b.Op) + strconv.FormatFloat(b.Limit, 'g', -1, 64)
	if b.Bound != "" && b.Bound != Point {
		s += optionSep + string(b.Bound)
	}
	if b.MinSamples != 0 {
		s += optionSep + "min=" + strconv.Itoa(b.MinSamples)
	}
	return s
}

// Parse reads a comma-separated list of budgets. The grammar:
//
//	budgets := budget { "," budget }
//	budget  := metric op number { "@" option }
//	metric  := a key of the v1 metrics block, e.g. tpot_p50_ms
//	op      := "<=" | "<" | ">=" | ">"
//	option  := "point" | "upper95" | "lower95" | "min=" count
//
// Options say how the budget is judged (see Judge):
//
//   - point (the default) judges the figure itself; upper95 and lower95 judge the upper or
//     the lower end of its 95% confidence interval, and apply to _mean and percentile keys
//     only: tpot_p95_ms<=8@upper95 passes only when the p95 is below 8 ms with 97.5%
//     confidence.
//   - min=N sets the samples the figure needs, replacing DefaultMinSamples (p99 100, p95 20,
//     p90 10, other keys 1): tpot_p99_ms<=9@min=50.
//
// So "tpot_p50_ms<=6, tpot_p95_ms<=8@upper95, tpot_p99_ms<=9@min=50": at most one bound
// and one min each. Blanks around terms and options are ignored; an empty string is no
// budget. Errors quote the bad term.
func Parse(s string) ([]Budget, error) {
	var out []Budget
	for term := range strings.SplitSeq(s, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		b, err := parseTerm(term)
		if err != nil {
			return nil, fmt.Errorf("budget %q: %w", term, err)
		}
		out = append(out, b)
	}
	return out, nil
}

func parseTerm(term string) (Budget, error) {
	i := strings.IndexAny(term, "<>=!")
	if i < 0 {
		return Budget{}, fmt.Errorf("no comparison (want metric op number, op one of %s)", operators)
	}
	j := i
	for j < len(term) && strings.IndexByte("<>=!", term[j]) >= 0 {
		j++
	}
	op := Op(term[i:j])
	switch op {
	case AtMost, Below, AtLeast, Above:
	case "=>", "=<":
		return Budget{}, fmt.Errorf("operator %q: did you mean %s?", op, string(op[1:])+"=")
	default:
		return Budget{}, fmt.Errorf("operator %q: want one of %s (a budget bounds a figure on one side)", op, operators)
	}
	metric := strings.TrimSpace(term[:i])
	number, options, hasOptions := strings.Cut(term[j:], optionSep)
	number = strings.TrimSpace(number)
	if _, known := artifact.LookupFigure(metric); !known {
		if key, _, found := strings.Cut(metric, optionSep); found {
			return Budget{}, fmt.Errorf("options go after the number: write %s%s%s%s%s", strings.TrimSpace(key), op, number, optionSep, metric[len(key)+1:])
		}
		return Budget{}, unknownMetric(metric)
	}
	limit, err := strconv.ParseFloat(number, 64)
	if err != nil || math.IsNaN(limit) || math.IsInf(limit, 0) {
		return Budget{}, fmt.Errorf("limit %q is not a finite number", number)
	}
	b := Budget{Metric: metric, Op: op, Limit: limit}
	if hasOptions {
		if err := b.parseOptions(strings.Split(options, optionSep)); err != nil {
			return Budget{}, err
		}
	}
	return b, nil
}

// Verdict is the judgement of one budget.
type Verdict struct {
	Budget Budget
	// Value is the figure judged (the bound when Bound is Upper95 or Lower95); Samples the
	// number of requests it stands on.
	Value   float64
	Samples int
	// Bound is the figure judged, Point the metric's own figure (equal to Value for Point).
	Bound Bound
	Point float64
	// Required is the sample count the budget needed (DefaultMinSamples or its @min).
	Required int
	// Blocks is how many blocks a bound was taken over (a t-interval of their figures),
	// 0 when it was taken over the requests of a run of one block.
	Blocks int
	// Pass reports the budget held. When Err is set there was nothing to judge; it wraps
	// ErrInsufficientSamples when the figure stood on too few samples.
	Pass bool
	Err  error
}

// Judge evaluates b against an artifact. A distribution figure is judged over its own
// sample count; a scalar over the completed requests. A missing (null) figure or zero
// samples is an error, never a pass, and so is a figure with fewer samples than the budget
// requires (DefaultMinSamples unless @min says otherwise): ErrInsufficientSamples. With an
// upper95 or lower95 option the figure judged is that end of the 95% confidence interval
// (see Bound); an interval that does not exist at this sample size is
// ErrInsufficientSamples too. A run of several blocks (repeats) takes the interval over its
// blocks: a t-interval of the block figures, which counts what varies between blocks.
func Judge(b Budget, a *artifact.Benchmark) Verdict {
	v := Verdict{Budget: b, Bound: Point}
	if a == nil {
		v.Err = fmt.Errorf("no artifact to judge %s against", b)
		return v
	}
	key := b.Metric
	if err := b.checkBound(); err != nil {
		v.Err = err
		return v
	}
	f, ok := artifact.LookupFigure(key)
	if !ok {
		v.Err = unknownMetric(key)
		return v
	}
	value, samples := f.Of(a)
	if samples < 0 {
		samples = a.Completed
	}
	v.Samples = samples
	if value == nil || samples == 0 {
		v.Err = fmt.Errorf("%s has no value: %d of %d requests succeeded%s%s", describe(key), a.Completed, a.Requests, withoutUsage(a), unstreamed(a))
		return v
	}
	v.Required = b.RequiredSamples()
	if samples < v.Required {
		v.Err = fmt.Errorf("%s: %w: %d of the %d required", describe(key), ErrInsufficientSamples, samples, v.Required)
		return v
	}
	v.Value, v.Point = *value, *value
	if b.Bound != "" && b.Bound != Point {
		v.Bound = b.Bound
		var err error
		if v.Value, v.Blocks, err = blockBound(key, b.Bound, a); err != nil {
			v.Err = err
			return v
		}
		if v.Blocks == 0 {
			if v.Value, err = boundOf(key, b.Bound, a, samples); err != nil {
				v.Err = err
				return v
			}
		}
	}
	switch b.Op {
	case AtMost:
		v.Pass = v.Value <= b.Limit
	case Below:
		v.Pass = v.Value < b.Limit
	case AtLeast:
		v.Pass = v.Value >= b.Limit
	case Above:
		v.Pass = v.Value > b.Limit
	default:
		v.Err = fmt.Errorf("unknown operator %q (want one of %s)", b.Op, operators)
	}
	return v
}

// Message is the verdict in one line, e.g.
// "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples", or on a bound
// "tpot p95 upper CI95 bound 6.41ms exceeds budget 6.00ms over 40 samples (point 6.12ms)".
func (v Verdict) Message() string {
	if v.Err != nil {
		return v.Err.Error()
	}
	key := v.Budget.Metric
	name, unit := describe(key), units.Of(key)
	relation := map[bool]map[Op]string{
		true:  {AtMost: "is within budget", Below: "is below budget", AtLeast: "meets budget", Above: "is above budget"},
		false: {AtMost: "exceeds budget", Below: "is not below budget", AtLeast: "is below budget", Above: "is not above budget"},
	}[v.Pass][v.Budget.Op]
	// Figures take the limit's precision when it was written finer than two decimals:
	// "exceeds budget 0.00ms" for a limit of 0.001 would say nothing.
	places := max(2, decimals(v.Budget.Limit))
	format := func(x float64) string { return units.FormatPlaces(x, unit, places) }
	if v.Bound != "" && v.Bound != Point && v.Blocks > 0 {
		return fmt.Sprintf("%s %s over %d blocks %s %s %s over %d samples (point %s)", name, v.Bound.label(), v.Blocks, format(v.Value), relation,
			format(v.Budget.Limit), v.Samples, format(v.Point))
	}
	if v.Bound != "" && v.Bound != Point {
		return fmt.Sprintf("%s %s %s %s %s over %d samples (point %s)", name, v.Bound.label(), format(v.Value), relation,
			format(v.Budget.Limit), v.Samples, format(v.Point))
	}
	if strings.HasPrefix(key, "capacity_") {
		return fmt.Sprintf("%s %s %s %s (the highest load its search held)", name, format(v.Value), relation, format(v.Budget.Limit))
	}
	return fmt.Sprintf("%s %s %s %s over %d samples", name, format(v.Value), relation, format(v.Budget.Limit), v.Samples)
}

// decimals is how many decimal places x needs to be written exactly as its shortest form:
// 6 needs 0, 0.5 one, 0.001 three.
func decimals(x float64) int {
	s := strconv.FormatFloat(math.Abs(x), 'f', -1, 64)
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// describe names a metric key for people: "tpot_p50_ms" is "tpot p50".
func describe(metric string) string {
	if f, ok := artifact.LookupFigure(metric); ok {
		return f.Label()
	}
	return metric
}

// withoutUsage says, for a figure with no value, how many successes came without the usage
// that token figures are computed from; "" when all had it.
// unstreamed says why a TPOT-like figure is missing when the answers arrived at once.
func unstreamed(a *artifact.Benchmark) string {
	atOnce, answers, of, within := a.AnswersAtOnce()
	if atOnce == 0 {
		return ""
	}
	return fmt.Sprintf(", %d of the %d %s arriving at once (%s), which leaves nothing to divide: the stream was buffered before the client",
		atOnce, answers, of, within)
}

func withoutUsage(a *artifact.Benchmark) string {
	n := a.Metrics.OutputTokenSources["content_chunks"]
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d of them without usage.completion_tokens, which the token figures need (the engine did not honour stream_options.include_usage)", n)
}

// unknownMetric names a metric no artifact has, with the nearest that one has ("did you
// mean tpot_p50_ms?"), else what the keys look like: in a budget string and in a matcher
// built in code alike.
func unknownMetric(metric string) error {
	var keys []string
	for _, f := range artifact.Figures() {
		keys = append(keys, f.Key)
	}
	if near := suggest.Nearest(metric, keys, 3); near != "" {
		return fmt.Errorf("unknown metric %q (did you mean %s?)", metric, near)
	}
	return fmt.Errorf("unknown metric %q (want a figure's key, e.g. tpot_p50_ms or throughput_tok_s: docs/metrics.md lists them)", metric)
}
