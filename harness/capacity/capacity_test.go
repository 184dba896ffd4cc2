package capacity

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/harness/secret"
	"github.com/anvilbench/anvilbench/internal/busy"
	"github.com/anvilbench/anvilbench/internal/wire"
)

// fastEngine is a reference engine quick enough for unit tests.
func fastEngine(t *testing.T, opts refengine.Options) *refengine.Server {
	t.Helper()
	if opts.PrefillOverhead == 0 {
		opts.PrefillOverhead = 2 * time.Millisecond
	}
	if opts.ITL == 0 {
		opts.ITL = 500 * time.Microsecond
	}
	if opts.PrefillRate == 0 {
		opts.PrefillRate = 5_000_000
	}
	s, err := refengine.Start(opts)
	if err != nil {
		t.Fatalf("start engine: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// measuredTraces is the engine's own record of a run's measured requests, by request
// index: the prompt's "# anvil request <seed>:<index>[ run <nonce>]" line joins them, and
// the warm-up's and calibration's requests are left out.
func measuredTraces(s *refengine.Server) map[int]refengine.RequestTrace {
	out := map[int]refengine.RequestTrace{}
	for _, tr := range s.Traces() {
		head, ok := strings.CutPrefix(tr.PromptHead, "# anvil request ")
		if !ok || strings.Contains(head, " run warmup") {
			continue
		}
		head, _, _ = strings.Cut(head, " run ")
		_, index, _ := strings.Cut(head, ":")
		if i, err := strconv.Atoi(index); err == nil && i < 990_000 {
			out[i] = tr
		}
	}
	return out
}

// stampTPOT is a request's time per output token by the engine's own flush stamps, from
// its first token-carrying chunk to its last.
func stampTPOT(tr refengine.RequestTrace) float64 {
	n := len(tr.ChunkTimes)
	if n < 2 {
		return math.NaN()
	}
	return float64(tr.ChunkTimes[n-1].Sub(tr.ChunkTimes[0])) / 1e6 / float64(n-1)
}

// blockStampTPOT is each block's TPOT p50 by the engine's stamps of the requests under
// its nonce, nearest rank as the artifact takes it.
func blockStampTPOT(t *testing.T, s *refengine.Server, b *artifact.Benchmark) []float64 {
	t.Helper()
	byNonce := map[string][]float64{}
	for _, tr := range s.Traces() {
		if _, nonce, ok := strings.Cut(tr.PromptHead, " run "); ok {
			byNonce[nonce] = append(byNonce[nonce], stampTPOT(tr))
		}
	}
	var out []float64
	for _, blk := range b.Extension.Blocks.Blocks {
		v := byNonce[blk.PromptNonce]
		if len(v) != b.Extension.Blocks.RequestsPerBlock {
			t.Fatalf("block %d (nonce %s): the engine stamped %d requests, want %d", blk.Index, blk.PromptNonce, len(v), b.Extension.Blocks.RequestsPerBlock)
		}
		slices.Sort(v)
		out = append(out, v[(len(v)+1)/2-1])
	}
	return out
}

func target(s *refengine.Server) Target {
	return Target{BaseURL: s.BaseURL(), Timeout: 30 * time.Second, StallTimeout: 10 * time.Second}
}

// referenceScenario is the scenario of testdata/reference/benchmark-v1-example.json.
func referenceScenario() Scenario {
	return Scenario{
		Requests: 6, Concurrency: 1, ContextTokens: 64000, ContextSeed: 44, ContextMargin: 1024,
		MaxTokens: 512, ResponseWords: 32, Policy: PolicyStrict,
		Engine: "anvilbench-refengine", GPU: "none",
	}
}

func mustRun(t *testing.T, tg Target, sc Scenario) *artifact.Benchmark {
	t.Helper()
	b, err := Run(context.Background(), tg, sc)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return b
}

func TestReferenceScenarioHasTheReferenceKeySet(t *testing.T) {
	t.Parallel()
	// Tokens 3 ms apart: at the fast engine's 0.5 ms a client kept off the CPU by two hogs
	// read a whole answer at once, and its TPOT was rightly null where the reference has one.
	s := fastEngine(t, refengine.Options{ITL: 3 * time.Millisecond})
	b := mustRun(t, target(s), referenceScenario())
	if b.Completed != 6 || b.Failed != 0 {
		t.Fatalf("completed %d failed %d: %+v", b.Completed, b.Failed, b.Failures)
	}
	ours, err := artifact.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(filepath.Join("..", "..", "testdata", "reference", "benchmark-v1-example.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := wire.KeyPaths(ref)
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.KeyPaths(ours)
	if err != nil {
		t.Fatal(err)
	}
	for path, typ := range want {
		if got[path] != typ {
			t.Errorf("%s: reference has %s, ours %q", path, typ, got[path])
		}
	}
	for path := range got {
		// The extension block is documented in artifact.Extension; nothing else may be new.
		if _, ok := want[path]; !ok && !strings.HasPrefix(path, "anvilbench") {
			t.Errorf("%s: not in the reference", path)
		}
	}
	if b.ContextDistribution["64000"] != 6 || *b.MaxContextTokens != 65536 {
		t.Errorf("plan %v window %v, want 6 x 64000 in 65536", b.ContextDistribution, *b.MaxContextTokens)
	}
}

func TestFormulasHoldInEveryArtifact(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{ITLJitter: 0.2, Seed: 7})
	sc := referenceScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens = 9, 3, 2000
	b := mustRun(t, target(s), sc)
	if b.Completed != 9 {
		t.Fatalf("completed %d: %+v", b.Completed, b.Failures)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	var tpots []float64
	total := 0
	for i, r := range b.RequestTimings {
		if r.RequestIndex != i {
			t.Fatalf("row %d has index %d", i, r.RequestIndex)
		}
		out := float64(*r.OutputTokens)
		gen := float64(r.GenerationMs) / 1000
		near("decode", float64(*r.DecodeTokS), (out-1)/gen)
		near("tpot", float64(*r.TPOTMs), float64(r.GenerationMs)/(out-1))
		near("generation", float64(r.GenerationMs), float64(r.E2EMs)-float64(r.TimeToFirstOutputMs))
		near("prefill", float64(*r.EffectivePrefillTokS), float64(*r.PromptTokens)/(float64(r.TimeToFirstOutputMs)/1000))
		tpots = append(tpots, float64(*r.TPOTMs))
		total += *r.OutputTokens
	}
	if err := Verify(b); err != nil {
		t.Fatal(err)
	}
	near("throughput", float64(*b.Metrics.ThroughputTokS), float64(total)/(float64(b.WallClockMs)/1000))
	slices.Sort(tpots)
	near("tpot p50 (5th of 9)", float64(*b.Metrics.TPOT.P50), tpots[4])
	near("tpot p90 (9th of 9)", float64(*b.Metrics.TPOT.P90), tpots[8])
	near("tpot p25 (3rd of 9)", float64(*b.Metrics.TPOT.P25), tpots[2])
	if b.Metrics.TPOT.Samples != 9 || b.MetricPopulation.P99SamplesByMetric["tpot"] != 9 || *b.Metrics.OutputTokens != total {
		t.Errorf("samples %d / %d, output tokens %d want %d", b.Metrics.TPOT.Samples, b.MetricPopulation.P99SamplesByMetric["tpot"], *b.Metrics.OutputTokens, total)
	}
}

// Injected latencies are measured as the engine served them: each request's TTFT and TPOT
// agree with the engine's own stamps (its arrival and flushes) within what a connect and a
// read may add on this machine, and, where the machine keeps time, with what was injected
// within 5%.
func TestMeasuresInjectedLatenciesWithinFivePercent(t *testing.T) {
	machine := busy.Now()
	s := fastEngine(t, refengine.Options{PrefillOverhead: 200 * time.Millisecond, ITL: 5 * time.Millisecond, PrefillRate: 1e12})
	sc := referenceScenario()
	sc.ContextTokens = 1024
	b := mustRun(t, target(s), sc)
	traces := measuredTraces(s)
	slack := float64(machine.Slack()) / 1e6
	var clientTTFT, engineTTFTs []float64
	for _, r := range b.RequestTimings {
		tr, ok := traces[r.RequestIndex]
		if !ok {
			t.Fatalf("request %d: no engine record", r.RequestIndex)
		}
		// The client's TTFT also holds its connect (the first request's) and the request's
		// way to the handler: never less than the engine's, and in the median within a read.
		engineTTFT := float64(tr.FirstToken.Sub(tr.Arrived)) / 1e6
		if got := float64(r.TTFTMs); got < engineTTFT-0.1 {
			t.Errorf("request %d: ttft %.2f ms, less than the %.2f ms from the request's arrival to the engine's first flush", r.RequestIndex, got, engineTTFT)
		}
		clientTTFT, engineTTFTs = append(clientTTFT, float64(r.TTFTMs)), append(engineTTFTs, engineTTFT)
		if got, want := float64(*r.TPOTMs), stampTPOT(tr); math.Abs(got-want) > 0.02*want+slack/float64(len(tr.ChunkTimes)-1) {
			t.Errorf("request %d: tpot %.3f ms; the engine's stamps give %.3f ms", r.RequestIndex, got, want)
		}
	}
	slices.Sort(clientTTFT)
	slices.Sort(engineTTFTs)
	if c, e := clientTTFT[len(clientTTFT)/2], engineTTFTs[len(engineTTFTs)/2]; c > e+1+slack {
		t.Errorf("ttft median %.2f ms; the engine's arrival-to-first-flush median %.2f ms (machine %s)", c, e, machine)
	}
	var far []string
	for key, truth := range map[string]float64{"ttft_p50_ms": 200, "tpot_p50_ms": 5, "time_to_first_output_p50_ms": 200} {
		v, _, _ := b.Metrics.Lookup(key)
		if v == nil || math.Abs(*v-truth)/truth > 0.05 {
			far = append(far, fmt.Sprintf("%s = %v, want %v ± 5%%", key, v, truth))
		}
	}
	if after := busy.Now(); len(far) > 0 && machine.KeepsTime() && after.KeepsTime() {
		t.Errorf("on a machine that kept time (%s; after: %s): %s", machine, after, strings.Join(far, "; "))
	} else if len(far) > 0 {
		t.Logf("not judged against what was injected, the machine's sleeps being late (%s; after: %s): %s", machine, after, strings.Join(far, "; "))
	}
}

func TestStrictPolicyTurnsExtraWordsIntoFailures(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{Faults: refengine.Faults{ExtraWords: 2}})
	sc := referenceScenario()
	sc.ContextTokens = 500
	b := mustRun(t, target(s), sc)
	if b.Completed != 0 || b.Failed != 6 || len(b.RequestTimings) != 0 {
		t.Fatalf("completed %d failed %d", b.Completed, b.Failed)
	}
	f := b.Failures[0]
	if f.FailureClass != artifact.FailureControlledOutput || !f.ResponseReceived || f.ResponseTiming.Row == nil || f.ControlledOutput == nil {
		t.Fatalf("failure %+v", f)
	}
	if !strings.Contains(f.ErrorMessage, "32 code words and 2 other words") {
		t.Errorf("message %q", f.ErrorMessage)
	}
	if b.Metrics.TTFT.Samples != 0 || b.Metrics.TTFT.P50 != nil || b.Metrics.ThroughputTokS != nil || b.PerformanceEligible {
		t.Errorf("a failed population must have empty metrics: %+v", b.Metrics.TTFT)
	}
	if b.ResponsesReceived != 6 {
		t.Errorf("responses received %d, want 6", b.ResponsesReceived)
	}

	sc.Policy = PolicyObserve
	b = mustRun(t, target(s), sc)
	if b.Completed != 6 || *b.RequestTimings[0].ControlledOutput.ExactAdherence || !b.RequestTimings[0].ControlledOutput.Passed {
		t.Fatalf("observe must keep non-exact responses as samples: %+v", b.RequestTimings)
	}
	if b.Metrics.ControlledOutputExactAdherence != 0 || *b.Metrics.ControlledOutputExactAdherenceRate != 0 {
		t.Errorf("adherence %d rate %v", b.Metrics.ControlledOutputExactAdherence, *b.Metrics.ControlledOutputExactAdherenceRate)
	}
}

func TestTruncatedStreamIsAFailureWithItsMetadata(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{Faults: refengine.Faults{TruncateAfter: 5}})
	sc := referenceScenario()
	sc.Requests, sc.ContextTokens = 2, 500
	b := mustRun(t, target(s), sc)
	if b.Failed != 2 {
		t.Fatalf("failed %d, want 2", b.Failed)
	}
	f := b.Failures[1]
	if f.ErrorType != "truncated_stream" || f.FailureClass != artifact.FailureStreamValidation || f.ResponseMetadata == nil || f.ResponseMetadata.StreamTerminalObserved {
		t.Fatalf("failure %+v", f)
	}
	if f.ResponseMetadata.ContentChunks != 5 || f.RequestIndex != 1 || *f.PlannedContextTokens != 500 {
		t.Errorf("metadata %+v index %d", f.ResponseMetadata, f.RequestIndex)
	}
}

func TestHTTPErrorKeepsTheServerMessage(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{})
	sc := referenceScenario()
	sc.Requests, sc.ContextTokens, sc.Model = 3, 500, "no-such-model"
	b := mustRun(t, target(s), sc)
	if b.Failed != 3 || b.Failures[0].ErrorType != "http_error" || b.Failures[0].ResponseReceived {
		t.Fatalf("failures %+v", b.Failures)
	}
	if !strings.Contains(b.Failures[0].ErrorMessage, "HTTP 404") || !strings.Contains(b.Failures[0].ErrorMessage, "does not exist") {
		t.Errorf("message %q", b.Failures[0].ErrorMessage)
	}
}

// Two runs of one scenario, and a second scenario after them, against an engine with a
// prefix cache: every run is cold, since each has its own prompt nonce. Replaying a run's
// nonce replays its prompts, and the cache serves them.
func TestEachRunFindsTheCacheCold(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{PrefixCache: true})
	sc := validScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens = 4, 2, 3000
	bigger := sc
	bigger.ContextTokens = 6000 // the same seed and indices: once, the same first 3000 tokens
	var runs []*artifact.Benchmark
	for _, s2 := range []Scenario{sc, sc, bigger} {
		runs = append(runs, mustRun(t, target(s), s2))
	}
	for k, b := range runs {
		if hit := b.Metrics.PrefixCacheHitAvg; hit == nil || *hit > 0.02 {
			t.Errorf("run %d: prefix cache hit %s, want a cold cache", k, show(hit))
		}
		if !promptNoncePattern.MatchString(b.Extension.PromptNonce) || (k > 0 && b.Extension.PromptNonce == runs[k-1].Extension.PromptNonce) {
			t.Errorf("run %d: nonce %q after %q", k, b.Extension.PromptNonce, runs[max(k-1, 0)].Extension.PromptNonce)
		}
	}
	replay := sc
	replay.PromptNonce = runs[0].Extension.PromptNonce
	if hit := mustRun(t, target(s), replay).Metrics.PrefixCacheHitAvg; hit == nil || *hit < 0.9 {
		t.Errorf("a replayed run's prefix cache hit %s, want its prompts served from the cache", show(hit))
	}
}

func TestUnreachableEndpointIsOneError(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{})
	url := s.BaseURL()
	s.Close()
	_, err := Run(context.Background(), Target{BaseURL: url, Timeout: 5 * time.Second, StallTimeout: time.Second}, referenceScenario())
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("err = %v, want an unreachable endpoint", err)
	}
}

func TestAPIKeyNeverReachesTheArtifact(t *testing.T) {
	t.Parallel()
	const key = "sk-anvil-canary-5f0e1d2c"
	s := fastEngine(t, refengine.Options{APIKey: key})
	sc := referenceScenario()
	sc.Requests, sc.ContextTokens = 2, 500

	tg := target(s)
	tg.APIKey = secret.New(key)
	if b := mustRun(t, tg, sc); b.Completed != 2 {
		t.Fatalf("with the key: %+v", b.Failures)
	}

	// A wrong key, found out while discovering the model: one error, no request sent.
	tg.APIKey = secret.New(key + "-wrong")
	if _, err := Run(context.Background(), tg, sc); err == nil || !strings.Contains(err.Error(), "the endpoint refused the credentials (GET /models: HTTP 401") ||
		strings.Contains(err.Error(), key) {
		t.Fatalf("with a wrong key: %v", err)
	}
	// With nothing to discover, each refused request is a failure row.
	sc.Model, sc.MaxContextTokens = "anvil-reference", 100_000
	b := mustRun(t, tg, sc)
	if b.Failed != 2 || !strings.Contains(b.Failures[0].ErrorMessage, "HTTP 401") {
		t.Fatalf("with a wrong key: %+v", b.Failures)
	}
	data, err := artifact.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), key) {
		t.Fatal("the API key appears in the artifact")
	}
}

func TestCredentialsInTheBaseURLAreNotRecorded(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{})
	tg := target(s)
	tg.BaseURL = strings.Replace(tg.BaseURL, "http://", "http://user:hunter2@", 1)
	sc := referenceScenario()
	sc.Requests, sc.ContextTokens = 1, 500
	b := mustRun(t, tg, sc)
	if strings.Contains(b.BaseURL, "hunter2") || strings.Contains(b.BaseURL, "user") {
		t.Fatalf("base_url %q keeps credentials", b.BaseURL)
	}
	if b.Completed != 1 {
		t.Fatalf("credentials in the URL are used, yet %d of 1 requests completed: %+v", b.Completed, b.Failures)
	}
}

func TestCancelledRunRecordsEveryIndex(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{ITL: 20 * time.Millisecond})
	sc := referenceScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens = 10, 2, 500
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	b, err := Run(ctx, target(s), sc)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for _, r := range b.RequestTimings {
		seen[r.RequestIndex]++
	}
	cancelled := 0
	for _, f := range b.Failures {
		seen[f.RequestIndex]++
		if f.ErrorType == "cancelled" {
			cancelled++
		}
	}
	for i := range 10 {
		if seen[i] != 1 {
			t.Fatalf("index %d appears %d times", i, seen[i])
		}
	}
	if cancelled == 0 {
		t.Fatalf("no request recorded as cancelled: %+v", b.Failures)
	}
	if b.Extension.Complete {
		t.Fatal("an interrupted run must be marked incomplete")
	}
}

func TestVerifyAcceptsTheReferenceAndCatchesTampering(t *testing.T) {
	t.Parallel()
	ref, err := artifact.Read(filepath.Join("..", "..", "testdata", "reference", "benchmark-v1-example.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(ref); err != nil {
		t.Fatalf("the reference artifact must verify: %v", err)
	}
	ref.RequestTimings[2].TPOTMs = artifact.F(float64(*ref.RequestTimings[2].TPOTMs) * 1.01)
	ref.Metrics.TTFT.P50 = artifact.F(1)
	ref.Failures = append(ref.Failures, artifact.Failure{RequestIndex: 0})
	err = Verify(ref)
	for _, want := range []string{"request 2: tpot_ms", "metrics ttft do not match", "request 0 appears 2 times", "counts:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Verify missed %q: %v", want, err)
		}
	}
}

func TestCalibrationHitsThePlannedTokensWithinOnePercent(t *testing.T) {
	t.Parallel()
	for name, tok := range map[string]func(string) int{"default": refengine.CountTokens, "coarse": refengine.CountTokensCoarse} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := fastEngine(t, refengine.Options{Tokenizer: tok, MaxModelLen: 200_000})
			sc := referenceScenario()
			sc.Calibrate, sc.Requests, sc.Concurrency = true, 8, 4
			sc.ContextTokens = 0 // sampled: 16000..131072, each must land within 1%
			b := mustRun(t, target(s), sc)
			if b.Completed != 8 {
				t.Fatalf("completed %d: %+v", b.Completed, b.Failures)
			}
			acc := b.Extension.ContextAccuracy
			if b.Extension.Calibration.Method == "none" || acc.Samples != 8 || float64(*acc.MaxAbsErrorPct) > 1 {
				t.Fatalf("calibration %+v, accuracy samples %d max error %v%%", b.Extension.Calibration, acc.Samples, *acc.MaxAbsErrorPct)
			}
			t.Logf("%s: %s, %.3f chars/token, overhead %.1f, max error %.3f%%", name, b.Extension.Calibration.Method,
				b.Extension.Calibration.CharsPerToken, b.Extension.Calibration.OverheadTokens, *acc.MaxAbsErrorPct)
		})
	}
}

// TestWithoutUsageTokenFiguresAreWithheld replays Ollama's stream, which carries no usage:
// token figures must be null and say the chunk count stood in.
func TestWithoutUsageTokenFiguresAreWithheld(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", "ollama-chat.sse"))
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"llama3.2","object":"model"}]}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(raw)
	}))
	t.Cleanup(s.Close)
	sc := referenceScenario()
	sc.Requests, sc.ContextTokens, sc.ResponseWords = 3, 500, 4
	b := mustRun(t, Target{BaseURL: s.URL + "/v1", Timeout: 5 * time.Second, StallTimeout: time.Second}, sc)
	if b.Completed != 3 || b.MaxContextTokens != nil || b.Model != "llama3.2" {
		t.Fatalf("completed %d window %v model %q: %+v", b.Completed, b.MaxContextTokens, b.Model, b.Failures)
	}
	r := b.RequestTimings[0]
	if r.OutputTokenSource != "content_chunks" || r.OutputTokens != nil || r.TPOTMs != nil || r.DecodeTokS != nil || r.PromptTokens != nil {
		t.Fatalf("row %+v", r)
	}
	m := b.Metrics
	if m.OutputTokens != nil || m.ContentChunksS == nil || m.ThroughputTokS != nil || m.OutputTokenSources["content_chunks"] != 3 || m.TPOT.Samples != 0 {
		t.Fatalf("metrics: output %v chunks/s %v throughput %v sources %v", m.OutputTokens, m.ContentChunksS, m.ThroughputTokS, m.OutputTokenSources)
	}
	if err := Verify(b); err != nil {
		t.Fatal(err)
	}
}

func TestOpenLoopMeasuresFromTheIntendedStart(t *testing.T) {
	t.Parallel()
	// One request in flight at a time (~55 ms each) while they are due every 20 ms: the
	// client's queue grows, which service latency hides and intended-start latency shows.
	s := fastEngine(t, refengine.Options{PrefillOverhead: 5 * time.Millisecond, ITL: 1500 * time.Microsecond})
	sc := referenceScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens, sc.MaxTokens = 12, 1, 500, 64
	sc.RequestRate, sc.Arrival = 50, "constant"
	b := mustRun(t, target(s), sc)
	if b.Completed != 12 {
		t.Fatalf("completed %d: %+v", b.Completed, b.Failures)
	}
	a := b.Extension.Arrival
	if a.Model != "constant" || *a.RatePerSec != 50 || a.IntendedTTFTMs == nil || a.ScheduleLagMs == nil {
		t.Fatalf("arrival %+v", a)
	}
	if float64(a.IntendedTTFTMs.P95) < 3*float64(*b.Metrics.TTFT.P95) || float64(a.ScheduleLagMs.Max) < 200 {
		t.Errorf("intended-start ttft p95 %.1fms vs service %.1fms, lag max %.1fms: queueing not visible",
			a.IntendedTTFTMs.P95, *b.Metrics.TTFT.P95, a.ScheduleLagMs.Max)
	}
	for i, span := range b.Extension.Timeline {
		if want := float64(i) * 20; math.Abs(float64(*span.IntendedStartOffsetMs)-want) > 1 {
			t.Fatalf("request %d due at %.1fms, want %.0fms", i, *span.IntendedStartOffsetMs, want)
		}
	}
}

func TestProgressIsReported(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{ITL: 2 * time.Millisecond})
	sc := referenceScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens = 6, 1, 500
	var out strings.Builder
	sc.Progress, sc.ProgressInterval = &syncWriter{w: &out}, 20*time.Millisecond
	sc.Name = "six"
	mustRun(t, target(s), sc)
	lines := strings.Count(out.String(), "[six] progress: ")
	if lines < 3 || !strings.Contains(out.String(), "[six] progress: 6/6 requests done, 0 failed; running ttft p50") ||
		!strings.Contains(out.String(), "elapsed ") || !strings.Contains(out.String(), ", left about ") || !strings.HasSuffix(out.String(), ", left none\n") {
		t.Fatalf("%d progress lines:\n%s", lines, out.String())
	}
}

// syncWriter serializes writes from the progress goroutine and the test.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
