package anvil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// slotted is an engine of n slots whose next request waits for one to free: at
// concurrency n+1 a request waits a whole answer (about 130 ms: 33 tokens 4 ms apart),
// far beyond an 80 ms TTFT, which a request served at once meets with 70 ms to spare.
func slotted(t *testing.T, n int) *refengine.Server {
	t.Helper()
	e, err := refengine.Start(refengine.Options{PrefillOverhead: 2 * time.Millisecond, ITL: 4 * time.Millisecond, MaxBatch: n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// searched runs the configured scenario as a search in a suite process and returns its
// verdict and the engine's artifact at its capacity.
func searched(t *testing.T, env ...string) (gate.Summary, *artifact.Benchmark) {
	t.Helper()
	dir := t.TempDir()
	env = append([]string{"ANVIL_REQUESTS=20", "ANVIL_CONTEXT_TOKENS=200", "ANVIL_WARMUP_REQUESTS=4"}, env...)
	out, s, _ := validRun(t, dir, func() *exec.Cmd { return suiteProcess(t, roleConfigured, dir, env...) })
	b, err := artifact.Read(filepath.Join(dir, "out", "search", "configured.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b.Extension == nil || b.Extension.Search == nil {
		t.Fatalf("the artifact holds no search\n%s", out)
	}
	for _, p := range b.Extension.Search.Probes {
		t.Logf("engine %s %v: %s (%s) over %d requests: %v", b.Extension.Search.Over, p.Load, p.Verdict, p.Decided, p.Requests, figures(p))
	}
	if bs := b.Extension.Search.Baseline; bs != nil {
		for _, p := range bs.Probes {
			t.Logf("baseline %v: %s (%s) over %d requests: %v", p.Load, p.Verdict, p.Decided, p.Requests, figures(p))
		}
	}
	t.Logf("verdict %s (exit %d), %d requests in all", s.Outcome, s.ExitCode, b.Extension.Search.Requests)
	return s, b
}

func figures(p artifact.SearchProbe) string {
	var out []string
	for _, f := range p.Figures {
		if f.Value != nil {
			out = append(out, fmt.Sprintf("%s at %.1f", f.Budget, float64(*f.Value)))
		}
	}
	return strings.Join(out, ", ")
}

func searchSuite(t *testing.T) bool {
	if os.Getenv("ANVIL_TEST_ROLE") != roleConfigured {
		return false
	}
	Bootstrap("search")
	DescribeConfigured()
	RunSpecs(t, "search")
	return true
}

// A search over concurrency within ttft_p95_ms<=80 against an engine of 8 slots finds 8
// (7 allowed: a probe's interval may leave 8 unresolved); capacity_concurrency>=16 breaks
// (exit 3) and >=4 holds.
func TestASearchFindsTheSlotsOfAnEngine(t *testing.T) {
	if searchSuite(t) {
		return
	}
	t.Parallel()
	e := slotted(t, 8)
	s, b := searched(t, "ANVIL_BASE_URL="+e.BaseURL(), "ANVIL_SEARCH=concurrency:32", "ANVIL_BUDGETS=ttft_p95_ms<=80,capacity_concurrency>=16")
	c := b.Extension.Search.Capacity
	if c != 7 && c != 8 {
		t.Errorf("capacity_concurrency %v, want 8 (or 7)", c)
	}
	if s.Outcome != gate.BudgetBroken || s.ExitCode != 3 {
		t.Errorf("capacity_concurrency>=16: %s (exit %d), want budget broken (exit 3): %v", s.Outcome, s.ExitCode, s.Failed)
	}
	holds, _ := budget.Parse("capacity_concurrency>=4")
	if r := gate.MeetBudget(holds[0]).Judge(b); r.Outcome != gate.Pass {
		t.Errorf("capacity_concurrency>=4: %s: %s", r.Outcome, r.Message)
	}
	if v := budget.Judge(budget.Budget{Metric: "ttft_p95_ms", Op: budget.AtMost, Limit: 80}, b); !v.Pass {
		t.Errorf("the artifact at the capacity breaks the SLO: %s", v.Message())
	}
}

// The same search beside a baseline build: 8 slots against 16 is a regression naming the
// capacity (exit 1); 8 against 8 is not.
func TestASearchBesideTheBaselineBuildJudgesTheCapacity(t *testing.T) {
	if searchSuite(t) {
		return
	}
	t.Parallel()
	for _, tc := range []struct {
		baseline int
		want     gate.Outcome
	}{{16, gate.Regression}, {8, gate.Pass}} {
		t.Run(fmt.Sprintf("8 against %d", tc.baseline), func(t *testing.T) {
			t.Parallel()
			e, main := slotted(t, 8), slotted(t, tc.baseline)
			s, _ := searched(t, "ANVIL_BASE_URL="+e.BaseURL(), "ANVIL_BASELINE_URL="+main.BaseURL(), "ANVIL_SEARCH=concurrency:16", "ANVIL_BUDGETS=ttft_p95_ms<=80")
			if s.Outcome != tc.want {
				t.Errorf("8 slots against %d: %s (exit %d), want %s: %v", tc.baseline, s.Outcome, s.ExitCode, tc.want, s.Failed)
			}
			if tc.want == gate.Regression && (len(s.Failed) == 0 || !strings.Contains(s.Failed[0].Message, "capacity 8")) {
				t.Errorf("the regression does not name the capacity: %v", s.Failed)
			}
			if len(s.Failed) > 0 {
				t.Logf("%s", s.Failed[0].Message)
			}
		})
	}
}
