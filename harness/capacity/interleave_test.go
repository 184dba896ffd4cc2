package capacity

import (
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// An interleaved run alternates the two engines' blocks in ABBA order, each block the
// scenario's requests under a nonce of its own, and returns both artifacts marked with
// their roles, one pairing and the sequence; a build 20% slower shows in every pair.
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
	cv, bv := cur.Extension.Blocks.Figures["tpot_p50_ms"].Values, bas.Extension.Blocks.Figures["tpot_p50_ms"].Values
	for p := range 4 {
		if r := float64(*cv[p]) / float64(*bv[p]); r < 1.12 || r > 1.28 {
			t.Errorf("pair %d: tpot p50 %v against %v (ratio %.3f), want the 20%% slower build", p, *cv[p], *bv[p], r)
		}
	}
	if float64(cur.WallClockMs) > float64(cur.FinishedAtUnixNs-cur.StartedAtUnixNs)/1e6*0.8 {
		t.Errorf("wall clock %vms counts the other engine's blocks (%vms from first to last)", cur.WallClockMs, float64(cur.FinishedAtUnixNs-cur.StartedAtUnixNs)/1e6)
	}
}
