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
