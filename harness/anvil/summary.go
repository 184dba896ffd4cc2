package anvil

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/internal/units"
)

// Summary is the short console and JUnit view of one run: counts and the p50/p95 of the
// figures people read first. It holds no prompt, response or credential.
type Summary struct {
	Completed, Requests int
	TTFTp50, TTFTp95    string
	TPOTp50, TPOTp95    string
	E2Ep50, DecodeP50   string
	Throughput          string
	Protocol            string
	// Notes qualify the figures: how prompts were sized when calibration fell back, how far
	// tpot may read low when chunks carried several tokens, a window that clamped the
	// planned contexts, and a prefix cache that served a run of unique prompts.
	Notes []string
}

// Summarize picks the summary figures of a run.
func Summarize(a *artifact.Benchmark) Summary {
	fig := func(key string) string {
		v, _, ok := a.Metrics.Lookup(key)
		if !ok || v == nil {
			return "n/a"
		}
		return units.Format(*v, units.Of(key))
	}
	s := Summary{
		Completed: a.Completed, Requests: a.Requests,
		TTFTp50: fig("ttft_p50_ms"), TTFTp95: fig("ttft_p95_ms"),
		TPOTp50: fig("tpot_p50_ms"), TPOTp95: fig("tpot_p95_ms"),
		E2Ep50: fig("e2e_p50_ms"), DecodeP50: fig("decode_tok_s_p50"),
		Throughput: fig("throughput_tok_s"), Protocol: a.MeasurementProtocol,
	}
	if x := a.Extension; x != nil {
		if x.Calibration.Note != "" {
			s.Notes = append(s.Notes, "prompt sizes estimated: "+x.Calibration.Note)
		}
		if x.ITL.Note != "" {
			s.Notes = append(s.Notes, x.ITL.Note)
		}
		if x.ContextClamp != nil {
			s.Notes = append(s.Notes, x.ContextClamp.Note)
		}
		if note := servedModelNote(a.Model, x.ServedModels); note != "" {
			s.Notes = append(s.Notes, note)
		}
	}
	if note := warmCacheNote(a); note != "" {
		s.Notes = append(s.Notes, note)
	}
	return s
}

// servedModelNote says when the responses named a model other than the requested one,
// "" otherwise. Two or more names fail the gate (gate.OneServedModel); one other name is
// often the engine's habit (SGLang's "default"), and worth a line.
func servedModelNote(requested string, served map[string]int) string {
	if len(served) != 1 {
		return ""
	}
	for name := range served {
		if name != requested {
			return fmt.Sprintf("the responses named the model %q, not the requested %q", name, requested)
		}
	}
	return ""
}

// warmCacheShare is the prefix-cache hit rate of a run of unique prompts above which the
// run says its TTFT and prefill figures measure cache hits.
const warmCacheShare = 0.05

// warmCacheNote says when the engine served a run of unique prompts from its prefix cache,
// "" otherwise. Each run's own prompt nonce keeps other runs from warming it, so this is
// a replayed nonce or a cache that matches text at any position.
func warmCacheNote(a *artifact.Benchmark) string {
	hit := a.Metrics.PrefixCacheHitAvg
	if a.PromptCacheMode != string(capacity.CacheUnique) || hit == nil || float64(*hit) <= warmCacheShare {
		return ""
	}
	return fmt.Sprintf("the engine served %.0f%% of prompt tokens from its prefix cache though every prompt was unique: TTFT and prefill figures measure cache hits",
		100*float64(*hit))
}

func (s Summary) String() string {
	line := fmt.Sprintf("completed %d/%d; ttft p50 %s p95 %s; tpot p50 %s p95 %s; e2e p50 %s; decode p50 %s; throughput %s (%s)",
		s.Completed, s.Requests, s.TTFTp50, s.TTFTp95, s.TPOTp50, s.TPOTp95, s.E2Ep50, s.DecodeP50, s.Throughput, s.Protocol)
	for _, n := range s.Notes {
		line += "\nnote: " + n
	}
	return line
}
