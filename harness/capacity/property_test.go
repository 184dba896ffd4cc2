package capacity

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// propFault is one fault the property proxy may inject, with the outcome it implies.
type propFault struct {
	header         string // the X-Anvil-Faults value; "" sends none
	errType, class string // "" for a success
}

var propFaults = []propFault{
	{"", "", ""},
	{"http_status=503", "http_error", artifact.FailureRequestError},
	{"reset_after=3", "connection_lost", artifact.FailureStreamValidation},
	{"close_mid_event=2", "truncated_stream", artifact.FailureStreamValidation},
	{"malformed_after=2", "malformed_stream", artifact.FailureStreamValidation},
	{"truncate_after=4", "truncated_stream", artifact.FailureStreamValidation},
	{"extra_words=1", "controlled_output_mismatch", artifact.FailureControlledOutput},
	{"error_event=1", "stream_error", artifact.FailureStreamValidation},
	{"no_done=1", "", ""},
}

// requestLine finds "# anvil request <seed>:<index>" in a chat body (see workload.Prompts).
var requestLine = regexp.MustCompile(`# anvil request (-?\d+):(\d+)`)

// faultProxy is a reverse proxy in front of engine that injects plan[i] into the request of
// index i of the run with seed, and counts how often each index was sent.
type faultProxy struct {
	*httptest.Server
	mu   sync.Mutex
	sent map[int]int
	bad  []string
}

func startFaultProxy(t *testing.T, engine string, seed int64, plan []propFault) *faultProxy {
	t.Helper()
	up, err := url.Parse(engine)
	if err != nil {
		t.Fatal(err)
	}
	transport := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 16}
	t.Cleanup(transport.CloseIdleConnections)
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.Transport, rp.FlushInterval = transport, -1
	rp.ErrorLog = log.New(io.Discard, "", 0) // a reset upstream is expected, not news
	p := &faultProxy{sent: map[int]int{}}
	p.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions") {
			body, err := io.ReadAll(r.Body)
			m := requestLine.FindSubmatch(body)
			var i int
			if m != nil {
				i, _ = strconv.Atoi(string(m[2]))
			}
			if err != nil || m == nil || string(m[1]) != strconv.FormatInt(seed, 10) || i >= len(plan) {
				p.mu.Lock()
				p.bad = append(p.bad, fmt.Sprintf("request without a line of seed %d: %.80q (%v)", seed, body, err))
				p.mu.Unlock()
				http.Error(w, "no request line", http.StatusBadRequest)
				return
			}
			p.mu.Lock()
			p.sent[i]++
			p.mu.Unlock()
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			if h := plan[i].header; h != "" {
				r.Header.Set(refengine.FaultsHeader, h)
			}
		}
		rp.ServeHTTP(w, r)
	}))
	p.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.Start()
	t.Cleanup(p.Close)
	return p
}

// propPlan draws the fault of every request index from a generator seeded by seed.
func propPlan(seed int64, n int) []propFault {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x616e76696c))
	plan := make([]propFault, n)
	for i := range plan {
		plan[i] = propFaults[rng.IntN(len(propFaults))]
	}
	return plan
}

// indexCounts counts each request index across request_timings and failures.
func indexCounts(b *artifact.Benchmark) map[int]int {
	seen := map[int]int{}
	for _, r := range b.RequestTimings {
		seen[r.RequestIndex]++
	}
	for _, f := range b.Failures {
		seen[f.RequestIndex]++
	}
	return seen
}

func checkEveryIndexOnce(t *testing.T, b *artifact.Benchmark, n int) {
	t.Helper()
	seen := indexCounts(b)
	for i := range n {
		if seen[i] != 1 {
			t.Errorf("request %d appears %d times across request_timings and failures", i, seen[i])
		}
	}
	if len(seen) != n || b.Requests != n || b.Completed+b.Failed != n {
		t.Errorf("%d distinct indices, requests %d, completed %d + failed %d; want %d", len(seen), b.Requests, b.Completed, b.Failed, n)
	}
}

// TestNothingIsLostUnderRandomFaults: whatever mix of faults a run meets, every request index
// ends exactly once, with the error type its fault implies, and the artifact verifies and
// survives an encode/decode round trip.
func TestNothingIsLostUnderRandomFaults(t *testing.T) {
	t.Parallel()
	const seeds, n = 8, 24
	engine, err := refengine.Start(refengine.Options{PrefillOverhead: 2 * time.Millisecond, ITL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)

	var mu sync.Mutex
	drawn := map[string]int{}
	t.Run("seeds", func(t *testing.T) {
		for seed := int64(1); seed <= seeds; seed++ {
			t.Run("seed="+strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				plan := propPlan(seed, n)
				mu.Lock()
				for _, f := range plan {
					drawn[f.header]++
				}
				mu.Unlock()
				proxy := startFaultProxy(t, engine.URL, seed, plan)
				sc := Scenario{
					Name: "property/nothing-lost", Requests: n, Concurrency: 6, ContextTokens: 500, ContextSeed: seed,
					MaxTokens: 64, ResponseWords: 32, Policy: PolicyStrict,
				}
				tg := Target{BaseURL: proxy.URL + "/v1", Timeout: 10 * time.Second, StallTimeout: 2 * time.Second}
				b, err := Run(context.Background(), tg, sc)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				proxy.mu.Lock()
				for _, bad := range proxy.bad {
					t.Errorf("proxy: %s", bad)
				}
				for i := range n {
					if proxy.sent[i] != 1 {
						t.Errorf("request %d was sent %d times, want once (no retries)", i, proxy.sent[i])
					}
				}
				proxy.mu.Unlock()

				checkEveryIndexOnce(t, b, n)
				if err := Verify(b); err != nil {
					t.Errorf("verify: %v", err)
				}
				checkOutcomes(t, b, plan)

				data, err := artifact.Encode(b)
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				back, err := artifact.Decode(data)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if back.Requests != b.Requests || back.Completed != b.Completed || back.Failed != b.Failed ||
					len(back.RequestTimings) != len(b.RequestTimings) || len(back.Failures) != len(b.Failures) ||
					back.ResponsesReceived != b.ResponsesReceived {
					t.Errorf("round trip: requests %d/%d completed %d/%d failed %d/%d rows %d/%d failures %d/%d received %d/%d",
						back.Requests, b.Requests, back.Completed, b.Completed, back.Failed, b.Failed,
						len(back.RequestTimings), len(b.RequestTimings), len(back.Failures), len(b.Failures),
						back.ResponsesReceived, b.ResponsesReceived)
				}
				checkEveryIndexOnce(t, back, n)
				if err := Verify(back); err != nil {
					t.Errorf("verify after the round trip: %v", err)
				}
			})
		}
	})
	// The seeds must exercise every fault, or the property proves less than it claims.
	for _, f := range propFaults {
		if drawn[f.header] == 0 {
			t.Errorf("no seed drew fault %q", f.header)
		}
	}
}

// checkOutcomes holds each request index to the outcome its fault implies.
func checkOutcomes(t *testing.T, b *artifact.Benchmark, plan []propFault) {
	t.Helper()
	succeeded := map[int]bool{}
	for _, r := range b.RequestTimings {
		succeeded[r.RequestIndex] = true
		if f := plan[r.RequestIndex]; f.errType != "" {
			t.Errorf("request %d with fault %q succeeded, want %s", r.RequestIndex, f.header, f.errType)
		}
	}
	for _, fl := range b.Failures {
		f := plan[fl.RequestIndex]
		if fl.ErrorType != f.errType || fl.FailureClass != f.class {
			t.Errorf("request %d with fault %q failed as %s/%s, want %s/%s: %s",
				fl.RequestIndex, f.header, fl.ErrorType, fl.FailureClass, f.errType, f.class, fl.ErrorMessage)
		}
		if fl.ErrorMessage == "" {
			t.Errorf("request %d: empty error message", fl.RequestIndex)
		}
	}
	wantOK := 0
	for _, f := range plan {
		if f.errType == "" {
			wantOK++
		}
	}
	if len(succeeded) != wantOK {
		t.Errorf("%d successes, the plan implies %d", len(succeeded), wantOK)
	}
	if b.Extension != nil {
		for i, s := range b.Extension.Timeline {
			want := plan[i].errType
			if want == "" {
				want = "ok"
			}
			if s.Outcome != want {
				t.Errorf("timeline %d: outcome %q, want %q", i, s.Outcome, want)
			}
		}
	}
}

// TestCancellationLosesNoRequest: a run cancelled at any moment still ends every request
// index exactly once; those it cut or never sent are "cancelled", and the run is marked
// incomplete.
func TestCancellationLosesNoRequest(t *testing.T) {
	t.Parallel()
	const n = 40
	// delay < 0 cancels before Run is called. Every request takes at least 2 ms + 32 x 5 ms
	// of engine time, so 8 workers start at most 32 requests in the first 640 ms: any delay
	// below 600 ms cancels a run that is not over and leaves at least 8 requests unsent.
	for seed := int64(0); seed <= 6; seed++ {
		delay := time.Duration(rand.New(rand.NewPCG(uint64(seed), 7)).IntN(600)) * time.Millisecond
		if seed == 0 {
			delay = -1
		}
		t.Run(fmt.Sprintf("seed=%d/cancel=%v", seed, delay), func(t *testing.T) {
			t.Parallel()
			engine, err := refengine.Start(refengine.Options{PrefillOverhead: 2 * time.Millisecond, ITL: 5 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(engine.Close)
			sc := Scenario{
				Name: "property/cancel", Requests: n, Concurrency: 8, ContextTokens: 500, ContextSeed: seed,
				MaxContextTokens: refengine.DefaultMaxModelLen, Model: refengine.DefaultModel,
				MaxTokens: 64, ResponseWords: 32, Policy: PolicyStrict,
			}
			tg := Target{BaseURL: engine.BaseURL(), Timeout: 10 * time.Second, StallTimeout: 2 * time.Second}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if delay < 0 {
				cancel()
			} else {
				timer := time.AfterFunc(delay, cancel)
				defer timer.Stop()
			}
			began := time.Now()
			b, err := Run(ctx, tg, sc)
			elapsed := time.Since(began)
			if err != nil {
				t.Fatalf("a cancelled run must still yield its artifact: %v", err)
			}
			if over := elapsed - max(delay, 0); over > 3*time.Second {
				t.Errorf("run returned %v after the cancel", over)
			}
			checkEveryIndexOnce(t, b, n)
			if err := Verify(b); err != nil {
				t.Errorf("verify: %v", err)
			}
			if b.Extension == nil || b.Extension.Complete {
				t.Fatalf("an interrupted run must be marked incomplete: %+v", b.Extension)
			}
			unsent := 0
			for _, f := range b.Failures {
				span := b.Extension.Timeline[f.RequestIndex]
				if f.ErrorType != "cancelled" || !strings.Contains(f.ErrorMessage, "cancel") && !strings.Contains(f.ErrorMessage, "interrupted") {
					t.Errorf("request %d: %s/%s %q, want cancelled", f.RequestIndex, f.ErrorType, f.FailureClass, f.ErrorMessage)
				}
				if span.StartOffsetMs == nil {
					unsent++
					if f.FailureClass != artifact.FailureRequestError || f.ResponseReceived || !strings.Contains(f.ErrorMessage, "not sent: run interrupted") {
						t.Errorf("never-sent request %d: %s received %t %q", f.RequestIndex, f.FailureClass, f.ResponseReceived, f.ErrorMessage)
					}
				}
			}
			for _, r := range b.RequestTimings {
				if span := b.Extension.Timeline[r.RequestIndex]; span.StartOffsetMs == nil || span.Outcome != "ok" {
					t.Errorf("success %d: timeline %+v", r.RequestIndex, span)
				}
			}
			if delay < 0 && (unsent != n || b.Completed != 0) {
				t.Errorf("cancelled before the run: %d unsent, %d completed; want all %d unsent", unsent, b.Completed, n)
			}
			if unsent < 8 {
				t.Errorf("%d requests never sent, want at least 8 after a cancel at %v", unsent, delay)
			}
			if _, err := artifact.Encode(b); err != nil {
				t.Errorf("encode: %v", err)
			}
			t.Logf("cancel at %v: %d completed, %d cancelled (%d never sent), run %v", delay, b.Completed, b.Failed, unsent, elapsed.Round(time.Millisecond))
		})
	}
}
