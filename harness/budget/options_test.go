package budget

import (
	"errors"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

func TestParseOptions(t *testing.T) {
	t.Parallel()
	got, err := Parse("tpot_p50_ms<=6, tpot_p95_ms<=8@upper95, tpot_p99_ms<=9@min=50, tpot_mean_ms <= 7 @ min=3 @ lower95, ttft_p50_ms<=1@point")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		b    Budget
		text string
	}{
		{Budget{Metric: "tpot_p50_ms", Op: AtMost, Limit: 6}, "tpot_p50_ms<=6"},
		{Budget{Metric: "tpot_p95_ms", Op: AtMost, Limit: 8, Bound: Upper95}, "tpot_p95_ms<=8@upper95"},
		{Budget{Metric: "tpot_p99_ms", Op: AtMost, Limit: 9, MinSamples: 50}, "tpot_p99_ms<=9@min=50"},
		{Budget{Metric: "tpot_mean_ms", Op: AtMost, Limit: 7, Bound: Lower95, MinSamples: 3}, "tpot_mean_ms<=7@lower95@min=3"},
		{Budget{Metric: "ttft_p50_ms", Op: AtMost, Limit: 1}, "ttft_p50_ms<=1"}, // @point is the default
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, w := range want {
		if got[i] != w.b || got[i].String() != w.text {
			t.Errorf("budget %d = %#v %q, want %#v %q", i, got[i], got[i], w.b, w.text)
		}
		// String is in the grammar: it parses back to the same budget.
		if again, err := Parse(got[i].String()); err != nil || len(again) != 1 || again[0] != got[i] {
			t.Errorf("%q does not parse back: %v %v", got[i], again, err)
		}
	}
	if n := (Budget{Metric: "tpot_p99_ms"}).RequiredSamples(); n != 100 {
		t.Errorf("a p99 needs %d samples, want 100", n)
	}
	if n := got[2].RequiredSamples(); n != 50 {
		t.Errorf("@min=50 needs %d samples", n)
	}
}

func TestParseOptionErrorsQuoteTheTerm(t *testing.T) {
	t.Parallel()
	for input, want := range map[string]string{
		"tpot_p95_ms<=8@upper99":          `budget "tpot_p95_ms<=8@upper99": unknown option "upper99" (want point, upper95, lower95 or min=N)`,
		"tpot_p95_ms<=8@":                 `budget "tpot_p95_ms<=8@": unknown option ""`,
		"tpot_p99_ms<=9@min=0":            `budget "tpot_p99_ms<=9@min=0": option "min=0": want min=N with N a whole number of at least 1`,
		"tpot_p99_ms<=9@min=many":         `option "min=many": want min=N`,
		"tpot_p95_ms<=8@upper95@lower95":  `option "lower95": a second bound after "upper95"`,
		"tpot_p95_ms<=8@min=3@min=4":      `option "min=4": a second minimum after min=3`,
		"throughput_tok_s>=3@lower95":     `budget "throughput_tok_s>=3@lower95": option "lower95" needs a _mean or percentile key, not "throughput_tok_s"`,
		"tpot_max_ms<=9@upper95":          `option "upper95" needs a _mean or percentile key, not "tpot_max_ms"`,
		"tpot_p95_ms@upper95<=8":          `budget "tpot_p95_ms@upper95<=8": options go after the number: write tpot_p95_ms<=8@upper95`,
		"tpot_p95_ms<=eight@upper95":      `limit "eight" is not a finite number`,
		"tpot_p50_ms<=6, tpot_p42_ms<=6@": `unknown metric "tpot_p42_ms"`,
	} {
		_, err := Parse(input)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", input, err, want)
		}
	}
}

func TestDefaultMinSamples(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]int{
		"tpot_p99_ms": 100, "mean_inter_token_latency_ms_p99": 100, "decode_tok_s_p95": 20, "ttft_p90_ms": 10,
		"tpot_p75_ms": 1, "tpot_p50_ms": 1, "tpot_mean_ms": 1, "throughput_tok_s": 1, "no_such_key": 1,
	} {
		if got := defaultMinSamples(key); got != want {
			t.Errorf("DefaultMinSamples(%q) = %d, want %d", key, got, want)
		}
	}
}

// tpotRun is an artifact whose n TPOT rows are 5.00, 5.05, 5.10, ... ms, with the metrics
// block computed from them as the harness does.
func tpotRun(n int) *artifact.Benchmark {
	a := &artifact.Benchmark{Requests: n, Completed: n}
	values := make([]float64, n)
	for i := range values {
		values[i] = float64(500+5*i) / 100
		a.RequestTimings = append(a.RequestTimings, artifact.RequestTiming{RequestIndex: i, TPOTMs: artifact.F(values[i])})
	}
	s, _ := stats.Summarize(values)
	a.Metrics.TPOT = artifact.Distribution{
		Samples: s.N, Mean: artifact.F(s.Mean), StdDev: artifact.F(s.StdDev),
		MeanCI95Low: artifact.F(s.MeanCI95Low), MeanCI95High: artifact.F(s.MeanCI95High),
		Min: artifact.F(s.Min), P25: artifact.F(s.P25), P50: artifact.F(s.P50), P75: artifact.F(s.P75),
		P90: artifact.F(s.P90), P95: artifact.F(s.P95), P99: artifact.F(s.P99), Max: artifact.F(s.Max),
	}
	return a
}

func TestJudgeMinimumSamples(t *testing.T) {
	t.Parallel()
	six := tpotRun(6)
	for _, c := range []struct {
		budget string
		msg    string
	}{
		{"tpot_p99_ms<=9", "tpot p99: insufficient samples: 6 of the 100 required"},
		{"tpot_p95_ms<=9", "tpot p95: insufficient samples: 6 of the 20 required"},
		{"tpot_p90_ms<=9", "tpot p90: insufficient samples: 6 of the 10 required"},
		{"tpot_p50_ms<=9@min=7", "tpot p50: insufficient samples: 6 of the 7 required"},
	} {
		b, err := Parse(c.budget)
		if err != nil {
			t.Fatal(err)
		}
		v := Judge(b[0], six)
		if v.Pass || !errors.Is(v.Err, ErrInsufficientSamples) || v.Message() != c.msg {
			t.Errorf("%s: pass %v err %v message %q, want %q", c.budget, v.Pass, v.Err, v.Message(), c.msg)
		}
	}
	// The budget can say otherwise: p99 of 6 samples (their maximum, 5.25 ms) on purpose.
	b, _ := Parse("tpot_p99_ms<=9@min=6")
	if v := Judge(b[0], six); v.Err != nil || !v.Pass || v.Message() != "tpot p99 5.25ms is within budget 9.00ms over 6 samples" {
		t.Errorf("@min=6: %v %q", v.Err, v.Message())
	}
}

func TestJudgeOnABound(t *testing.T) {
	t.Parallel()
	forty := tpotRun(40) // sorted 5.00..6.95; p50 = 20th = 5.95, p90 = 36th = 6.75
	cases := []struct {
		budget string
		pass   bool
		msg    string
	}{
		// Binomial(40, .5): the 95% interval of the median is [X(14), X(27)] = [5.65, 6.30].
		{"tpot_p50_ms<=6@upper95", false, "tpot p50 upper CI95 bound 6.30ms exceeds budget 6.00ms over 40 samples (point 5.95ms)"},
		{"tpot_p50_ms<=6@lower95", true, "tpot p50 lower CI95 bound 5.65ms is within budget 6.00ms over 40 samples (point 5.95ms)"},
		{"tpot_p50_ms<=6.3@upper95", true, "tpot p50 upper CI95 bound 6.30ms is within budget 6.30ms over 40 samples (point 5.95ms)"},
		// Binomial(40, .9): [X(32), X(40)] = [6.55, 6.95].
		{"tpot_p90_ms<=6.9@upper95", false, "tpot p90 upper CI95 bound 6.95ms exceeds budget 6.90ms over 40 samples (point 6.75ms)"},
		// The mean's interval is the artifact's own: 5.975 ± 1.96·0.5839/√40.
		{"tpot_mean_ms<=6.1@upper95", false, "tpot mean upper CI95 bound 6.16ms exceeds budget 6.10ms over 40 samples (point 5.97ms)"},
		{"tpot_mean_ms>=5.8@lower95", false, "tpot mean lower CI95 bound 5.79ms is below budget 5.80ms over 40 samples (point 5.97ms)"},
	}
	for _, c := range cases {
		b, err := Parse(c.budget)
		if err != nil {
			t.Fatal(err)
		}
		v := Judge(b[0], forty)
		if v.Err != nil || v.Pass != c.pass || v.Message() != c.msg {
			t.Errorf("%s: pass %v err %v\n got %q\nwant %q", c.budget, v.Pass, v.Err, v.Message(), c.msg)
		}
	}
}

func TestJudgeBoundErrors(t *testing.T) {
	t.Parallel()
	forty := tpotRun(40)
	noRows := tpotRun(40)
	noRows.RequestTimings = nil
	fewerRows := tpotRun(40)
	fewerRows.RequestTimings = fewerRows.RequestTimings[:38]
	hundred := tpotRun(100)
	cases := []struct {
		budget string
		a      *artifact.Benchmark
		msg    string
		short  bool // insufficient samples
	}{
		// A p95 upper end needs .95ⁿ ≤ 2.5%, i.e. 72 samples; a p99 one 368.
		{"tpot_p95_ms<=9@upper95", forty, "tpot p95: insufficient samples for an upper CI95 bound: 40 of the 72 required", true},
		{"tpot_p99_ms<=9@upper95", hundred, "tpot p99: insufficient samples for an upper CI95 bound: 100 of the 368 required", true},
		{"tpot_p50_ms<=9@upper95", noRows, "tpot p50: no request_timings rows to compute its upper CI95 bound from (the metrics block counts 40 samples)", false},
		{"tpot_p50_ms<=9@lower95", fewerRows, "tpot p50: request_timings hold 38 values but the metrics block counts 40 samples", false},
	}
	for _, c := range cases {
		b, err := Parse(c.budget)
		if err != nil {
			t.Fatal(err)
		}
		v := Judge(b[0], c.a)
		if v.Pass || v.Err == nil || v.Message() != c.msg || errors.Is(v.Err, ErrInsufficientSamples) != c.short {
			t.Errorf("%s: pass %v err %v\n got %q\nwant %q", c.budget, v.Pass, v.Err, v.Message(), c.msg)
		}
	}
	if v := Judge(Budget{Metric: "tpot_p50_ms", Op: AtMost, Limit: 1, Bound: "fast"}, forty); v.Err == nil || v.Message() != `unknown bound "fast" (want point, upper95 or lower95)` {
		t.Errorf("a malformed option built by hand: %q", v.Message())
	}
	if v := Judge(Budget{Metric: "tpot_p50_ms", Op: AtMost, Limit: 1}, nil); v.Err == nil || v.Message() != "no artifact to judge tpot_p50_ms<=1 against" {
		t.Errorf("nil artifact: %q", v.Message())
	}
}

// A run of several blocks takes its bound over them: blocks that drift apart widen it past
// what the requests alone would give, blocks that agree keep it narrow.
func TestJudgeOnABoundOverBlocks(t *testing.T) {
	t.Parallel()
	blocked := func(order func(i int) int) *artifact.Benchmark {
		a := tpotRun(40)
		for i := range a.RequestTimings {
			a.RequestTimings[i].RequestIndex = order(i)
		}
		a.Extension = &artifact.Extension{Blocks: &artifact.Blocks{Repeats: 4, RequestsPerBlock: 10, Blocks: make([]artifact.Block, 4)}}
		return a
	}
	b, _ := Parse("tpot_p50_ms<=6.5@upper95")
	// Value i in block i/10: block medians 5.20, 5.70, 6.20, 6.70; mean 5.95, SD 0.645,
	// upper end 5.95 + t(.975, 3)·0.645/√4 = 6.98. Over the rows alone it was 6.30.
	drifting := Judge(b[0], blocked(func(i int) int { return i }))
	if want := "tpot p50 upper CI95 bound over 4 blocks 6.98ms exceeds budget 6.50ms over 40 samples (point 5.95ms)"; drifting.Err != nil || drifting.Pass || drifting.Message() != want {
		t.Errorf("drifting blocks: %v %q, want %q", drifting.Err, drifting.Message(), want)
	}
	// Value i in block i%4: medians 5.80, 5.85, 5.90, 5.95, upper end 5.88 + 3.182·0.0645/2 = 5.98.
	steady := Judge(b[0], blocked(func(i int) int { return (i%4)*10 + i/4 }))
	if want := "tpot p50 upper CI95 bound over 4 blocks 5.98ms is within budget 6.50ms over 40 samples (point 5.95ms)"; steady.Err != nil || !steady.Pass || steady.Message() != want {
		t.Errorf("steady blocks: %v %q, want %q", steady.Err, steady.Message(), want)
	}
}
