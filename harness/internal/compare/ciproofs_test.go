package compare

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// acrossRuns is the reference engine of .ci/across-runs as the model sees it: TPOT 5 ms and
// TTFT 50 ms, each request's own spread 3.5% (3% a request, 10% a decode step over some 30
// steps), a start drawing its speed with a 3% spread (-run-cv 0.03) from the script's seed,
// 80 requests a run at concurrency 8 (about 2.5 s: 0.04 minutes). The engine seeds its
// requests' jitter too, so only the machine's timing varies between CI runs: drawing the
// requests' spread afresh each run is an upper bound.
var acrossRuns = engine{TPOT: 5, TTFT: 50, RunCV: 0.03, RequestCV: 0.035, BlockMinutes: 0.04}

// ciProof is one claim of .ci/across-runs: fails is whether one run of it fails on an
// unchanged tree (the engine as modelled), a false alarm of CI itself.
type ciProof struct {
	name  string
	fails func(rng *rand.Rand) bool
}

// regressedAny is whether the gate (tpot and ttft p50 at 5%) finds a regression; heldAll
// whether both held.
func regressedAny(base, cur *artifact.Benchmark, history []*artifact.Benchmark) (regressed, held bool) {
	held = true
	for _, m := range []string{"tpot_p50_ms", "ttft_p50_ms"} {
		v := Regression(base, cur, m, 0.05, Options{Metrics: 2, Resamples: 500, History: history})
		regressed = regressed || v.Outcome == Regressed
		held = held && v.Outcome == Pass
	}
	return regressed, held
}

// startFactor is the speed factor the reference engine draws at a start with -run-cv cv
// and -run-seed seed (refengine's pace: a normal of that spread, clamped to ±70%).
func startFactor(seed int64, cv float64) float64 {
	j := rand.New(rand.NewPCG(uint64(seed), 0x72756e)).NormFloat64() * cv
	return 1 + min(0.7, max(-0.7, j))
}

// seededRun is one run of .ci/across-runs' scenario (80 requests) on a start seeded seed,
// of a build slower by slow: the start's factor is the one the engine draws, its requests'
// own spread fresh.
func (e engine) seededRun(rng *rand.Rand, seed int64, slow, start float64) *artifact.Benchmark {
	a := model(1, 80, start)
	a.RequestTimings = e.block(nil, rng, 0, 80, slow, startFactor(seed, e.RunCV), 0)
	return a
}

// ciProofs are the proofs of .ci/across-runs whose outcome a draw decides, with the
// criteria the script holds them to, and its seeds.
func ciProofs(e engine) []ciProof {
	mainRuns := func(rng *rand.Rand) []*artifact.Benchmark {
		var h []*artifact.Benchmark
		for k := range 6 {
			h = append(h, e.seededRun(rng, int64(k+1), 1, float64(k)))
		}
		return h
	}
	stepped := func(rng *rand.Rand) []*artifact.Benchmark {
		h := mainRuns(rng)
		for i := 7; i <= 10; i++ {
			h = append(h, e.seededRun(rng, int64(300+i), 1.1, float64(i)))
		}
		return h
	}
	return []ciProof{
		{"A/A across restarts: 30 ordered pairs of 6 runs, none regressed", func(rng *rand.Rand) bool {
			h := mainRuns(rng)
			for i := range h {
				for j := range h {
					if i != j {
						if r, _ := regressedAny(h[i], h[j], nil); r {
							return true
						}
					}
				}
			}
			return false
		}},
		{"a history of 6: 5 unchanged runs, none regressed", func(rng *rand.Rand) bool {
			h := mainRuns(rng)
			for k := 1; k <= 5; k++ {
				if r, _ := regressedAny(nil, e.seededRun(rng, int64(100+k), 1, float64(10+k)), h); r {
					return true
				}
			}
			return false
		}},
		{"a history of 6: 5 runs 15% slower, none held and at least 4 regressed", func(rng *rand.Rand) bool {
			h, n := mainRuns(rng), 0
			for k := 1; k <= 5; k++ {
				r, held := regressedAny(nil, e.seededRun(rng, int64(200+k), 1.15, float64(10+k)), h)
				if held {
					return true
				}
				if r {
					n++
				}
			}
			return n < 4
		}},
		{"a history stepped 10% at run 7 of 10: the step named at run 7", func(rng *rand.Rand) bool {
			h := stepped(rng)
			for _, m := range []string{"tpot_p50_ms", "ttft_p50_ms"} {
				if tr, err := TrendOf(h, m, 0); err == nil {
					for _, s := range tr.Shifts {
						if s.AtRun == 7 {
							return false
						}
					}
				}
			}
			return true
		}},
		{"interleaved, equal builds drifting 5% a minute, 4 pairs of 40: none regressed and at least 4 of 5 held", func(rng *rand.Rand) bool {
			regressed, held := fiveInterleaved(e, rng, 1)
			return regressed > 0 || held < 4
		}},
		{"interleaved, a build 5% slower, the same blocks: none held and at least 4 of 5 regressed", func(rng *rand.Rand) bool {
			regressed, held := fiveInterleaved(e, rng, 1.05)
			return held > 0 || regressed < 4
		}},
		{"that history: a run at the new level not regressed, one 15% above it regressed", func(rng *rand.Rand) bool {
			h := stepped(rng)
			if r, _ := regressedAny(nil, e.seededRun(rng, 311, 1.1, 11), h); r {
				return true
			}
			r, _ := regressedAny(nil, e.seededRun(rng, 312, 1.265, 12), h)
			return !r
		}},
	}
}

// fiveInterleaved is the across-runs' interleaved proof: 5 runs of 4 pairs of 40-request
// blocks, both engines drifting 5% a minute, the build under test slower by slow; how many
// regressed and how many held.
func fiveInterleaved(e engine, rng *rand.Rand, slow float64) (regressed, held int) {
	ab := engine{TPOT: e.TPOT, TTFT: e.TTFT, RequestCV: e.RequestCV, Drift: 0.05, BlockMinutes: 0.02}
	for k := range 5 {
		base, cur := ab.interleaved(rng, 4, 40, slow, float64(k))
		r, h := regressedAny(base, cur, nil)
		if r {
			regressed++
		}
		if h {
			held++
		}
	}
	return regressed, held
}

// The false-alarm rate per run of CI's own statistical proofs (.ci/across-runs), each
// simulated at its own size and criteria over the engine the script starts: each below 1
// in 100. ANVIL_SIM_REPS sets the runs (docs/ci.md: 2,000); the default 30 runs as a test
// that fails past 2 of 30 (a true 1% gives 3 or more in 0.3% of seeds).
func TestCIProofsFalseAlarmRates(t *testing.T) {
	t.Parallel()
	reps := 30
	if v, err := strconv.Atoi(os.Getenv("ANVIL_SIM_REPS")); err == nil && v > 0 {
		reps = v
	}
	var table strings.Builder
	for k, p := range ciProofs(acrossRuns) {
		rng := rand.New(rand.NewPCG(uint64(4900+k), 5))
		failed := 0
		for range reps {
			if p.fails(rng) {
				failed++
			}
		}
		fmt.Fprintf(&table, "| %s | %d of %d (%.2f%%) |\n", p.name, failed, reps, 100*float64(failed)/float64(reps))
		if reps >= 1000 && float64(failed) >= 0.01*float64(reps) || reps < 1000 && failed > 2 {
			t.Errorf("%s: failed %d of %d runs of an unchanged tree", p.name, failed, reps)
		}
	}
	t.Logf("false alarms per run, an unchanged tree:\n%s", table.String())
}
