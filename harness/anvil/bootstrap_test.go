package anvil

import (
	"testing"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/capacity"
)

// A scenario built in code takes the configured controlled-output policy only where it
// leaves the policy open and asks for controlled output.
func TestWithIdentityFillsAnOpenPolicy(t *testing.T) {
	t.Parallel()
	env := &Env{cfg: config.Config{Scenario: capacity.Scenario{Policy: capacity.PolicyObserve}}}
	cases := []struct {
		name  string
		in    capacity.Scenario
		wants capacity.Policy
	}{
		{"open", capacity.Scenario{ResponseWords: 32}, capacity.PolicyObserve},
		{"named strict", capacity.Scenario{ResponseWords: 32, Policy: capacity.PolicyStrict}, capacity.PolicyStrict},
		{"no controlled output", capacity.Scenario{}, ""},
	}
	for _, c := range cases {
		if got := env.WithIdentity(c.in).Policy; got != c.wants {
			t.Errorf("%s: policy %q, want %q", c.name, got, c.wants)
		}
	}
}
