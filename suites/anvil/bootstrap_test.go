package anvil_test

import (
	"testing"

	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/config"
	"github.com/anvilbench/anvilbench/harness/workload"
	"github.com/anvilbench/anvilbench/suites/anvil"
)

// A scenario built in code takes the configured controlled-output policy only where it
// leaves the policy open and asks for controlled output.
func TestWithIdentityFillsAnOpenPolicy(t *testing.T) {
	t.Parallel()
	env := &anvil.Env{Config: config.Config{Workload: config.Workload{ControlledOutputPolicy: workload.PolicyObserve}}}
	cases := []struct {
		name  string
		in    capacity.Scenario
		wants workload.Policy
	}{
		{"open", capacity.Scenario{ResponseWords: 32}, workload.PolicyObserve},
		{"named strict", capacity.Scenario{ResponseWords: 32, Policy: workload.PolicyStrict}, workload.PolicyStrict},
		{"no controlled output", capacity.Scenario{}, ""},
	}
	for _, c := range cases {
		if got := env.WithIdentity(c.in).Policy; got != c.wants {
			t.Errorf("%s: policy %q, want %q", c.name, got, c.wants)
		}
	}
}
