package runrecord

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// A new run in a directory replaces the verdict of the one before: its gate.json never
// speaks for this run, and until a suite reports the verdict is a failed run.
func TestANewRunStartsFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Update(dir, "run-a", func(s *gate.Summary) { s.FinishSuite("capacity", 4, nil, nil) }); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadSummary(filepath.Join(dir, SummaryFile)); err != nil || s.Outcome != gate.Pass || s.RunID != "run-a" {
		t.Fatalf("first run: %+v %v", s, err)
	}
	s, err := Update(dir, "run-b", func(s *gate.Summary) { s.Suite("capacity") })
	if err != nil {
		t.Fatal(err)
	}
	if s.Outcome != gate.RunFailed || s.RunID != "run-b" || s.Checks != 0 || len(s.Suites) != 1 {
		t.Errorf("second run, begun: %+v", s)
	}
	if id, err := Current(dir); err != nil || id != "run-b" {
		t.Errorf("current run %q %v", id, err)
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(`{"outcome":"pass","exit_code":0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSummary(filepath.Join(dir, SummaryFile)); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("an old-format pass is not read as a verdict: %v", err)
	}
}

// A run is named by ANVIL_RUN_ID when valid; the shards of a run derive one id alike from
// their shared start and their count; suites of one launch share the launcher's.
func TestRunIDs(t *testing.T) {
	t.Parallel()
	if id := ID("nightly-42", 0, ""); id != "nightly-42" {
		t.Errorf("named: %q", id)
	}
	if id := ID("not valid!", 4, "2026-12-03T10:00:00.000Z"); id != "run-20261203T100000.000Z-of-4" {
		t.Errorf("shards: %q", id)
	}
	if id := ID("", 0, ""); !ValidID(id) || !strings.HasPrefix(id, "run-") || id != ID("", 1, "2026-12-03T10:00:00.000Z") {
		t.Errorf("launched: %q", id)
	}
}
