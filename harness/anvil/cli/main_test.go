package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

const reference = "../../../testdata/reference/benchmark-v1-example.json"

// variant writes the reference artifact, changed by edit, to a file in dir.
func variant(t *testing.T, dir, name string, edit func(*artifact.Benchmark)) string {
	t.Helper()
	b, err := artifact.Read(reference)
	if err != nil {
		t.Fatal(err)
	}
	edit(b)
	path := filepath.Join(dir, name)
	if err := artifact.Write(path, b); err != nil {
		t.Fatal(err)
	}
	return path
}

// invoke runs the command with GITHUB_STEP_SUMMARY set to summary ("" for unset).
func invoke(summary string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "GITHUB_STEP_SUMMARY" {
			return summary
		}
		return ""
	}
	code = Run(args, &out, &errOut, getenv)
	return code, out.String(), errOut.String()
}

func TestCompareExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	slower := variant(t, dir, "slower.json", func(b *artifact.Benchmark) {
		for i := range b.RequestTimings {
			b.RequestTimings[i].TPOTMs = artifact.F(1.2 * float64(*b.RequestTimings[i].TPOTMs))
		}
	})
	otherWorkload := variant(t, dir, "other.json", func(b *artifact.Benchmark) { b.MaxTokens = 128 })
	few := variant(t, dir, "few.json", func(b *artifact.Benchmark) { b.RequestTimings = b.RequestTimings[:4] })
	otherAPI := variant(t, dir, "responses.json", func(b *artifact.Benchmark) { b.Extension = &artifact.Extension{API: "responses"} })
	otherScenario := variant(t, dir, "other-scenario.json", func(b *artifact.Benchmark) { b.Extension = &artifact.Extension{Scenario: "other"} })
	// A history of four runs of one build, a few tenths of a percent apart.
	history := filepath.Join(dir, "history")
	os.Mkdir(history, 0o755)
	for i, f := range []float64{1.000, 0.995, 1.004, 0.998} {
		variant(t, history, fmt.Sprintf("run-%d.json", i), func(b *artifact.Benchmark) {
			b.StartedAtUnixNs += int64(i) * 3600e9
			for k := range b.RequestTimings {
				b.RequestTimings[k].TPOTMs = artifact.F(f * float64(*b.RequestTimings[k].TPOTMs))
			}
		})
	}
	otherSchema := filepath.Join(dir, "other-schema.json")
	os.WriteFile(otherSchema, []byte(`{"schema": "other/v1"}`), 0o644)

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		// One run against one stored run counts 5% between their sessions (gate_run_cv): a 5%
		// gate is out of its reach, whatever the runs' own requests say.
		{"unchanged, one stored run", []string{"compare", reference, reference}, 5,
			[]string{"tpot_p50_ms  5.98ms      5.98ms      +0.0%  inconclusive\n"},
			[]string{"anvilbench compare: tpot_p50_ms: tpot p50 inconclusive: changed +0.0% (5.98ms -> 5.98ms, 95% CI of the change -12.7%..+14.5%, p=0.5); one run against one stored run, one block each (the spread between their sessions counted at 5.0%, gate_run_cv, its default, which a history of main's runs would measure: ANVIL_BASELINE=dir) resolves 26.6% at best, not the 5.0% gate: 2 interleaved pairs against the baseline build would"}},
		{"unchanged, steady sessions", []string{"compare", "-run-cv", "0.001", reference, reference}, 0,
			[]string{"metric       old         new         delta  verdict\n", "tpot_p50_ms  5.98ms      5.98ms      +0.0%  ok\n"}, nil},
		// The gate's two metrics, each at 0.5%: 20% slower is a regression even counting 5%
		// between the sessions (CI of the change +4.8%..+37.4%).
		{"slower, one stored run", []string{"compare", reference, slower}, 1, []string{"tpot_p50_ms  5.98ms      7.18ms      +20.0%  regression\n"}, nil},
		{"slower, steady sessions", []string{"compare", "-run-cv", "0.001", reference, slower}, 1,
			[]string{"tpot_p50_ms  5.98ms      7.18ms      +20.0%  regression\n"},
			[]string{"anvilbench compare: tpot_p50_ms: tpot p50 regressed 20.0% (5.98ms -> 7.18ms, 95% CI of the change +19.6%..+20.5%, p<1e-16): worse than the 5.0% gate"}},
		{"slower, gated on TTFT only", []string{"compare", "-run-cv", "0.001", "--metrics", "ttft_p50_ms,ttft_p95_ms", reference, slower}, 0, []string{"ttft_p95_ms"}, nil},
		{"slower, flags after the files", []string{"compare", reference, slower, "--by", "0.5", "--metrics=tpot_p50_ms", "-run-cv=0.001"}, 0,
			[]string{"tpot_p50_ms: tpot p50 changed +20.0% (5.98ms -> 7.18ms, 95% CI of the change +19.6%..+20.5%, p<1e-16): significant but within half the 50.0% gate"}, nil},
		{"unchanged against a history", []string{"compare", "-metrics", "tpot_p50_ms", history, reference}, 0,
			[]string{"tpot p50 changed +0.1% (5.98ms -> 5.98ms, 95% CI of the change -1.3%..+1.4%, p=0.43): not significant, no regression at the 5.0% gate (a change of 2.4% would have shown)", "one run against a history of 4 runs (4 at its latest level)"}, nil},
		{"slower against a history (glob)", []string{"compare", "-metrics", "tpot_p50_ms", filepath.Join(history, "run-*.json"), slower}, 1,
			nil, []string{"tpot p50 regressed 20.1% (5.98ms -> 7.18ms, 95% CI of the change +18.5%..+21.7%, p=1.4e-05): worse than the 5.0% gate"}},
		{"a history of another scenario", []string{"compare", history, otherScenario}, 2, nil,
			[]string{"anvilbench compare: baseline: no artifact of scenario other there"}},
		{"bad run-cv", []string{"compare", "-run-cv", "0", reference, reference}, 2, nil, []string{"anvilbench compare: -run-cv 0: want a coefficient of variation above 0 and below 1"}},
		{"not comparable", []string{"compare", reference, otherWorkload}, 2, []string{"workload differences:\n  max_tokens 512 vs 128\n"},
			[]string{"the artifacts measured different workloads (pass --allow-mismatch to compare anyway):\n  max_tokens 512 vs 128\n"}},
		// The reference is the original tool's, which spoke chat only.
		{"another API", []string{"compare", reference, otherAPI}, 2, []string{"workload differences:\n  anvilbench.api \"chat\" vs \"responses\"\n"},
			[]string{"the artifacts measured different workloads"}},
		{"allowed mismatch", []string{"compare", "-run-cv", "0.001", "--allow-mismatch", reference, otherWorkload}, 0, nil, nil},
		{"insufficient samples", []string{"compare", "--metrics", "tpot_p50_ms", reference, few}, 2, nil,
			[]string{"anvilbench compare: tpot_p50_ms: tpot p50: not comparable: 6 vs 4 requests with a figure (a comparison needs at least 5 on each side)\n"}},
		{"missing file", []string{"compare", reference, filepath.Join(dir, "absent.json")}, 2, nil, []string{"anvilbench compare: current: read artifact ", "absent.json: open "}},
		{"not an artifact", []string{"compare", otherSchema, reference}, 2, nil, []string{"anvilbench compare: baseline: read artifact ", "not an anvil-serving.benchmark/v1 artifact"}},
		{"bad format", []string{"compare", "--format", "yaml", reference, reference}, 2, nil, []string{`anvilbench compare: --format "yaml": want text, json or markdown` + "\n"}},
		{"bad metric", []string{"compare", "--metrics", "tpot_p50_ms,tpot_p42_ms", reference, reference}, 2, nil,
			[]string{`anvilbench compare: --metrics: metric "tpot_p42_ms": want a mean or percentile key`}},
		{"bad gate", []string{"compare", "--by", "fast", reference, reference}, 2, nil, []string{`invalid value "fast" for flag -by`}},
		{"one file", []string{"compare", reference}, 2, nil, []string{"anvilbench compare: want OLD and NEW.json, got 1 arguments"}},
		{"no command", nil, 2, nil, []string{"usage: anvilbench compare"}},
		{"unknown command", []string{"diff"}, 2, nil, []string{`anvilbench: unknown command "diff"`}},
		{"help", []string{"compare", "-h"}, 0, nil, []string{"usage: anvilbench compare [flags] OLD NEW.json", "-allow-mismatch", "-run-cv"}},
	}
	for _, c := range cases {
		code, stdout, stderr := invoke("", c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.name, code, c.code, stdout, stderr)
			continue
		}
		for _, want := range c.stdout {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", c.name, want, stdout)
			}
		}
		for _, want := range c.stderr {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, want, stderr)
			}
		}
		if c.code == 0 && stderr != "" && c.name != "help" { // flag prints help on stderr
			t.Errorf("%s: exit 0 with stderr %q", c.name, stderr)
		}
	}
}

func TestCompareFormats(t *testing.T) {
	t.Parallel()
	code, stdout, _ := invoke("", "compare", "-run-cv", "0.001", "--format", "json", reference, reference)
	var doc struct {
		Baseline, Outcome string
		By                float64
		Rows              []struct{ Metric, Verdict string }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	// By default the gate's own metrics.
	if doc.Outcome != "ok" || doc.By != 0.05 || doc.Baseline != reference || len(doc.Rows) != 2 || doc.Rows[0].Metric != "tpot_p50_ms" || doc.Rows[1].Metric != "ttft_p50_ms" {
		t.Errorf("json: %+v", doc)
	}
	// ANVIL_GATE_* set the defaults, as they set the suites' gate: one rule everywhere.
	var out, errOut strings.Builder
	env := map[string]string{"ANVIL_GATE_METRICS": "tpot_p50_ms,failed", "ANVIL_GATE_BY": "0.1", "ANVIL_GATE_RUN_CV": "0.001"}
	code = Run([]string{"compare", "--format", "json", reference, reference}, &out, &errOut, func(k string) string { return env[k] })
	doc.Rows = nil
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil || code != 0 || doc.By != 0.1 || len(doc.Rows) != 2 || doc.Rows[1].Metric != "failed" {
		t.Errorf("compare under ANVIL_GATE_*: exit %d, %v, %+v %s", code, err, doc, errOut.String())
	}
	env["ANVIL_GATE_BY"] = "fast"
	if code := Run([]string{"compare", reference, reference}, io.Discard, &errOut, func(k string) string { return env[k] }); code != exitUnjudged || !strings.Contains(errOut.String(), "ANVIL_GATE_BY") {
		t.Errorf("a bad ANVIL_GATE_BY: exit %d, %s", code, errOut.String())
	}
	code, stdout, _ = invoke("", "compare", "-run-cv", "0.001", "--format=markdown", reference, reference)
	if code != 0 || !strings.HasPrefix(stdout, "### anvilbench compare: ok (gate 5.0%)\n") || !strings.Contains(stdout, "| tpot_p50_ms | 5.98ms | 5.98ms | +0.0% | ok |\n") {
		t.Errorf("markdown, exit %d:\n%s", code, stdout)
	}
}

func TestCompareAppendsTheStepSummary(t *testing.T) {
	t.Parallel()
	summary := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	if code, _, stderr := invoke(summary, "compare", "-run-cv", "0.001", reference, reference); code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, _ := invoke(summary, "compare", "-run-cv", "0.001", "--format", "json", "--metrics", "tpot_p50_ms", reference, reference); code != 0 {
		t.Fatalf("exit %d", code)
	}
	data, _ := os.ReadFile(summary)
	text := string(data)
	if !strings.HasPrefix(text, "earlier step\n### anvilbench compare: ok (gate 5.0%)\n") || strings.Count(text, "### anvilbench compare") != 2 || !strings.Contains(text, "| ttft_p50_ms | 11872.23ms | 11872.23ms | +0.0% | ok |") {
		t.Errorf("summary:\n%s", text)
	}
	// An unwritable summary is reported but does not change the verdict.
	code, _, stderr := invoke(filepath.Join(t.TempDir(), "no", "such", "dir", "summary.md"), "compare", "-run-cv", "0.001", reference, reference)
	if code != 0 || !strings.Contains(stderr, "anvilbench compare: GITHUB_STEP_SUMMARY: open ") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestGateStatusExitsWithTheOutcomeCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, "gate.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summary := func(outcome gate.Outcome, suites ...gate.SuiteState) string {
		s := gate.Summary{RunID: "run-1", Suites: suites}
		if outcome != gate.Pass {
			s.Failed = []gate.Failure{{Suite: "capacity", Check: "c", Outcome: outcome, Message: "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples"}}
		}
		s.Judge()
		data, _ := json.Marshal(s)
		return string(data)
	}
	finished := gate.SuiteState{Name: "capacity", State: gate.SuiteFinished, Checks: 3}
	for body, want := range map[string]int{
		summary(gate.Pass, finished):          0,
		summary(gate.BudgetBroken, finished):  3,
		summary(gate.Inconclusive, finished):  5,
		summary(gate.InvalidRun, finished):    6,
		summary(gate.NotComparable, finished): 2,
		// A suite that never reported, or nothing judged, fails whatever the file says.
		summary(gate.Pass, finished, gate.SuiteState{Name: "curves", State: gate.SuiteRunning}): 4,
		summary(gate.Pass, gate.SuiteState{Name: "capacity", State: gate.SuiteFinished}):        4,
		// A verdict of the previous format, a pass included, is not read as one.
		`{"outcome":"pass","exit_code":0,"specs":3,"failed":[]}`: 4,
		`not json`: 4,
	} {
		write(body)
		var out, errOut strings.Builder
		if got := Run([]string{"gate-status", dir}, &out, &errOut, func(string) string { return "" }); got != want {
			t.Errorf("%s: exit %d, want %d (%s%s)", body, got, want, out.String(), errOut.String())
		}
	}
	// A directory without a verdict, and one whose run.json names another run.
	empty := t.TempDir()
	if got := Run([]string{"gate-status", empty}, io.Discard, io.Discard, func(string) string { return "" }); got != 4 {
		t.Errorf("no gate.json: exit %d", got)
	}
	write(summary(gate.Pass, finished))
	os.WriteFile(filepath.Join(dir, runrecord.ManifestFile), []byte(`{"schema":"anvilbench.run/v1","run_id":"run-2"}`), 0o644)
	var out strings.Builder
	if got := Run([]string{"gate-status", dir}, &out, &out, func(string) string { return "" }); got != 4 || !strings.Contains(out.String(), "names run run-2") {
		t.Errorf("a verdict of another run: exit %d: %s", got, out.String())
	}
}

// Without an argument gate-status reads ANVIL_OUT_DIR, taken from the module root.
func TestGateStatusReadsTheOutDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := gate.Summary{RunID: "run-1", Suites: []gate.SuiteState{{Name: "capacity", State: gate.SuiteFinished, Checks: 3}},
		Failed: []gate.Failure{{Check: "c", Outcome: gate.BudgetBroken, Message: "m"}}}
	if err := gate.WriteSummary(filepath.Join(dir, runrecord.SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "ANVIL_OUT_DIR" {
			return dir
		}
		return ""
	}
	var out strings.Builder
	if got := Run([]string{"gate-status"}, &out, &out, env); got != 3 || !strings.Contains(out.String(), "FAIL (budget broken)") {
		t.Errorf("exit %d: %s", got, out.String())
	}
}

// Every problem of a configuration error reaches the CI log, not only the first.
func TestGateStatusPrintsEveryLineOfAFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	msg := "invalid anvilbench configuration: a (and 1 more)\n  a: unknown key\n  b=0: out of range"
	s := gate.Summary{RunID: "run-1", Failed: []gate.Failure{{Check: "set-up", Outcome: gate.RunFailed, Message: msg}}}
	if err := gate.WriteSummary(filepath.Join(dir, runrecord.SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	Run([]string{"gate-status", dir}, &out, &out, func(string) string { return "" })
	if !strings.Contains(out.String(), "\n      a: unknown key\n      b=0: out of range\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

// -h on every command prints its usage and exits 0, so scripts can probe a command.
func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"compare", "baseline", "history", "gate-status", "merge", "judge", "report"} {
		code, stdout, stderr := invoke("", cmd, "-h")
		if code != exitOK || !strings.Contains(stdout+stderr, "usage: anvilbench "+cmd) {
			t.Errorf("%s -h: exit %d, output %q", cmd, code, stdout+stderr)
		}
	}
	if code, stdout, _ := invoke("", "--help"); code != exitOK || !strings.Contains(stdout, "anvilbench run [ginkgo flags]") {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
}

// gate-status says how old the verdict it read is, so an old PASS is not taken for the
// run just made.
func TestGateStatusSaysTheVerdictsAge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gate.json")
	os.WriteFile(path, []byte("{}"), 0o644)
	written := time.Date(2026, 12, 6, 5, 47, 10, 0, time.UTC)
	os.Chtimes(path, written, written)
	for after, want := range map[time.Duration]string{
		20 * time.Second:               " (written 20s ago)",
		13*time.Minute + 5*time.Second: " (written 13m ago, 05:47 UTC)",
		26 * time.Hour:                 " (written 2026-12-06 05:47 UTC, 1 day ago)",
	} {
		if got := age(path, written.Add(after)); got != want {
			t.Errorf("%v after: %q, want %q", after, got, want)
		}
	}
}
