package compare

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// selfTestEngine is the gate self-test's engine in suites/capacity: TTFT 50 ms, each
// request 10% faster or slower as a whole, two private engines in one process (no restart
// between them, though the gate counts gate_restart_cv), six requests a block.
var selfTestEngine = engine{TPOT: 1, TTFT: 50, RequestCV: 0.10, BlockMinutes: 0.002}

// selfTestAsks is how many times the self-test runs the pairs it was told would do.
const selfTestAsks = 2

// adaptive is the gate self-test's procedure: 3 interleaved pairs of the unchanged build
// name the pairs that would resolve the gate; those pairs are run, at the machine's noise
// then (noisier draws its factor over the first step's, at each asking). Where that
// comparison is inconclusive naming more pairs (the machine grew noisier), it asks again,
// up to asks times in all and within 150 pairs, and then gives up (the test skips, saying
// why). It returns the first step's outcome, the last asking's (empty when the first was
// not inconclusive: the test then fails, expecting it to be), whether it gave up, and
// whether an inconclusive comparison named no more pairs than it ran (a contradiction the
// test fails on).
func adaptive(rng *rand.Rand, slow float64, asks int, noisier func(*rand.Rand) float64) (first, last Outcome, gaveUp, contradiction bool) {
	judge := func(e engine, pairs int, slow float64) Verdict {
		base, cur := e.interleaved(rng, pairs, 6, slow, 0)
		return Regression(base, cur, "ttft_p50_ms", 0.05, Options{Metrics: 1})
	}
	v := judge(selfTestEngine, 3, 1)
	if v.Outcome != Inconclusive {
		return v.Outcome, "", false, false
	}
	pairs := v.PairsNeeded
	for ask := 1; ; ask++ {
		e := selfTestEngine
		e.RequestCV *= noisier(rng)
		w := judge(e, pairs, slow)
		switch {
		case w.Outcome != Inconclusive:
			return v.Outcome, w.Outcome, false, false
		case w.PairsNeeded <= pairs:
			return v.Outcome, w.Outcome, false, true
		case ask == asks || w.PairsNeeded > 150:
			return v.Outcome, w.Outcome, true, false
		}
		pairs = w.PairsNeeded
	}
}

// The self-test's adaptive step, as a whole, is a test that fails an unchanged engine
// rarely and a 10% slower one never: its first 3 pairs are inconclusive, its second step
// calls the unchanged build slower about as often as one comparison does (1%), finds the
// slower build, and where the machine grew noisier between the steps it names more pairs
// instead of a wrong verdict. With -simulate, 1,000 trials a row (docs/gating.md).
func TestSimulationOfTheSelfTestsAdaptiveStep(t *testing.T) {
	trials := 100
	if *simulate {
		trials = 1000
	}
	machines := []struct {
		name    string
		noisier func(*rand.Rand) float64
	}{
		{"as noisy as for the first pairs", func(*rand.Rand) float64 { return 1 }},
		{"noisier by 0-50%", func(r *rand.Rand) float64 { return 1 + 0.5*r.Float64() }},
		{"twice as noisy", func(*rand.Rand) float64 { return 2 }},
	}
	var table strings.Builder
	decided := 0
	fmt.Fprintf(&table, "| the machine for the named pairs | 3 pairs not inconclusive | unchanged: regressed / held / more pairs named | 10%% slower: regressed / held / more pairs named |\n|---|---:|---:|---:|\n")
	for k, m := range machines {
		var cells []string
		firstDecided := 0
		for j, slow := range []float64{1, 1.10} {
			rng := rand.New(rand.NewPCG(uint64(700+10*k+j), 0xad))
			count := map[Outcome]int{}
			grown := 0
			for range trials {
				first, second, grew, contradiction := adaptive(rng, slow, selfTestAsks, m.noisier)
				if contradiction {
					t.Errorf("%s, speed %.2f: an inconclusive comparison named no more pairs than it ran", m.name, slow)
				}
				if first != Inconclusive {
					firstDecided++
					continue
				}
				if grew {
					grown++
				}
				count[second]++
			}
			pct := func(n int) float64 { return 100 * float64(n) / float64(trials) }
			cells = append(cells, fmt.Sprintf("%.1f%% / %.1f%% / %.1f%%", pct(count[Regressed]), pct(count[Pass]), pct(grown)))
			switch {
			// At the 1% one comparison holds, 100 trials see 3 or more one time in 12: the
			// bound is where a procedure twice as loose fails most of the time.
			case slow == 1 && float64(count[Regressed]) > max(0.015*float64(trials), 3):
				t.Errorf("%s: an unchanged build regressed in %d of %d trials", m.name, count[Regressed], trials)
			case slow > 1 && count[Pass] > 0:
				t.Errorf("%s: a build 10%% slower held in %d of %d trials", m.name, count[Pass], trials)
			}
		}
		fmt.Fprintf(&table, "| %s | %.1f%% | %s | %s |\n", m.name, 100*float64(firstDecided)/float64(2*trials), cells[0], cells[1])
		decided += firstDecided
	}
	// The first step does not depend on the machine after it: judged over all its trials.
	if all := 2 * trials * len(machines); float64(decided) > 0.03*float64(all) {
		t.Errorf("3 pairs were not inconclusive in %d of %d trials", decided, all)
	}
	t.Logf("%d trials each:\n%s", trials, table.String())
}
