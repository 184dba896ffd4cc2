package compare

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// simulate runs the full simulation of docs/gating.md: go test ./internal/compare -run
// Simulation -simulate (about a minute).
var simulate = flag.Bool("simulate", false, "run the 1,000-trial simulation of each design")

// truth is the engine the simulation measures: what the field reports of one build's run to
// run spread (3%), two engines side by side differing by 0.5%, requests by 10%, and a drift
// of 2% a minute over blocks of 6 seconds.
var truth = engine{TPOT: 5, TTFT: 200, RunCV: 0.03, RestartCV: 0.005, RequestCV: 0.10, Drift: 0.02, BlockMinutes: 0.1}

// design is one way to gate a build: what it runs, at 240 requests for the build under test
// (a history's runs are main's, run anyway), and how it is judged.
type design struct {
	name string
	// pair runs the baseline side and the current build slower by slow, and judges them.
	pair func(rng *rand.Rand, slow float64) bool
}

// gated is whether a gate of tpot p50 and ttft p50 at 5% finds a regression in either.
func gated(baseline, current *artifact.Benchmark, history []*artifact.Benchmark) bool {
	for _, m := range []string{"tpot_p50_ms", "ttft_p50_ms"} {
		if Regression(baseline, current, m, 0.05, Options{Metrics: 2, Resamples: 500, History: history}).Outcome == Regressed {
			return true
		}
	}
	return false
}

// designs are the four designs measuring the engine e.
func designs(e engine) []design {
	return []design{
		{"one block against one stored run (1 x 240 requests each)", func(rng *rand.Rand, slow float64) bool {
			return gated(e.run(rng, 1, 240, 1, 0), e.run(rng, 1, 240, slow, 10), nil)
		}},
		{"repeats against one stored run (4 blocks x 60 each)", func(rng *rand.Rand, slow float64) bool {
			return gated(e.run(rng, 4, 60, 1, 0), e.run(rng, 4, 60, slow, 10), nil)
		}},
		{"interleaved against the baseline build (4 pairs of 60-request blocks)", func(rng *rand.Rand, slow float64) bool {
			base, cur := e.interleaved(rng, 4, 60, slow, 0)
			return gated(base, cur, nil)
		}},
		{"one run against a history of 8 runs of main (240 requests each)", func(rng *rand.Rand, slow float64) bool {
			var history []*artifact.Benchmark
			for k := range 8 {
				history = append(history, e.run(rng, 1, 240, 1, float64(k)))
			}
			return gated(nil, e.run(rng, 1, 240, slow, 9), history)
		}},
	}
}

// rate is how often a design found a regression in trials pairs of a build slower by slow.
func (d design) rate(trials int, slow float64, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 0x51))
	found := 0
	for range trials {
		if d.pair(rng, slow) {
			found++
		}
	}
	return float64(found) / float64(trials)
}

// detected is the smallest change of steps that a design finds in at least 80% of trials
// pairs; 0 when none of them is.
func (d design) detected(trials int, steps []float64, seed uint64) float64 {
	for _, s := range steps {
		if d.rate(trials, 1+s, seed) >= 0.8 {
			return s
		}
	}
	return 0
}

// Every design keeps an unchanged engine's false regressions to the 1% it is held to, and
// the designs that measure or cancel the spread between sessions resolve smaller changes
// than one run against one stored run: an interleaved run, about a 5% change (77% of pairs
// at 5%, 90% at 6%, over 2,000).
func TestSimulationOfTheDesigns(t *testing.T) {
	trials, steps := 30, []float64{0.06, 0.2, 0.4}
	if *simulate {
		trials, steps = 1000, []float64{0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| design | false regressions, unchanged (%d pairs) | change detected with 80%% power |\n|---|---:|---:|\n", trials)
	found := map[string]float64{}
	for k, d := range designs(truth) {
		fp := d.rate(trials, 1, uint64(100+k))
		det := d.detected(trials, steps, uint64(200+k))
		found[d.name] = det
		fmt.Fprintf(&table, "| %s | %.1f%% | %s |\n", d.name, 100*fp, detectedText(det))
		// At 1% a run of 30 pairs sees one false regression one time in four, two one
		// time in thirty: more than one fails.
		if limit := max(0.01, 1.5/float64(trials)); fp > limit {
			t.Errorf("%s: %.1f%% false regressions, above %.1f%%", d.name, 100*fp, 100*limit)
		}
	}
	t.Logf("truth: run CV 3%%, restart CV 0.5%%, request CV 10%%, drift 2%%/min\n%s", table.String())
	interleaved, stored := found[designs(truth)[2].name], found[designs(truth)[0].name]
	if interleaved == 0 || interleaved > 0.06 || (stored != 0 && stored <= interleaved) {
		t.Errorf("an interleaved run detects %.0f%%, one stored run %.0f%%: want the interleaved run to resolve about the 5%% gate", 100*interleaved, 100*stored)
	}
}

func detectedText(d float64) string {
	if d == 0 {
		return "none of those tried"
	}
	return fmt.Sprintf("%.0f%%", 100*d)
}

// When the defaults are wrong: the false regressions of each design when the engine's
// spread between sessions is above gate_run_cv (5%), or two engines side by side differ by
// more than gate_restart_cv (0.5%). Only with -simulate: 1,000 A/A pairs a row.
func TestSimulationWhenTheDefaultsAreWrong(t *testing.T) {
	if !*simulate {
		t.Skip("-simulate runs it")
	}
	var table strings.Builder
	table.WriteString("| the engine | one block vs one stored run | repeats vs one stored run | interleaved | history of 8 |\n|---|---:|---:|---:|---:|\n")
	for k, c := range []struct {
		name string
		e    engine
	}{
		{"run-to-run 3%, side by side 0.5% (the defaults hold)", truth},
		{"run-to-run 5%", func() engine { e := truth; e.RunCV = 0.05; return e }()},
		{"run-to-run 8%", func() engine { e := truth; e.RunCV = 0.08; return e }()},
		{"side by side 1%", func() engine { e := truth; e.RestartCV = 0.01; return e }()},
		{"side by side 2%", func() engine { e := truth; e.RestartCV = 0.02; return e }()},
		{"drift 10% a minute", func() engine { e := truth; e.Drift = 0.10; return e }()},
	} {
		fmt.Fprintf(&table, "| %s |", c.name)
		for j, d := range designs(c.e) {
			fmt.Fprintf(&table, " %.1f%% |", 100*d.rate(1000, 1, uint64(1000+10*k+j)))
		}
		table.WriteString("\n")
	}
	t.Logf("false regressions of an unchanged engine, 1,000 pairs each:\n%s", table.String())
}
