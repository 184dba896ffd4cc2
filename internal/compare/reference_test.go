package compare

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

const referencePath = "../../testdata/reference/benchmark-v1-example.json"

// TestReferenceAsBaseline reads the original tool's reference artifact (6 requests) as the
// baseline of a comparison.
func TestReferenceAsBaseline(t *testing.T) {
	t.Parallel()
	ref, err := artifact.Read(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := artifact.Read(referencePath)
	if d := Comparable(ref, again); len(d) != 0 {
		t.Fatalf("the reference is not comparable with itself: %v", d)
	}
	v := Regression(ref, again, "tpot_p50_ms", 0.05, Options{})
	if v.Outcome != Pass || v.BaselineSamples != 6 || v.Baseline != float64(*ref.Metrics.TPOT.P50) || v.Ratio != 1 {
		t.Errorf("against itself: %s", v.Message())
	}

	// Every request 20% slower: the six rows lie wholly above the baseline's, the least
	// likely of the C(12,6) = 924 orders, so p = 1/924.
	slower, _ := artifact.Read(referencePath)
	for i := range slower.RequestTimings {
		r := &slower.RequestTimings[i]
		r.TPOTMs = artifact.F(1.2 * float64(*r.TPOTMs))
	}
	v = Regression(ref, slower, "tpot_p50_ms", 0.05, Options{})
	want := "tpot p50 regressed 20.0% (5.98ms -> 7.18ms, 95% CI of the ratio 1.197..1.203, p=0.0011, 6 vs 6 requests): worse than the 5.0% gate"
	if v.Outcome != Regressed || v.Message() != want {
		t.Errorf("outcome %s\n got %q\nwant %q", v.Outcome, v.Message(), want)
	}

	r := Compare(ref, again, nil, 0.05, Options{})
	if r.Outcome() != Pass {
		t.Errorf("reference table:\n%s", r.Text())
	}
	if !strings.Contains(r.Text(), "throughput_tok_s  2.73 tok/s") {
		t.Errorf("reference table:\n%s", r.Text())
	}
}
