package refengine

import (
	"flag"
	"fmt"
)

// Flags registers the engine's command-line flags on fs (cmd/refengine's, and those of a
// tool that serves the engine); call the returned func after fs.Parse to get the Options
// they describe.
func Flags(fs *flag.FlagSet) func() (Options, error) {
	var o Options
	fs.StringVar(&o.Model, "model", DefaultModel, "served model id")
	fs.Func("alias", "a further model id served but not listed by /v1/models, as Ollama serves name for name:latest (repeatable)", func(v string) error {
		o.Aliases = append(o.Aliases, v)
		return nil
	})
	fs.Func("adapters", "LoRA adapters served beside the model, name:decode-slowdown,... (lora-a:1,lora-b:1.5)", func(v string) error {
		a, err := parseAdapters(v)
		o.Adapters = a
		return err
	})
	fs.IntVar(&o.ImagePatch, "image-patch", 0, "serve images at ceil(w/p)*ceil(h/p) tokens each (28: Qwen2.5-VL); 0 refuses images (a text model)")
	fs.IntVar(&o.MaxModelLen, "max-model-len", DefaultMaxModelLen, "context window in tokens")
	fs.DurationVar(&o.PrefillOverhead, "ttft", defaultPrefillOverhead, "fixed time to first token (prefill overhead)")
	fs.BoolVar(&o.DecodeOnAfterCancel, "decode-on-after-cancel", false, "keep decoding a request its client left, to max_tokens (an engine bug, for proofs)")
	fs.BoolVar(&o.SchedulePriority, "schedule-priority", false, "admit waiting requests by their priority field, lower first (vLLM's --scheduling-policy priority)")
	fs.BoolVar(&o.NoTokenCounters, "no-token-counters", false, "leave the prompt and generated-tokens counters out of /metrics (its gauges alone)")
	fs.DurationVar(&o.QueueDelay, "queue-delay", 0, "scheduling time of every request after admission, before its prefill (a slower scheduler)")
	fs.Float64Var(&o.PrefillRate, "prefill-rate", 0, "prefill compute in prompt tokens/s on one shared lane (0 = free)")
	fs.DurationVar(&o.ITL, "itl", defaultITL, "inter-token latency at batch size 1")
	fs.Float64Var(&o.ITLJitter, "itl-jitter", 0, "relative stddev of per-step gaussian jitter")
	fs.Float64Var(&o.BatchSlowdown, "batch-slowdown", 0, "step = itl*(1+slowdown*(batch-1))")
	fs.Float64Var(&o.RequestJitter, "request-jitter", 0, "relative standard deviation of a per-request speed factor on its prefill overhead and steps (0 = none)")
	fs.IntVar(&o.MaxBatch, "max-batch", 0, "max sequences per decode step (0 = unlimited)")
	o.Overflow = overflowQueue
	fs.Func("overflow", "beyond -max-batch: queue (wait before prefill, the default) or timeslice (share decode steps)", func(v string) error {
		o.Overflow = Overflow(v)
		return nil
	})
	fs.IntVar(&o.TokensPerChunk, "tokens-per-chunk", 1, "tokens per streamed content chunk")
	fs.IntVar(&o.SpecTokens, "spec-tokens", 0, "draft tokens a speculative decode step proposes (0: none)")
	fs.Float64Var(&o.SpecAccept, "spec-accept", 0, "share of drafted tokens accepted, as vLLM counts it")
	fs.Int64Var(&o.Seed, "seed", 0, "jitter seed")
	fs.Float64Var(&o.Speed, "speed", 1, "times as long for every prefill and decode step (1.1: a build 10% slower)")
	fs.Float64Var(&o.RunCV, "run-cv", 0, "relative standard deviation of a speed factor drawn once per start, as a real engine's speed moves between restarts")
	fs.Int64Var(&o.RunSeed, "run-seed", 0, "seed of the start's speed factor (0: the start's clock)")
	fs.Float64Var(&o.Drift, "drift", 0, "relative change of every time per minute since the start (0.05: 5% slower each minute)")
	fs.IntVar(&o.ColdRequests, "cold-requests", 0, "the first N requests are slower (a cold engine)")
	fs.Float64Var(&o.ColdFactor, "cold-factor", 1, "how many times as long the cold requests take")
	fs.BoolVar(&o.PrefixCache, "prefix-cache", false, "automatic prefix caching (usage.prompt_tokens_details.cached_tokens)")
	fs.IntVar(&o.CacheBlockTokens, "cache-block-tokens", defaultCacheBlockTokens, "cached_tokens granularity in tokens")
	fs.IntVar(&o.CacheCapacityBlocks, "cache-capacity-blocks", defaultCacheCapacityBlocks, "prefix cache size in segments, about a line of prompt each (LRU)")
	fs.BoolVar(&o.ThinkByDefault, "think", false, "chat requests reason unless chat_template_kwargs.enable_thinking is false")
	fs.IntVar(&o.ReasoningTokens, "reasoning-tokens", defaultReasoningTokens, "reasoning tokens of a thinking reply")
	o.ReasoningField = reasoningContentField
	fs.Func("reasoning-field", "delta member of reasoning text: reasoning_content (the default) or reasoning", func(v string) error {
		o.ReasoningField = v
		return nil
	})
	fs.BoolVar(&o.RejectThinkingControls, "reject-thinking-controls", false, "answer 400 to chat_template_kwargs.enable_thinking")
	fs.BoolVar(&o.DisableTokenize, "disable-tokenize", false, "POST /tokenize answers 404")
	fs.BoolVar(&o.ServeTraces, "serve-traces", false, "serve GET /ref/traces: arrival and chunk flush times (Unix ns) of every request")
	fs.BoolVar(&o.HideWindow, "hide-window", false, "leave the context window out of /v1/models and /tokenize (llama.cpp, Ollama)")
	fs.BoolVar(&o.TruncatePrompts, "truncate-prompts", false, "cut prompts over -max-model-len silently instead of answering 400 (llama.cpp, Ollama)")
	fs.Func("native-info", "serve one engine's own window endpoint: llamacpp (GET /props), ollama (POST /api/show) or sglang (GET /server_info)", func(v string) error {
		o.NativeInfo = NativeAPI(v)
		return nil
	})
	tokenizer := fs.String("tokenizer", "default", "prompt token counting rule: default, coarse or bpe (merges like a real BPE)")
	faults := fs.String("faults", "", "faults of every request, in the X-Anvil-Faults header format (e.g. stall_after=3,stall_for=2s)")
	var words Faults
	fs.IntVar(&words.ExtraWords, "extra-words", 0, "fault: extra words appended to controlled output")
	fs.IntVar(&words.MissingWords, "missing-words", 0, "fault: code words left out of controlled output")
	fs.IntVar(&words.TruncateAfter, "truncate-after", 0, "fault: cut responses after this many tokens (0 = off)")

	return func() (Options, error) {
		switch *tokenizer {
		case "default":
			o.Tokenizer = CountTokens
		case "coarse":
			o.Tokenizer = CountTokensCoarse
		case "bpe":
			o.Tokenizer = CountTokensBPE
		default:
			return o, fmt.Errorf("-tokenizer %q: want default, coarse or bpe", *tokenizer)
		}
		f, err := parseFaults(*faults)
		if err != nil {
			return o, fmt.Errorf("-faults: %w", err)
		}
		// The single-fault flags, where given, win over -faults.
		fs.Visit(func(fl *flag.Flag) {
			switch fl.Name {
			case "extra-words":
				f.ExtraWords = words.ExtraWords
			case "missing-words":
				f.MissingWords = words.MissingWords
			case "truncate-after":
				f.TruncateAfter = words.TruncateAfter
			}
		})
		o.Faults = f
		return o, nil
	}
}
