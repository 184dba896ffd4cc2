package cli

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// fakeEngine is an engine repository's build, as START runs it in a checkout: the
// reference engine at the pace the checkout's speed file gives, on $PORT; a checkout with a
// file named broken fails to start.
func fakeEngine() int {
	if _, err := os.Stat("broken"); err == nil {
		fmt.Println("engine: this build does not compile")
		return 3
	}
	speed := 1.0
	if b, err := os.ReadFile("speed"); err == nil {
		speed, _ = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	}
	// ANVIL_TEST_START_CV: the speed of every start drawn with that spread, as a real
	// engine's moves between starts of one build.
	startCV, _ := strconv.ParseFloat(os.Getenv("ANVIL_TEST_START_CV"), 64)
	s, err := refengine.Start(refengine.Options{Addr: "127.0.0.1:" + os.Getenv("PORT"), Speed: speed, RunCV: startCV,
		ITL: 4 * time.Millisecond, PrefillOverhead: 40 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer s.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return 0
}

// engineRepo is a git repository of commits, commit k (from 1) 20% slower from slowFrom on
// and unable to start at broken; it returns the commits' hashes.
func engineRepo(t *testing.T, commits, slowFrom, broken int) (dir string, shas []string) {
	t.Helper()
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	for k := 1; k <= commits; k++ {
		speed := "1.0"
		if k >= slowFrom {
			speed = "1.2"
		}
		os.WriteFile(filepath.Join(dir, "speed"), []byte(speed+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "version"), []byte(strconv.Itoa(k)+"\n"), 0o644)
		os.Remove(filepath.Join(dir, "broken"))
		if k == broken {
			os.WriteFile(filepath.Join(dir, "broken"), []byte("x\n"), 0o644)
		}
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d", k))
		shas = append(shas, git("rev-parse", "HEAD"))
	}
	return dir, shas
}

// Bisect over an engine repository of 8 commits, 20% slower from commit 6: with commit 7
// unable to start it names commit 6 and exits 0; with the first commit it would try (4)
// unable to start, it skips it, saying why, and still names commit 6. The gate is 10%, half
// the change: at 5% beside two CPU hogs 16 pairs resolved 5.2-6.1% and every unchanged
// commit was skipped as inconclusive.
func TestBisectNamesTheFirstSlowerCommit(t *testing.T) {
	env := map[string]string{"ANVIL_REQUESTS": "8", "ANVIL_CONCURRENCY": "4", "ANVIL_CONTEXT_TOKENS": "1000", "ANVIL_MAX_TOKENS": "32",
		"ANVIL_RESPONSE_WORDS": "12", "ANVIL_REPEATS": "4", "ANVIL_WARMUP_REQUESTS": "4", "ANVIL_GATE_BY": "0.1"}
	dir, shas := engineRepo(t, 8, 6, 7)
	t.Chdir(dir)
	var out, errs bytes.Buffer
	code := Run([]string{"bisect", shas[0], "HEAD", "--", "env", "ANVIL_TEST_ROLE=engine", os.Args[0]}, &out, &errs, func(k string) string { return env[k] })
	t.Logf("broken 7:\n%s%s", out.String(), errs.String())
	if code == 5 && strings.Contains(errs.String(), short(shas[5])) && strings.Contains(out.String(), "spread between starts") {
		// The machine's own noise (beside CPU hogs) made starts of one build differ, and
		// bisect could not tell commit 6 from its neighbours, saying so: it did not guess.
		// Its power where starts are alike is TestBisectRatesBySimulation's (1,000 of 1,000).
		t.Skipf("this machine's noise left commit 6 among commits bisect could not tell apart, and it said so:\n%s%s", out.String(), errs.String())
	}
	if code != 0 || !strings.Contains(out.String(), "first slower commit: "+shas[5]+" commit 6") {
		t.Errorf("broken 7: exit %d, want commit 6 (%s) named:\n%s%s", code, shas[5], out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "spread between starts: GOOD's other starts against its first: tpot_p50_ms ") {
		t.Errorf("the spread between starts was not measured:\n%s", out.String())
	}
}

// An engine whose every start draws its speed with a 2% spread (the field's 2-3% between
// runs of one build), commit 4 unable to start: bisect names commit 6 or cannot tell (exit
// 5, commit 6 among the commits it lists), never another commit. GOOD's build is started
// once and every commit tried is a start of its own, so the spread between starts is
// measured on GOOD's two starts and counted, and a commit found slower is confirmed on
// fresh starts. ANVIL_BISECT_RUNS repeats it (the closing notes' 5 runs); at the default
// gate with ANVIL_BISECT_GATE.
func TestBisectAcrossStartsOfVaryingSpeed(t *testing.T) {
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("ANVIL_BISECT_RUNS")); err == nil && n > 0 {
		runs = n
	}
	env := map[string]string{"ANVIL_REQUESTS": "8", "ANVIL_CONCURRENCY": "4", "ANVIL_CONTEXT_TOKENS": "1000", "ANVIL_MAX_TOKENS": "32",
		"ANVIL_RESPONSE_WORDS": "12", "ANVIL_REPEATS": "4", "ANVIL_WARMUP_REQUESTS": "4", "ANVIL_GATE_BY": cmpOr(os.Getenv("ANVIL_BISECT_GATE"), "0.1")}
	dir, shas := engineRepo(t, 8, 6, 4)
	t.Chdir(dir)
	named, unsure := 0, 0
	for run := 1; run <= runs; run++ {
		var out, errs bytes.Buffer
		code := Run([]string{"bisect", shas[0], "HEAD", "--", "env", "ANVIL_TEST_ROLE=engine", "ANVIL_TEST_START_CV=0.02", os.Args[0]}, &out, &errs, func(k string) string { return env[k] })
		t.Logf("run %d: exit %d\n%s%s", run, code, out.String(), errs.String())
		switch {
		case code == 0 && strings.Contains(out.String(), "first slower commit: "+shas[5]+" commit 6"):
			named++
		case code == 5 && (strings.Contains(errs.String(), short(shas[5])) || strings.Contains(errs.String(), "could not be judged against GOOD")):
			unsure++
		default:
			t.Errorf("run %d: exit %d, want commit 6 (%s) named or among those it cannot tell apart:\n%s%s", run, code, shas[5], out.String(), errs.String())
		}
	}
	t.Logf("%d runs: commit 6 named in %d, cannot tell in %d", runs, named, unsure)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// simInterleaved is an interleaved run of k pairs of n-request blocks between two simulated
// starts (engineProcess.speed): each request's TPOT and TTFT are the start's pace times a
// lognormal factor of spread cv, the blocks in ABBA order a tenth of a minute apart.
func simInterleaved(rng *rand.Rand, cur, base *engineProcess, k, n int, cv float64) (current, baseline *artifact.Benchmark) {
	origin := int64(1_800_000_000_000_000_000)
	mk := func(role string) *artifact.Benchmark {
		a := &artifact.Benchmark{Schema: artifact.Schema, MeasurementProtocol: artifact.ProtocolV3, Model: "sim", Requests: k * n, Completed: k * n,
			Concurrency: 4, ContextTokens: new(1000), ContextDistribution: map[string]int{"1000": k * n}, MaxTokens: 32, ResponseWords: 12,
			ControlledOutputPolicy: "strict", PromptCacheMode: "unique", ServeFlags: artifact.ServeFlags{ThinkingMode: "unsupported"},
			StartedAtUnixNs: origin, FinishedAtUnixNs: origin + 60e9,
			Extension: &artifact.Extension{API: "chat", Blocks: &artifact.Blocks{Repeats: k, RequestsPerBlock: n}}}
		for b := range k {
			a.Extension.Blocks.Blocks = append(a.Extension.Blocks.Blocks, artifact.Block{Index: b})
		}
		return a
	}
	current, baseline = mk(artifact.RoleCurrent), mk(artifact.RoleBaseline)
	sigma := math.Sqrt(math.Log1p(cv * cv))
	factor := func() float64 { return math.Exp(sigma*rng.NormFloat64() - sigma*sigma/2) }
	var seq []artifact.InterleavedBlock
	slot := 0
	for p := range k {
		order := []bool{false, true}
		if p%2 == 1 {
			order = []bool{true, false}
		}
		for _, isCur := range order {
			a, e, role := baseline, base, artifact.RoleBaseline
			if isCur {
				a, e, role = current, cur, artifact.RoleCurrent
			}
			at := origin + int64(slot)*6e9
			for i := range n {
				tpot, ttft := 4*e.speed*factor(), 40*e.speed*factor()
				a.RequestTimings = append(a.RequestTimings, artifact.RequestTiming{RequestIndex: p*n + i, TTFTMs: artifact.Float(ttft), TimeToFirstOutputMs: artifact.Float(ttft),
					GenerationMs: artifact.Float(11 * tpot), E2EMs: artifact.Float(ttft + 11*tpot), TPOTMs: artifact.F(tpot), OutputTokens: new(12), PromptTokens: new(1000), PlannedContextTokens: 1000})
			}
			a.Extension.Blocks.Blocks[p].StartOffsetMs = artifact.Float(float64(at-origin) / 1e6)
			seq = append(seq, artifact.InterleavedBlock{Role: role, Block: p, StartedAtUnixNs: at, FinishedAtUnixNs: at + 5e9})
			slot++
		}
	}
	for _, x := range []*artifact.Benchmark{baseline, current} {
		role := artifact.RoleBaseline
		if x == current {
			role = artifact.RoleCurrent
		}
		x.Extension.Interleaved = &artifact.Interleaved{Role: role, Pairing: fmt.Sprintf("sim-%d", rng.Uint64()), Sequence: seq}
	}
	current.Extension.Interleaved.Pairing = baseline.Extension.Interleaved.Pairing
	return current, baseline
}

// Bisect's own rates, by simulation: the procedure as it runs (GOOD against its second start,
// each commit a start of its own, a slower one confirmed on fresh starts), over simulated
// starts of an engine repository of 8 commits, 20% slower from commit 6, every start
// drawing its pace with a spread, 4 pairs of 8 requests varying by 3%. No run may name
// another commit than 6 more than about 1% of the time (the gate's own level); without the
// confirmation (a row run only with ANVIL_SIM_REPS, for the table) it does. ANVIL_SIM_REPS
// sets the runs a row (docs/gating.md: 1,000); the default 40, seeded, is a test that
// fails past 3 of 40 (a true 1% gives 4 or more in 0.1% of seeds).
func TestBisectRatesBySimulation(t *testing.T) {
	t.Parallel()
	reps, full := 40, false
	if v, err := strconv.Atoi(os.Getenv("ANVIL_SIM_REPS")); err == nil && v > 0 {
		reps, full = v, true
	}
	dir, shas := engineRepo(t, 8, 6, 0)
	for _, c := range []struct {
		spread, gate float64
		confirm      bool
	}{{0.02, 0.05, true}, {0.02, 0.10, true}, {0.03, 0.10, true}, {0.02, 0.05, false}, {0.0, 0.05, true}, {0.0, 0.10, true}} {
		if !c.confirm && !full {
			continue
		}
		cfg, err := config.Load(map[string]string{"ANVIL_REPEATS": "4", "ANVIL_GATE_BY": strconv.FormatFloat(c.gate, 'g', -1, 64)})
		if err != nil {
			t.Fatal(err)
		}
		g := cfg.Configured()
		rng := rand.New(rand.NewPCG(uint64(100*c.spread*1000+c.gate*100), 7))
		named, other, unsure := 0, 0, 0
		var wrong string
		for range reps {
			var out bytes.Buffer
			b := &bisector{repo: dir, cfg: cfg, scenario: g.Scenario, spec: g.Spec, tries: 3, stdout: &out, noConfirm: !c.confirm, aa: 2,
				launch: func(_ context.Context, sha string) (*engineProcess, error) {
					speed := 1.0
					if slices.Index(shas, sha) >= 5 {
						speed = 1.2
					}
					return &engineProcess{speed: speed * max(0.3, 1+c.spread*rng.NormFloat64())}, nil
				},
				interleave: func(_ context.Context, cur, base *engineProcess, sc capacity.Scenario) (*artifact.Benchmark, *artifact.Benchmark, error) {
					current, baseline := simInterleaved(rng, cur, base, sc.Repeats, 8, 0.03)
					return current, baseline, nil
				}}
			b.scenario.Repeats = 4
			code, _ := b.run(context.Background(), shas[0], shas[7])
			switch {
			case code == 0 && strings.Contains(out.String(), "first slower commit: "+shas[5]):
				named++
			case code == 0:
				other++
				wrong = out.String()
			default:
				unsure++
			}
		}
		msg := fmt.Sprintf("spread between starts %.0f%%, gate %.0f%%, confirmed %v: commit 6 named %d of %d, another %d, cannot tell %d",
			100*c.spread, 100*c.gate, c.confirm, named, reps, other, unsure)
		t.Log(msg)
		if full && other > 0 {
			t.Logf("the last run that named another commit:\n%s", wrong)
		}
		if c.confirm && (full && float64(other) > 0.01*float64(reps) || !full && other > 3) {
			t.Errorf("%s\n%s", msg, wrong)
		}
		// Where starts do not vary, a 20% change at a 10% gate is named (1,000 of 1,000).
		if c.spread == 0 && c.gate == 0.10 && float64(named) < 0.9*float64(reps) {
			t.Errorf("%s: starts alike, commit 6 named in fewer than 90%% of runs", msg)
		}
	}
}
