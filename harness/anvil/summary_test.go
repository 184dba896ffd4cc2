package anvil

import (
	"slices"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// The console says when the responses named another model than the requested one.
func TestSummaryNamesAnotherServedModel(t *testing.T) {
	a := &artifact.Benchmark{Model: "qwen3-8b", Extension: &artifact.Extension{ServedModels: map[string]int{"default": 6}}}
	want := `the responses named the model "default", not the requested "qwen3-8b"`
	if notes := Summarize(a).Notes; !slices.Contains(notes, want) {
		t.Errorf("notes %q, want %q among them", notes, want)
	}
	a.Extension.ServedModels = map[string]int{"qwen3-8b": 6}
	if notes := Summarize(a).Notes; len(notes) != 0 {
		t.Errorf("the requested model: notes %q", notes)
	}
}
