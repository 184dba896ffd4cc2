package wire

import "encoding/json"

// OllamaLine is the part of a line of Ollama's native chat stream (POST /api/chat, one
// JSON object per line) the timing needs. Every line names the Model and carries a
// Message delta (content, thinking, whole tool calls); the last has Done, its DoneReason,
// the token counts (prompt_eval_count, eval_count) and the engine's own phase durations
// in nanoseconds. An error ends a stream as {"error": "..."}. One value is reused for
// every line of a stream.
//
// Decode takes the per-token lines (model, created_at, a message of role, content and
// thinking, done false) with the scanner, without allocating, and every other line with
// encoding/json; both give the same values (FuzzOllamaLine).
type OllamaLine struct {
	Model   Name          `json:"model"`
	Message OllamaMessage `json:"message"`
	Done    bool          `json:"done"`
	// DoneReason is "stop", "length" or another reason, on the last line.
	DoneReason string `json:"done_reason"`
	// PromptEvalCount and EvalCount are the prompt and output tokens.
	PromptEvalCount *int `json:"prompt_eval_count"`
	EvalCount       *int `json:"eval_count"`
	// The engine's phases, in nanoseconds: loading the model, evaluating the prompt,
	// generating, and the whole request.
	LoadDuration       *int64          `json:"load_duration"`
	PromptEvalDuration *int64          `json:"prompt_eval_duration"`
	EvalDuration       *int64          `json:"eval_duration"`
	TotalDuration      *int64          `json:"total_duration"`
	Error              json.RawMessage `json:"error"`

	scratch []byte
}

// OllamaMessage is a line's message delta.
type OllamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking"`
	ToolCalls []OllamaToolCall `json:"tool_calls"`
}

// OllamaToolCall is a whole tool call: Ollama sends its arguments as an object, parsed.
type OllamaToolCall struct {
	Function struct {
		Index     *int            `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// Decode parses data into l. data is not retained beyond the next Decode.
func (l *OllamaLine) Decode(data []byte) error {
	if l.DecodeFast(data) {
		return nil
	}
	return l.DecodeJSON(data)
}

// DecodeJSON parses data with encoding/json.
func (l *OllamaLine) DecodeJSON(data []byte) error {
	*l = OllamaLine{scratch: l.scratch[:0]}
	return json.Unmarshal(data, l)
}

var (
	ollamaMembers        = []string{"model", "message", "done", "done_reason", "prompt_eval_count", "eval_count", "load_duration", "prompt_eval_duration", "eval_duration", "total_duration", "error"}
	ollamaMessageMembers = []string{"role", "content", "thinking", "tool_calls"}
)

// DecodeFast parses a line whose members are model, message (role, content, thinking) and
// done false, every other member skipped; it gives up (false) where encoding/json decides:
// the last line's done true and its counts, tool calls, an error, a duplicate, a key
// matched only case-insensitively, anything DecodeFast of Chunk gives up on.
func (l *OllamaLine) DecodeFast(data []byte) bool {
	*l = OllamaLine{scratch: l.scratch[:0]}
	s, seen := scanner{data: data, scratch: &l.scratch}, 0
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return once(&seen, 1) && s.lenientString(&l.Model)
		case "message":
			return once(&seen, 2) && s.ollamaMessage(&l.Message)
		case "done":
			return once(&seen, 4) && s.literal("false")
		case "done_reason", "prompt_eval_count", "eval_count", "load_duration", "prompt_eval_duration", "eval_duration", "total_duration", "error":
			return false
		}
		return s.unknown(key, ollamaMembers)
	})
}

// ollamaMessage parses a message delta without tool calls (null leaves it as it is).
func (s *scanner) ollamaMessage(m *OllamaMessage) bool {
	if open, ok := s.optObject(); !open {
		return ok
	}
	seen := 0
	return s.members(func(key []byte) bool {
		switch string(key) {
		case "role":
			return once(&seen, 1) && s.optString(&m.Role)
		case "content":
			return once(&seen, 2) && s.optString(&m.Content)
		case "thinking":
			return once(&seen, 4) && s.optString(&m.Thinking)
		case "tool_calls":
			return false
		}
		return s.unknown(key, ollamaMessageMembers)
	})
}
