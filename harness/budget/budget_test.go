package budget

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

func TestParse(t *testing.T) {
	t.Parallel()
	got, err := Parse(" tpot_p50_ms<=6.0, ttft_p95_ms <= 12500,decode_tok_s_p50>=150,throughput_tok_s>2.5 ,")
	if err != nil {
		t.Fatal(err)
	}
	want := []Budget{{Metric: "tpot_p50_ms", Op: "<=", Limit: 6}, {Metric: "ttft_p95_ms", Op: "<=", Limit: 12500}, {Metric: "decode_tok_s_p50", Op: ">=", Limit: 150}, {Metric: "throughput_tok_s", Op: ">", Limit: 2.5}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("budget %d = %v, want %v", i, got[i], want[i])
		}
	}
	if none, err := Parse(""); err != nil || len(none) != 0 {
		t.Errorf("empty: %v %v", none, err)
	}
}

func TestParseErrorsQuoteTheTerm(t *testing.T) {
	t.Parallel()
	for input, want := range map[string]string{
		"tpot_p50_ms<=6, tpot_p42_ms<=6": `budget "tpot_p42_ms<=6": unknown metric "tpot_p42_ms"`,
		"tpot_p50_ms=6":                  `budget "tpot_p50_ms=6": operator "=": want one of`,
		"tpot_p50_ms 6":                  `budget "tpot_p50_ms 6": no comparison`,
		"tpot_p50_ms<=fast":              `budget "tpot_p50_ms<=fast": limit "fast" is not a finite number`,
		"tpot_p50_ms<=NaN":               `limit "NaN" is not a finite number`,
	} {
		_, err := Parse(input)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", input, err, want)
		}
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	a := &artifact.Benchmark{Requests: 4, Completed: 4}
	a.Metrics.TPOT = artifact.Distribution{Samples: 4, P50: artifact.F(5.2)}
	a.Metrics.ThroughputTokS = artifact.F(10)
	cases := []struct {
		b    Budget
		pass bool
		msg  string
	}{
		{Budget{Metric: "tpot_p50_ms", Op: AtMost, Limit: 5.2}, true, "tpot p50 5.20ms is within budget 5.20ms over 4 samples"},
		{Budget{Metric: "tpot_p50_ms", Op: Below, Limit: 5.2}, false, "tpot p50 5.20ms is not below budget 5.20ms over 4 samples"},
		{Budget{Metric: "throughput_tok_s", Op: AtLeast, Limit: 12}, false, "throughput_tok_s 10.00 tok/s is below budget 12.00 tok/s over 4 samples"},
	}
	for _, c := range cases {
		v := Judge(c.b, a)
		if v.Err != nil || v.Pass != c.pass || v.Message() != c.msg {
			t.Errorf("%v: pass %v err %v message %q", c.b, v.Pass, v.Err, v.Message())
		}
	}
	if v := Judge(Budget{Metric: "ttft_p50_ms", Op: AtMost, Limit: 1}, a); v.Err == nil || v.Pass {
		t.Errorf("a metric without samples must be an error, got %+v", v)
	}
	// An engine that sent no usage leaves the token figures empty, and the message says so.
	noUsage := &artifact.Benchmark{Requests: 4, Completed: 4}
	noUsage.Metrics.OutputTokenSources = map[string]int{"content_chunks": 4}
	want := "tpot p50 has no value: 4 of 4 requests succeeded, 4 of them without usage.completion_tokens, which the token figures need"
	if v := Judge(Budget{Metric: "tpot_p50_ms", Op: AtMost, Limit: 6}, noUsage); v.Err == nil || v.Pass || !strings.Contains(v.Err.Error(), want) {
		t.Errorf("without usage: %v, want %q", v.Err, want)
	}
}

// A misspelt metric or a reversed operator is named with what was probably meant.
func TestParseSuggests(t *testing.T) {
	t.Parallel()
	for term, want := range map[string]string{
		"tbot_p50_ms<=10": `budget "tbot_p50_ms<=10": unknown metric "tbot_p50_ms" (did you mean tpot_p50_ms?)`,
		"ttft_p50_ms=>5":  `budget "ttft_p50_ms=>5": operator "=>": did you mean >=?`,
		"ttft_p50_ms=<5":  `budget "ttft_p50_ms=<5": operator "=<": did you mean <=?`,
		"ttft_p50_ms==5":  `budget "ttft_p50_ms==5": operator "==": want one of <= < >= > (a budget bounds a figure on one side)`,
		"ttft_p50_ms!=5":  `budget "ttft_p50_ms!=5": operator "!=": want one of <= < >= > (a budget bounds a figure on one side)`,
		"frobnicate<=5":   `budget "frobnicate<=5": unknown metric "frobnicate" (want a figure's key, e.g. tpot_p50_ms or throughput_tok_s: docs/metrics.md lists them)`,
	} {
		if _, err := Parse(term); err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", term, err, want)
		}
	}
}

// A limit is printed with the precision it was written with, and the figure alike.
func TestLimitsKeepTheirPrecision(t *testing.T) {
	t.Parallel()
	a := &artifact.Benchmark{Requests: 6, Completed: 6}
	a.Metrics.TTFT = artifact.Distribution{Samples: 6, P50: artifact.F(18.1)}
	for term, want := range map[string]string{
		"ttft_p50_ms<=0.001": "ttft p50 18.100ms exceeds budget 0.001ms over 6 samples",
		"ttft_p50_ms<=6":     "ttft p50 18.10ms exceeds budget 6.00ms over 6 samples",
		"ttft_p50_ms<=0.5":   "ttft p50 18.10ms exceeds budget 0.50ms over 6 samples",
	} {
		b, err := Parse(term)
		if err != nil {
			t.Fatal(err)
		}
		if got := Judge(b[0], a).Message(); got != want {
			t.Errorf("%s: %q, want %q", term, got, want)
		}
	}
}

// A budget built in code on a metric no artifact has fails its judgement with the nearest
// key, as a budget string does when parsed.
func TestAnUnknownMetricInCodeSuggestsTheKey(t *testing.T) {
	t.Parallel()
	v := Judge(Budget{Metric: "tpot_p50", Op: AtMost, Limit: 7}, &artifact.Benchmark{})
	if v.Err == nil || v.Err.Error() != `unknown metric "tpot_p50" (did you mean tpot_p50_ms?)` {
		t.Errorf("judged: %v", v.Err)
	}
}
