package matchers_test

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
	. "github.com/anvilbench/anvilbench/matchers"
)

func TestPrefixCacheMatchers(t *testing.T) {
	t.Parallel()
	b := run()
	if got := failureOf(t, b, HavePrefixCacheHitRate(0.5)); !strings.Contains(got, "reported no usage.prompt_tokens_details.cached_tokens over 6 requests") {
		t.Errorf("no cached tokens: %q", got)
	}
	if got := failureOf(t, b, HaveColdPrefixCache()); !strings.Contains(got, "cannot be verified") {
		t.Errorf("unverifiable cold cache must error: %q", got)
	}
	b.Metrics.PrefixCacheHitAvg = artifact.F(0.473)
	if got := failureOf(t, b, HavePrefixCacheHitRate(0.5)); got != "prefix cache served 47.3% of prompt tokens on average over 6 requests (want at least 50.0%)" {
		t.Errorf("got %q", got)
	}
	if got := failureOf(t, b, HaveColdPrefixCache()); !strings.HasPrefix(got, "prefix cache served 47.3% of prompt tokens on average over 6 requests of a cold-cache scenario") {
		t.Errorf("got %q", got)
	}
	b.Metrics.PrefixCacheHitAvg = artifact.F(0)
	if got := failureOf(t, b, HaveColdPrefixCache()); got != "" {
		t.Errorf("a cold run failed: %q", got)
	}
}

func TestHavePassedRequestCanaries(t *testing.T) {
	t.Parallel()
	b := run()
	b.RequestCanaries = true
	for i := range b.RequestTimings {
		b.RequestTimings[i].RequestCanary = &artifact.RequestCanary{Passed: true, MarkerAtStart: true, CaptureComplete: true}
	}
	if got := failureOf(t, b, HavePassedRequestCanaries()); got != "" {
		t.Fatalf("clean canaries failed: %q", got)
	}
	b.RequestTimings = b.RequestTimings[:5]
	b.Failures = []artifact.Failure{{RequestIndex: 5, ErrorType: "request_canary_mismatch", RequestCanary: &artifact.RequestCanary{
		Marker: "ANVIL_REQ_0_00005", ForeignMarkerCount: 1, CaptureComplete: true, ObservedMarkerCount: 0,
	}}}
	got := failureOf(t, b, HavePassedRequestCanaries())
	if !strings.Contains(got, "1 of 6 responses failed their request canary") || !strings.Contains(got, "request 5: does not begin with ANVIL_REQ_0_00005, carries 1 other request marker(s)") {
		t.Errorf("got %q", got)
	}
}

func TestHitPlannedContext(t *testing.T) {
	t.Parallel()
	b := run()
	for i := range b.RequestTimings {
		b.RequestTimings[i].PlannedContextTokens = 1000
		b.RequestTimings[i].PromptTokens = new(1004)
	}
	b.Extension = &artifact.Extension{Calibration: artifact.Calibration{Method: "tokenize"}}
	if got := failureOf(t, b, HitPlannedContext(0.01)); got != "" {
		t.Fatalf("0.4%% off failed a 1%% tolerance: %q", got)
	}
	b.RequestTimings[3].PromptTokens = new(1250)
	if got := failureOf(t, b, HitPlannedContext(0.01)); got != "prompt tokens are 25.00% off their planned size at worst (request 3) over 6 requests, calibration tokenize (tolerance 1.00%)" {
		t.Errorf("got %q", got)
	}
}
