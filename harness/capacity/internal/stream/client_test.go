package stream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/secret"
)

// serve answers every request with the given status, content type and raw body, flushing
// after each element of parts and sleeping gap between them.
func serve(t *testing.T, status int, contentType string, gap time.Duration, parts ...string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		for _, p := range parts {
			_, _ = w.Write([]byte(p))
			w.(http.Flusher).Flush()
			select {
			case <-time.After(gap):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func client(s *httptest.Server) *Client {
	return New(Options{BaseURL: s.URL + "/v1", Timeout: 5 * time.Second, StallTimeout: time.Second})
}

func stream(t *testing.T, c *Client) (*Result, error) {
	t.Helper()
	return c.Stream(context.Background(), APIChat, []byte(`{}`), 16)
}

func kindOf(err error) string {
	var se *Error
	if errors.As(err, &se) {
		return se.Kind
	}
	return ""
}

const (
	roleChunk    = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	contentChunk = `data: {"choices":[{"index":0,"delta":{"content":"code"},"finish_reason":null}],"usage":null}` + "\n\n"
	finishChunk  = `data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}` + "\n\n"
	usageChunk   = `data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":4}}}` + "\n\n"
	done         = "data: [DONE]\n\n"
)

func TestCompleteStream(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "text/event-stream", 5*time.Millisecond, roleChunk, contentChunk, contentChunk, finishChunk, usageChunk, done)
	res, err := stream(t, client(s))
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentChunks != 2 || res.Content != "codecode" || !res.Terminal || len(res.FinishReasons) != 1 || res.FinishReasons[0] != "stop" {
		t.Fatalf("result %+v", res)
	}
	if *res.Usage.CompletionTokens != 3 || *res.Usage.PromptTokens != 12 || *res.Usage.CachedTokens != 4 {
		t.Fatalf("usage %+v", res.Usage)
	}
	// The role-only chunk is not output: first content is the second event, ~5 ms later.
	if !res.HasFirstContent || res.FirstContent < 4*time.Millisecond || res.FirstOutput != res.FirstContent {
		t.Fatalf("first content at %v, first output at %v", res.FirstContent, res.FirstOutput)
	}
	if gap := res.Arrivals[1] - res.Arrivals[0]; gap < 4*time.Millisecond {
		t.Fatalf("arrival gap %v, want about 5ms", gap)
	}
	if res.End < res.Arrivals[1] {
		t.Fatalf("end %v before the last content %v", res.End, res.Arrivals[1])
	}
}

func TestReasoningCountsAsFirstOutputNotContent(t *testing.T) {
	t.Parallel()
	reasoning := `data: {"choices":[{"delta":{"reasoning_content":"think"}}]}` + "\n\n"
	legacy := `data: {"choices":[{"delta":{"reasoning":"more"}}]}` + "\n\n"
	s := serve(t, 200, "text/event-stream", 3*time.Millisecond, reasoning, legacy, contentChunk, finishChunk, done)
	res, err := stream(t, client(s))
	if err != nil {
		t.Fatal(err)
	}
	if res.ReasoningChunks != 2 || res.ContentChunks != 1 || res.FirstOutput >= res.FirstContent {
		t.Fatalf("reasoning %d content %d, first output %v first content %v", res.ReasoningChunks, res.ContentChunks, res.FirstOutput, res.FirstContent)
	}
}

func TestFinishReasonWithoutDoneIsComplete(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "text/event-stream; charset=utf-8", 0, contentChunk, finishChunk)
	res, err := stream(t, client(s))
	if err != nil || res.Terminal || !res.Complete() {
		t.Fatalf("err %v terminal %v", err, res.Terminal)
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, status, contentType string
		parts                     []string
		kind, message             string
		streamed                  bool
	}{
		{"clean close mid-stream", "200", "text/event-stream", []string{contentChunk, contentChunk}, KindTruncated, "without [DONE] or a finish_reason", true},
		{"partial last event", "200", "text/event-stream", []string{contentChunk, `data: {"choices":[{"delta":`}, KindTruncated, "", true},
		{"malformed chunk", "200", "text/event-stream", []string{contentChunk, "data: {not json}\n\n"}, KindMalformed, "event 2 is not a JSON chunk", true},
		{"error object in stream", "200", "text/event-stream", []string{`data: {"error":{"message":"engine overloaded","code":503}}` + "\n\n"}, KindServerError, "engine overloaded", true},
		{"vLLM error object", "200", "text/event-stream", []string{`data: {"object":"error","message":"bad things","code":400}` + "\n\n"}, KindServerError, "bad things", true},
		{"error event", "200", "text/event-stream", []string{"event: error\ndata: oops\n\n"}, KindServerError, "oops", true},
		{"http error with JSON body", "503", "application/json", []string{`{"error":{"message":"no capacity","type":"ServiceUnavailable"}}`}, KindHTTP, "HTTP 503 Service Unavailable: no capacity", false},
		{"http error with detail", "422", "application/json", []string{`{"detail":[{"msg":"field required"}]}`}, KindHTTP, "field required", false},
		{"not an event stream", "200", "application/json", []string{`{"choices":[]}`}, KindContentType, "not the text/event-stream stream", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			status := map[string]int{"200": 200, "503": 503, "422": 422}[c.status]
			res, err := stream(t, client(serve(t, status, c.contentType, 0, c.parts...)))
			if kindOf(err) != c.kind || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("err = %v (%s), want %s containing %q", err, kindOf(err), c.kind, c.message)
			}
			if res.Streamed != c.streamed {
				t.Fatalf("streamed = %v, want %v", res.Streamed, c.streamed)
			}
		})
	}
}

func TestStallAfterTheFirstEvent(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "text/event-stream", 2*time.Second, contentChunk, contentChunk)
	c := New(Options{BaseURL: s.URL + "/v1", Timeout: 10 * time.Second, StallTimeout: 200 * time.Millisecond})
	start := time.Now()
	res, err := stream(t, c)
	if kindOf(err) != KindStall || !strings.Contains(err.Error(), "ANVIL_STALL_TIMEOUT") {
		t.Fatalf("err = %v, want a stall", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("stall detected after %v", took)
	}
	if res.ContentChunks != 1 {
		t.Fatalf("content chunks %d, want the one before the stall", res.ContentChunks)
	}
}

func TestSlowFirstEventIsBoundedByTimeoutNotStall(t *testing.T) {
	t.Parallel()
	// Headers only with the first token, as Ollama does: a long prefill is not a stall.
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(400 * time.Millisecond)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(contentChunk + finishChunk + done))
	}))
	t.Cleanup(s.Close)
	c := New(Options{BaseURL: s.URL + "/v1", Timeout: 5 * time.Second, StallTimeout: 100 * time.Millisecond})
	if _, err := stream(t, c); err != nil {
		t.Fatalf("a slow first event must not stall: %v", err)
	}
	c = New(Options{BaseURL: s.URL + "/v1", Timeout: 150 * time.Millisecond, StallTimeout: 100 * time.Millisecond})
	if _, err := stream(t, c); kindOf(err) != KindTimeout {
		t.Fatalf("err = %v, want the request timeout", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "text/event-stream", 0, done)
	url := s.URL
	s.Close()
	res, err := stream(t, New(Options{BaseURL: url + "/v1", Timeout: time.Second, StallTimeout: time.Second}))
	if kindOf(err) != KindConnect || res.Streamed {
		t.Fatalf("err = %v (%s)", err, kindOf(err))
	}
	// Where it tried, once: "connect to 127.0.0.1:PORT: connection refused".
	if host := strings.TrimPrefix(url, "http://"); !strings.Contains(err.Error(), "connect to "+host+": ") || strings.Contains(err.Error(), "connect: connect") {
		t.Errorf("err = %q, want the address once and no repeated op", err)
	}
}

func TestConnectionCutMidBody(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(contentChunk))
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		_ = conn.Close()
	}))
	t.Cleanup(s.Close)
	res, err := stream(t, client(s))
	if kindOf(err) != KindConnectionLost || res.ContentChunks != 1 {
		t.Fatalf("err = %v (%s), chunks %d", err, kindOf(err), res.ContentChunks)
	}
}

func TestRedirectIsNotFollowedAndKeyNotForwarded(t *testing.T) {
	t.Parallel()
	hits := make(chan string, 2)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- r.Header.Get("Authorization")
	}))
	t.Cleanup(other.Close)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(s.Close)
	c := New(Options{BaseURL: s.URL + "/v1", APIKey: secret.New("sk-secret"), Timeout: time.Second, StallTimeout: time.Second})
	_, err := stream(t, c)
	if kindOf(err) != KindHTTP || !strings.Contains(err.Error(), "redirect not followed") {
		t.Fatalf("err = %v", err)
	}
	select {
	case h := <-hits:
		t.Fatalf("the redirect was followed (Authorization %q)", h)
	default:
	}
}

func TestEventTooLarge(t *testing.T) {
	t.Parallel()
	huge := `data: {"choices":[{"delta":{"content":"` + strings.Repeat("x", 2<<20) + `"}}]}` + "\n\n"
	res, err := stream(t, client(serve(t, 200, "text/event-stream", 0, contentChunk, huge)))
	if kindOf(err) != KindEventTooLarge || res.ContentChunks != 1 {
		t.Fatalf("err = %v (%s)", err, kindOf(err))
	}
}

func TestCaptureIsCappedInCharacters(t *testing.T) {
	t.Parallel()
	var parts []string
	for range 3000 {
		parts = append(parts, `data: {"choices":[{"delta":{"content":"é√x"}}]}`+"\n\n")
	}
	parts = append(parts, finishChunk, done)
	res, err := client(serve(t, 200, "text/event-stream", 0, strings.Join(parts, ""))).Stream(context.Background(), APIChat, []byte(`{}`), 4000)
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Content)); n != CaptureLimit || !res.ContentTruncated || res.ContentChunks != 3000 {
		t.Fatalf("captured %d characters, truncated %v, chunks %d", n, res.ContentTruncated, res.ContentChunks)
	}
}

func TestParentCancellation(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "text/event-stream", time.Second, contentChunk, contentChunk)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := client(s).Stream(ctx, APIChat, []byte(`{}`), 4)
	if kindOf(err) != KindCancelled {
		t.Fatalf("err = %v (%s), want cancelled", err, kindOf(err))
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "application/json", 0, `{"data":[{"id":"a","context_length":8192},{"id":"b","max_model_len":65536}]}`)
	models, err := client(s).Models(context.Background())
	if err != nil || len(models) != 2 || models[0].MaxContextTokens != 8192 || models[1].MaxContextTokens != 65536 {
		t.Fatalf("models %+v err %v", models, err)
	}
}

func TestEndlessStreamIsCutOffPastMaxTokens(t *testing.T) {
	t.Parallel()
	parts := strings.Repeat(contentChunk, 200)
	res, err := client(serve(t, 200, "text/event-stream", 0, parts)).Stream(context.Background(), APIChat, []byte(`{}`), 64)
	if kindOf(err) != KindOverrun || res.ContentChunks != 64+overrunAllowance+1 {
		t.Fatalf("err = %v (%s), %d chunks", err, kindOf(err), res.ContentChunks)
	}
}

func TestInvalidUTF8IsMalformed(t *testing.T) {
	t.Parallel()
	bad := "data: {\"choices\":[{\"delta\":{\"content\":\"co\xff\xfede\"}}]}\n\n"
	_, err := stream(t, client(serve(t, 200, "text/event-stream", 0, contentChunk, bad)))
	if kindOf(err) != KindMalformed || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Fatalf("err = %v", err)
	}
}

// Zero bounds are no bounds, as in net/http: the context alone ends the request.
func TestZeroTimeoutsMeanNone(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "text/event-stream", 30*time.Millisecond, contentChunk, contentChunk, finishChunk, done)
	res, err := New(Options{BaseURL: s.URL + "/v1"}).Stream(context.Background(), APIChat, []byte(`{}`), 16)
	if err != nil || res.ContentChunks != 2 || !res.Terminal {
		t.Fatalf("err = %v, %d chunks, terminal %v", err, res.ContentChunks, res.Terminal)
	}
}

// A key with a line break would split the Authorization header in two (a header of the
// key's choosing); it is refused before anything is sent, without printing the key.
func TestAKeyThatCannotBeAHeaderIsRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(s.Close)
	c := New(Options{BaseURL: s.URL + "/v1", APIKey: secret.New("sk-canary\r\nX-Injected: 1"), Timeout: time.Second, StallTimeout: time.Second})
	_, serr := stream(t, c)
	_, merr := c.Models(context.Background())
	for _, err := range []error{serr, merr} {
		if kindOf(err) != KindTransport || !strings.Contains(fmt.Sprint(err), "line break") || strings.Contains(fmt.Sprint(err), "canary") {
			t.Errorf("err = %v (%s)", err, kindOf(err))
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
