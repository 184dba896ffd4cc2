package compare

import (
	"encoding/json"
	"strings"
	"testing"
)

// precise is a run-to-run spread an operator has measured to be tiny, so that a table of
// one run against one stored run can show every verdict.
var precise = Options{RunCV: 0.001}

func TestCompareTable(t *testing.T) {
	t.Parallel()
	base, cur := synthetic(32, 5, 0.05, 1), synthetic(32, 5.5, 0.05, 2)
	cur.Failed, cur.Requests = 2, 34
	r := Compare(base, cur, nil, 0.05, precise)
	if len(r.Rows) != len(DefaultMetrics()) || !r.Comparable || r.Outcome() != Regressed {
		t.Fatalf("rows %d comparable %v outcome %s", len(r.Rows), r.Comparable, r.Outcome())
	}
	labels := map[string]string{}
	for _, row := range r.Rows {
		labels[row.Metric] = row.Label()
	}
	want := map[string]string{
		"ttft_p50_ms": "ok", "ttft_p95_ms": "inconclusive", "tpot_p50_ms": "regression", "tpot_p95_ms": "regression",
		"e2e_p50_ms": "regression", "decode_tok_s_p50": "regression", throughput: "regression", failedMetric: "regression",
	}
	for m, l := range want {
		if labels[m] != l {
			t.Errorf("%s: %q, want %q", m, labels[m], l)
		}
	}
	text := r.Text()
	for _, line := range []string{
		"metric            old           new           delta   verdict",
		"tpot_p50_ms       4.91ms        5.47ms        +11.4%  regression",
		"failed            0             2             +2      regression",
		"tpot_p50_ms: tpot p50 regressed 11.4% (4.91ms -> 5.47ms, 95% CI of the change +7.0%..+15.9%, p=8.2e-08): worse than the 5.0% gate; one run against one stored run, one block each (the spread between their sessions counted at 0.1%, gate_run_cv)",
		"failed: failed requests rose: 0 of 32 requests vs 2 of 34",
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("text lacks %q:\n%s", line, text)
		}
	}
	md := r.Markdown()
	for _, line := range []string{
		"### anvilbench compare: regression (gate 5.0%)",
		"| metric | old | new | delta | verdict |",
		"| tpot_p50_ms | 4.91ms | 5.47ms | +11.4% | **regression** |",
		"- `failed`: failed requests rose: 0 of 32 requests vs 2 of 34",
	} {
		if !strings.Contains(md, line+"\n") {
			t.Errorf("markdown lacks %q:\n%s", line, md)
		}
	}
	raw, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Outcome    string `json:"outcome"`
		Comparable bool   `json:"comparable"`
		Rows       []struct {
			Metric, Verdict string
			Ratio           *float64
			P               *float64
			BaselineSamples *int `json:"baseline_samples"`
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if doc.Outcome != "regression" || !doc.Comparable || doc.Rows[2].Metric != "tpot_p50_ms" || doc.Rows[2].Ratio == nil || *doc.Rows[2].BaselineSamples != 32 || doc.Rows[7].P != nil {
		t.Errorf("json: %s", raw)
	}
}

func TestCompareNotComparable(t *testing.T) {
	t.Parallel()
	base, cur := synthetic(80, 5, 0.05, 1), synthetic(80, 5, 0.05, 2)
	cur.MaxTokens = 128
	r := Compare(base, cur, []string{"tpot_p50_ms", failedMetric}, 0.05, Options{})
	if r.Comparable || r.Outcome() != NotComparable {
		t.Fatalf("outcome %s", r.Outcome())
	}
	if text := r.Text(); !strings.Contains(text, "workload differences:\n  max_tokens 64 vs 128\n") || !strings.Contains(text, "tpot_p50_ms  n/a  n/a") {
		t.Errorf("text:\n%s", text)
	}
	if md := r.Markdown(); !strings.Contains(md, "workload differences:\n\n- max_tokens 64 vs 128\n") {
		t.Errorf("markdown:\n%s", md)
	}
	r = Compare(base, cur, []string{"tpot_p50_ms", failedMetric}, 0.05, Options{AllowMismatch: true, RunCV: 0.001})
	if r.Outcome() != Pass || r.Comparable {
		t.Errorf("allowed mismatch: %s %v", r.Outcome(), r.Rows)
	}
}
