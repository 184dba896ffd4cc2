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
// It serves GET /v1/models, POST /v1/chat/completions and POST /v1/completions, streamed
// (server-sent events byte-compatible with vLLM) or not. Replies follow the controlled-output
// instruction of harness/workload when the last user message carries one ("Reply with exactly N
// words, each the lowercase word "W", ..."), optionally prefixed by a request canary marker;
// otherwise a short fixed sentence. Every reply ends with an end-of-sequence token that counts
// in usage.completion_tokens, as in vLLM. max_tokens (or max_completion_tokens) caps a reply
// with finish_reason "length"; unset, it is the rest of the context window, or 16 on
// /v1/completions (the OpenAI and vLLM default).
//
// Timing model, per request, on absolute deadlines from admission so sleeps never accumulate
// drift:
//
//	arrival -> wait for a batch slot (Options.MaxBatch, FIFO) = admission
//	first token = admission + queued prefill compute (prompt_tokens / PrefillRate on one
//	              shared lane) + PrefillOverhead
//	token k     = first token + sum of k decode steps,
//	              step = ITL * (1 + BatchSlowdown*(running-1)) * (1 + jitter)
//
// A chunk of Options.TokensPerChunk tokens is written when its last token is produced.
// Server.Traces records the server-side truth (admission, every chunk's flush time) so
// client-side measurements can be checked against it.
package refengine
