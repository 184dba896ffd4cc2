package compare

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// engine is a model of an engine's figures across runs, to prove the regression rule by
// simulation: a request's TPOT and TTFT are the build's, times the session's factor (drawn
// once per run, a normal of relative spread RunCV: restarts, placement, clocks), times the
// drift since the session began (per minute: the engine warms or ages as it serves), times
// the request's own factor (a normal of relative spread RequestCV). An interleaved run's
// two engines share the session (the host, its clocks, the time) and its drift, and differ
// by a restart factor each (RestartCV).
type engine struct {
	TPOT, TTFT                  float64 // ms, of the build
	RunCV, RestartCV, RequestCV float64
	Drift                       float64 // relative change per minute
	BlockMinutes                float64 // how long a block takes
}

// block appends one block of n requests of a build slower by slow (1.05: 5% slower) at
// factor f and minute t to rows, from request index first.
func (e engine) block(rows []artifact.RequestTiming, rng *rand.Rand, first, n int, slow, f, t float64) []artifact.RequestTiming {
	drift := 1 + e.Drift*t
	for i := range n {
		r := func() float64 { return math.Max(0.2, 1+e.RequestCV*rng.NormFloat64()) }
		tpot := e.TPOT * slow * f * drift * r()
		ttft := e.TTFT * slow * f * drift * r()
		rows = append(rows, artifact.RequestTiming{RequestIndex: first + i, TTFTMs: artifact.Float(ttft), TimeToFirstOutputMs: artifact.Float(ttft),
			GenerationMs: artifact.Float(32 * tpot), E2EMs: artifact.Float(ttft + 32*tpot), TPOTMs: artifact.F(tpot), DecodeTokS: artifact.F(1000 / tpot),
			OutputTokens: new(33), PromptTokens: new(4000), PlannedContextTokens: 4096})
	}
	return rows
}

// run is one run of k blocks of n requests, starting at minute start, of a build slower by
// slow, in a session of its own: its drift starts with it.
func (e engine) run(rng *rand.Rand, k, n int, slow, start float64) *artifact.Benchmark {
	f := 1 + e.RunCV*rng.NormFloat64()
	a := model(k, n, start)
	for b := range k {
		a.RequestTimings = e.block(a.RequestTimings, rng, b*n, n, slow, f, float64(b)*e.BlockMinutes)
	}
	return a
}

// interleaved is an interleaved run of k pairs of n-request blocks, baseline and current
// in ABBA order, the current build slower by slow, each engine with a restart factor of
// its own.
func (e engine) interleaved(rng *rand.Rand, k, n int, slow, start float64) (base, cur *artifact.Benchmark) {
	session := 1 + e.RunCV*rng.NormFloat64() // shared: the host, its clocks, the time
	fb, fc := session*(1+e.RestartCV*rng.NormFloat64()), session*(1+e.RestartCV*rng.NormFloat64())
	base, cur = model(k, n, start), model(k, n, start)
	slot := 0
	var seq []artifact.InterleavedBlock
	for p := range k {
		order := []bool{false, true}
		if p%2 == 1 {
			order = []bool{true, false}
		}
		for _, isCur := range order {
			t := float64(slot) * e.BlockMinutes
			a, f, s, role := base, fb, 1.0, artifact.RoleBaseline
			if isCur {
				a, f, s, role = cur, fc, slow, artifact.RoleCurrent
			}
			a.RequestTimings = e.block(a.RequestTimings, rng, p*n, n, s, f, t)
			at := minuteNs(start + t)
			a.Extension.Blocks.Blocks[p].StartOffsetMs = artifact.Float(float64(at-a.StartedAtUnixNs) / 1e6)
			seq = append(seq, artifact.InterleavedBlock{Role: role, Block: p, StartedAtUnixNs: at, FinishedAtUnixNs: at + minuteNs(e.BlockMinutes) - minuteNs(0)})
			slot++
		}
	}
	pairing := fmt.Sprintf("sim-%d", rng.Uint64())
	for _, x := range []struct {
		a    *artifact.Benchmark
		role string
	}{{base, artifact.RoleBaseline}, {cur, artifact.RoleCurrent}} {
		x.a.Extension.Interleaved = &artifact.Interleaved{Role: x.role, Pairing: pairing, Sequence: seq}
	}
	return base, cur
}

// model is an artifact of k blocks of n requests of one fixed workload, starting at minute
// start, its blocks a minute's fraction apart; rows come from engine.block.
func model(k, n int, start float64) *artifact.Benchmark {
	a := &artifact.Benchmark{
		Schema: artifact.Schema, MeasurementProtocol: artifact.ProtocolV3, Model: "synthetic-model",
		Requests: k * n, Completed: k * n, Concurrency: 4,
		ContextTokens: new(4096), ContextDistribution: map[string]int{"4096": k * n},
		MaxTokens: 64, MaxContextTokens: new(65536), ResponseWords: 32,
		ControlledOutputPolicy: "strict", PromptCacheMode: "unique",
		ServeFlags:      artifact.ServeFlags{ThinkingMode: "unsupported"},
		Sampling:        artifact.Sampling{Temperature: artifact.SamplingParam{EffectiveRequest: artifact.F(0), Sent: true}},
		StartedAtUnixNs: minuteNs(start), FinishedAtUnixNs: minuteNs(start + 1),
		Extension: &artifact.Extension{API: "chat", Blocks: &artifact.Blocks{Repeats: k, RequestsPerBlock: n}},
	}
	for b := range k {
		a.Extension.Blocks.Blocks = append(a.Extension.Blocks.Blocks, artifact.Block{Index: b, StartOffsetMs: artifact.Float(float64(b) * 1000), DurationMs: 1000})
	}
	a.Metrics.ThroughputTokS = artifact.F(1)
	return a
}

// minuteNs is minute t as Unix nanoseconds from a fixed origin.
func minuteNs(t float64) int64 { return 1_800_000_000_000_000_000 + int64(t*60e9) }
