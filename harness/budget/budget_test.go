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
	want := []Budget{{"tpot_p50_ms", "<=", 6}, {"ttft_p95_ms", "<=", 12500}, {"decode_tok_s_p50", ">=", 150}, {"throughput_tok_s", ">", 2.5}}
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
		"tpot_p50_ms=6":                  `budget "tpot_p50_ms=6": no comparison`,
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
		{Budget{"tpot_p50_ms", AtMost, 5.2}, true, "tpot p50 5.20ms is within budget 5.20ms over 4 samples"},
		{Budget{"tpot_p50_ms", Below, 5.2}, false, "tpot p50 5.20ms is not below budget 5.20ms over 4 samples"},
		{Budget{"throughput_tok_s", AtLeast, 12}, false, "throughput_tok_s 10.00 tok/s is below budget 12.00 tok/s over 4 samples"},
	}
	for _, c := range cases {
		v := Judge(c.b, a)
		if v.Err != nil || v.Pass != c.pass || v.Message() != c.msg {
			t.Errorf("%v: pass %v err %v message %q", c.b, v.Pass, v.Err, v.Message())
		}
	}
	if v := Judge(Budget{"ttft_p50_ms", AtMost, 1}, a); v.Err == nil || v.Pass {
		t.Errorf("a metric without samples must be an error, got %+v", v)
	}
	// An engine that sent no usage leaves the token figures empty, and the message says so.
	noUsage := &artifact.Benchmark{Requests: 4, Completed: 4}
	noUsage.Metrics.OutputTokenSources = map[string]int{"content_chunks": 4}
	want := "tpot p50 has no value: 4 of 4 requests succeeded, 4 of them without usage.completion_tokens, which the token figures need"
	if v := Judge(Budget{"tpot_p50_ms", AtMost, 6}, noUsage); v.Err == nil || v.Pass || !strings.Contains(v.Err.Error(), want) {
		t.Errorf("without usage: %v, want %q", v.Err, want)
	}
}
