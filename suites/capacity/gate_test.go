package capacity_test

import (
	"github.com/anvilbench/anvilbench/harness/anvil"
)

// The configured scenario is the merge gate: exactly what the ANVIL_* variables describe,
// run once, then judged spec by spec (requests, controlled output, every budget, and with
// ANVIL_BASELINE comparability and every gated metric). Each scenario of
// ANVIL_SCENARIOS_FILE is gated the same way, in a container of its own.
var (
	_ = anvil.DescribeConfigured()
	_ = anvil.DescribeScenarios()
)
