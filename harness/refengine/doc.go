// Package refengine is an embedded, simulated OpenAI-compatible LLM server with realistic,
// configurable timing: the reference engine anvilbench's own tests and suites measure when no
// real endpoint is configured.
//
// It is used like net/http/httptest:
//
//	srv, err := refengine.Start(refengine.Options{PrefillOverhead: 200 * time.Millisecond})
//	if err != nil { ... }
//	defer srv.Close()
//	// point a client at srv.BaseURL() ("http://127.0.0.1:port/v1")
//
// # Endpoints
//
// GET /v1/models, POST /v1/chat/completions and POST /v1/completions, streamed (server-sent
// events byte-compatible with vLLM) or not; POST /v1/responses (OpenAI's Responses API) and
// POST /v1/messages (Anthropic's Messages API, its key in x-api-key or a bearer header),
// streamed only, their typed events as Ollama and vLLM send them: the same replies, tool
// calls (function_call items, tool_use blocks), schemas (text.format), reasoning (reasoning
// items, thinking blocks) and usage; POST /api/chat (Ollama's native chat) streamed only, a
// JSON object a line, a tool call whole, and in the last line the token counts and the
// engine's own phases (prompt evaluation from admission to the first token, generation,
// the whole from arrival; no load); and vLLM's POST /tokenize at the server root
// ({"prompt":...} or {"messages":[...]} -> {"count","max_model_len","tokens"}, the count
// exactly prompt_tokens of the same request; Options.DisableTokenize makes it 404).
//
// # Replies
//
// Replies follow the controlled-output instruction of internal/workload when the last user
// message carries one ("Reply with exactly N words, each the lowercase word "W", ..."),
// optionally prefixed by a request canary marker (ANVIL_REQ_<seed>_<index>); otherwise a
// short fixed sentence. Every reply ends with an end-of-sequence token that counts in
// usage.completion_tokens, as in vLLM. max_tokens (or max_completion_tokens) caps a reply
// with finish_reason "length"; unset, it is the rest of the context window, or 16 on
// /v1/completions (the OpenAI and vLLM default).
//
// A request offering tools answers with a call when tool_choice names one, or when it is
// "required" or "auto" and the instruction asks to "Call the function NAME" of the tools
// ("required" alone calls the first): the call streams as vLLM's do, the id, type and name
// first, then the arguments {"words": "code code ..."} token by token, finish_reason
// "tool_calls". A response_format of json_schema or json_object answers with that object as
// its content. The tools' definitions count as prompt tokens.
//
// A chat request thinks when it sends chat_template_kwargs.enable_thinking true, or a
// reasoning_effort other than "none", or when Options.ThinkByDefault is set and it does not
// send enable_thinking false. It then emits Options.ReasoningTokens reasoning tokens first,
// as delta.reasoning_content (or delta.reasoning, Options.ReasoningField), counted in
// completion_tokens and in usage.completion_tokens_details.reasoning_tokens.
// Options.RejectThinkingControls makes enable_thinking a 400, like a model without the
// controls. /v1/completions never thinks.
//
// Usage: a final choices:[] usage chunk when stream_options.include_usage is true (chunks
// before it carry "usage":null); with stream_options.continuous_usage_stats every chunk
// (role, reasoning, content) carries the cumulative usage instead. With Options.PrefixCache,
// usage.prompt_tokens_details is {"cached_tokens":N}; otherwise null.
//
// # Timing model
//
// Per request, on absolute deadlines from admission so sleeps never accumulate drift:
//
//	arrival -> admission: at once, or (Overflow "queue") when one of MaxBatch slots frees, FIFO
//	first token = admission + queued prefill compute ((prompt_tokens - cached_tokens) /
//	              PrefillRate on one shared lane) + PrefillOverhead
//	token k     = first token + the k gaps before it,
//	              step = ITL * (1 + BatchSlowdown*(b-1)) * (1 + jitter), b = min(running, MaxBatch)
//	              gap  = step, or with Overflow "timeslice" and running > MaxBatch a whole
//	                     number of steps averaging running/MaxBatch (round-robin)
//
// A chunk of Options.TokensPerChunk tokens is written when its last token is produced
// (reasoning and content never share a chunk). Server.Traces records the server-side truth
// (admission, cached and reasoning tokens, every chunk's flush time) so client-side
// measurements can be checked against it.
//
// # Prefix cache
//
// Options.PrefixCache simulates vLLM's automatic prefix caching. The templated prompt
// (each message's header and text, then the generation prompt) is keyed in cumulative
// segments: a template part, or a line of a message's text (a cut no token spans, so
// segments add up to the prompt's tokens). A segment becomes cached when the prefill of a
// request holding it completes; a request's cached prefix is its longest run of leading
// cached segments, looked up when its prefill starts on the lane (so a burst of requests
// sharing a prefix, queued behind the first one's prefill, all hit it). cached_tokens is
// that prefix's tokens, below prompt_tokens and rounded down to Options.CacheBlockTokens,
// as an engine caching 16-token blocks reports it: the next turn of a conversation finds
// its whole previous prompt, and a prompt built of blocks finds exactly the blocks an
// earlier one shared. The cache holds Options.CacheCapacityBlocks segments, least recently
// used evicted first; Server.FlushCache empties it.
//
// # Faults
//
// Faults (Options.Faults for every request, or per request in the X-Anvil-Faults header,
// comma-separated snake_case keys, several at once) inject misbehaviour a client must
// detect: wrong words (extra_words, missing_words), canary mix-ups (swap_markers,
// leak_marker, taken from a small record of the markers in flight and recently seen),
// reasoning without an answer (reasoning_only), an immediate error status or redirect
// (http_status, redirect), broken streams (truncate_after, reset_after, close_mid_event,
// malformed_after, error_event, invalid_utf8, huge_event), timing faults (stall_after +
// stall_for, endless, headers_with_first_token), protocol deviations (no_usage, no_done,
// usage_with_finish), arguments that are not JSON (bad_tool_arguments) and a conversation
// whose earlier turns are lost (drop_history). See Faults for each one's exact wire
// behaviour.
package refengine
