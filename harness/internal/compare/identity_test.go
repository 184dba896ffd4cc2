package compare

import (
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

func TestComparableSameWorkload(t *testing.T) {
	t.Parallel()
	base, cur := synthetic(32, 5, 0.05, 1), synthetic(60, 6, 0.05, 2)
	cur.ContextDistribution = map[string]int{"4096": 60}
	cur.Engine, cur.RunID = new("other-engine"), "benchmark-20260101T000000Z"
	// requests, engine and run identity are not workload identity.
	if d := artifact.Differences(base, cur); len(d) != 0 {
		t.Errorf("same workload, differences %v", d)
	}
}

func TestComparableNamesEveryField(t *testing.T) {
	t.Parallel()
	base, cur := synthetic(32, 5, 0.05, 1), synthetic(32, 5, 0.05, 2)
	cur.MeasurementProtocol = artifact.ProtocolReasoning
	cur.Model = "other-model"
	cur.ContextSeed = 7
	cur.MaxTokens = 512
	cur.MaxContextTokens = nil
	cur.ResponseWords = 0
	cur.ControlledOutputPolicy = "observe"
	cur.PromptCacheMode = "shared"
	cur.SharedPrefixTokens = 8000
	cur.RequestCanaries = true
	cur.ServeFlags = artifact.ServeFlags{ThinkingMode: "disabled", NoThinking: true, ReasoningEffort: new("low"), SharedPrefixBurst: true}
	cur.Sampling.Temperature.EffectiveRequest = artifact.F(0.7)
	cur.Sampling.TopP.EffectiveRequest = artifact.F(0.9)
	base.GPU, cur.GPU = new("H100"), new("RTX5090")
	cur.Extension = &artifact.Extension{API: "responses", Trace: &artifact.TraceReplay{SHA256: "ab", Speedup: 4, BlockTokens: 512},
		Sessions: &artifact.Sessions{Turns: 6, TurnTokens: 256, ThinkDistribution: "fixed"}, StructuredOutput: &artifact.StructuredOutput{Output: "tool_call"}}
	want := []artifact.Difference{
		{Field: "measurement_protocol", Baseline: `"capacity-v3"`, Current: `"capacity-v4-reasoning"`},
		{Field: "model", Baseline: `"synthetic-model"`, Current: `"other-model"`},
		{Field: "context_seed", Baseline: "0", Current: "7"},
		{Field: "max_tokens", Baseline: "64", Current: "512"},
		{Field: "max_context_tokens", Baseline: "65536", Current: "null"},
		{Field: "response_words", Baseline: "32", Current: "0"},
		{Field: "controlled_output_policy", Baseline: `"strict"`, Current: `"observe"`},
		{Field: "prompt_cache_mode", Baseline: `"unique"`, Current: `"shared"`},
		{Field: "shared_prefix_tokens", Baseline: "0", Current: "8000"},
		{Field: "request_canaries", Baseline: "false", Current: "true"},
		{Field: "serve_flags.thinking_mode", Baseline: `"unsupported"`, Current: `"disabled"`},
		{Field: "serve_flags.no_thinking", Baseline: "false", Current: "true"},
		{Field: "serve_flags.reasoning_effort", Baseline: "null", Current: `"low"`},
		{Field: "serve_flags.shared_prefix_burst", Baseline: "false", Current: "true"},
		{Field: "sampling.temperature.effective_request", Baseline: "0.0", Current: "0.7"},
		{Field: "sampling.top_p.effective_request", Baseline: "null", Current: "0.9"},
		{Field: "anvilbench.api", Baseline: `"chat"`, Current: `"responses"`},
		{Field: "anvilbench.trace", Baseline: "null", Current: `["ab",0,0,0,4.0,512]`},
		{Field: "anvilbench.sessions", Baseline: "null", Current: `[6,256,0.0,"fixed",null]`},
		{Field: "anvilbench.structured_output.output", Baseline: `"text"`, Current: `"tool_call"`},
		{Field: "gpu", Baseline: `"H100"`, Current: `"RTX5090"`},
	}
	got := artifact.Differences(base, cur)
	if len(got) != len(want) {
		t.Fatalf("got %d differences %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("difference %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestComparableContextDistribution(t *testing.T) {
	t.Parallel()
	base, cur := synthetic(10, 5, 0.05, 1), synthetic(10, 5, 0.05, 2)
	base.ContextTokens, cur.ContextTokens = nil, nil
	base.ContextDistribution = map[string]int{"16000": 3, "32768": 7}
	cur.ContextDistribution = map[string]int{"16000": 4, "32768": 6}
	if d := artifact.Differences(base, cur); len(d) != 1 || d[0].String() != `context_distribution {"16000":3,"32768":7} vs {"16000":4,"32768":6}` {
		t.Errorf("equal requests compare counts: %v", d)
	}
	// With different request counts only the planned sizes must agree.
	cur.Requests = 20
	cur.ContextDistribution = map[string]int{"16000": 7, "32768": 13}
	if d := artifact.Differences(base, cur); len(d) != 0 {
		t.Errorf("same sizes, different counts: %v", d)
	}
	cur.ContextDistribution = map[string]int{"16000": 7, "32768": 12, "65536": 1}
	if d := artifact.Differences(base, cur); len(d) != 1 || d[0].String() != `context_distribution ["16000","32768"] vs ["16000","32768","65536"]` {
		t.Errorf("a new size: %v", d)
	}
}

// TestComparableLegacyFieldsAreUnknown: an artifact of the original tool from before
// 2026-09-08 has no controlled_output_policy or shared_prefix_tokens; decoding leaves them
// at zero, and the comparison must not take that zero for a value.
func TestComparableLegacyFieldsAreUnknown(t *testing.T) {
	t.Parallel()
	legacy, cur := synthetic(32, 5, 0.05, 1), synthetic(32, 5, 0.05, 2)
	legacy.ControlledOutputPolicy, legacy.SharedPrefixTokens = "", 0
	got := artifact.Differences(legacy, cur)
	want := []string{
		`controlled_output_policy unknown vs "strict" (not recorded by an older artifact)`,
		`shared_prefix_tokens unknown vs 0 (not recorded by an older artifact)`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if !got[i].Unknown || got[i].String() != want[i] {
			t.Errorf("got %q, want %q", got[i], want[i])
		}
	}
	// A capacity-v2-era artifact has neither the 09-04 keys nor serve_flags decoded.
	older := synthetic(32, 5, 0.05, 3)
	older.PromptCacheMode, older.ControlledOutputPolicy, older.ServeFlags = "", "", artifact.ServeFlags{}
	fields := map[string]bool{}
	for _, d := range artifact.Differences(older, cur) {
		fields[d.Field] = d.Unknown
	}
	for _, f := range []string{"response_words", "prompt_cache_mode", "request_canaries", "controlled_output_policy", "shared_prefix_tokens", "serve_flags.thinking_mode", "serve_flags.no_thinking", "serve_flags.reasoning_effort", "serve_flags.shared_prefix_burst"} {
		if !fields[f] {
			t.Errorf("%s is not reported unknown: %v", f, fields)
		}
	}
	// An anvilbench artifact from before the API was recorded does not say which it spoke;
	// one of the original tool's (no anvilbench block) spoke chat.
	unsaid := synthetic(32, 5, 0.05, 4)
	unsaid.Extension = &artifact.Extension{}
	if d := artifact.Differences(unsaid, cur); len(d) != 1 || d[0].String() != `anvilbench.api unknown vs "chat" (not recorded by an older artifact)` {
		t.Errorf("an anvilbench artifact without its API: %v", d)
	}
	if cur.Extension != nil {
		t.Fatalf("synthetic runs are the original tool's: %+v", cur.Extension)
	}
	if d := artifact.Differences(nil, cur); len(d) != 1 || d[0].String() != "artifact missing vs present" {
		t.Errorf("nil baseline: %v", d)
	}
}
