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

func TestAnObservedRunThatMissedItsStructureSaysSoInBothReports(t *testing.T) {
	in := fixture()
	b := in.Runs[0].Benchmark
	b.ControlledOutputPolicy, b.MaxTokens = "observe", 64
	no := false
	tokens := 64
	b.RequestTimings = []artifact.RequestTiming{{OutputTokens: &tokens,
		ControlledOutput: &artifact.ControlledOutput{ExactAdherence: &no, RequestedWords: 6, Policy: "observe", Passed: true}}}
	b.Extension.StructuredOutput = &artifact.StructuredOutput{Output: "tool_call", Tool: "record_words", Responses: 1}
	want := "0 of 1 a valid call of its tool record_words (observe: recorded, not gated); " +
		"0 of 1 exactly the 6 requested words (observe: the others measured as served); 1 of 1 stopped at max_tokens (64)"
	if got := answersField(b); got != want {
		t.Errorf("tool call:\n got %q\nwant %q", got, want)
	}
	_, page, md := render(t, in)
	if !strings.Contains(page, want) {
		t.Error("the run's section lacks its answers field")
	}
	if !strings.Contains(md, "Answers not as asked") || !strings.Contains(md, "0 of 1 a valid call of its tool record_words") {
		t.Errorf("report.md does not say the observed run's answers were not as asked:\n%s", md)
	}

	b.Extension.StructuredOutput = &artifact.StructuredOutput{Output: "json_schema", Responses: 1, Valid: 1}
	yes := true
	b.RequestTimings[0].ControlledOutput.ExactAdherence = &yes
	if got := answersField(b); got != "1 of 1 valid JSON of the schema; 1 of 1 exactly the 6 requested words; 1 of 1 stopped at max_tokens (64)" {
		t.Errorf("json answer as asked: %q", got)
	}
	if _, _, md := render(t, in); strings.Contains(md, "Answers not as asked") {
		t.Error("report.md names answers as not asked for when every one was")
	}
}
