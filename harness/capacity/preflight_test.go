package capacity

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

func TestPreflight(t *testing.T) {
	t.Parallel()
	s, err := refengine.Start(refengine.Options{Model: "llama3:latest", Aliases: []string{"llama3"}, MaxModelLen: 16384, ITL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	target := Target{BaseURL: s.BaseURL(), Timeout: 10 * time.Second}
	ctx := context.Background()

	ep, err := Preflight(ctx, target, PreflightOptions{})
	if err != nil || ep.Model != "llama3:latest" || ep.Alias || ep.Window != 16384 || ep.WindowSource != "/v1/models" {
		t.Errorf("the first listed model: %+v %v", ep, err)
	}
	ep, err = Preflight(ctx, target, PreflightOptions{Model: "llama3"})
	if err != nil || ep.Model != "llama3" || !ep.Alias {
		t.Errorf("an alias the engine serves but does not list: %+v %v", ep, err)
	}
	before := s.Requests()
	_, err = Preflight(ctx, target, PreflightOptions{Model: "llama4"})
	want := `model "llama4" is not served: GET /models lists llama3:latest, and a one-token request for it was refused: HTTP 404`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a model the engine refuses: %v\nwant %s", err, want)
	}
	if n := s.Requests() - before; n != 1 {
		t.Errorf("the refused model took %d requests, want one probe", n)
	}
	for _, misspelt := range []string{"llama3:latst", "lama3", "lama3:latest"} {
		_, err = Preflight(ctx, target, PreflightOptions{Model: misspelt})
		if err == nil || !strings.HasSuffix(err.Error(), `; did you mean "llama3:latest"?`) {
			t.Errorf("a misspelt model %q: %v", misspelt, err)
		}
	}
	// The base URL without /v1: named as such, whether a model is named or not.
	root := Target{BaseURL: strings.TrimSuffix(s.BaseURL(), "/v1"), Timeout: 10 * time.Second}
	for _, model := range []string{"", "llama3:latest"} {
		_, err = Preflight(ctx, root, PreflightOptions{Model: model})
		if want := "does not end in /v1, where OpenAI-compatible engines serve (ANVIL_BASE_URL=" + s.BaseURL() + "?)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("model %q at a base URL without /v1: %v\nwant %s", model, err, want)
		}
	}
	ep, err = Preflight(ctx, target, PreflightOptions{Model: "llama3:latest", Window: 8192})
	if err != nil || ep.Window != 8192 || ep.WindowSource != WindowConfigured {
		t.Errorf("a configured window: %+v %v", ep, err)
	}

	addr := s.BaseURL()
	s.Close()
	if _, err := Preflight(ctx, Target{BaseURL: addr, Timeout: 2 * time.Second}, PreflightOptions{Model: "x"}); err == nil || !strings.Contains(err.Error(), "endpoint unreachable at "+addr+" ") {
		t.Errorf("a closed port: %v", err)
	}
}

// A fixed plan the window cannot hold is refused before any request, naming the window,
// its source and the largest plan that fits; a scenario that clamps runs at the window and
// says so.
func TestAFixedPlanOverTheWindow(t *testing.T) {
	t.Parallel()
	s, err := refengine.Start(refengine.Options{MaxModelLen: 16384, ITL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	target := Target{BaseURL: s.BaseURL(), Timeout: 30 * time.Second}
	sc := Scenario{Requests: 2, Concurrency: 1, ContextTokens: 20000, MaxTokens: 64, ResponseWords: 32, ContextMargin: 1024}
	_, err = Run(context.Background(), target, sc)
	want := "a 20000-token context does not fit the served window of 16384 tokens (from /v1/models): after max_tokens 64 and the margin of 1024, the largest plan that fits is 15296 tokens"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("%d requests sent before the refusal", n)
	}
	var progress strings.Builder
	sc.ClampToWindow, sc.Progress = true, &progress
	run, err := Run(context.Background(), target, sc)
	if err != nil {
		t.Fatal(err)
	}
	c := run.Extension.ContextClamp
	if c == nil || c.Requests != 2 || c.LargestPlanned != 20000 || c.MaxPromptTokens != 15296 || c.Window != 16384 {
		t.Fatalf("clamp %+v", c)
	}
	if !strings.Contains(progress.String(), "context plan clamped: 2 of 2 requests planned up to 20000 tokens run at 15296") {
		t.Errorf("the clamp was not printed: %q", progress.String())
	}
}

// An engine that lists several models, in an order it need not keep, has none picked for
// it: the preflight and a run both ask for one, naming what it lists.
func TestSeveralModelsAndNoneNamed(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"tiny-llama:latest"},{"id":"tiny-llama-fast:latest"},{"id":"tiny-llama:latest"}]}`))
	}))
	defer s.Close()
	target := Target{BaseURL: s.URL + "/v1", Timeout: 10 * time.Second}
	want := "no model to request: GET /models lists 2, tiny-llama:latest, tiny-llama-fast:latest, and which one to measure is not said"
	if _, err := Preflight(context.Background(), target, PreflightOptions{}); err == nil || err.Error() != want+"; name one (ANVIL_MODEL)" {
		t.Errorf("preflight: %v", err)
	}
	sc := referenceScenario()
	sc.Requests, sc.ContextTokens = 1, 500
	if _, err := Run(context.Background(), target, sc); err == nil || !strings.Contains(err.Error(), want+"; name one in the scenario") {
		t.Errorf("run: %v", err)
	}
}

// An engine that lists its model and never answers a completion fails the preflight within
// its deadline, naming the step it never passed: no response, a response and no event, an
// event and no token. One that never answers GET /models is named too.
func TestAnEngineThatNeverAnswersFailsThePreflightFast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		how  string
		want string
	}{
		{"silent", "model \"m\" is listed, but did not answer a one-token request within 300ms (ANVIL_PROBE_TIMEOUT): the connection and the request were taken, but no response came (no HTTP status)"},
		{"headers", "a response came (HTTP 200, a stream), but no event"},
		{"role", "a response came (HTTP 200) and 1 events, but no token"},
		{"models", "took the connection but did not answer GET /models within 300ms (ANVIL_PROBE_TIMEOUT)"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // so that the server notices the client leave
			hang := func() {
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			}
			if strings.HasSuffix(r.URL.Path, "/models") {
				if c.how == "models" {
					hang()
					return
				}
				w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
				return
			}
			if c.how != "silent" {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				if c.how == "role" {
					w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n"))
				}
				w.(http.Flusher).Flush()
			}
			hang()
		}))
		began := time.Now()
		_, err := Preflight(context.Background(), Target{BaseURL: srv.URL + "/v1", Timeout: time.Minute}, PreflightOptions{Model: "m", ProbeTimeout: 300 * time.Millisecond})
		took := time.Since(began)
		srv.CloseClientConnections()
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) || took > 5*time.Second {
			t.Errorf("%s: after %v: %v\nwant %s", c.how, took, err, c.want)
		}
	}
}
