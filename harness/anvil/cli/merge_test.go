package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

func TestMerge(t *testing.T) {
	t.Parallel()
	engine, err := refengine.Start(refengine.Options{PrefillOverhead: time.Millisecond, ITL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	dir := t.TempDir()
	var paths []string
	for i := range 2 {
		sc := capacity.Scenario{Requests: 6, Concurrency: 2, ContextTokens: 500, MaxTokens: 64, ResponseWords: 32,
			ClockDomainID: "host", Shard: capacity.Shard{Index: i, Count: 2}}
		b, err := capacity.Run(context.Background(), capacity.Target{BaseURL: engine.BaseURL()}, sc)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := artifact.Write(path, b); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	out := filepath.Join(dir, "merged.json")
	code, stdout, stderr := invoke("", append([]string{"merge", "-o", out}, paths...)...)
	if code != exitOK || !strings.Contains(stdout, "merged 2 shards: 6 requests, 6 completed") {
		t.Fatalf("merge exited %d: %s%s", code, stdout, stderr)
	}
	merged, err := artifact.Read(out)
	if err != nil || merged.Requests != 6 || capacity.Verify(merged) != nil {
		t.Fatalf("merged artifact: %v", err)
	}
	// The merged artifact is judged like any other: against itself it is the same workload
	// and no metric regressed (six requests may not resolve 5%: held or inconclusive); its
	// prompts were sized uncalibrated, hence the wide context tolerance.
	if code, _, stderr := invoke("", "compare", out, out); code != exitOK && code != 5 {
		t.Errorf("compare of the merged artifact with itself exited %d: %s", code, stderr)
	}
	// On a busy machine the client's own check may rightly call the shards' runs invalid
	// (it wanted more CPU than it had): then every other check is judged without it.
	judge := []string{"judge", "-context-tolerance", "0.5", "-budgets", "tpot_p50_ms<=1000", out}
	code, stdout, _ = invoke("", judge...)
	if code == 6 && strings.Contains(stdout, "was measured by a client that kept up: INVALID RUN") {
		t.Logf("the shards' client did not keep up on this machine; judged without that check:\n%s", stdout)
		code, stdout, _ = invoke("", append([]string{judge[0], "-max-client-cpu-pct", "1000", "-max-start-lag-pct", "100"}, judge[1:]...)...)
	}
	if code != exitOK {
		t.Errorf("judge of the merged artifact exited %d:\n%s", code, stdout)
	}

	code, _, stderr = invoke("", "merge", "-o", out, paths[0])
	if code != exitUnjudged || !strings.Contains(stderr, "shard 1 of 2 missing") {
		t.Errorf("a missing shard: exit %d: %s", code, stderr)
	}
	if code, _, _ := invoke("", "merge", paths[0]); code != exitUnjudged {
		t.Errorf("no -o: exit %d", code)
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The original tool sized the reference run's prompts 5% short of their plan.
	code, stdout, _ := invoke("", "judge", reference)
	if code != 4 || !strings.Contains(stdout, "[context] is served the planned context within 2.0%: RUN FAILED: prompt tokens are 5.05% off") {
		t.Errorf("the reference run's context: exit %d:\n%s", code, stdout)
	}
	// One run against one stored run counts the spread between their sessions at 5%
	// (gate_run_cv): a 5% change is out of reach, and the verdict says what would resolve it.
	code, stdout, stderr := invoke("", "judge", "-context-tolerance", "0.06", "-budgets", "ttft_p50_ms<=100000", "-baseline", reference, "-o", dir, reference)
	if code != 5 || !strings.Contains(stdout, "[regression] does not regress ttft_p50_ms from the baseline (fails a significant change over 2.5%, resolves 5%): INCONCLUSIVE: ttft p50 inconclusive") ||
		!strings.Contains(stdout, "2 interleaved pairs against the baseline build would") {
		t.Errorf("judge of the reference against itself exited %d:\n%s%s", code, stdout, stderr)
	}
	// Sessions taken to be steady, the reference's six requests resolve a 5% change against
	// themselves: the comparison held.
	code, stdout, stderr = invoke("", "judge", "-run-cv", "0.001", "-context-tolerance", "0.06", "-budgets", "ttft_p50_ms<=100000", "-baseline", reference, "-o", dir, reference)
	if code != exitOK || !strings.Contains(stdout, "[regression] does not regress ttft_p50_ms from the baseline (fails a significant change over 2.5%, resolves 5%): pass") {
		t.Errorf("judge with -run-cv 0.001 exited %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = invoke("", "judge", "-context-tolerance", "0.06", "-budgets", "ttft_p50_ms<=100000", "-baseline", reference, "-inconclusive", "pass", "-o", dir, reference)
	if code != exitOK || !strings.Contains(stdout, "[budget] meets the budget ttft_p50_ms<=100000: pass") || !strings.Contains(stdout, "gate: pass") {
		t.Fatalf("judge of the reference against itself exited %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = invoke("", "judge", "-context-tolerance", "0.06", "-budgets", "tpot_p50_ms<=1", "-o", dir, reference)
	if code != 3 || !strings.Contains(stdout, "gate: budget broken") {
		t.Errorf("a broken budget: exit %d:\n%s", code, stdout)
	}
	if code, stdout, _ := invoke("", "gate-status", dir); code != 3 || !strings.Contains(stdout, "tpot p50") {
		t.Errorf("gate-status of judge's gate.json: exit %d: %s", code, stdout)
	}
	if code, _, _ := invoke("", "judge", "-budgets", "nonsense", reference); code != 4 {
		t.Errorf("bad budgets: exit %d", code)
	}
	// A baseline of 4 requests cannot be compared with: refused before any check.
	small, err := artifact.Read(reference)
	if err != nil {
		t.Fatal(err)
	}
	small.RequestTimings, small.Requests, small.Completed = small.RequestTimings[:4], 4, 4
	smallPath := filepath.Join(dir, "small.json")
	if err := artifact.Write(smallPath, small); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := invoke("", "judge", "-baseline", smallPath, reference); code != 2 || !strings.Contains(stdout, "the baseline has 4 requests with a figure; a comparison needs at least 5") {
		t.Errorf("a 4-request baseline: exit %d:\n%s", code, stdout)
	}
}
