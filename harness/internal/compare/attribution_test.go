package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// phased is a model of an engine whose requests state their phases, to prove attribution
// by simulation. A request's TTFT is its queue, its prefill and what lies beyond the engine;
// its TPOT the engine's decode per token and what lies beyond it. The engine's phases are
// the build's, times the session's factor (RunCV, shared by an interleaved run's two
// engines), each engine's restart factor (RestartCV), each block's own factor (BlockCV: what
// varies from one block to the next), and the request's (RequestCV); a change adds to one
// phase (AddQueue, AddPrefill, in ms) or scales the decode (DecodeSlow).
type phased struct {
	Queue, Prefill, Beyond, Decode            float64 // ms; Decode per output token
	RunCV, RestartCV, BlockCV, RequestCV      float64
	AddQueue, AddPrefill, DecodeSlow, Beyondd float64
}

// pair is an interleaved run of k pairs of n-request blocks in ABBA order; cur is the
// changed build.
func (m phased) pair(rng *rand.Rand, k, n int, cur phased) (base, current *artifact.Benchmark) {
	session := 1 + m.RunCV*rng.NormFloat64()
	restart := [2]float64{1 + m.RestartCV*rng.NormFloat64(), 1 + m.RestartCV*rng.NormFloat64()}
	base, current = model(k, n, 0), model(k, n, 0)
	var seq []artifact.InterleavedBlock
	slot := 0
	for p := range k {
		order := []int{0, 1}
		if p%2 == 1 {
			order = []int{1, 0}
		}
		for _, side := range order {
			a, e, role := base, m, artifact.RoleBaseline
			if side == 1 {
				a, e, role = current, cur, artifact.RoleCurrent
			}
			f := session * restart[side] * (1 + m.BlockCV*rng.NormFloat64())
			for i := range n {
				r := func() float64 { return math.Max(0.2, 1+m.RequestCV*rng.NormFloat64()) }
				queue := e.Queue*f*r() + e.AddQueue
				prefill := e.Prefill*f*r() + e.AddPrefill
				beyond := e.Beyond * r()
				decode := e.Decode * f * r() * math.Max(e.DecodeSlow, 1)
				tpot := decode + 0.01*r()
				ttft := queue + prefill + beyond
				a.RequestTimings = append(a.RequestTimings, artifact.RequestTiming{RequestIndex: p*n + i,
					TTFTMs: artifact.Float(ttft), TimeToFirstOutputMs: artifact.Float(ttft), GenerationMs: artifact.Float(32 * tpot),
					E2EMs: artifact.Float(ttft + 32*tpot), TPOTMs: artifact.F(tpot), DecodeTokS: artifact.F(1000 / tpot),
					OutputTokens: new(33), PromptTokens: new(4000), PlannedContextTokens: 4096})
				a.Extension.Timeline = append(a.Extension.Timeline, artifact.RequestSpan{RequestIndex: p*n + i, Outcome: "ok",
					EnginePhases: &artifact.EnginePhases{Source: "model", QueueMs: artifact.F(queue), PromptEvalMs: artifact.F(prefill),
						EvalMs: artifact.F(32 * decode), FirstTokenMs: artifact.F(queue + prefill), BeyondEngineMs: artifact.F(beyond)}})
			}
			at := minuteNs(float64(slot) * 0.2)
			a.Extension.Blocks.Blocks[p].StartOffsetMs = artifact.Float(float64(at-a.StartedAtUnixNs) / 1e6)
			seq = append(seq, artifact.InterleavedBlock{Role: role, Block: p, StartedAtUnixNs: at, FinishedAtUnixNs: at + 12e9})
			slot++
		}
	}
	pairing := fmt.Sprintf("sim-%d", rng.Uint64())
	base.Extension.Interleaved = &artifact.Interleaved{Role: artifact.RoleBaseline, Pairing: pairing, Sequence: seq}
	current.Extension.Interleaved = &artifact.Interleaved{Role: artifact.RoleCurrent, Pairing: pairing, Sequence: seq}
	return base, current
}

// The attribution's specification, by simulation: over many interleaved A/B runs of an
// engine with one phase changed (40 ms more queue, 40 ms more prefill, a decode 30% slower),
// the gate regresses, the verdict names the phase that moved, and a phase that did not move
// is named in no more of the regressed runs than the gate's false-alarm rate (its alpha,
// 0.5% for two gated metrics) allows, within sampling error. docs/gating.md quotes these
// rates.
func TestAttributionNamesThePhaseThatMoved(t *testing.T) {
	const pairs, perBlock = 6, 20
	reps := 400
	if n, err := strconv.Atoi(os.Getenv("ANVIL_SIM_REPS")); err == nil && n > 0 {
		reps = n // docs/gating.md quotes a run of 5000
	}
	m := phased{Queue: 5, Prefill: 60, Beyond: 1, Decode: 10, RunCV: 0.05, RestartCV: 0.005, BlockCV: 0.02, RequestCV: 0.15, DecodeSlow: 1}
	cases := []struct {
		name, metric, moved string
		change              func(phased) phased
	}{
		{"queue +40 ms", "ttft_p50_ms", "queue", func(p phased) phased { p.AddQueue = 40; return p }},
		{"prefill +40 ms", "ttft_p50_ms", "prefill", func(p phased) phased { p.AddPrefill = 40; return p }},
		{"decode 30% slower", "tpot_p50_ms", "decode", func(p phased) phased { p.DecodeSlow = 1.3; return p }},
		{"queue +8 ms", "ttft_p50_ms", "queue", func(p phased) phased { p.AddQueue = 8; return p }},
		// Requests three times as spread, skewed (clipped at a fifth of the mean).
		{"prefill +40 ms, skewed requests", "ttft_p50_ms", "prefill", func(p phased) phased { p.AddPrefill = 40; return p }},
	}
	rng := rand.New(rand.NewPCG(42, 7))
	for _, c := range cases {
		regressed, named, wrong, unmoved := 0, 0, 0, 0
		m := m
		if strings.Contains(c.name, "skewed") {
			m.RequestCV = 0.5
		}
		for range reps {
			base, cur := m.pair(rng, pairs, perBlock, c.change(m))
			v := Regression(base, cur, c.metric, 0.05, Options{Metrics: 2})
			if v.Outcome != Regressed {
				continue
			}
			regressed++
			if v.Attribution == nil {
				t.Fatalf("%s: regressed without an attribution: %s", c.name, v.Message())
			}
			for _, p := range v.Attribution.Phases {
				switch {
				case p.Phase == c.moved && p.Moved:
					named++
				case p.Phase != c.moved:
					unmoved++
					if p.Moved {
						wrong++
					}
				}
			}
			if regressed == 1 && !strings.Contains(v.Message(), c.moved+" moved") {
				t.Errorf("%s: the message does not name it: %s", c.name, v.Message())
			}
		}
		alpha := 0.01 / 2
		// A false naming is a binomial event of probability at most alpha per regressed run
		// (Bonferroni over its phases); allow three standard deviations of its count.
		allowed := alpha*float64(regressed) + 3*math.Sqrt(alpha*float64(regressed))
		t.Logf("%s: regressed %d of %d; named %s in %d; an unmoved phase named in %d of %d phase tests (%.2f%%)",
			c.name, regressed, reps, c.moved, named, wrong, unmoved, 100*float64(wrong)/math.Max(1, float64(unmoved)))
		if regressed < reps*8/10 {
			t.Errorf("%s: regressed in %d of %d runs", c.name, regressed, reps)
		}
		if named < regressed*9/10 {
			t.Errorf("%s: named in %d of %d regressed runs", c.name, named, regressed)
		}
		if float64(wrong) > allowed {
			t.Errorf("%s: an unmoved phase named %d times in %d regressed runs, above the %.1f alpha allows", c.name, wrong, regressed, allowed)
		}
	}
}

// A broken budget says what the figure is made of, by the engine's own account; a run
// without it says nothing more.
func TestCompositionSaysWhatTheFigureIsMadeOf(t *testing.T) {
	m := phased{Queue: 30, Prefill: 60, Beyond: 2, Decode: 10, DecodeSlow: 1} // no spread: each request the same
	_, cur := m.pair(rand.New(rand.NewPCG(1, 1)), 2, 10, m)
	got := Composition("ttft_p95_ms", cur)
	for _, want := range []string{"of the requests' mean ttft, ", "ttft, 92.00 ms", "queue 30.00 ms", "prefill 60.00 ms", "beyond the engine 2.00 ms", "(the engine's own account, model, 20 requests)"} {
		if !strings.Contains(got, want) {
			t.Errorf("composition %q lacks %q", got, want)
		}
	}
	cur.Extension.Timeline = nil
	if got := Composition("ttft_p95_ms", cur); got != "" {
		t.Errorf("composition without the engine's account: %q", got)
	}
	if got := Composition("throughput_tok_s", cur); got != "" {
		t.Errorf("composition of a rate: %q", got)
	}
}
