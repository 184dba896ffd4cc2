package wire

import "encoding/json"

// ResponsesEvent is the part of an event of OpenAI's Responses API stream
// (POST /v1/responses) the timing needs. The event names its kind in Type:
// response.output_text.delta, response.reasoning_text.delta and
// response.reasoning_summary_text.delta carry text in Delta; response.output_item.added
// opens an Item (a function_call names its function there) whose arguments follow in
// response.function_call_arguments.delta, by OutputIndex; response.completed,
// response.incomplete and response.failed end the stream with the Response, its usage and
// status. One value is reused for every event of a stream.
//
// Decode takes the per-token events (type, delta, output_index) with the scanner, without
// allocating, and every other event with encoding/json; both give the same values
// (FuzzResponsesEvent).
type ResponsesEvent struct {
	Type        string             `json:"type"`
	Delta       string             `json:"delta"`
	OutputIndex *int               `json:"output_index"`
	Item        *ResponsesItem     `json:"item"`
	Response    *ResponsesResponse `json:"response"`
	// Message is an error event's.
	Message string `json:"message"`

	index   int
	scratch []byte
}

// ResponsesItem is an output item as it opens.
type ResponsesItem struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
}

// ResponsesResponse is the response an ending event carries.
type ResponsesResponse struct {
	Model             Name            `json:"model"`
	Status            string          `json:"status"`
	Usage             *ResponsesUsage `json:"usage"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// ResponsesUsage is the Responses API's token accounting.
type ResponsesUsage struct {
	InputTokens        *int `json:"input_tokens"`
	OutputTokens       *int `json:"output_tokens"`
	TotalTokens        *int `json:"total_tokens"`
	InputTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// Decode parses data into e. data is not retained beyond the next Decode.
func (e *ResponsesEvent) Decode(data []byte) error {
	if e.DecodeFast(data) {
		return nil
	}
	return e.DecodeJSON(data)
}

// DecodeJSON parses data with encoding/json.
func (e *ResponsesEvent) DecodeJSON(data []byte) error {
	*e = ResponsesEvent{scratch: e.scratch[:0]}
	return json.Unmarshal(data, e)
}

var responsesMembers = []string{"type", "delta", "output_index", "item", "response", "message"}

// DecodeFast parses an event whose members are type, delta (a string) and output_index,
// every other member skipped; it gives up (false) where encoding/json decides: an item, a
// response, a message, a duplicate, a key matched only case-insensitively, anything
// DecodeFast of Chunk gives up on.
func (e *ResponsesEvent) DecodeFast(data []byte) bool {
	*e = ResponsesEvent{scratch: e.scratch[:0]}
	s, seen := scanner{data: data, scratch: &e.scratch}, 0
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return once(&seen, 1) && s.optString(&e.Type)
		case "delta":
			return once(&seen, 2) && s.optString(&e.Delta)
		case "output_index":
			return once(&seen, 4) && s.optInt(&e.OutputIndex, &e.index)
		case "item", "response", "message":
			return false
		}
		return s.unknown(key, responsesMembers)
	})
}

// object scans the whole of the data as one JSON object whose members member takes one by
// one (false gives up); it reports whether all of it was taken.
func (s *scanner) object(member func(key []byte) bool) bool {
	s.ws()
	if !s.byte_('{') || !s.members(member) {
		return false
	}
	s.ws()
	return s.i == len(s.data)
}

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
