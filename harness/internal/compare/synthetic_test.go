package compare

import (
	"math/rand/v2"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// synthetic is an artifact of n requests of one fixed workload whose per-request TPOT is
// tpot·(1 + jitter·Z), Z standard normal from seed, with the other row fields derived from it
// as a decode-bound engine would give them (TTFT jittered alike around 200 ms, 33 output
// tokens). Only the fields the comparison reads are filled in.
func synthetic(n int, tpot, jitter float64, seed uint64) *artifact.Benchmark {
	rng := rand.New(rand.NewPCG(seed, 1))
	a := &artifact.Benchmark{
		Schema: artifact.Schema, MeasurementProtocol: artifact.ProtocolV3, Model: "synthetic-model",
		Requests: n, Completed: n, Concurrency: 4,
		ContextTokens: new(4096), ContextDistribution: map[string]int{"4096": n},
		MaxTokens: 64, MaxContextTokens: new(65536), ResponseWords: 32,
		ControlledOutputPolicy: "strict", PromptCacheMode: "unique",
		ServeFlags: artifact.ServeFlags{ThinkingMode: "unsupported"},
		Sampling:   artifact.Sampling{Temperature: artifact.SamplingParam{EffectiveRequest: artifact.F(0), Sent: true}},
	}
	var tokens int
	var wall float64
	for i := range n {
		t := tpot * (1 + jitter*rng.NormFloat64())
		ttft := 200 * (1 + jitter*rng.NormFloat64())
		gen := 32 * t
		row := artifact.RequestTiming{
			RequestIndex: i, TTFTMs: artifact.Float(ttft), TimeToFirstOutputMs: artifact.Float(ttft),
			GenerationMs: artifact.Float(gen), E2EMs: artifact.Float(ttft + gen),
			TPOTMs: artifact.F(t), DecodeTokS: artifact.F(1000 / t),
			OutputTokens: new(33), PromptTokens: new(4000), PlannedContextTokens: 4096,
		}
		a.RequestTimings = append(a.RequestTimings, row)
		tokens += 33
		wall += (ttft + gen) / float64(a.Concurrency)
	}
	a.Metrics.ThroughputTokS = artifact.F(float64(tokens) / (wall / 1000))
	a.Metrics.TPOT.Samples = n
	return a
}
