package anvil

import (
	"os"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/anvil/internal/junit"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// A suite of gated containers alone builds none from an invalid configuration, and Ginkgo
// then skips the BeforeSuite that would say why: the verdict must name the problem, not
// blame the label filter.
func TestASuiteLeftWithoutSpecsByItsConfigurationSaysWhy(t *testing.T) {
	// ginkgo -r runs this package's tests too, under whatever ANVIL_* a run has set.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ANVIL_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("ANVIL_CONCURRENCY", "abc")
	_, cfgErr := config.FromEnvironment()
	empty, err := unbuiltTree(types.Report{SuiteDescription: "engine", SuiteSucceeded: true}, cfgErr)
	if err == nil || !strings.Contains(err.Error(), `ANVIL_CONCURRENCY="abc"`) {
		t.Fatalf("unbuiltTree: %v, want the configuration's problem", err)
	}
	if empty.SuiteSucceeded {
		t.Error("the suite still reads as succeeded")
	}
	checks, failed, _ := junit.SuiteVerdict(empty)
	if checks != 0 || len(failed) != 1 || failed[0].Outcome != gate.RunFailed || !strings.Contains(failed[0].Message, `ANVIL_CONCURRENCY="abc"`) {
		t.Errorf("verdict: %d checks, failures %+v; want one run failure naming ANVIL_CONCURRENCY", checks, failed)
	}

	// Specs that ran, or a set-up that failed, reported for themselves.
	ran := types.Report{SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed}}}
	setUp := types.Report{SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed}}}
	for name, r := range map[string]types.Report{"a spec ran": ran, "the set-up failed": setUp} {
		if r, err := unbuiltTree(r, cfgErr); err != nil || len(r.SpecReports) != 1 {
			t.Errorf("%s: %v, %d spec reports; want nothing added", name, err, len(r.SpecReports))
		}
	}

	// With a valid configuration, a filter that selected nothing is what the verdict says.
	t.Setenv("ANVIL_CONCURRENCY", "2")
	_, cfgErr = config.FromEnvironment()
	filtered := types.Report{SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeIt, State: types.SpecStateSkipped}}}
	if filtered, err := unbuiltTree(filtered, cfgErr); err != nil || len(filtered.SpecReports) != 1 {
		t.Errorf("valid configuration: %v, want nothing added", err)
	}
}
