package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/internal/compare"
)

// A step's outcome: the commit is slower than GOOD's build (bad), held (good), or skipped.
type stepOutcome int

const (
	stepSkipped stepOutcome = iota
	stepSlower
	stepHeld
)

// bisector finds the first commit slower than GOOD by interleaved A/B runs against GOOD's
// build, started once and kept for every step.
type bisector struct {
	repo, work string
	start      []string
	cfg        config.Config
	scenario   capacity.Scenario
	spec       gate.Spec
	// tries bounds how many interleaved runs one commit gets while its verdict stays
	// inconclusive, each with twice the pairs of the one before.
	tries        int
	startTimeout time.Duration
	stdout       io.Writer
	baseline     *engineProcess
}

// runBisect is `anvilbench bisect [flags] GOOD BAD -- START...`.
func runBisect(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	const unjudged = exitUnjudged
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tries := fs.Int("tries", 3, "interleaved runs a commit gets while inconclusive, each with twice the pairs, before it is skipped")
	startTimeout := fs.Duration("start-timeout", 2*time.Minute, "how long START may take to serve 127.0.0.1:$PORT/v1")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: anvilbench bisect [flags] GOOD BAD -- START...\n\n"+
			"Run inside the engine's git repository: finds the first commit between GOOD and BAD that is\n"+
			"slower than GOOD. START runs in a checkout of each commit tried, with PORT in its environment,\n"+
			"and must serve 127.0.0.1:$PORT/v1. Each commit is judged against GOOD's build by interleaved\n"+
			"blocks (the ANVIL_* scenario, at least 4 pairs, and the gate's metrics): regressed is bad,\n"+
			"held is good, inconclusive asks for more pairs and then skips; a commit whose START fails\n"+
			"or never serves is skipped. Exit status: 0 with `first slower commit: SHA`, 2 for bad\n"+
			"input, 4 when GOOD's build does not serve, 5 when it cannot tell.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	dash := len(args)
	for i, a := range args {
		if a == "--" {
			dash = i
			break
		}
	}
	if err := fs.Parse(args[:dash]); err != nil {
		return helpOr(err, unjudged)
	}
	if fs.NArg() != 2 || dash >= len(args)-1 {
		fs.Usage()
		return unjudged
	}
	cfg, err := config.Load(anvilEnviron(getenv))
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
		return unjudged
	}
	g := cfg.Configured()
	repo, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
		return unjudged
	}
	work, err := os.MkdirTemp("", "anvilbench-bisect-")
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
		return unjudged
	}
	defer os.RemoveAll(work)
	sc := g.Scenario
	sc.Repeats = max(sc.Repeats, 4)
	b := &bisector{repo: repo, work: work, start: args[dash+1:], cfg: cfg, scenario: sc, spec: g.Spec,
		tries: max(*tries, 1), startTimeout: *startTimeout, stdout: stdout}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := b.run(ctx, fs.Arg(0), fs.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench bisect: %v\n", err)
	}
	return code
}

// run bisects the commits after good up to bad: bad first (a bad that is not slower leaves
// nothing to find), then the middle of what is left, skipping around a commit that cannot
// be judged.
func (b *bisector) run(ctx context.Context, good, bad string) (int, error) {
	goodSHA, err := b.git("rev-parse", "--verify", good+"^{commit}")
	if err != nil {
		return exitUnjudged, fmt.Errorf("GOOD %q: %w", good, err)
	}
	badSHA, err := b.git("rev-parse", "--verify", bad+"^{commit}")
	if err != nil {
		return exitUnjudged, fmt.Errorf("BAD %q: %w", bad, err)
	}
	if _, err := b.git("merge-base", "--is-ancestor", goodSHA, badSHA); err != nil {
		return exitUnjudged, fmt.Errorf("GOOD %s is not an ancestor of BAD %s", short(goodSHA), short(badSHA))
	}
	list, err := b.git("rev-list", "--reverse", "--ancestry-path", goodSHA+".."+badSHA)
	if err != nil || list == "" {
		return exitUnjudged, fmt.Errorf("no commits from GOOD %s to BAD %s", short(goodSHA), short(badSHA))
	}
	commits := append([]string{goodSHA}, strings.Fields(list)...)
	fmt.Fprintf(b.stdout, "bisect: %d commits after GOOD %s up to BAD %s\n", len(commits)-1, short(goodSHA), short(badSHA))

	if b.baseline, err = b.serve(ctx, goodSHA); err != nil {
		return gate.RunFailed.ExitCode(), fmt.Errorf("GOOD's build does not serve: %w", err)
	}
	defer b.baseline.stop()
	fmt.Fprintf(b.stdout, "baseline: GOOD %s serving at %s\n", short(goodSHA), b.baseline.url)

	judged := make([]bool, len(commits)) // GOOD is held; a skipped commit is judged too
	judged[0] = true
	steps := 0
	judge := func(i int) stepOutcome {
		steps++
		o, why := b.step(ctx, commits[i])
		judged[i] = true
		if ctx.Err() != nil {
			fmt.Fprintf(b.stdout, "step %d: %s interrupted\n", steps, short(commits[i]))
			return o
		}
		word := map[stepOutcome]string{stepSlower: "slower", stepHeld: "held", stepSkipped: "skipped"}[o]
		fmt.Fprintf(b.stdout, "step %d: %s %s: %s\n", steps, short(commits[i]), word, why)
		return o
	}
	last := len(commits) - 1
	interrupted := func() (int, error) {
		return gate.RunFailed.ExitCode(), fmt.Errorf("interrupted in step %d: nothing was concluded", steps)
	}
	first := judge(last)
	if ctx.Err() != nil {
		return interrupted()
	}
	switch first {
	case stepHeld:
		return gate.Inconclusive.ExitCode(), fmt.Errorf("BAD %s is not slower than GOOD %s: nothing to bisect", short(badSHA), short(goodSHA))
	case stepSkipped:
		return gate.Inconclusive.ExitCode(), fmt.Errorf("BAD %s could not be judged against GOOD %s", short(badSHA), short(goodSHA))
	}
	lo, hi := 0, last // lo held, hi slower
	for ctx.Err() == nil {
		next := nearestUnjudged(judged, lo, hi)
		if next < 0 {
			break
		}
		switch judge(next) {
		case stepSlower:
			hi = next
		case stepHeld:
			lo = next
		}
	}
	if ctx.Err() != nil {
		return interrupted()
	}
	if hi == lo+1 {
		subject, _ := b.git("log", "-1", "--format=%s", commits[hi])
		fmt.Fprintf(b.stdout, "first slower commit: %s %s\n", commits[hi], subject)
		return exitOK, nil
	}
	var between []string
	for i := lo + 1; i <= hi; i++ {
		between = append(between, short(commits[i]))
	}
	return gate.Inconclusive.ExitCode(), fmt.Errorf("the first slower commit is one of %s: the commits between could not be judged", strings.Join(between, ", "))
}

// nearestUnjudged is the commit strictly between lo and hi nearest their middle that has
// not been judged (lower first on a tie); -1 when none is left.
func nearestUnjudged(judged []bool, lo, hi int) int {
	mid := (lo + hi) / 2
	for d := 0; d < hi-lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi && !judged[i] {
				return i
			}
		}
	}
	return -1
}

// step judges one commit against GOOD's build: its START serving, then interleaved runs
// until the gate's metrics regress or hold, at most tries of them.
func (b *bisector) step(ctx context.Context, sha string) (stepOutcome, string) {
	engine, err := b.serve(ctx, sha)
	if err != nil {
		return stepSkipped, err.Error()
	}
	defer engine.stop()
	sc := b.scenario
	why := ""
	for try := range b.tries {
		if try > 0 {
			sc.Repeats *= 2
		}
		sc.Name = "bisect " + short(sha)
		cur, bas, err := capacity.RunInterleaved(ctx, b.cfg.Target(engine.url), sc, capacity.Interleaving{Baseline: b.cfg.Target(b.baseline.url)})
		if err != nil {
			return stepSkipped, "the interleaved run failed: " + err.Error()
		}
		outcome, msg := b.verdict(bas, cur)
		switch outcome {
		case gate.Regression:
			return stepSlower, msg
		case gate.Pass:
			return stepHeld, msg
		case gate.Inconclusive:
			why = msg
			continue
		}
		return stepSkipped, msg
	}
	return stepSkipped, fmt.Sprintf("inconclusive after %d interleaved runs (up to %d pairs): %s", b.tries, sc.Repeats, why)
}

// verdict judges the current build's artifact against the baseline's on the gate's
// metrics, by the gate's rule (compare.Regression), and what each metric came to: slower
// when any regressed; held when none did and each either held or, inconclusive, has its 95%
// interval of the change below half the gate (the change it could not resolve is smaller
// than any it would call a regression: an equivalence bound, as in Schuirmann's two
// one-sided tests); otherwise inconclusive.
func (b *bisector) verdict(baseline, current *artifact.Benchmark) (gate.Outcome, string) {
	if current.Failed > 0 || baseline.Failed > 0 {
		return gate.RunFailed, fmt.Sprintf("%d of its %d requests and %d of GOOD's failed", current.Failed, current.Requests, baseline.Failed)
	}
	how := b.spec.Comparison
	worst, msgs := gate.Pass, []string{}
	for _, m := range b.spec.Metrics {
		v := compare.Regression(baseline, current, m, how.By, compare.Options{Metrics: len(b.spec.Metrics), RunCV: how.RunCV, RestartCV: how.RestartCV})
		msg := brief(v)
		switch {
		case v.Outcome == compare.Regressed:
			worst = gate.Regression
		case v.Outcome == compare.Pass:
		case v.Outcome == compare.Inconclusive && boundedBelow(v):
			msg += fmt.Sprintf(", within half the %.4g%% gate", 100*v.By)
		case worst == gate.Pass:
			worst = gate.Inconclusive
		}
		msgs = append(msgs, msg)
	}
	return worst, strings.Join(msgs, "; ")
}

// boundedBelow reports whether v's 95% interval of the change lies below half its gate in
// the bad direction.
func boundedBelow(v compare.Verdict) bool {
	if !(v.RatioHigh > 0) {
		return false
	}
	worst := v.RatioHigh - 1
	if !v.HigherIsWorse {
		worst = 1 - v.RatioLow
	}
	return worst < v.By/2
}

// brief is a regression verdict's first clause, with the phases its attribution names as
// moved: "tpot p50 regressed 20.0% (2.00ms -> 2.40ms, 95% CI of the change
// +18.4%..+21.7%, p<1e-16), decode moved".
func brief(v compare.Verdict) string {
	msg := v.Message()
	head, _, found := strings.Cut(msg, "): ")
	if !found {
		return msg
	}
	head += ")"
	if moved := v.Attribution.Named(); moved != "" {
		head += ", " + moved
	}
	return head
}

// engineProcess is one build's START, serving at url.
type engineProcess struct {
	cmd      *exec.Cmd
	url      string
	worktree string
	repo     string
	log      *bytes.Buffer
	exited   chan struct{}
}

// serve checks sha out in a worktree of its own and runs START there with PORT set, until
// it serves /v1/models or fails.
func (b *bisector) serve(ctx context.Context, sha string) (*engineProcess, error) {
	dir := filepath.Join(b.work, short(sha))
	if _, err := b.git("worktree", "add", "--detach", "--force", dir, sha); err != nil {
		return nil, fmt.Errorf("check out %s: %w", short(sha), err)
	}
	port, err := freePort()
	if err != nil {
		b.git("worktree", "remove", "--force", dir)
		return nil, err
	}
	e := &engineProcess{url: fmt.Sprintf("http://127.0.0.1:%d/v1", port), worktree: dir, repo: b.repo, log: new(bytes.Buffer), exited: make(chan struct{})}
	e.cmd = exec.Command(b.start[0], b.start[1:]...)
	e.cmd.Dir = dir
	e.cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	e.cmd.Stdout, e.cmd.Stderr = e.log, e.log
	ownGroup(e.cmd)
	if err := e.cmd.Start(); err != nil {
		b.git("worktree", "remove", "--force", dir)
		return nil, fmt.Errorf("START: %w", err)
	}
	go func() { e.cmd.Wait(); close(e.exited) }()
	deadline := time.Now().Add(b.startTimeout)
	for {
		select {
		case <-e.exited:
			e.stop()
			return nil, fmt.Errorf("START exited with status %d before serving%s", e.cmd.ProcessState.ExitCode(), lastLine(e.log))
		case <-ctx.Done():
			e.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if serving(e.url) {
			return e, nil
		}
		if time.Now().After(deadline) {
			e.stop()
			return nil, fmt.Errorf("START did not serve %s/models within %v%s", e.url, b.startTimeout, lastLine(e.log))
		}
	}
}

// stop ends START's process group and removes the worktree.
func (e *engineProcess) stop() {
	if e.cmd.Process != nil {
		signalGroup(e.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-e.exited:
		case <-time.After(5 * time.Second):
			signalGroup(e.cmd.Process.Pid, os.Kill)
			<-e.exited
		}
	}
	exec.Command("git", "-C", e.repo, "worktree", "remove", "--force", e.worktree).Run()
}

// serving reports whether url answers GET /models with 200.
func serving(url string) bool {
	client := http.Client{Timeout: time.Second}
	resp, err := client.Get(url + "/models")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// freePort is a loopback port free now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// lastLine is ": " and the last line START wrote, or "".
func lastLine(log *bytes.Buffer) string {
	var last string
	sc := bufio.NewScanner(bytes.NewReader(log.Bytes()))
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			last = t
		}
	}
	if last == "" {
		return ""
	}
	return ": " + last
}

// git runs git in the repository and returns its trimmed output.
func (b *bisector) git(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", b.repo}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New(msg)
	}
	return strings.TrimSpace(out.String()), nil
}

func short(sha string) string { return sha[:min(len(sha), 10)] }
