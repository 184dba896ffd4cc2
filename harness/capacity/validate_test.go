package capacity

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/internal/fields"
)

func validScenario() Scenario {
	return Scenario{Requests: 4, Concurrency: 2, ContextTokens: 1000, MaxTokens: 64, ResponseWords: 32}
}

func TestValidateAcceptsTheZeroEnumsAndAValidScenario(t *testing.T) {
	t.Parallel()
	if err := validScenario().Validate(); err != nil {
		t.Fatalf("valid scenario: %v", err)
	}
	if err := referenceScenario().Validate(); err != nil {
		t.Fatalf("reference scenario: %v", err)
	}
	burst := validScenario()
	burst.Burst, burst.Requests, burst.Concurrency, burst.PromptCacheMode = 8, 0, 0, CacheShared
	if err := burst.Validate(); err != nil {
		t.Fatalf("a burst's concurrency follows its requests: %v", err)
	}
}

func TestValidateReportsEveryProblemWithItsField(t *testing.T) {
	t.Parallel()
	nan, hot := math.NaN(), 3.0
	sc := Scenario{
		Requests: -1, Concurrency: 0, ContextTokens: 16, MaxTokens: 0, ResponseWords: 32,
		Policy: "loose", PromptCacheMode: "sticky", ThinkingMode: "maybe", ReasoningEffort: "extreme",
		Arrival: "bursty", CacheIntent: "lukewarm", Temperature: &hot, TopP: &nan, RequestRate: -2,
		ContextMargin: -5, ClockDomainID: "has space", RequestCanaries: true,
	}
	err := sc.Validate()
	invalid, rest := fields.Errors(err)
	if len(rest) != 0 {
		t.Fatalf("errors other than fields.FieldError: %v", rest)
	}
	got := map[string]string{}
	for _, f := range invalid {
		got[f.Field] += f.Error() + "\n"
	}
	for field, want := range map[string]string{
		"Requests":        "Requests=-1: out of range (want 1..10000)",
		"Concurrency":     "Concurrency=0: out of range (want 1..1024)",
		"ContextTokens":   "ContextTokens=16: too small",
		"ContextMargin":   "ContextMargin=-5: out of range (want 0..1048576)",
		"MaxTokens":       "MaxTokens=0: out of range (want 1..65536)",
		"Policy":          `Policy="loose": unknown value (want strict or observe)`,
		"PromptCacheMode": `PromptCacheMode="sticky": unknown value (want unique or shared)`,
		"ThinkingMode":    `ThinkingMode="maybe": unknown value (want default, enabled, disabled or unsupported)`,
		"ReasoningEffort": `ReasoningEffort="extreme": unknown value`,
		"Arrival":         `Arrival="bursty": unknown value (want poisson or constant)`,
		"CacheIntent":     `CacheIntent="lukewarm": unknown intent`,
		"Temperature":     "Temperature=3: out of range (want a number in [0, 2])",
		"TopP":            "TopP=NaN: out of range",
		"RequestRate":     "RequestRate=-2: out of range",
		"ClockDomainID":   `ClockDomainID="has space"`,
		"RequestCanaries": "RequestCanaries: needs MaxTokens >= 16 (got 0)",
	} {
		if !strings.Contains(got[field], want) {
			t.Errorf("%s: got %q, want %q", field, got[field], want)
		}
	}
	if len(invalid) != 16 {
		t.Errorf("%d problems, want 16:\n%v", len(invalid), err)
	}
}

func TestRenderNamesFieldsTheFrontEndsWay(t *testing.T) {
	t.Parallel()
	sc := validScenario()
	sc.MaxContextTokens = 50
	invalid, _ := fields.Errors(sc.Validate())
	if len(invalid) != 1 {
		t.Fatalf("fields %v", invalid)
	}
	env := invalid[0].Render(func(f string) string { return "ANVIL_" + strings.ToUpper(fields.KeyOf(reflect.TypeFor[Scenario](), f)) })
	if want := "ANVIL_MAX_CONTEXT_TOKENS=50: must exceed ANVIL_MAX_TOKENS + ANVIL_CONTEXT_MARGIN (64)"; env != want {
		t.Errorf("rendered %q, want %q", env, want)
	}
	file := invalid[0].Render(func(f string) string { return "scenarios[2]." + fields.KeyOf(reflect.TypeFor[Scenario](), f) })
	if want := "scenarios[2].max_context_tokens=50: must exceed scenarios[2].max_tokens + scenarios[2].context_margin (64)"; file != want {
		t.Errorf("rendered %q, want %q", file, want)
	}
}

func TestTargetValidateNeverEchoesTheURL(t *testing.T) {
	t.Parallel()
	err := Target{BaseURL: "http://user:hunter2@host/v1?x=1", Timeout: -time.Second, StallTimeout: 2 * time.Hour}.Validate()
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"BaseURL: must not carry a query", "Timeout=-1s: out of range", "StallTimeout=2h0m0s: out of range"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if err := (Target{}).Validate(); err == nil || !strings.Contains(err.Error(), "BaseURL: empty") {
		t.Errorf("an empty target: %v", err)
	}
}

// Run refuses what it cannot run with an error, before any request: no panic (an empty
// plan once panicked in calibration) and no index left without an outcome.
func TestRunRefusesAnInvalidScenarioBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.Error(w, "no request was expected", http.StatusTeapot)
	}))
	defer srv.Close()
	counted := Target{BaseURL: srv.URL + "/v1"}
	for name, change := range map[string]func(*Scenario){
		"zero requests with calibration": func(sc *Scenario) { sc.Requests, sc.Calibrate = 0, true },
		"negative requests":              func(sc *Scenario) { sc.Requests = -3 },
		"zero concurrency":               func(sc *Scenario) { sc.Concurrency = 0 },
		"negative concurrency":           func(sc *Scenario) { sc.Concurrency = -1 },
		"a negative burst":               func(sc *Scenario) { sc.Burst = -1 },
		"an unknown arrival":             func(sc *Scenario) { sc.RequestRate, sc.Arrival = 5, Arrival("fast") },
	} {
		sc := validScenario()
		change(&sc)
		b, err := Run(context.Background(), counted, sc)
		if err == nil || b != nil {
			t.Errorf("%s: artifact %v, err %v", name, b != nil, err)
			continue
		}
		var fe *fields.FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v is not a fields.FieldError", name, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
	if _, err := Run(context.Background(), Target{}, validScenario()); err == nil || !strings.Contains(err.Error(), "BaseURL") {
		t.Errorf("an empty target: %v", err)
	}
}

// What the run never asked stays unknown (null), not false.
func TestCapabilitiesNotAskedAreNull(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{})
	sc := validScenario()
	sc.Model, sc.MaxContextTokens = refengine.DefaultModel, 65536
	b := mustRun(t, target(s), sc)
	c := b.Extension.Capabilities
	if c.ModelsEndpoint != nil || c.Tokenize != nil || c.MaxContextSource == nil || *c.MaxContextSource != WindowConfigured {
		t.Errorf("model and window configured, no calibration: %+v", c)
	}
	if c.StreamUsage == nil || !*c.StreamUsage || c.ReasoningStream == nil || *c.ReasoningStream {
		t.Errorf("observed from the streams: %+v", c)
	}

	sc = validScenario()
	sc.Calibrate = true
	b = mustRun(t, target(s), sc)
	c = b.Extension.Capabilities
	if c.ModelsEndpoint == nil || !*c.ModelsEndpoint || c.Tokenize == nil || !*c.Tokenize || c.MaxContextSource == nil || *c.MaxContextSource != "/v1/models" {
		t.Errorf("discovered: %+v", c)
	}
}

// The engine's own metrics are scraped around the run: against the reference engine's
// vLLM-named /metrics, the client's TTFT p50 must agree with the server's histogram within
// the width of the median's bucket.
func TestEngineMetricsAgreeWithTheClient(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{PrefillOverhead: 30 * time.Millisecond, ITL: 2 * time.Millisecond})
	sc := validScenario()
	sc.Requests, sc.Concurrency = 12, 4
	stamped := target(s)
	stamped.TransmitStamps = true
	b := mustRun(t, stamped, sc)
	m := b.Extension.EngineMetrics
	if !m.Scraped || m.TTFTMs == nil || m.TTFTMs.Count != 12 || m.InterTokenMs == nil || m.E2EMs == nil || m.QueueMs == nil ||
		m.PrefillMs == nil || m.PrefillMs.Count != 12 || m.DecodeMs == nil || m.DecodeMs.Count != 12 {
		t.Fatalf("engine metrics %+v", m)
	}
	// The run-level split is the engine's per-request one, binned: its prefill histogram's
	// median bucket holds the median of what each request stated.
	if p := b.Extension.Phases; p == nil || p.PrefillMs == nil || float64(p.PrefillMs.P50) < float64(m.PrefillMs.P50BucketMs[0]) ||
		float64(p.PrefillMs.P50) > float64(m.PrefillMs.P50BucketMs[1]) {
		t.Errorf("per request prefill %+v; the engine's histogram's median bucket %v", p, m.PrefillMs.P50BucketMs)
	}
	if m.GenerationTokens == nil || int(*m.GenerationTokens) != *b.Metrics.OutputTokens || m.PromptTokens == nil || int(*m.PromptTokens) != *b.Metrics.PromptTokens {
		t.Errorf("token counters %v %v, client %v %v", m.GenerationTokens, m.PromptTokens, *b.Metrics.OutputTokens, *b.Metrics.PromptTokens)
	}
	client, server := float64(*b.Metrics.TTFT.P50), float64(*m.TTFTMs.P50Ms)
	width := float64(m.TTFTMs.P50BucketMs[1] - m.TTFTMs.P50BucketMs[0])
	if math.Abs(client-server) > width {
		t.Errorf("client ttft p50 %.2fms, server %.2fms in bucket %v", client, server, m.TTFTMs.P50BucketMs)
	}

	if runtime.GOOS == "linux" && (b.Extension.Clock.Source != clockSourceKernel || b.TimingMethodology.Clock != clockKernel) {
		t.Errorf("on Linux the kernel stamps: %+v", b.Extension.Clock)
	}
	checkSendSplit(t, b, 30)

	off := target(s)
	off.MetricsURL, off.UserSpaceStamps = metricsOff, true
	b = mustRun(t, off, sc)
	if b.Extension.EngineMetrics.Scraped {
		t.Error("metrics scraped although off")
	}
	if c := b.Extension.Clock; c.Source != clockSourceUserSpace || c.KernelStampedReads != 0 || c.UserStampedReads == 0 || b.TimingMethodology.Clock != clockUserSpace {
		t.Errorf("user-space stamps asked for: %+v", c)
	}
	if sp := b.Extension.Send; sp.Source != artifact.SendNone || sp.Note == "" || sp.Stamped != 0 || sp.ClientSendMs != nil {
		t.Errorf("user-space stamps take no transmit stamps: %+v", sp)
	}
}

// checkSendSplit checks that on Linux every success's TTFT splits at its transmit stamp,
// with at least the engine's injected prefill (ms) after it.
func checkSendSplit(t *testing.T, b *artifact.Benchmark, prefillMs float64) {
	t.Helper()
	sp := b.Extension.Send
	if runtime.GOOS != "linux" {
		if sp.Source != artifact.SendNone || sp.Note == "" {
			t.Errorf("no transmit stamps here, yet %+v", sp)
		}
		return
	}
	if sp.Source != artifact.SendKernelTransmit || sp.Stamped != b.Completed || sp.ClientSendMs == nil || sp.ServerTTFTMs == nil {
		t.Fatalf("send split %+v of %d successes", sp, b.Completed)
	}
	if p50 := float64(sp.ServerTTFTMs.P50); p50 < prefillMs {
		t.Errorf("TTFT after the request left: p50 %.2f ms, below the engine's %.0f ms prefill", p50, prefillMs)
	}
	if p50 := float64(sp.ClientSendMs.P50); p50 <= 0 || p50 > prefillMs/2 {
		t.Errorf("client send p50 %.3f ms", p50)
	}
	for _, s := range b.Extension.Timeline {
		if s.Outcome == "ok" && (s.SentMs == nil || *s.SentMs > *s.TTFTMs) {
			t.Errorf("request %d: sent at %v ms, TTFT %v ms", s.RequestIndex, s.SentMs, s.TTFTMs)
		}
	}
}
