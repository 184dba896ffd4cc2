package refengine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// errorOf reads an OpenAI-style error body.
func errorOf(t *testing.T, resp *http.Response) (status int, typ, msg string, code int) {
	t.Helper()
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var eb errorBody
	if err := json.Unmarshal(raw, &eb); err != nil {
		t.Fatalf("error body %q: %v", raw, err)
	}
	return resp.StatusCode, eb.Error.Type, eb.Error.Message, eb.Error.Code
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: 1000, ITL: 1000, APIKey: "sekret"})
	url := s.BaseURL() + "/chat/completions"
	for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "sekret"}} {
		status, typ, _, code := errorOf(t, post(t, context.Background(), url, chatBody(1, true, true, nil), hdr...))
		if status != 401 || code != 401 || typ != "AuthenticationError" {
			t.Errorf("headers %q: %d %s %d", hdr, status, typ, code)
		}
	}
	got := stream(t, s, chatBody(2, true, true, nil), "Authorization", "Bearer sekret")
	if !got.done {
		t.Errorf("authorized stream incomplete")
	}
	resp, err := http.Get(s.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _, _ := errorOf(t, resp); status != 401 {
		t.Errorf("/v1/models without key: %d", status)
	}
	if tr := s.Traces(); len(tr) != 4 || tr[0].Status != 401 || tr[3].Status != 200 {
		t.Errorf("traces %+v", tr)
	}
}

func TestWrongModel(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(1, true, true, map[string]any{"model": "gpt-x"}))
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	want := "{\"error\":{\"message\":\"The model `gpt-x` does not exist.\",\"type\":\"NotFoundError\",\"code\":404}}"
	if resp.StatusCode != 404 || string(raw) != want {
		t.Errorf("%d %s", resp.StatusCode, raw)
	}
}

func TestContextTooLong(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: 1000, ITL: 1000, MaxModelLen: 100})
	body := chatBody(1, true, true, map[string]any{"max_tokens": 90})
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", body)
	status, typ, msg, _ := errorOf(t, resp)
	p := CountTokens("You are a benchmark target."+"Some context.\n"+instruction(1, "code")) + 2*4 + 3
	want := "This model's maximum context length is 100 tokens. However, you requested " +
		itoa(int64(p+90)) + " tokens (" + itoa(int64(p)) + " in the messages, 90 in the completion). " +
		"Please reduce the length of the messages or completion."
	if status != 400 || typ != "BadRequestError" || msg != want {
		t.Errorf("%d %s %q\nwant %q", status, typ, msg, want)
	}
	// Without max_tokens only the prompt must fit.
	body = chatBody(1, true, true, nil)
	body["messages"] = []map[string]any{{"role": "user", "content": strings.Repeat("word ", 200)}}
	status, _, msg, _ = errorOf(t, post(t, context.Background(), s.BaseURL()+"/chat/completions", body))
	if status != 400 || !strings.Contains(msg, "input tokens") {
		t.Errorf("%d %q", status, msg)
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	url := s.BaseURL() + "/chat/completions"
	cases := map[string]string{
		"bad json":      `{"messages": [`,
		"wrong type":    `{"messages": "hi"}`,
		"no messages":   `{"messages": []}`,
		"zero max":      `{"messages": [{"role":"user","content":"hi"}], "max_tokens": 0}`,
		"bad top_p":     `{"messages": [{"role":"user","content":"hi"}], "top_p": 0}`,
		"negative temp": `{"messages": [{"role":"user","content":"hi"}], "temperature": -1}`,
	}
	for name, body := range cases {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if status, typ, _, _ := errorOf(t, resp); status != 400 || typ != "BadRequestError" {
			t.Errorf("%s: %d %s", name, status, typ)
		}
	}
	// Unknown fields and the accepted-but-ignored ones are fine.
	ok := `{"messages":[{"role":"user","content":null},{"role":"user","content":"hi"}],"stream":false,"temperature":0,"top_p":1,` +
		`"chat_template_kwargs":{"enable_thinking":false},"reasoning_effort":"low","n":1,"whatever":[1,2]}`
	resp, err := http.Post(url, "application/json", strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("tolerant decode: status %d", resp.StatusCode)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	resp, err := http.Get(s.BaseURL() + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _, code := errorOf(t, resp); status != 405 || code != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET chat: %d", status)
	}
	resp, err = http.Post(s.BaseURL()+"/models", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _, _ := errorOf(t, resp); status != 405 {
		t.Errorf("POST models: %d", status)
	}
	resp, err = http.Get(s.URL + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _, _ := errorOf(t, resp); status != 404 {
		t.Errorf("unknown path: %d", status)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	s := start(t, Options{Model: "m-1", MaxModelLen: 4096})
	resp, err := http.Get(s.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Object string           `json:"object"`
		Data   []map[string]any `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "list" || len(got.Data) != 1 {
		t.Fatalf("models %+v", got)
	}
	d := got.Data[0]
	if d["id"] != "m-1" || d["object"] != "model" || d["owned_by"] != "anvilbench" ||
		d["max_model_len"] != 4096.0 || d["created"].(float64) < 1e9 || len(d) != 5 {
		t.Errorf("model card %v", d)
	}
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || strings.HasSuffix(s.URL, "/") || s.BaseURL() != s.URL+"/v1" {
		t.Errorf("URL %q BaseURL %q", s.URL, s.BaseURL())
	}
}

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	_, err := Start(Options{ITL: -1, MaxBatch: -1, Faults: Faults{ExtraWords: -1}})
	if err == nil {
		t.Fatal("negative options accepted")
	}
	for _, want := range []string{"ITL", "MaxBatch", "fault"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	s := start(t, Options{})
	o := s.Options()
	if o.Model != DefaultModel || o.MaxModelLen != DefaultMaxModelLen || o.ITL != defaultITL ||
		o.PrefillOverhead != defaultPrefillOverhead || o.TokensPerChunk != 1 || o.Tokenizer == nil {
		t.Errorf("defaults %+v", o)
	}
}

func TestParseFaults(t *testing.T) {
	t.Parallel()
	f, err := parseFaults(" extra_words=2, truncate_after=7 ")
	if err != nil || f != (Faults{ExtraWords: 2, TruncateAfter: 7}) {
		t.Errorf("%+v %v", f, err)
	}
	want := Faults{ExtraWords: 1, MissingWords: 2, TruncateAfter: 3}
	if f, err := parseFaults(want.String()); err != nil || f != want {
		t.Errorf("round trip %+v %v", f, err)
	}
	for _, bad := range []string{"extra_words", "extra_words=x", "missing_words=-1", "other=1"} {
		if _, err := parseFaults(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
