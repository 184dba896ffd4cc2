package compare

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

const referencePath = "../../../testdata/reference/benchmark-v1-example.json"

// TestReferenceAsBaseline reads the original tool's reference artifact (6 requests) as the
// baseline of a comparison.
func TestReferenceAsBaseline(t *testing.T) {
	t.Parallel()
	ref, err := artifact.Read(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := artifact.Read(referencePath)
	if d := artifact.Differences(ref, again); len(d) != 0 {
		t.Fatalf("the reference is not comparable with itself: %v", d)
	}
	// Against itself one run resolves no 5% change: the spread between two sessions is
	// counted, and six requests say nothing of it.
	v := Regression(ref, again, "tpot_p50_ms", 0.05, Options{})
	if v.Outcome != Inconclusive || v.BaselineSamples != 6 || v.Baseline != float64(*ref.Metrics.TPOT.P50) || v.Ratio != 1 {
		t.Errorf("against itself: %s", v.Message())
	}

	// Every request 20% slower: beyond the counted spread of 5% between sessions.
	slower, _ := artifact.Read(referencePath)
	for i := range slower.RequestTimings {
		r := &slower.RequestTimings[i]
		r.TPOTMs = artifact.F(1.2 * float64(*r.TPOTMs))
	}
	v = Regression(ref, slower, "tpot_p50_ms", 0.05, Options{})
	want := "tpot p50 regressed 20.0% (5.98ms -> 7.18ms, 95% CI of the change +4.8%..+37.4%, p=0.0041): worse than the 5.0% gate; one run against one stored run, one block each (the spread between their sessions counted at 5.0%, gate_run_cv, its default, which a history of main's runs would measure: ANVIL_BASELINE=dir)"
	if v.Outcome != Regressed || v.Message() != want {
		t.Errorf("outcome %s\n got %q\nwant %q", v.Outcome, v.Message(), want)
	}

	r := Compare(ref, again, nil, 0.05, Options{RunCV: 0.001})
	if r.Outcome() != Pass {
		t.Errorf("reference table:\n%s", r.Text())
	}
	if !strings.Contains(r.Text(), "throughput_tok_s  2.73 tok/s") {
		t.Errorf("reference table:\n%s", r.Text())
	}
}
