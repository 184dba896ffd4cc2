package artifact

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Difference is one workload-identity field on which two artifacts differ, or which one of
// them does not record.
type Difference struct {
	// Field is the artifact key, dotted below the top level ("serve_flags.thinking_mode").
	Field string `json:"field"`
	// Baseline and Current are the two values as JSON text, or "unknown" for a field the
	// artifact does not record.
	Baseline string `json:"baseline"`
	Current  string `json:"current"`
	// Unknown reports that at least one side does not record the field: an artifact of an
	// older era of the original tool. Such a field fails closed, like a real difference.
	Unknown bool `json:"unknown"`
}

// String is "context_tokens 64000 vs 8000" or
// "controlled_output_policy unknown vs \"strict\" (not recorded by an older artifact)".
func (d Difference) String() string {
	s := fmt.Sprintf("%s %s vs %s", d.Field, d.Baseline, d.Current)
	if d.Unknown {
		s += " (not recorded by an older artifact)"
	}
	return s
}

// unknown is the value text of a field an artifact does not record.
const unknown = "unknown"

// Differences lists the workload-identity differences between a baseline and a current
// artifact; none means the two measured the same workload and their figures may be
// compared. The fields, in this order:
//
//	measurement_protocol, model, context_tokens, context_distribution, context_seed,
//	concurrency, max_tokens, max_context_tokens, response_words, controlled_output_policy,
//	prompt_cache_mode, shared_prefix_tokens, request_canaries, serve_flags.thinking_mode,
//	serve_flags.no_thinking, serve_flags.reasoning_effort, serve_flags.shared_prefix_burst,
//	sampling.temperature.effective_request, sampling.top_p.effective_request, the API
//	(anvilbench.api: chat for an artifact of the original tool), the workload
//	kind in anvilbench's block (anvilbench.trace: the trace's digest, selection, speedup
//	and block size; anvilbench.sessions: turns, turn tokens, think time, session rate;
//	anvilbench.structured_output.output), and gpu when both artifacts name one.
//
// requests is not among them: it sets the sample size, not the work of each request, and
// Regression's tests account for the sample size of each side (a 60-request run is fairly
// compared with a 6-request baseline, only with less power). For the same reason
// context_distribution is compared count for count only when requests are equal, and
// otherwise as the set of planned context sizes. engine, the run's timing, base_url and the
// provenance keys (tier, manifest, source_recipe, configuration_fingerprint) are what a gate
// compares across, so they are not identity.
//
// Decoding leaves a key that an artifact lacks at its zero value, so a field an older
// artifact does not record counts as unknown, told by the key that came with it (the
// fields table below says which); an empty model and a zero concurrency or max_tokens are
// not recorded either. Nil inputs compare as entirely unknown.
func Differences(baseline, current *Benchmark) []Difference {
	if baseline == nil || current == nil {
		return []Difference{{Field: "artifact", Baseline: present(baseline), Current: present(current)}}
	}
	var out []Difference
	for _, f := range identityFields {
		b, bok := f.value(baseline)
		c, cok := f.value(current)
		if !bok || !cok {
			out = append(out, Difference{Field: f.name, Baseline: orUnknown(b, bok), Current: orUnknown(c, cok), Unknown: true})
			continue
		}
		if f.name == "context_distribution" && baseline.Requests != current.Requests {
			// Different request counts draw different counts; the planned sizes must agree.
			b, c = sizesOf(baseline.ContextDistribution), sizesOf(current.ContextDistribution)
		}
		if b != c {
			out = append(out, Difference{Field: f.name, Baseline: b, Current: c})
		}
	}
	if baseline.GPU != nil && current.GPU != nil && *baseline.GPU != *current.GPU {
		out = append(out, Difference{Field: "gpu", Baseline: text(*baseline.GPU), Current: text(*current.GPU)})
	}
	return out
}

// identityField reads one identity field as JSON text; ok is false when the artifact does
// not record it.
type identityField struct {
	name  string
	value func(*Benchmark) (string, bool)
}

// identityFields are the rows of Differences, each block of groups' (groupIdentity) last.
var identityFields = append([]identityField{
	{"measurement_protocol", func(a *Benchmark) (string, bool) {
		return text(a.MeasurementProtocol), a.MeasurementProtocol != ""
	}},
	{"model", func(a *Benchmark) (string, bool) { return text(a.Model), a.Model != "" }},
	{"context_tokens", func(a *Benchmark) (string, bool) { return text(a.ContextTokens), true }},
	{"context_distribution", func(a *Benchmark) (string, bool) {
		return text(a.ContextDistribution), a.ContextDistribution != nil && sinceV2(a)
	}},
	{"context_seed", func(a *Benchmark) (string, bool) { return text(a.ContextSeed), sinceV2(a) }},
	{"concurrency", func(a *Benchmark) (string, bool) { return text(a.Concurrency), a.Concurrency > 0 }},
	{"max_tokens", func(a *Benchmark) (string, bool) { return text(a.MaxTokens), a.MaxTokens > 0 }},
	{"max_context_tokens", func(a *Benchmark) (string, bool) { return text(a.MaxContextTokens), true }},
	{"response_words", func(a *Benchmark) (string, bool) { return text(a.ResponseWords), since0904(a) }},
	{"controlled_output_policy", func(a *Benchmark) (string, bool) {
		return text(a.ControlledOutputPolicy), since0908(a)
	}},
	{"prompt_cache_mode", func(a *Benchmark) (string, bool) { return text(a.PromptCacheMode), since0904(a) }},
	{"shared_prefix_tokens", func(a *Benchmark) (string, bool) { return text(a.SharedPrefixTokens), since0908(a) }},
	{"request_canaries", func(a *Benchmark) (string, bool) { return text(a.RequestCanaries), since0904(a) }},
	{"serve_flags.thinking_mode", func(a *Benchmark) (string, bool) {
		return text(a.ServeFlags.ThinkingMode), hasServeFlags(a)
	}},
	{"serve_flags.no_thinking", func(a *Benchmark) (string, bool) {
		return text(a.ServeFlags.NoThinking), hasServeFlags(a)
	}},
	{"serve_flags.reasoning_effort", func(a *Benchmark) (string, bool) {
		return text(a.ServeFlags.ReasoningEffort), hasServeFlags(a)
	}},
	{"serve_flags.shared_prefix_burst", func(a *Benchmark) (string, bool) {
		return text(a.ServeFlags.SharedPrefixBurst), hasServeFlags(a)
	}},
	{"sampling.temperature.effective_request", func(a *Benchmark) (string, bool) {
		return text(a.Sampling.Temperature.EffectiveRequest), true
	}},
	{"sampling.top_p.effective_request", func(a *Benchmark) (string, bool) {
		return text(a.Sampling.TopP.EffectiveRequest), true
	}},
	// The API, in anvilbench's block: the original tool spoke chat only; an anvilbench
	// artifact from before the key does not say.
	{"anvilbench.api", func(a *Benchmark) (string, bool) {
		if a.Extension == nil {
			return text("chat"), true
		}
		return text(a.Extension.API), a.Extension.API != ""
	}},
	// The workload kinds, in anvilbench's block: an artifact without one ran none of them.
	{"anvilbench.trace", func(a *Benchmark) (string, bool) {
		if a.Extension == nil || a.Extension.Trace == nil {
			return "null", true
		}
		t := a.Extension.Trace
		return text([]any{t.SHA256, t.FromMs, t.UntilMs, t.FirstLines, t.Speedup, t.BlockTokens}), true
	}},
	{"anvilbench.sessions", func(a *Benchmark) (string, bool) {
		if a.Extension == nil || a.Extension.Sessions == nil {
			return "null", true
		}
		s := a.Extension.Sessions
		return text([]any{s.Turns, s.TurnTokens, s.ThinkTimeMs, s.ThinkDistribution, s.SessionRate}), true
	}},
	// Requests left early load the engine otherwise: a run that left none left none.
	{"anvilbench.cancellation", func(a *Benchmark) (string, bool) {
		if a.Extension == nil || a.Extension.Cancellation == nil {
			return "null", true
		}
		c := a.Extension.Cancellation
		return text([]any{c.Rate, c.AfterTokens}), true
	}},
	// Images load the engine's vision encoder: their count, sizes, format and pool are the
	// workload's.
	{"anvilbench.images", func(a *Benchmark) (string, bool) {
		if a.Extension == nil || a.Extension.Images == nil {
			return "null", true
		}
		im := a.Extension.Images
		return text([]any{im.PerRequest, im.Sizes, im.Format, im.Pool}), true
	}},
	{"anvilbench.structured_output.output", func(a *Benchmark) (string, bool) {
		if a.Extension == nil || a.Extension.StructuredOutput == nil {
			return text("text"), true
		}
		return text(a.Extension.StructuredOutput.Output), true
	}},
}, groupIdentity()...)

// The eras of the original tool's artifacts, each told apart by a key it introduced: the
// measurement_protocol of capacity-v2, then prompt_cache_mode, then controlled_output_policy,
// then serve_flags.
func sinceV2(a *Benchmark) bool       { return a.MeasurementProtocol != "" }
func since0904(a *Benchmark) bool     { return a.PromptCacheMode != "" }
func since0908(a *Benchmark) bool     { return a.ControlledOutputPolicy != "" }
func hasServeFlags(a *Benchmark) bool { return a.ServeFlags.ThinkingMode != "" }

func orUnknown(v string, ok bool) string {
	if !ok {
		return unknown
	}
	return v
}

func present(a *Benchmark) string {
	if a == nil {
		return "missing"
	}
	return "present"
}

// sizesOf is the sorted planned context sizes of a context_distribution, as JSON text.
func sizesOf(d map[string]int) string { return text(slices.Sorted(maps.Keys(d))) }

// text is v as JSON (sorted keys for maps, "null" for nil pointers).
func text(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v) // unreachable for the field types above
	}
	return string(raw)
}
