package capacity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/harness/secret"
)

// faultKey is the canary API key of the fault cases: it must appear in no artifact byte.
const faultKey = "sk-anvil-fault-canary-7c3e9a01b2d4f685"

// faultRequests is the size of every fault scenario.
const faultRequests = 3

// faultScenario is the small scenario every fault case runs: 3 requests at concurrency 2,
// 500 planned tokens, 32 strict words, max_tokens 64. Model and window are set so no case
// depends on discovery.
func faultScenario(name string) Scenario {
	return Scenario{
		Name: "faults/" + name, Requests: faultRequests, Concurrency: 2, ContextTokens: 500, ContextSeed: 11,
		MaxContextTokens: refengine.DefaultMaxModelLen, MaxTokens: 64, ResponseWords: 32, Policy: PolicyStrict,
		Model: refengine.DefaultModel, Engine: "anvilbench-refengine", GPU: "none",
	}
}

// startFaultEngine starts a fast reference engine (2 ms prefill, 1 ms ITL, free prefill
// compute) that requires faultKey, with the given faults.
func startFaultEngine(t *testing.T, opts refengine.Options) *refengine.Server {
	t.Helper()
	if opts.PrefillOverhead == 0 {
		opts.PrefillOverhead = 2 * time.Millisecond
	}
	if opts.ITL == 0 {
		opts.ITL = time.Millisecond
	}
	opts.APIKey = faultKey
	s, err := refengine.Start(opts)
	if err != nil {
		t.Fatalf("start engine: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// faultCase is one failure mode and what the artifact must say of it.
type faultCase struct {
	name   string
	faults refengine.Faults
	// engine adjusts the engine options (timing) before Start.
	engine func(o *refengine.Options)
	// endpoint, when set, replaces the reference engine: it returns the base URL to run
	// against and an optional check run after the run.
	endpoint func(t *testing.T, o *refengine.Options) (baseURL string, after func(t *testing.T))
	target   func(tg *Target)
	scenario func(sc *Scenario)

	// wantType is the error_type of every request, "" when every request must succeed.
	wantType, wantClass string
	wantReceived        bool
	wantMessage         []string // substrings of every error_message
	// maxElapsed bounds the whole run (0: only the default bound).
	maxElapsed time.Duration
	check      func(t *testing.T, b *artifact.Benchmark)
	// direct, when set, checks the same endpoint with one stream.Client request.
	direct func(t *testing.T, tg Target)
}

func TestEveryFaultBecomesAFailureRowAndTheArtifactIsWritten(t *testing.T) {
	t.Parallel()
	cases := []faultCase{
		{
			name: "http 400", faults: refengine.Faults{HTTPStatus: 400},
			wantType: "http_error", wantClass: artifact.FailureRequestError,
			wantMessage: []string{"HTTP 400 Bad Request", "Injected fault: 400 Bad Request."},
		},
		{
			name: "http 500", faults: refengine.Faults{HTTPStatus: 500},
			wantType: "http_error", wantClass: artifact.FailureRequestError,
			wantMessage: []string{"HTTP 500 Internal Server Error", "Injected fault: 500 Internal Server Error."},
		},
		{
			name: "http 503", faults: refengine.Faults{HTTPStatus: 503},
			wantType: "http_error", wantClass: artifact.FailureRequestError,
			wantMessage: []string{"HTTP 503 Service Unavailable", "Injected fault: 503 Service Unavailable."},
		},
		{
			name: "http 429", faults: refengine.Faults{HTTPStatus: 429},
			wantType: "http_error", wantClass: artifact.FailureRequestError,
			wantMessage: []string{"HTTP 429 Too Many Requests", "Injected fault: 429 Too Many Requests."},
		},
		{
			name: "connection refused",
			endpoint: func(t *testing.T, o *refengine.Options) (string, func(*testing.T)) {
				s := startFaultEngine(t, *o)
				url := s.BaseURL()
				s.Close()
				return url, nil
			},
			wantType: "connect_error", wantClass: artifact.FailureRequestError,
			wantMessage: []string{"send request: connect", "refused"},
		},
		{
			name: "reset mid-stream", faults: refengine.Faults{ResetAfter: 3},
			wantType: "connection_lost", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"read stream: connection lost after"},
			check:       wantContentChunks(3),
		},
		{
			name: "clean close mid-event", faults: refengine.Faults{CloseMidEvent: 2},
			wantType: "truncated_stream", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"without [DONE] or a finish_reason"},
			check:       wantContentChunks(2),
		},
		{
			name: "malformed chunk", faults: refengine.Faults{MalformedAfter: 2},
			wantType: "malformed_stream", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			// The role chunk, two content chunks, then the malformed one.
			wantMessage: []string{"event 4 is not a JSON chunk"},
			check:       wantContentChunks(2),
		},
		{
			name: "no [DONE] and no finish_reason", faults: refengine.Faults{TruncateAfter: 4},
			wantType: "truncated_stream", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"stream closed after 5 events without [DONE] or a finish_reason"},
			check:       wantContentChunks(4),
		},
		{
			name: "stall longer than the stall timeout", faults: refengine.Faults{StallAfter: 3, StallFor: 8 * time.Second},
			target:   func(tg *Target) { tg.StallTimeout = 200 * time.Millisecond },
			wantType: "stall", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"no bytes for 200ms after 4 events (ANVIL_STALL_TIMEOUT)"},
			// Two rounds of one stall timeout each; far below one StallFor.
			maxElapsed: 4 * time.Second,
			check:      wantContentChunks(3),
		},
		{
			name:   "long prefill with headers at once",
			engine: func(o *refengine.Options) { o.PrefillOverhead = 400 * time.Millisecond },
			target: func(tg *Target) { tg.StallTimeout = 150 * time.Millisecond },
			check:  wantTTFTAtLeast(350),
		},
		{
			name: "long prefill without headers", faults: refengine.Faults{HeadersWithFirstToken: true},
			engine: func(o *refengine.Options) { o.PrefillOverhead = 400 * time.Millisecond },
			target: func(tg *Target) { tg.StallTimeout = 150 * time.Millisecond },
			check:  wantTTFTAtLeast(350),
		},
		{
			name: "endless stream", faults: refengine.Faults{Endless: true},
			wantType: "endless_stream", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"stream sent 81 output chunks, more than max_tokens allows; stopped reading"},
			// Cut after max_tokens + 16 chunks of 1 ms, not at the 10 s request timeout.
			maxElapsed: 4 * time.Second,
			check:      wantContentChunks(81),
		},
		{
			name: "huge event", faults: refengine.Faults{HugeEvent: 2 << 20},
			wantType: "event_too_large", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"an event exceeded 1048576 bytes"},
			check: func(t *testing.T, b *artifact.Benchmark) {
				wantContentChunks(1)(t, b)
				data, err := artifact.Encode(b)
				if err != nil {
					t.Fatal(err)
				}
				// Nothing of the 2 MiB event is kept: not in a message, not in a capture.
				if len(data) > 128<<10 || bytes.Contains(data, bytes.Repeat([]byte{'x'}, 1024)) {
					t.Errorf("the artifact keeps the huge event: %d bytes", len(data))
				}
			},
			direct: func(t *testing.T, tg Target) {
				// The Result keeps what it captured of the stream, not the oversized event.
				c := stream.New(stream.Options{BaseURL: tg.BaseURL, APIKey: tg.APIKey, Timeout: tg.Timeout, StallTimeout: tg.StallTimeout})
				defer c.Close()
				body, err := stream.ChatRequest{Model: refengine.DefaultModel, Prompt: "Reply with exactly 4 words, each the lowercase word \"code\".", MaxTokens: 64}.Body()
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.Stream(context.Background(), stream.APIChat, body, 64)
				var se *stream.Error
				if !errors.As(err, &se) || se.Kind != stream.KindEventTooLarge {
					t.Fatalf("err = %v, want %s", err, stream.KindEventTooLarge)
				}
				if len(res.Content) > 64 || res.ContentChunks != 1 || len(res.Arrivals) != 1 || res.Events != 2 {
					t.Errorf("result keeps %d content bytes, %d chunks, %d arrivals, %d events; want only the first token",
						len(res.Content), res.ContentChunks, len(res.Arrivals), res.Events)
				}
			},
		},
		{
			name: "invalid UTF-8", faults: refengine.Faults{InvalidUTF8: true},
			wantType: "malformed_stream", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"event 2 is not valid UTF-8"},
			check:       wantContentChunks(0),
		},
		{
			name:     "redirect",
			endpoint: redirectEndpoint,
			wantType: "http_error", wantClass: artifact.FailureRequestError,
			wantMessage: []string{"HTTP 307 Temporary Redirect", "redirect not followed"},
		},
		{
			name: "error event", faults: refengine.Faults{ErrorEvent: true},
			wantType: "stream_error", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"server error in stream: engine crashed"},
			check:       wantContentChunks(1),
		},
		{
			name: "no usage", faults: refengine.Faults{NoUsage: true},
			check: func(t *testing.T, b *artifact.Benchmark) {
				for _, r := range b.RequestTimings {
					if r.OutputTokenSource != "content_chunks" || r.OutputTokens != nil || r.PromptTokens != nil ||
						r.TPOTMs != nil || r.DecodeTokS != nil || r.MeanTimePerOutputTokenMs != nil || r.EffectivePrefillTokS != nil {
						t.Errorf("request %d: token figures must be null without usage: %+v", r.RequestIndex, r)
					}
					if r.ContentChunks != 32 { // the end-of-sequence chunk has no text
						t.Errorf("request %d: %d content chunks, want 32", r.RequestIndex, r.ContentChunks)
					}
				}
				m := b.Metrics
				if m.OutputTokens != nil || m.ThroughputTokS != nil || m.TPOT.Samples != 0 || m.OutputTokenSources["content_chunks"] != faultRequests {
					t.Errorf("metrics: output %v throughput %v tpot samples %d sources %v", m.OutputTokens, m.ThroughputTokS, m.TPOT.Samples, m.OutputTokenSources)
				}
				if u := b.Extension.Capabilities.StreamUsage; u != nil && *u {
					t.Error("capabilities.stream_usage must be false without usage")
				}
			},
		},
		{
			name: "finish_reason without [DONE]", faults: refengine.Faults{NoDone: true},
			check: wantUsageTokens(33),
		},
		{
			name: "usage with the finish chunk", faults: refengine.Faults{UsageWithFinish: true},
			check: wantUsageTokens(33),
		},
		{
			name: "reasoning only", faults: refengine.Faults{ReasoningOnly: true},
			wantType: "no_visible_content", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"stream completed without visible content"},
			check: func(t *testing.T, b *artifact.Benchmark) {
				for _, f := range b.Failures {
					m := f.ResponseMetadata
					if m.ReasoningChunks != 64 || m.ContentChunks != 0 || !m.StreamTerminalObserved || len(m.FinishReasons) != 1 || m.FinishReasons[0] != "length" {
						t.Errorf("request %d: metadata %+v", f.RequestIndex, m)
					}
					if f.ResponseTiming.Row != nil {
						t.Errorf("request %d: no timing row can be formed without content: %+v", f.RequestIndex, f.ResponseTiming.Row)
					}
				}
			},
		},
		{
			name: "extra words under strict", faults: refengine.Faults{ExtraWords: 2},
			wantType: "controlled_output_mismatch", wantClass: artifact.FailureControlledOutput, wantReceived: true,
			wantMessage: []string{"32 code words and 2 other words, want exactly 32 code words"},
			check: func(t *testing.T, b *artifact.Benchmark) {
				for _, f := range b.Failures {
					co := f.ControlledOutput
					if co == nil || co.Passed || co.ObservedExtraWords != 2 || co.ObservedCodeWords != 32 || f.ResponseTiming.Row == nil {
						t.Errorf("request %d: controlled output %+v, timing %+v", f.RequestIndex, co, f.ResponseTiming.Row)
					}
				}
			},
		},
		{
			name: "extra words under observe", faults: refengine.Faults{ExtraWords: 2},
			scenario: func(sc *Scenario) { sc.Policy = PolicyObserve },
			check: func(t *testing.T, b *artifact.Benchmark) {
				for _, r := range b.RequestTimings {
					co := r.ControlledOutput
					if co == nil || !co.Passed || co.ExactAdherence == nil || *co.ExactAdherence || co.ObservedExtraWords != 2 {
						t.Errorf("request %d: controlled output %+v", r.RequestIndex, co)
					}
				}
				if rate := b.Metrics.ControlledOutputExactAdherenceRate; b.Metrics.ControlledOutputExactAdherence != 0 || rate == nil || *rate != 0 {
					t.Errorf("adherence %d rate %v, want 0 and 0", b.Metrics.ControlledOutputExactAdherence, rate)
				}
			},
		},
		{
			name:     "server echoes the key in an error body",
			endpoint: echoEndpoint(false),
			wantType: "http_error", wantClass: artifact.FailureRequestError,
			wantMessage: []string{"HTTP 500 Internal Server Error: rejected Bearer " + secret.Redacted},
		},
		{
			name:     "server echoes the key in a stream error",
			endpoint: echoEndpoint(true),
			wantType: "stream_error", wantClass: artifact.FailureStreamValidation, wantReceived: true,
			wantMessage: []string{"server error in stream: rejected Bearer " + secret.Redacted},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runFaultCase(t, c)
		})
	}
}

func runFaultCase(t *testing.T, c faultCase) {
	opts := refengine.Options{Faults: c.faults}
	if c.engine != nil {
		c.engine(&opts)
	}
	var baseURL string
	var after func(*testing.T)
	if c.endpoint != nil {
		baseURL, after = c.endpoint(t, &opts)
	} else {
		engine := startFaultEngine(t, opts)
		baseURL = engine.BaseURL()
		// Every request is sent exactly once: no retry after a 429, a 503 or a cut stream.
		after = func(t *testing.T) {
			if traces := engine.Traces(); len(traces) != faultRequests {
				t.Errorf("the engine saw %d requests, want %d", len(traces), faultRequests)
			}
		}
	}
	tg := Target{BaseURL: baseURL, APIKey: secret.New(faultKey), Timeout: 10 * time.Second, StallTimeout: 2 * time.Second}
	if c.target != nil {
		c.target(&tg)
	}
	sc := faultScenario(c.name)
	if c.scenario != nil {
		c.scenario(&sc)
	}

	began := time.Now()
	got, err := Run(context.Background(), tg, sc)
	elapsed := time.Since(began)
	if err != nil {
		t.Fatalf("a request failure must be a failure row, not a Run error: %v", err)
	}
	maxElapsed := c.maxElapsed
	if maxElapsed == 0 {
		maxElapsed = 8 * time.Second
	}
	if elapsed > maxElapsed {
		t.Errorf("run took %v, want at most %v", elapsed, maxElapsed)
	}
	if after != nil {
		after(t)
	}

	// The artifact is written, exists, holds no key byte and decodes.
	path := filepath.Join(t.TempDir(), "faults", "artifact.json")
	if err := artifact.Write(path, got); err != nil {
		t.Fatalf("write: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the artifact file is missing: %v", err)
	}
	if bytes.Contains(raw, []byte(faultKey)) {
		t.Errorf("the API key appears in the artifact")
	}
	b, err := artifact.Read(path)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if err := Verify(b); err != nil {
		t.Errorf("verify: %v", err)
	}
	if b.Requests != faultRequests || b.Completed != got.Completed || b.Failed != got.Failed || len(b.Failures) != len(got.Failures) {
		t.Errorf("read back %d requests, %d completed, %d failed; ran %d completed, %d failed",
			b.Requests, b.Completed, b.Failed, got.Completed, got.Failed)
	}
	if b.Extension == nil || !b.Extension.Complete || len(b.Extension.Timeline) != faultRequests {
		t.Fatalf("extension %+v: want a complete run with a timeline of every request", b.Extension)
	}

	byType := map[string]int{}
	for _, f := range b.Failures {
		byType[f.ErrorType]++
	}
	if c.wantType == "" {
		if b.Completed != faultRequests || b.Failed != 0 {
			t.Fatalf("completed %d failed %d, want every request to succeed: %v", b.Completed, b.Failed, byType)
		}
		if !b.PerformanceEligible || b.ResponsesReceived != faultRequests {
			t.Errorf("performance eligible %t, responses received %d", b.PerformanceEligible, b.ResponsesReceived)
		}
	} else {
		if b.Completed != 0 || b.Failed != faultRequests || byType[c.wantType] != faultRequests {
			t.Fatalf("completed %d failed %d by type %v, want %d x %s", b.Completed, b.Failed, byType, faultRequests, c.wantType)
		}
		if b.PerformanceEligible || b.Metrics.ThroughputTokS != nil || b.Metrics.TTFT.Samples != 0 {
			t.Errorf("a failed population must have no figures: eligible %t throughput %v ttft samples %d",
				b.PerformanceEligible, b.Metrics.ThroughputTokS, b.Metrics.TTFT.Samples)
		}
		received := 0
		if c.wantReceived {
			received = faultRequests
		}
		if b.ResponsesReceived != received {
			t.Errorf("responses received %d, want %d", b.ResponsesReceived, received)
		}
	}
	for _, f := range b.Failures {
		checkFailureRow(t, c, f)
	}
	for i, s := range b.Extension.Timeline {
		want := c.wantType
		if want == "" {
			want = "ok"
		}
		if s.RequestIndex != i || s.Outcome != want {
			t.Errorf("timeline %d: index %d outcome %q, want %q", i, s.RequestIndex, s.Outcome, want)
		}
	}
	if c.check != nil {
		c.check(t, b)
	}
	if c.direct != nil {
		c.direct(t, tg)
	}
}

// checkFailureRow holds one failure to the case: type, class, whether a response arrived,
// and a non-empty, sanitized, bounded message with the expected text.
func checkFailureRow(t *testing.T, c faultCase, f artifact.Failure) {
	t.Helper()
	if f.ErrorType != c.wantType || f.FailureClass != c.wantClass || f.ResponseReceived != c.wantReceived {
		t.Errorf("request %d: type %q class %q received %t, want %q %q %t (message %q)",
			f.RequestIndex, f.ErrorType, f.FailureClass, f.ResponseReceived, c.wantType, c.wantClass, c.wantReceived, f.ErrorMessage)
	}
	msg := f.ErrorMessage
	if msg == "" || msg == "<empty error message>" || !utf8.ValidString(msg) || f.ErrorMessageTruncated ||
		utf8.RuneCountInString(msg) > maxErrorMessageCharacters || strings.Contains(msg, faultKey) {
		t.Errorf("request %d: message %q (truncated %t) is not a sanitized diagnosis", f.RequestIndex, msg, f.ErrorMessageTruncated)
	}
	for _, want := range c.wantMessage {
		if !strings.Contains(msg, want) {
			t.Errorf("request %d: message %q lacks %q", f.RequestIndex, msg, want)
		}
	}
	if f.ElapsedMs == nil || *f.ElapsedMs < 0 || f.PlannedContextTokens == nil || *f.PlannedContextTokens != 500 {
		t.Errorf("request %d: elapsed %v planned %v", f.RequestIndex, f.ElapsedMs, f.PlannedContextTokens)
	}
	// A stream that was read keeps its metadata and a timing entry; a request that got none
	// has neither key.
	if (f.ResponseMetadata != nil) != c.wantReceived || f.ResponseTiming.Present != c.wantReceived {
		t.Errorf("request %d: metadata %+v timing present %t, want both present = %t",
			f.RequestIndex, f.ResponseMetadata, f.ResponseTiming.Present, c.wantReceived)
	}
	// A stream cut or broken on the wire never reached [DONE].
	if f.ResponseMetadata != nil && f.ResponseMetadata.StreamTerminalObserved && c.wantClass == artifact.FailureStreamValidation && c.wantType != "no_visible_content" {
		t.Errorf("request %d: a broken stream saw [DONE]", f.RequestIndex)
	}
}

// wantContentChunks checks that every failed stream counted n content chunks before it failed.
func wantContentChunks(n int) func(*testing.T, *artifact.Benchmark) {
	return func(t *testing.T, b *artifact.Benchmark) {
		t.Helper()
		for _, f := range b.Failures {
			if m := f.ResponseMetadata; m == nil || m.ContentChunks != n {
				t.Errorf("request %d: metadata %+v, want %d content chunks", f.RequestIndex, m, n)
			}
		}
	}
}

// wantTTFTAtLeast checks that every request succeeded after a prefill of at least ms.
func wantTTFTAtLeast(ms float64) func(*testing.T, *artifact.Benchmark) {
	return func(t *testing.T, b *artifact.Benchmark) {
		t.Helper()
		for _, r := range b.RequestTimings {
			if float64(r.TTFTMs) < ms {
				t.Errorf("request %d: ttft %v ms, want the long prefill (>= %v ms)", r.RequestIndex, r.TTFTMs, ms)
			}
		}
	}
}

// wantUsageTokens checks that every success counted n output tokens from usage.
func wantUsageTokens(n int) func(*testing.T, *artifact.Benchmark) {
	return func(t *testing.T, b *artifact.Benchmark) {
		t.Helper()
		for _, r := range b.RequestTimings {
			if r.OutputTokenSource != "usage" || r.OutputTokens == nil || *r.OutputTokens != n || r.TPOTMs == nil || r.PromptTokens == nil {
				t.Errorf("request %d: source %q output %v tpot %v prompt %v, want %d usage tokens",
					r.RequestIndex, r.OutputTokenSource, r.OutputTokens, r.TPOTMs, r.PromptTokens, n)
			}
		}
		if b.Metrics.OutputTokens == nil || *b.Metrics.OutputTokens != n*faultRequests || b.Metrics.ThroughputTokS == nil {
			t.Errorf("metrics output %v throughput %v", b.Metrics.OutputTokens, b.Metrics.ThroughputTokS)
		}
	}
}

// redirectEndpoint is an engine whose every request is redirected to another server, which
// records whether it was hit and with which Authorization header.
func redirectEndpoint(t *testing.T, o *refengine.Options) (string, func(*testing.T)) {
	var mu sync.Mutex
	var hits []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.Method+" "+r.URL.Path+" Authorization="+r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "not here", http.StatusTeapot)
	}))
	t.Cleanup(other.Close)
	o.Faults.Redirect = other.URL + "/v1/chat/completions"
	s := startFaultEngine(t, *o)
	return s.BaseURL(), func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		if len(hits) > 0 {
			t.Errorf("the redirect was followed %d times: %q", len(hits), hits)
		}
		for _, h := range hits {
			if strings.Contains(h, faultKey) {
				t.Errorf("the API key was sent to the redirect target: %q", h)
			}
		}
	}
}

// echoEndpoint is a misbehaving server that quotes the request's Authorization header back
// in its error: as an HTTP 500 body, or (stream) as an error object inside a 200 stream.
func echoEndpoint(stream bool) func(t *testing.T, o *refengine.Options) (string, func(*testing.T)) {
	return func(t *testing.T, _ *refengine.Options) (string, func(*testing.T)) {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			msg := fmt.Sprintf(`{"error":{"message":"rejected %s","code":500}}`, r.Header.Get("Authorization"))
			if !stream {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(msg))
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: " + msg + "\n\n"))
		}))
		t.Cleanup(s.Close)
		return s.URL + "/v1", nil
	}
}

// TestAKeyStraddlingTheMessageClipDoesNotLeak: a server quoting the key at the end of a long
// error message. stream.clip cuts the server's text at 1024 bytes before capacity's
// sanitizer looks for the key, so a key that straddles the cut escapes redaction and its
// first half lands in the artifact.
func TestAKeyStraddlingTheMessageClipDoesNotLeak(t *testing.T) {
	t.Parallel()
	half := len(faultKey) / 2
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization") // "Bearer <key>"
		pad := strings.Repeat("p", 1024-len("Bearer ")-half)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"%s%s","code":500}}`, pad, auth)
	}))
	t.Cleanup(s.Close)
	tg := Target{BaseURL: s.URL + "/v1", APIKey: secret.New(faultKey), Timeout: 5 * time.Second, StallTimeout: time.Second}
	sc := faultScenario("clipped key")
	sc.Requests = 1
	b, err := Run(context.Background(), tg, sc)
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed != 1 || b.Failures[0].ErrorType != "http_error" {
		t.Fatalf("failures %+v", b.Failures)
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := artifact.Write(path, b); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(faultKey[:half])) {
		t.Fatalf("the first %d characters of the API key appear in the artifact: ...%s", half, b.Failures[0].ErrorMessage[len(b.Failures[0].ErrorMessage)-40:])
	}
}
