package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// A new run in a directory replaces the verdict of the one before: its gate.json never
// speaks for this run, and until a suite reports the verdict is a failed run.
func TestANewRunStartsFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := UpdateSummary(dir, "run-a", func(s *Summary) { s.FinishSuite("capacity", 4, nil, nil) }); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadSummary(filepath.Join(dir, runrecord.SummaryFile)); err != nil || s.Outcome != Pass || s.RunID != "run-a" {
		t.Fatalf("first run: %+v %v", s, err)
	}
	s, err := UpdateSummary(dir, "run-b", func(s *Summary) { s.Suite("capacity") })
	if err != nil {
		t.Fatal(err)
	}
	if s.Outcome != RunFailed || s.RunID != "run-b" || s.Checks != 0 || len(s.Suites) != 1 {
		t.Errorf("second run, begun: %+v", s)
	}
	if id, err := runrecord.Current(dir); err != nil || id != "run-b" {
		t.Errorf("current run %q %v", id, err)
	}
	if err := os.WriteFile(filepath.Join(dir, runrecord.SummaryFile), []byte(`{"outcome":"pass","exit_code":0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSummary(filepath.Join(dir, runrecord.SummaryFile)); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("an old-format pass is not read as a verdict: %v", err)
	}
}

// The conformance table reads on a console: a row per item, a column per API.
func TestConformanceText(t *testing.T) {
	t.Parallel()
	c := &Conformance{Model: "m", Endpoint: "http://e/v1"}
	c.Set("chat", "usage reported", ConformanceCell{Status: Honoured})
	c.Set("messages", "usage reported", ConformanceCell{Status: NotHonoured})
	c.Set("chat", "tool call", ConformanceCell{Status: NotApplicable})
	want := "conformance of m at http://e/v1\nitem            chat  messages\nusage reported  yes   no\ntool call       n/a   -\n"
	if got := c.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
