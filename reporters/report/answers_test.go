package report

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

func TestTheAnswersFieldSaysWhatAnObservedRunServed(t *testing.T) {
	timing := func(exact bool, tokens int) artifact.RequestTiming {
		return artifact.RequestTiming{OutputTokens: &tokens,
			ControlledOutput: &artifact.ControlledOutput{ExactAdherence: &exact, RequestedWords: 32, Policy: "observe", Passed: true}}
	}
	b := &artifact.Benchmark{MaxTokens: 48, ControlledOutputPolicy: "observe",
		RequestTimings: []artifact.RequestTiming{timing(false, 48), timing(false, 48), timing(true, 40)}}
	want := "1 of 3 exactly the 32 requested words (observe: the others measured as served); 2 of 3 stopped at max_tokens (48)"
	if got := answersField(b); got != want {
		t.Errorf("observe:\n got %q\nwant %q", got, want)
	}
	b.ControlledOutputPolicy = "strict"
	b.RequestTimings = []artifact.RequestTiming{timing(true, 40)}
	if got := answersField(b); got != "1 of 1 exactly the 32 requested words" {
		t.Errorf("strict: %q", got)
	}
	if got := answersField(&artifact.Benchmark{MaxTokens: 48}); got != "" {
		t.Errorf("nothing scored: %q, want no field", got)
	}
	in := fixture()
	in.Runs[0].Benchmark.ControlledOutputPolicy = "observe"
	in.Runs[0].Benchmark.MaxTokens = 48
	in.Runs[0].Benchmark.RequestTimings = []artifact.RequestTiming{timing(false, 48)}
	_, page, _ := render(t, in)
	if !strings.Contains(page, "0 of 1 exactly the 32 requested words (observe: the others measured as served); 1 of 1 stopped at max_tokens (48)") {
		t.Error("the run's section lacks its answers field")
	}
}
