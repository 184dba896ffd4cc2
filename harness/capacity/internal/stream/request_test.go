package stream

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// wireRequest is the body as json.Marshal encodes it, the reference AppendBody is held to.
type wireRequest struct {
	Model              string         `json:"model"`
	Messages           []wireMessage  `json:"messages,omitempty"`
	Prompt             string         `json:"prompt,omitempty"`
	MaxTokens          int            `json:"max_tokens"`
	Temperature        *float64       `json:"temperature,omitempty"`
	TopP               *float64       `json:"top_p,omitempty"`
	Stream             bool           `json:"stream"`
	StreamOptions      map[string]any `json:"stream_options"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
	ReasoningEffort    string         `json:"reasoning_effort,omitempty"`
	Tools              []wireTool     `json:"tools,omitempty"`
	ToolChoice         any            `json:"tool_choice,omitempty"`
	ResponseFormat     map[string]any `json:"response_format,omitempty"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func marshalled(r ChatRequest) ([]byte, error) {
	w := wireRequest{Model: r.Model, MaxTokens: r.MaxTokens, Temperature: r.Temperature, TopP: r.TopP, Stream: true,
		StreamOptions: map[string]any{"include_usage": true}, ChatTemplateKwargs: r.ChatTemplateKwargs, ReasoningEffort: r.ReasoningEffort}
	if r.ContinuousUsage {
		w.StreamOptions["continuous_usage_stats"] = true
	}
	switch r.API {
	case APICompletions:
		w.Prompt = r.Prompt
		return json.Marshal(w)
	case APIResponses, APIMessages:
		return marshalledTyped(r)
	}
	for _, m := range r.History {
		w.Messages = append(w.Messages, wireMessage{Role: m.Role, Content: m.Content})
	}
	w.Messages = append(w.Messages, wireMessage{Role: "user", Content: r.Prompt})
	for _, t := range r.Tools {
		wt := wireTool{Type: "function"}
		wt.Function.Name, wt.Function.Description, wt.Function.Parameters = t.Name, t.Description, t.Parameters
		w.Tools = append(w.Tools, wt)
	}
	switch r.ToolChoice {
	case "":
	case "required", "auto", "none":
		w.ToolChoice = r.ToolChoice
	default:
		w.ToolChoice = map[string]any{"type": "function", "function": map[string]any{"name": r.ToolChoice}}
	}
	if f := r.ResponseFormat; f != nil {
		w.ResponseFormat = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": f.Name, "schema": f.Schema, "strict": f.Strict}}
	}
	return json.Marshal(w)
}

// marshalledTyped is the reference body of the Responses and Messages APIs, as maps.
func marshalledTyped(r ChatRequest) ([]byte, error) {
	w := map[string]any{"model": r.Model, "stream": true}
	var msgs []map[string]any
	for _, m := range r.History {
		if r.API == APIMessages && m.Role == "system" {
			if _, ok := w["system"]; !ok {
				w["system"] = m.Content
			}
			continue
		}
		msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Content})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": r.Prompt})
	if r.Temperature != nil {
		w["temperature"] = *r.Temperature
	}
	if r.TopP != nil {
		w["top_p"] = *r.TopP
	}
	if r.ChatTemplateKwargs != nil {
		w["chat_template_kwargs"] = r.ChatTemplateKwargs
	}
	var tools []map[string]any
	for _, t := range r.Tools {
		if r.API == APIMessages {
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters})
		} else {
			tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Parameters})
		}
	}
	if tools != nil {
		w["tools"] = tools
	}
	if r.API == APIMessages {
		if f := r.ResponseFormat; f != nil {
			w["output_config"] = map[string]any{"format": map[string]any{"type": "json_schema", "schema": f.Schema}}
		}
		w["messages"], w["max_tokens"] = msgs, r.MaxTokens
		switch r.ToolChoice {
		case "":
		case "required":
			w["tool_choice"] = map[string]any{"type": "any"}
		case "auto", "none":
			w["tool_choice"] = map[string]any{"type": r.ToolChoice}
		default:
			w["tool_choice"] = map[string]any{"type": "tool", "name": r.ToolChoice}
		}
		return json.Marshal(w)
	}
	w["input"], w["max_output_tokens"] = msgs, r.MaxTokens
	switch r.ToolChoice {
	case "":
	case "required", "auto", "none":
		w["tool_choice"] = r.ToolChoice
	default:
		w["tool_choice"] = map[string]any{"type": "function", "name": r.ToolChoice}
	}
	if f := r.ResponseFormat; f != nil {
		w["text"] = map[string]any{"format": map[string]any{"type": "json_schema", "name": f.Name, "schema": f.Schema, "strict": f.Strict}}
	}
	if r.ReasoningEffort != "" {
		w["reasoning"] = map[string]any{"effort": r.ReasoningEffort}
	}
	return json.Marshal(w)
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("reference not JSON: %v", err)
	}
	return reflect.DeepEqual(x, y)
}

// FuzzAppendBodyMeansWhatMarshalMeans: any prompt, model and effort, every option, decode to
// the same JSON value as json.Marshal's body.
func FuzzAppendBodyMeansWhatMarshalMeans(f *testing.F) {
	f.Add("# anvil request 0:1\ndef helper():\n\"code\" \\ </b> &amp;", "m", "low", 64, 0.7, uint8(1), false, false)
	f.Add("bad \xff utf8 \u2028 \x00 \x1f", "", "", 1, 0.0, uint8(0), true, true)
	for api := range uint8(4) {
		f.Add("ok", "m", "required", 8, 1.0, api, false, true)
	}
	f.Fuzz(func(t *testing.T, prompt, model, effort string, maxTokens int, temperature float64, api uint8, continuous, thinking bool) {
		r := ChatRequest{Model: model, Prompt: prompt, MaxTokens: maxTokens, API: []API{APIChat, APICompletions, APIResponses, APIMessages}[api%4],
			ContinuousUsage: continuous, ReasoningEffort: effort}
		if thinking {
			// A conversation, a tool and a schema, with the fuzzed text in every string.
			r.History = []Message{{Role: "system", Content: effort}, {Role: "assistant", Content: prompt}}
			r.Tools = []Tool{{Name: model, Description: prompt, Parameters: json.RawMessage(`{"type":"object"}`)}}
			r.ToolChoice = effort
			r.ResponseFormat = &JSONSchema{Name: model, Schema: json.RawMessage(`{"type": "object", "properties": {}}`), Strict: continuous}
		}
		if temperature == temperature && temperature < 1e300 && temperature > -1e300 { // finite
			r.Temperature = &temperature
		}
		if thinking {
			r.ChatTemplateKwargs = map[string]any{"enable_thinking": true}
		}
		want, err := marshalled(r)
		if err != nil {
			if _, gotErr := r.AppendBody(nil); gotErr == nil {
				t.Fatalf("AppendBody encodes what json.Marshal refuses: %v", err)
			}
			t.Skip()
		}
		got, err := r.AppendBody([]byte("kept"))
		if err != nil || string(got[:4]) != "kept" {
			t.Fatalf("AppendBody: %v", err)
		}
		if !sameJSON(t, got[4:], want) {
			t.Fatalf("bodies differ:\n got  %s\n want %s", got[4:], want)
		}
	})
}

// An image goes before the prompt's text in each API's own form, its bytes in base64.
func TestImagesAreWrittenInEachAPIsForm(t *testing.T) {
	img := Image{MediaType: "image/png", Data: []byte("\x89PNG-bytes")}
	b64 := base64.StdEncoding.EncodeToString(img.Data)
	for api, want := range map[API]string{
		APIChat:      `"content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + b64 + `"}},{"type":"text","text":"hi"}]`,
		APIResponses: `"content":[{"type":"input_image","image_url":"data:image/png;base64,` + b64 + `"},{"type":"input_text","text":"hi"}]`,
		APIMessages:  `"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}},{"type":"text","text":"hi"}]`,
		APIOllama:    `"content":"hi","images":["` + b64 + `"]`,
	} {
		body, err := ChatRequest{Model: "m", Prompt: "hi", MaxTokens: 4, API: api, Images: []Image{img}}.Body()
		if err != nil || !json.Valid(body) || !strings.Contains(string(body), want) {
			t.Errorf("%s: %v\n%s\nwant it to hold %s", api, err, body, want)
		}
		if !api.Supports().Images {
			t.Errorf("%s says it carries no images", api)
		}
	}
	if APICompletions.Supports().Images {
		t.Error("completions says it carries images")
	}
}
