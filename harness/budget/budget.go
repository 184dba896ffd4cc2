// Package budget states latency and throughput budgets over the metrics of a v1 artifact
// and judges an artifact against them.
package budget

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Comparison operators.
const (
	AtMost    = "<="
	Below     = "<"
	AtLeast   = ">="
	Above     = ">"
	operators = "<= < >= >"
)

// Budget bounds one metric of the v1 metrics block, e.g. tpot_p50_ms <= 6.
type Budget struct {
	// Metric is a key of the metrics block (tpot_p50_ms, decode_tok_s_p95, throughput_tok_s).
	Metric string
	// Op is one of <=, <, >=, >.
	Op string
	// Limit is in the metric's own unit.
	Limit float64
}

func (b Budget) String() string {
	return b.Metric + b.Op + strconv.FormatFloat(b.Limit, 'g', -1, 64)
}

// Parse reads a comma-separated list of budgets. The grammar:
//
//	budgets := budget { "," budget }
//	budget  := metric op number
//	metric  := a key of the v1 metrics block, e.g. tpot_p50_ms
//	op      := "<=" | "<" | ">=" | ">"
//
// Blanks around terms are ignored; an empty string is no budget. Errors quote the bad term.
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
	i := strings.IndexAny(term, "<>")
	if i < 0 {
		return Budget{}, fmt.Errorf("no comparison (want metric op number, op one of %s)", operators)
	}
	op := term[i : i+1]
	if i+1 < len(term) && term[i+1] == '=' {
		op += "="
	}
	metric := strings.TrimSpace(term[:i])
	number := strings.TrimSpace(term[i+len(op):])
	if _, _, ok := new(artifact.Metrics).Lookup(metric); !ok {
		return Budget{}, fmt.Errorf("unknown metric %q (want a key of the v1 metrics block, e.g. tpot_p50_ms)", metric)
	}
	limit, err := strconv.ParseFloat(number, 64)
	if err != nil || math.IsNaN(limit) || math.IsInf(limit, 0) {
		return Budget{}, fmt.Errorf("limit %q is not a finite number", number)
	}
	return Budget{Metric: metric, Op: op, Limit: limit}, nil
}

// Verdict is the judgement of one budget.
type Verdict struct {
	Budget Budget
	// Value is the measured figure; Samples the number of requests it stands on.
	Value   float64
	Samples int
	// Pass reports the budget held. When Err is set there was nothing to judge.
	Pass bool
	Err  error
}

// Judge evaluates b against an artifact. A distribution figure is judged over its own
// sample count; a scalar over the completed requests. A missing (null) figure or zero
// samples is an error, never a pass.
func Judge(b Budget, a *artifact.Benchmark) Verdict {
	v := Verdict{Budget: b}
	value, samples, ok := a.Metrics.Lookup(b.Metric)
	if !ok {
		v.Err = fmt.Errorf("unknown metric %q", b.Metric)
		return v
	}
	if samples < 0 {
		samples = a.Completed
	}
	v.Samples = samples
	if value == nil || samples == 0 {
		v.Err = fmt.Errorf("%s has no value: %d of %d requests succeeded", Describe(b.Metric), a.Completed, a.Requests)
		return v
	}
	v.Value = *value
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
// "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples".
func (v Verdict) Message() string {
	if v.Err != nil {
		return v.Err.Error()
	}
	name, unit := Describe(v.Budget.Metric), Unit(v.Budget.Metric)
	relation := map[bool]map[string]string{
		true:  {AtMost: "is within budget", Below: "is below budget", AtLeast: "meets budget", Above: "is above budget"},
		false: {AtMost: "exceeds budget", Below: "is not below budget", AtLeast: "is below budget", Above: "is not above budget"},
	}[v.Pass][v.Budget.Op]
	return fmt.Sprintf("%s %s %s %s over %d samples", name, Format(v.Value, unit), relation, Format(v.Budget.Limit, unit), v.Samples)
}

// Describe names a metric key for people: "tpot_p50_ms" is "tpot p50".
func Describe(metric string) string {
	if family, stat, ok := artifact.ParseMetricKey(metric); ok && stat != "" {
		return family + " " + stat
	}
	return metric
}

// Unit is the unit of a metric key: "ms", "tok/s" or "" for counts.
func Unit(metric string) string {
	switch {
	case strings.HasSuffix(metric, "_ms"), strings.HasPrefix(metric, "mean_inter_token_latency_ms"):
		return "ms"
	case strings.Contains(metric, "tok_s"):
		return "tok/s"
	case strings.Contains(metric, "chunks_s"):
		return "chunks/s"
	}
	return ""
}

// Format prints a figure with its unit: "6.31ms", "151.20 tok/s", "6".
func Format(v float64, unit string) string {
	switch unit {
	case "ms":
		return strconv.FormatFloat(v, 'f', 2, 64) + "ms"
	case "":
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " " + unit
}
