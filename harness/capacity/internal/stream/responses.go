package stream

import (
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// APIResponses is OpenAI's Responses API, /v1/responses: input items, typed events.
const APIResponses API = "responses"

func init() { register(APIResponses, responses{}, 2) }

var responsesTools = toolForm{"responses", `{"type":"function","name":`, `,"parameters":`, "}"}

// responsesImages are the Responses API's input parts: input_image with a data URL, then
// input_text.
var responsesImages = imageForm{text: `{"type":"input_text","text":`, image: func(dst []byte, img Image) []byte {
	dst = append(dst, `{"type":"input_image","image_url":`...)
	return append(appendDataURL(dst, img), '}')
}}

// responses is OpenAI's Responses API: the conversation as input items, typed events out,
// response.completed (or .incomplete) at the end.
type responses struct{ openAIStyle }

// responsesState is a Responses API stream's own state: its event decoder.
type responsesState struct{ ev wire.ResponsesEvent }

func (responses) start(st *streamState) { ownState[responsesState](st) }

func (responses) path() string { return "/responses" }

// supports: OpenAI refuses fewer than 16 output tokens.
func (responses) supports() Support {
	return Support{Conversation: true, Tools: true, ReasoningEffort: true, Images: true, ProbeTokens: 16}
}

// body appends the rest of a Responses API body after its model: the
// conversation as input items, max_output_tokens, the function tools (flat, as the
// Responses API has them) and the schema as text.format.
func (responses) body(r ChatRequest, dst []byte) ([]byte, error) {
	dst = append(dst, `,"input":`...)
	dst = r.appendConversation(dst, true, responsesImages)
	dst = append(dst, `,"max_output_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	dst, err := r.appendSampling(dst)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"stream":true`...)
	if dst, err = r.appendToolList(dst, responsesTools); err != nil {
		return nil, err
	}
	dst = r.appendToolChoice(dst, responsesTools)
	if dst, err = r.appendNamedFormat(dst, "responses", `,"text":{"format":{"type":"json_schema","name":`); err != nil {
		return nil, err
	}
	if dst, err = r.appendKwargs(dst); err != nil {
		return nil, err
	}
	if r.ReasoningEffort != "" {
		dst = append(dst, `,"reasoning":{"effort":`...)
		dst = wire.AppendString(dst, r.ReasoningEffort)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// fold folds one Responses API event into res; terminal reports the event that ends
// the stream (response.completed or response.incomplete).
func (responses) fold(st *streamState, s *settings, data []byte, res *Result, at time.Duration) (terminal bool, err error) {
	ev := &ownState[responsesState](st).ev
	if err := s.decodeEvent(ev, data, res.Events); err != nil {
		return false, err
	}
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		res.output(at, "", ev.Delta)
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		res.output(at, ev.Delta, "")
	case "response.output_item.added":
		if it := ev.Item; it != nil && it.Type == "function_call" {
			res.toolOpened(at, indexOf(ev.OutputIndex), it.CallID, it.Name)
		}
	case "response.function_call_arguments.delta":
		res.toolOutput(at, indexOf(ev.OutputIndex), ev.Delta)
	case "response.created", "response.in_progress":
		st.responseModel(res, ev.Response)
	case "response.completed", "response.incomplete":
		r := ev.Response
		st.responseModel(res, r)
		if r != nil && r.Usage != nil {
			st.responsesUsage(res, r.Usage)
		}
		switch {
		case ev.Type == "response.completed" && len(res.ToolCalls) > 0:
			res.addFinish("tool_calls")
		case ev.Type == "response.completed":
			res.addFinish("stop")
		case r != nil && r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "max_output_tokens":
			res.addFinish(r.IncompleteDetails.Reason)
		default:
			res.addFinish("length")
		}
		return true, nil
	case "response.failed":
		msg := "the response failed"
		if r := ev.Response; r != nil && len(r.Error) > 0 && string(r.Error) != "null" {
			msg += ": " + clip(string(r.Error))
		}
		return false, &Error{Kind: KindServerError, Message: "server error in stream: " + msg}
	case "error":
		return false, &Error{Kind: KindServerError, Message: "server error in stream: " + clip(ev.Message)}
	}
	return false, nil
}

func (st *streamState) responseModel(res *Result, r *wire.ResponsesResponse) {
	if r != nil && res.Model == "" && r.Model != "" {
		res.Model = st.name(r.Model)
	}
}

// responsesUsage sets res's usage from the Responses API's: input tokens are the prompt.
func (st *streamState) responsesUsage(res *Result, u *wire.ResponsesUsage) {
	e := &st.ev
	var cached, reasoning *int
	if d := u.InputTokensDetails; d != nil {
		cached = d.CachedTokens
	}
	if d := u.OutputTokensDetails; d != nil {
		reasoning = d.ReasoningTokens
	}
	res.setUsage(e.chatUsage(u.InputTokens, u.OutputTokens, u.TotalTokens, cached, reasoning))
}
