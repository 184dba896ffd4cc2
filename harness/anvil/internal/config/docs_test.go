package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// The configuration page names every variable the configuration accepts, and none it
// does not: a variable added to the code without a line here, or a line left for a
// variable that is gone, fails.
func TestTheConfigurationPageMatchesTheCode(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("`(ANVIL_[A-Z0-9_]+)`").FindAllStringSubmatch(page, -1) {
		documented[m[1]] = true
	}
	accepted := OtherVariables()
	for _, v := range Variables() {
		accepted = append(accepted, v[0])
	}
	for _, v := range accepted {
		if !documented[v] {
			t.Errorf("docs/configuration.md does not document %s", v)
		}
	}
	for v := range documented {
		if !slices.Contains(accepted, v) && !strings.HasPrefix(v, "ANVIL_REQ_") {
			t.Errorf("docs/configuration.md names %s, which the configuration does not accept", v)
		}
	}
	// The defaults the page gives for the gate are the gate's.
	for _, row := range []string{
		"| `ANVIL_GATE_BY` | 0.05 |", "| `ANVIL_CONTEXT_TOLERANCE` | 0.02 |", "| `ANVIL_GATE_INCONCLUSIVE` | `fail` |",
		"| `ANVIL_MAX_CLIENT_CPU_PCT` | 90 |", "| `ANVIL_MAX_START_LAG_PCT` | 5 |",
		"| `ANVIL_GATE_METRICS` | `" + strings.Join(gate.DefaultSpec().Metrics, ",") + "` |",
	} {
		if !strings.Contains(page, row) {
			t.Errorf("docs/configuration.md lacks the row %q", row)
		}
	}
}
