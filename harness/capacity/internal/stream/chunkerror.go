package stream

import (
	"strings"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// chunkError reports an error object sent inside the stream: {"error": {...}} as OpenAI
// and SGLang send it, or {"object": "error", "message": ...} as older vLLM did. The message
// is a copy, independent of the event data.
func chunkError(c *wire.Chunk) (string, bool) {
	if c.Object == "error" {
		return strings.Clone(clip(c.Message)), true
	}
	if len(c.Error) == 0 || string(c.Error) == "null" {
		return "", false
	}
	return errorBodyMessage([]byte(`{"error":` + strings.TrimSpace(string(c.Error)) + `}`)), true
}

// finishReason returns a string owned by the caller for a finish reason seen in an event:
// the common ones are interned, so a stream's finish costs no allocation.
func finishReason(s string) string {
	switch s {
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "tool_calls":
		return "tool_calls"
	case "content_filter":
		return "content_filter"
	case "function_call":
		return "function_call"
	case "eos_token":
		return "eos_token"
	case "abort":
		return "abort"
	}
	return strings.Clone(s)
}
