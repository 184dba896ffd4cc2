package capacity

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

// A tool-call scenario and a JSON-schema scenario pass against the reference engine, and
// fail against its broken twins, each failure naming the request and what was wrong.
func TestStructuredOutputs(t *testing.T) {
	t.Parallel()
	good := fastEngine(t, refengine.Options{})
	for _, output := range []Output{OutputTool, OutputJSON} {
		sc := Scenario{Requests: 4, Concurrency: 2, ContextTokens: 600, MaxTokens: 64, ResponseWords: 12, Output: output, Policy: PolicyStrict, Calibrate: true}
		b := mustRun(t, target(good), sc)
		so := b.Extension.StructuredOutput
		if b.Completed != 4 || so == nil || so.Output != string(output) || so.Responses != 4 || so.Valid != 4 {
			t.Fatalf("%s: completed %d, %+v, failures %+v", output, b.Completed, so, b.Failures)
		}
		for _, row := range b.RequestTimings {
			if co := row.ControlledOutput; co == nil || !co.Passed || co.ObservedCodeWords != 12 {
				t.Errorf("%s: request %d scored %+v", output, row.RequestIndex, co)
			}
		}
		if output == OutputTool && (so.FirstToolCallMs == nil || so.FirstToolCallMs.Samples != 4 || b.Extension.Timeline[0].FirstToolCallMs == nil) {
			t.Errorf("time to the first tool call: %+v", so.FirstToolCallMs)
		}
		if prompt := *b.RequestTimings[0].PromptTokens; abs(prompt-600) > 12 {
			t.Errorf("%s: %d prompt tokens for a plan of 600", output, prompt)
		}
	}
	for name, c := range map[string]struct {
		faults refengine.Faults
		output Output
		want   string
	}{
		"invalid arguments": {refengine.Faults{BadToolArguments: true}, OutputTool, "structured output validation failed: the arguments are not valid JSON"},
		"missing word":      {refengine.Faults{MissingWords: 1}, OutputTool, "11 code words and 0 other words, want exactly 12"},
		"invalid json":      {refengine.Faults{BadToolArguments: true}, OutputJSON, "structured output validation failed: the answer is not valid JSON"},
	} {
		twin := fastEngine(t, refengine.Options{Faults: c.faults})
		b := mustRun(t, target(twin), Scenario{Requests: 2, Concurrency: 1, ContextTokens: 600, MaxTokens: 64, ResponseWords: 12,
			Output: c.output, Policy: PolicyStrict, Calibrate: true})
		if b.Failed != 2 || !strings.Contains(b.Failures[0].ErrorMessage, c.want) {
			t.Errorf("%s: failed %d: %+v", name, b.Failed, b.Failures)
		}
	}
}
