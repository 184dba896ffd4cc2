package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// scaled writes the reference artifact as run id of scenario configured, started hour
// hours later, its TPOT and TTFT scaled by f.
func scaled(t *testing.T, dir, id string, hour int, f float64) string {
	t.Helper()
	return variant(t, dir, id+".json", func(b *artifact.Benchmark) {
		b.RunID, b.StartedAtUnixNs = id, b.StartedAtUnixNs+int64(hour)*3600e9
		b.Extension = &artifact.Extension{Scenario: "configured", API: "chat"}
		for i := range b.RequestTimings {
			r := &b.RequestTimings[i]
			r.TPOTMs = artifact.F(f * float64(*r.TPOTMs))
			r.TTFTMs = artifact.Float(f * float64(r.TTFTMs))
		}
	})
}

// Ten runs a few percent apart with a 10% step at run 7: history names run 7; a run at the
// new level is the baseline's change, not this run's; one 25% above it regressed.
func TestHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	os.Mkdir(runs, 0o755)
	for i, f := range []float64{1.00, 0.97, 1.03, 1.01, 0.98, 1.02, 1.11, 1.09, 1.12, 1.08} {
		scaled(t, runs, fmt.Sprintf("run-%02d", i+1), i, f)
	}
	os.WriteFile(filepath.Join(runs, "notes.json"), []byte(`{"not": "an artifact"}`), 0o644)

	code, stdout, stderr := invoke("", "history", "-metrics", "tpot_p50_ms,ttft_p50_ms", runs)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"scenario configured: 10 runs\n", "\ntpot_p50_ms\n", "run-07", "changed at run 7: 5.99ms -> 6.58ms (+9.8%)\n",
		"\nttft_p50_ms\n", "changed at run 7: 11889.35ms -> 13058.10ms (+9.8%)\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	same := scaled(t, dir, "same", 11, 1.10)
	code, stdout, _ = invoke("", "history", "-metrics", "tpot_p50_ms", "-by", "0.2", "-current", same, runs)
	if code == exitRegression || !strings.Contains(stdout, "; the baseline already changed at run 7 of 10 (+9.8%): judged against its level since") {
		t.Errorf("a run at the new level: exit %d:\n%s", code, stdout)
	}
	slower := scaled(t, dir, "slower", 11, 1.10*1.25)
	code, stdout, stderr = invoke("", "history", "-metrics", "tpot_p50_ms", "-by", "0.2", "-current", slower, runs)
	if code != exitRegression || !strings.Contains(stderr, "tpot p50 regressed 2") || !strings.Contains(stdout, "the baseline already changed at run 7") {
		t.Errorf("a run 25%% above it: exit %d:\n%s%s", code, stdout, stderr)
	}

	for args, want := range map[string]string{
		"history":                                    "anvilbench history: want at least one PATH of earlier runs",
		"history " + filepath.Join(dir, "x"):         "anvilbench history: " + filepath.Join(dir, "x") + ": stat ",
		"history -metrics tpot_p42_ms " + runs:       `anvilbench history: --metrics: metric "tpot_p42_ms"`,
		"history -current " + reference + " " + runs: "anvilbench history: no run there of scenario ",
	} {
		if code, _, stderr := invoke("", strings.Fields(args)...); code != exitUnjudged || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", args, code, stderr, want)
		}
	}
}
