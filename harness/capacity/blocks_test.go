package capacity

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/internal/busy"
)

// A warm-up takes the cold start: against an engine whose first 20 requests are three
// times slower, 24 warm-up requests leave the measured decode within a few percent of a
// warm engine's, and the artifact records what they saw, their last requests warm. Its
// prompts share no first line with a measured one, and none of them is a measured row.
func TestAWarmUpTakesTheColdStart(t *testing.T) {
	t.Parallel()
	machine := busy.Now()
	opts := refengine.Options{ITL: 2 * time.Millisecond, PrefillOverhead: 5 * time.Millisecond, ColdRequests: 20, ColdFactor: 3}
	sc := Scenario{Requests: 24, Concurrency: 4, ContextTokens: 1000, MaxTokens: 48, ResponseWords: 16, Calibrate: true}
	cold := fastEngine(t, opts)
	sc.WarmupRequests = 24
	b := mustRun(t, target(cold), sc)
	if b.Requests != 24 || b.Completed != 24 {
		t.Fatalf("%d requests, %d completed: %+v", b.Requests, b.Completed, b.Failures)
	}
	w := b.Extension.Warmup
	if w == nil || w.Requests != 24 || w.Completed != 24 || w.LastRequests != lastWarmup || w.UsageReported != 24 {
		t.Fatalf("warm-up %+v", w)
	}
	measured := float64(*b.Metrics.TPOT.P50)
	// The warm-up's last requests decoded as the engine's stamps say (within what a read may
	// trail a flush on this machine): their median a warm request's.
	var warm []refengine.RequestTrace
	for _, tr := range cold.Traces() {
		if strings.Contains(tr.PromptHead, " run warmup") {
			warm = append(warm, tr)
		}
	}
	slices.SortFunc(warm, func(a, b refengine.RequestTrace) int { return a.Index - b.Index })
	var lastStamped []float64
	for _, tr := range warm[len(warm)-w.LastRequests:] {
		lastStamped = append(lastStamped, stampTPOT(tr))
	}
	slices.Sort(lastStamped)
	engine := lastStamped[(len(lastStamped)+1)/2-1]
	if last := float64(*w.LastTPOTP50Ms); math.Abs(last-engine) > 0.05*engine+float64(machine.Slack())/1e6/47 {
		t.Errorf("the warm-up's last requests decoded at %.2fms; the engine's stamps give %.2fms", last, engine)
	}
	if first := float64(w.TPOTMs.Max); first < 2.5*measured {
		t.Errorf("the warm-up's slowest request decoded at %.2fms: the cold start did not show in it", first)
	}
	// The engine's own record: every measured request arrived after its cold ones.
	for i, tr := range measuredTraces(cold) {
		if tr.Index < opts.ColdRequests {
			t.Errorf("measured request %d was the engine's %d-th: served cold", i, tr.Index+1)
		}
	}
	measuredHeads := map[string]bool{}
	for _, tr := range cold.Traces() {
		if strings.Contains(tr.PromptHead, " run warmup") {
			continue
		}
		measuredHeads[tr.PromptHead] = true
	}
	if len(measuredHeads) != 24 {
		t.Errorf("%d measured prompt heads, want 24", len(measuredHeads))
	}
	if n := len(cold.Traces()); n != 48 {
		t.Errorf("the engine saw %d requests, want 24 warm-up and 24 measured", n)
	}

	// Without a warm-up the cold start is in the figures.
	sc.WarmupRequests = 0
	b = mustRun(t, target(fastEngine(t, opts)), sc)
	if b.Extension.Warmup != nil || float64(*b.Metrics.TPOT.Max) < 2.5*measured {
		t.Errorf("without a warm-up: warm-up %+v, slowest tpot %v", b.Extension.Warmup, *b.Metrics.TPOT.Max)
	}
}

// Repeats run the measured phase again in blocks, each with prompts of its own: the
// artifact holds every block's requests under indices of their own, and each figure block
// by block with its mean, SD, CV and t-interval; against an engine that drifts, the blocks
// follow the drift.
func TestRepeatsRunBlocksOfTheirOwn(t *testing.T) {
	t.Parallel()
	machine := busy.Now()
	// 11 times as slow a minute on, blocks of about a quarter second: each about 4% slower
	// than the one before, well beyond a loaded machine's jitter of a block's tpot.
	s := fastEngine(t, refengine.Options{ITL: 2 * time.Millisecond, PrefillOverhead: 5 * time.Millisecond, Drift: 10})
	sc := Scenario{Requests: 8, Concurrency: 4, ContextTokens: 1000, MaxTokens: 96, ResponseWords: 48, Calibrate: true, Repeats: 3}
	b := mustRun(t, target(s), sc)
	if b.Requests != 24 || b.Completed != 24 || len(b.Extension.Timeline) != 24 {
		t.Fatalf("%d requests, %d completed, %d spans: %+v", b.Requests, b.Completed, len(b.Extension.Timeline), b.Failures)
	}
	if err := Verify(b); err != nil {
		t.Fatal(err)
	}
	bl := b.Extension.Blocks
	if bl == nil || bl.Repeats != 3 || bl.RequestsPerBlock != 8 || len(bl.Blocks) != 3 {
		t.Fatalf("blocks %+v", bl)
	}
	nonces := map[string]bool{}
	for _, x := range bl.Blocks {
		nonces[x.PromptNonce] = true
		if x.Completed != 8 || x.Failed != 0 {
			t.Errorf("block %+v", x)
		}
	}
	if len(nonces) != 3 {
		t.Errorf("block nonces %v, want three", nonces)
	}
	heads := map[string]bool{}
	for _, tr := range s.Traces() {
		heads[tr.PromptHead] = true
	}
	if len(heads) != 24 {
		t.Errorf("%d distinct prompt heads over 24 requests", len(heads))
	}
	tpot := bl.Figures["tpot_p50_ms"]
	if len(tpot.Values) != 3 || tpot.Mean == nil || tpot.SD == nil || tpot.CV == nil || tpot.CI95Low == nil || tpot.CI95High == nil {
		t.Fatalf("tpot across blocks %+v", tpot)
	}
	// Each block's figure is what the engine's stamps give; that they rise with the drift
	// is the engine's doing, judged where the machine keeps time (a loaded one moves a
	// block's tpot by more than the 4%).
	stamped := blockStampTPOT(t, s, b)
	tol := 0.02 + float64(machine.Slack())/1e6/(95*2)
	for k, v := range tpot.Values {
		if math.Abs(float64(*v)/stamped[k]-1) > tol {
			t.Errorf("block %d: tpot p50 %.4f ms; the engine's stamps give %.4f ms", k, float64(*v), stamped[k])
		}
	}
	if rising := *tpot.Values[0] < *tpot.Values[1] && *tpot.Values[1] < *tpot.Values[2]; !rising && machine.KeepsTime() && busy.Now().KeepsTime() {
		t.Errorf("an engine 11x slower a minute on: the blocks' tpot p50 %v, %v, %v do not follow the drift (machine %s)", *tpot.Values[0], *tpot.Values[1], *tpot.Values[2], machine)
	}
	if !(*tpot.CI95Low < *tpot.Mean && *tpot.Mean < *tpot.CI95High) {
		t.Errorf("t-interval %v..%v around %v", *tpot.CI95Low, *tpot.CI95High, *tpot.Mean)
	}
}
