package wire

import "encoding/json"

// MessagesEvent is the part of an event of Anthropic's Messages API stream
// (POST /v1/messages) the timing needs. message_start carries the Message with the model
// and the input usage; content_block_start opens a ContentBlock at Index (text, thinking,
// or tool_use with its id and name); content_block_delta carries a Delta at Index
// (text_delta's Text, thinking_delta's Thinking, input_json_delta's PartialJSON);
// message_delta the StopReason and the output Usage; message_stop ends the stream; error
// an Error. One value is reused for every event of a stream.
//
// Decode takes content_block_delta, ping and the stop events with the scanner, without
// allocating, and every other event with encoding/json; both give the same values
// (FuzzMessagesEvent).
type MessagesEvent struct {
	Type         string           `json:"type"`
	Index        *int             `json:"index"`
	Delta        MessagesDelta    `json:"delta"`
	ContentBlock *MessagesBlock   `json:"content_block"`
	Message      *MessagesMessage `json:"message"`
	Usage        *MessagesUsage   `json:"usage"`
	Error        json.RawMessage  `json:"error"`

	index   int
	scratch []byte
}

// MessagesDelta is a content block's or the message's delta.
type MessagesDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	Thinking    string  `json:"thinking"`
	PartialJSON string  `json:"partial_json"`
	StopReason  *string `json:"stop_reason"`
}

// MessagesBlock is a content block as it opens.
type MessagesBlock struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
	Text string `json:"text"`
}

// MessagesMessage is the message message_start opens.
type MessagesMessage struct {
	Model Name           `json:"model"`
	Usage *MessagesUsage `json:"usage"`
}

// MessagesUsage is the Messages API's token accounting: the prompt is input_tokens plus
// what the cache read and wrote.
type MessagesUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
}

// Decode parses data into e. data is not retained beyond the next Decode.
func (e *MessagesEvent) Decode(data []byte) error {
	if e.DecodeFast(data) {
		return nil
	}
	return e.DecodeJSON(data)
}

// DecodeJSON parses data with encoding/json.
func (e *MessagesEvent) DecodeJSON(data []byte) error {
	*e = MessagesEvent{scratch: e.scratch[:0]}
	return json.Unmarshal(data, e)
}

var (
	messagesMembers      = []string{"type", "index", "delta", "content_block", "message", "usage", "error"}
	messagesDeltaMembers = []string{"type", "text", "thinking", "partial_json", "stop_reason"}
)

// DecodeFast parses an event whose members are type, index and a delta of type, text,
// thinking and partial_json, every other member skipped; it gives up (false) where
// encoding/json decides: a content block, a message, usage, an error, a stop reason, a
// duplicate, a key matched only case-insensitively, anything DecodeFast of Chunk gives up on.
func (e *MessagesEvent) DecodeFast(data []byte) bool {
	*e = MessagesEvent{scratch: e.scratch[:0]}
	s, seen := scanner{data: data, scratch: &e.scratch}, 0
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return once(&seen, 1) && s.optString(&e.Type)
		case "index":
			return once(&seen, 2) && s.optInt(&e.Index, &e.index)
		case "delta":
			return once(&seen, 4) && s.messagesDelta(&e.Delta)
		case "content_block", "message", "usage", "error":
			return false
		}
		return s.unknown(key, messagesMembers)
	})
}

// messagesDelta parses a delta object (null leaves it as it is, as encoding/json does).
func (s *scanner) messagesDelta(d *MessagesDelta) bool {
	if open, ok := s.optObject(); !open {
		return ok
	}
	seen := 0
	return s.members(func(key []byte) bool {
		switch string(key) {
		case "type":
			return once(&seen, 1) && s.optString(&d.Type)
		case "text":
			return once(&seen, 2) && s.optString(&d.Text)
		case "thinking":
			return once(&seen, 4) && s.optString(&d.Thinking)
		case "partial_json":
			return once(&seen, 8) && s.optString(&d.PartialJSON)
		case "stop_reason":
			return false
		}
		return s.unknown(key, messagesDeltaMembers)
	})
}
