package runrecord

import (
	"strings"
	"testing"
)

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
