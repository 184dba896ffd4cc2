package anvil

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
	"github.com/anvilbench/anvilbench/matchers"
)

// Roles of this test binary run as a suite process of its own (ANVIL_TEST_ROLE).
const (
	roleConfigured  = "configured-suite"
	roleMatcherFail = "matcher-fails"
	roleGatedInCode = "gated-in-code"
)

// A suite process reads its configuration once: the spec tree, the set-up, the preflight,
// each suite's record, its JUnit file and its report all take that one. The configured
// scenario runs against the embedded engine, and the loads are counted once everything,
// the report included, is done.
func TestASuiteProcessReadsItsConfigurationOnce(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleConfigured {
		Bootstrap("loads")
		DescribeConfigured()
		ReportAfterSuite("count the configuration's loads", func(types.Report) {
			if err := os.WriteFile(os.Getenv("ANVIL_TEST_READY"), []byte(strconv.FormatInt(config.Loads(), 10)), 0o644); err != nil {
				Fail(err.Error())
			}
		})
		RunSpecs(t, "loads")
		return
	}
	dir := t.TempDir()
	counted := filepath.Join(dir, "loads")
	out, s, err := validRun(t, dir, func() *exec.Cmd {
		return suiteProcess(t, roleConfigured, dir, "ANVIL_TEST_READY="+counted, "ANVIL_REQUESTS=4", "ANVIL_CONCURRENCY=2", "ANVIL_CONTEXT_TOKENS=1000")
	})
	if err != nil {
		t.Fatalf("the suite failed: %v\n%s", err, out)
	}
	loads, err := os.ReadFile(counted)
	if err != nil {
		t.Fatalf("the suite did not count its loads: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(loads)); got != "1" {
		t.Errorf("the suite process loaded its configuration %s times, want once", got)
	}
	if s.ExitCode != 0 || s.Checks == 0 {
		t.Errorf("the suite's verdict: %+v", s)
	}
}

// A spec of an engine team's own that fails on a matcher is classified by the check the
// matcher judged with (a budget broken), not by its labels, of which it has none; a spec
// that fails on a plain assertion after a check failed elsewhere is a failed run.
func TestASpecFailedByAMatcherTakesTheChecksOutcome(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleMatcherFail {
		Bootstrap("matchers")
		var run *artifact.Benchmark
		It("runs and breaks a budget", func(ctx SpecContext) {
			env := Current()
			sc := env.WithIdentity(capacity.Scenario{Requests: 4, Concurrency: 2, ContextTokens: 1000, MaxTokens: 48, ResponseWords: 16})
			run = Run(ctx, "four", env.Target(), sc)
			Expect(run).To(matchers.HaveNoFailedRequests())
			Expect(run).To(matchers.HaveMetricAtMost("tpot_p50_ms", 0.001))
		})
		It("fails on a plain assertion", func() {
			Expect(run).NotTo(BeNil())
			Expect(run.Completed).To(Equal(5), "a plain assertion, after the budget's failure in another spec")
		})
		RegisterFailHandler(Fail)
		RunSpecs(t, "matchers")
		return
	}
	dir := t.TempDir()
	if out, err := suiteProcess(t, roleMatcherFail, dir).CombinedOutput(); err == nil {
		t.Fatalf("the suite passed:\n%s", out)
	}
	s, err := gate.ReadSummary(filepath.Join(dir, "out", runrecord.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	byCheck := map[string]gate.Failure{}
	for _, f := range s.Failed {
		byCheck[f.Check] = f
	}
	if f := byCheck["runs and breaks a budget"]; f.Kind != gate.KindBudget || f.Outcome != gate.BudgetBroken || !strings.Contains(f.Message, "exceeds budget") {
		t.Errorf("the matcher's failure: %+v", f)
	}
	if f := byCheck["fails on a plain assertion"]; f.Kind != gate.KindRun || f.Outcome != gate.RunFailed {
		t.Errorf("the plain assertion's failure: %+v", f)
	}
}

// A scenario gated in code is a container of its own, one spec per check of its spec, as
// a scenarios file's are: a budget it breaks is its budget spec's failure, and the rest of
// its checks pass.
func TestAScenarioGatedInCodeIsJudgedByEachCheck(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleGatedInCode {
		Bootstrap("gated")
		b, err := budget.Parse("tpot_p50_ms<=0.001")
		if err != nil {
			t.Fatal(err)
		}
		spec := gate.DefaultSpec()
		spec.Budgets = b
		DescribeGated("in-code", capacity.Scenario{Requests: 4, Concurrency: 2, ContextTokens: 1000, MaxTokens: 48, ResponseWords: 16, Calibrate: true}, spec, "mine")
		RunSpecs(t, "gated")
		return
	}
	dir := t.TempDir()
	if out, _, err := validRun(t, dir, func() *exec.Cmd { return suiteProcess(t, roleGatedInCode, dir) }); err == nil {
		t.Fatalf("the suite passed:\n%s", out)
	}
	s, err := gate.ReadSummary(filepath.Join(dir, "out", runrecord.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if s.Outcome != gate.BudgetBroken || len(s.Failed) != 1 || s.Failed[0].Check != "scenario in-code meets the budget tpot_p50_ms<=0.001" {
		t.Errorf("verdict %s, failures %+v; want the one budget broken", s.Outcome, s.Failed)
	}
	if s.Checks < 5 {
		t.Errorf("%d checks judged; want one spec per check of the scenario's spec", s.Checks)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "gated", "in-code.json")); err != nil {
		t.Errorf("the scenario's artifact: %v", err)
	}
}

// suiteProcess is this test binary run as the suite of role, writing into dir/out, with no
// ANVIL_* variable of the caller's but env.
func suiteProcess(t *testing.T, role, dir string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, config.Prefix) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "ANVIL_TEST_ROLE="+role, "ANVIL_OUT_DIR="+filepath.Join(dir, "out"))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// validRun runs the suite process mk makes into dir/out until the harness does not call
// the run invalid (its client starved, a warm-up's last requests slower than the measured
// ones: what a busy machine does), at most three times, and returns its output, the run's
// verdict and the process's error; the test skips, saying why, when no run was valid.
func validRun(t *testing.T, dir string, mk func() *exec.Cmd) ([]byte, gate.Summary, error) {
	t.Helper()
	for try := 1; ; try++ {
		os.RemoveAll(filepath.Join(dir, "out"))
		out, err := mk().CombinedOutput()
		s, rerr := gate.ReadSummary(filepath.Join(dir, "out", runrecord.SummaryFile))
		if rerr != nil || s.Outcome != gate.InvalidRun {
			return out, s, err
		}
		msg := ""
		if len(s.Failed) > 0 {
			msg = s.Failed[0].Message
		}
		if try == 3 {
			t.Skipf("the harness called the run invalid three times (this machine is too busy for it): %s", msg)
		}
		t.Logf("try %d: the harness called the run invalid: %s", try, msg)
	}
}

// A baseline build that does not answer is refused before any request, naming it: not
// found half-way through a run whose blocks alternate with it.
func TestABaselineBuildThatDoesNotAnswerIsRefusedFirst(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleConfigured {
		Bootstrap("baseline-build")
		DescribeConfigured()
		RunSpecs(t, "baseline-build")
		return
	}
	dir := t.TempDir()
	if out, err := suiteProcess(t, roleConfigured, dir, "ANVIL_BASELINE_URL=http://127.0.0.1:9/v1", "ANVIL_REPEATS=2", "ANVIL_REQUESTS=4",
		"ANVIL_CONCURRENCY=2", "ANVIL_CONTEXT_TOKENS=1000").CombinedOutput(); err == nil {
		t.Fatalf("the suite passed:\n%s", out)
	}
	s, err := gate.ReadSummary(filepath.Join(dir, "out", runrecord.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if s.Outcome != gate.RunFailed || len(s.Failed) == 0 || !strings.Contains(s.Failed[0].Message, "scenario configured: the baseline build at http://127.0.0.1:9/v1 (ANVIL_BASELINE_URL, baseline_url): ") {
		t.Errorf("verdict %s, failures %+v", s.Outcome, s.Failed)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "capacity")); err == nil {
		t.Error("a request was sent: the run wrote an artifact")
	}
}

const roleOrdered = "ordered"

// Gated containers run in the order they were registered whatever Ginkgo's seed, so the
// scenario that meets the engine first is the same on every run.
func TestGatedScenariosRunInTheOrderWritten(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleOrdered {
		Bootstrap("ordered")
		for _, name := range []string{"first", "second", "third", "fourth"} {
			DescribeGated(name, capacity.Scenario{Requests: 2, Concurrency: 1, ContextTokens: 200, MaxTokens: 8, WarmupRequests: 1, Calibrate: true}, gate.DefaultSpec())
		}
		ReportAfterSuite("write the order the scenarios ran in", func(r types.Report) {
			var order []string
			for _, s := range r.SpecReports {
				if s.LeafNodeType != types.NodeTypeIt || len(s.ContainerHierarchyTexts) == 0 {
					continue
				}
				if name := strings.TrimPrefix(s.ContainerHierarchyTexts[0], "scenario "); !slices.Contains(order, name) {
					order = append(order, name)
				}
			}
			if err := os.WriteFile(os.Getenv("ANVIL_TEST_READY"), []byte(strings.Join(order, " ")), 0o644); err != nil {
				Fail(err.Error())
			}
		})
		RunSpecs(t, "ordered")
		return
	}
	for _, seed := range []string{"1", "2", "3"} {
		dir := t.TempDir()
		written := filepath.Join(dir, "order")
		out, _, err := validRun(t, dir, func() *exec.Cmd {
			cmd := suiteProcess(t, roleOrdered, dir, "ANVIL_TEST_READY="+written)
			cmd.Args = append(cmd.Args, "-ginkgo.seed="+seed)
			return cmd
		})
		if err != nil {
			t.Fatalf("seed %s: the suite failed: %v\n%s", seed, err, out)
		}
		order, _ := os.ReadFile(written)
		if got := string(order); got != "first second third fourth" {
			t.Errorf("seed %s: the scenarios ran in the order %q", seed, got)
		}
	}
}

const roleInterrupted = "interrupted"

// An interrupt mid-scenario says in one line which scenario it stopped and where its
// artifact records the requests.
func TestAnInterruptedScenarioSaysSoInOneLine(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleInterrupted {
		Bootstrap("interrupted")
		DescribeGated("long", capacity.Scenario{Requests: 5000, Concurrency: 1, ContextTokens: 200, MaxTokens: 64, WarmupRequests: 1, Calibrate: true}, gate.DefaultSpec())
		RunSpecs(t, "interrupted")
		return
	}
	dir := t.TempDir()
	cmd := suiteProcess(t, roleInterrupted, dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	want := regexp.MustCompile(`anvilbench: scenario long interrupted: \d+ of 5000 requests completed, \d+ failed or never finished; \S+long\.json records them`)
	if !want.MatchString(out.String()) {
		t.Errorf("no line naming the interrupted scenario:\n%s", out.String())
	}
	t.Log(want.FindString(out.String()))
}

// A dry run writes no verdict (Ginkgo reports its specs as passed) and tells anvilbench
// run what the selected specs would read.
func TestADryRunWritesAPlanAndNoVerdict(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleConfigured {
		Bootstrap("dry")
		DescribeConfigured()
		RunSpecs(t, "dry")
		return
	}
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.jsonl")
	cmd := suiteProcess(t, roleConfigured, dir, runrecord.PlanFileVariable+"="+plan, "ANVIL_BUDGETS=tpot_p50_ms<=9")
	cmd.Args = append(cmd.Args, "-ginkgo.dry-run")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the dry run failed: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", runrecord.SummaryFile)); err == nil {
		t.Error("a dry run wrote a verdict")
	}
	data, err := os.ReadFile(plan)
	var p runrecord.SuitePlan
	if err != nil || json.Unmarshal(data, &p) != nil || p.Suite != "dry" || !slices.Contains(p.Uses, "ANVIL_BUDGETS") {
		t.Errorf("the plan %q (%v), want the suite and ANVIL_BUDGETS among its uses", data, err)
	}
}
