package capacity

import (
	"math"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/internal/busy"
)

// An interleaved run alternates the two engines' blocks in ABBA order, each block the
// scenario's requests under a nonce of its own, and returns both artifacts marked with
// their roles, one pairing and the sequence; each pair's ratio of TPOT p50 is what the two
// engines' flush stamps give (a build 20% slower shows in every pair, whatever the
// machine made of the 20%).
func TestAnInterleavedRunAlternatesBlocksInABBAOrder(t *testing.T) {
	t.Parallel()
	opts := refengine.Options{ITL: 2 * time.Millisecond, PrefillOverhead: 5 * time.Millisecond}
	base := fastEngine(t, opts)
	opts.Speed = 1.2
	slower := fastEngine(t, opts)
	sc := Scenario{Name: "ab", Requests: 8, Concurrency: 4, ContextTokens: 1000, MaxTokens: 48, ResponseWords: 16, Calibrate: true,
		Repeats: 4, WarmupRequests: 4}
	cur, bas, err := RunInterleaved(t.Context(), target(slower), sc, Interleaving{Baseline: target(base)})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*artifact.Benchmark{cur, bas} {
		if b.Requests != 32 || b.Completed != 32 || b.Extension.Blocks.Repeats != 4 || b.Extension.Warmup == nil {
			t.Fatalf("%d requests, %d completed, blocks %+v", b.Requests, b.Completed, b.Extension.Blocks)
		}
		if err := Verify(b); err != nil {
			t.Fatal(err)
		}
	}
	ci, bi := cur.Extension.Interleaved, bas.Extension.Interleaved
	if ci == nil || bi == nil || ci.Role != artifact.RoleCurrent || bi.Role != artifact.RoleBaseline || ci.Pairing != bi.Pairing ||
		ci.Order != "ABBAABBA" || len(ci.Sequence) != 8 || ci.PartnerBaseURL != bas.BaseURL {
		t.Fatalf("current %+v, baseline %+v", ci, bi)
	}
	for k := 1; k < len(ci.Sequence); k++ {
		if ci.Sequence[k].StartedAtUnixNs < ci.Sequence[k-1].FinishedAtUnixNs {
			t.Errorf("block %d started before block %d ended", k, k-1)
		}
	}
	for _, s := range []*refengine.Server{base, slower} {
		heads := map[string]bool{}
		for _, tr := range s.Traces() {
			heads[tr.PromptHead] = true
		}
		if len(heads) != 36 {
			t.Errorf("%d distinct prompts over 4 warm-up and 32 measured requests", len(heads))
		}
	}
	cs, bs := blockStampTPOT(t, slower, cur), blockStampTPOT(t, base, bas)
	cv, bv := cur.Extension.Blocks.Figures["tpot_p50_ms"].Values, bas.Extension.Blocks.Figures["tpot_p50_ms"].Values
	// A read trails its flush by up to the machine's slack, over a generation of 47 steps.
	tol := 0.02 + float64(busy.Now().Slack())/1e6/(47*2)
	for p := range 4 {
		measured, engines := float64(*cv[p])/float64(*bv[p]), cs[p]/bs[p]
		if math.Abs(measured/engines-1) > tol {
			t.Errorf("pair %d: tpot p50 %v against %v (ratio %.3f); the engines' stamps give %.3f against %.3f (ratio %.3f), within %.1f%%",
				p, *cv[p], *bv[p], measured, cs[p], bs[p], engines, 100*tol)
		}
		t.Logf("pair %d: measured ratio %.4f, the engines' stamps %.4f", p, measured, engines)
	}
	if float64(cur.WallClockMs) > float64(cur.FinishedAtUnixNs-cur.StartedAtUnixNs)/1e6*0.8 {
		t.Errorf("wall clock %vms counts the other engine's blocks (%vms from first to last)", cur.WallClockMs, float64(cur.FinishedAtUnixNs-cur.StartedAtUnixNs)/1e6)
	}
}
