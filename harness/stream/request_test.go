package stream

import (
	"encoding/json"
	"reflect"
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
}

func marshalled(r ChatRequest) ([]byte, error) {
	w := wireRequest{Model: r.Model, MaxTokens: r.MaxTokens, Temperature: r.Temperature, TopP: r.TopP, Stream: true,
		StreamOptions: map[string]any{"include_usage": true}, ChatTemplateKwargs: r.ChatTemplateKwargs, ReasoningEffort: r.ReasoningEffort}
	if r.ContinuousUsage {
		w.StreamOptions["continuous_usage_stats"] = true
	}
	if r.Legacy {
		w.Prompt = r.Prompt
	} else {
		w.Messages = []wireMessage{{Role: "user", Content: r.Prompt}}
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
	f.Add("# anvil request 0:1\ndef helper():\n\"code\" \\ </b> &amp;", "m", "low", 64, 0.7, true, false, false)
	f.Add("bad \xff utf8 \u2028 \x00 \x1f", "", "", 1, 0.0, false, true, true)
	f.Fuzz(func(t *testing.T, prompt, model, effort string, maxTokens int, temperature float64, legacy, continuous, thinking bool) {
		r := ChatRequest{Model: model, Prompt: prompt, MaxTokens: maxTokens, Legacy: legacy, ContinuousUsage: continuous, ReasoningEffort: effort}
		if temperature == temperature && temperature < 1e300 && temperature > -1e300 { // finite
			r.Temperature = &temperature
		}
		if thinking {
			r.ChatTemplateKwargs = map[string]any{"enable_thinking": true}
		}
		want, err := marshalled(r)
		if err != nil {
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
