package suggest

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"ANVIL_CONCURRENCY", "ANVIL_CONTEXT_TOKENS", "ANVIL_BUDGETS", "ANVIL_SCENARIOS_FILE", "ANVIL_TRUTH",
		"ANVIL_TRACE_SPEEDUP", "ANVIL_TRACE_FILE", "trace", "trace_lines", "ANVIL_OUTPUT", "ANVIL_OUT_DIR", "ANVIL_BASELINE", "ANVIL_BASELINE_URL",
		"ANVIL_ADAPTERS", "ANVIL_ADAPTER_MIX", "ANVIL_PRIORITIES", "priorities", "adapters", "adapter_mix"}
	for word, want := range map[string]string{
		"ANVIL_CONCURENCY": "ANVIL_CONCURRENCY", "ANVIL_BUDGET": "ANVIL_BUDGETS", "ANVIL_SCENARIO_FILE": "ANVIL_SCENARIOS_FILE",
		"ANVIL_SOMETHING_ELSE": "", "ANVIL_BUDGETS": "",
		// Named in part, or with a part more: nearer than a close spelling.
		"ANVIL_TRACE": "ANVIL_TRACE_FILE", "trace_file": "trace",
		// Unless the part more ends a close name too.
		"ANVIL_OUTPUT_DIR": "ANVIL_OUT_DIR",
		// Or a name of as many parts is a typo away.
		"ANVIL_BASELINE_ULR": "ANVIL_BASELINE_URL", "ANVIL_BASELINE_DIRECTORY": "ANVIL_BASELINE",
		// Or, for a shorter word, one edit away (a plural left off).
		"ANVIL_ADAPTER": "ANVIL_ADAPTERS",
		// A plural left off is nearest of all, y as ies too.
		"ANVIL_PRIORITY": "ANVIL_PRIORITIES", "priority": "priorities", "adapter": "adapters",
	} {
		if got := Nearest(word, known, 3); got != want {
			t.Errorf("%s: %q, want %q", word, got, want)
		}
	}
	if d := distance("tbot", "tpot"); d != 1 {
		t.Errorf("distance %d", d)
	}
}
