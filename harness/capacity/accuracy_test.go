package capacity

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/internal/busy"
)

// The accuracy of the client's clock, against the reference engine's own record of when it
// flushed every chunk (refengine.Traces), in the same process and so on the same monotonic
// clock. For every content chunk k of a request:
//
//	arrival error  = client arrival of chunk k − server flush of chunk k
//	TTFT error     = the arrival error of chunk 0
//	ITL error      = (client gap k−1→k) − (server gap k−1→k), k ≥ 1
//
// The client's TTFT starts before the request is written, the server's Arrived after it is
// read, so TTFT itself is not comparable; the arrival of the first chunk is. A client
// request is joined to its trace by prompt_tokens: every request of a wave plans a distinct
// context (accuracyContext), so the server's count names the request.

// accuracyWords is the answer length of an accuracy request: 32 content chunks.
const accuracyWords = 32

// accuracyContext is request i's planned context: 48 prompt characters (a little more than
// half a filler line, over ten tokens) more than request i−1's, so no two prompts of a wave
// count the same tokens.
func accuracyContext(i int) int { return 256 + 16*i }

// timingErrors are absolute errors in microseconds, plus the signed arrival offsets.
type timingErrors struct {
	ttft, itl, offset []float64
}

func (e *timingErrors) add(o timingErrors) {
	e.ttft = append(e.ttft, o.ttft...)
	e.itl = append(e.itl, o.itl...)
	e.offset = append(e.offset, o.offset...)
}

// accuracyEngine starts a reference engine with the given decode step and a short fixed
// prefill.
func accuracyEngine(tb testing.TB, itl time.Duration) *refengine.Server {
	tb.Helper()
	s, err := refengine.Start(refengine.Options{ITL: itl, PrefillOverhead: 5 * time.Millisecond})
	if err != nil {
		tb.Fatalf("start engine: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// accuracyBodies builds the request bodies of one wave of n requests of words words, to
// chat unless an API is named.
func accuracyBodies(tb testing.TB, n, words int, api ...stream.API) [][]byte {
	tb.Helper()
	p := workload.Prompts{Seed: 6, CharsPerToken: workload.DefaultCharsPerToken, ResponseWords: words}
	bodies := make([][]byte, n)
	for i := range bodies {
		prompt, err := p.Prompt(i, accuracyContext(i))
		if err != nil {
			tb.Fatal(err)
		}
		req := stream.ChatRequest{Model: refengine.DefaultModel, Prompt: prompt, MaxTokens: 2 * words}
		if len(api) > 0 {
			req.API = api[0]
		}
		body, err := req.Body()
		if err != nil {
			tb.Fatal(err)
		}
		bodies[i] = body
	}
	return bodies
}

// wave sends every body at once, one goroutine each, through client and returns the
// results in body order; to chat's path unless an API is named.
func wave(tb testing.TB, client *stream.Client, bodies [][]byte, maxTokens int, api ...stream.API) []*stream.Result {
	tb.Helper()
	on := stream.APIChat
	if len(api) > 0 {
		on = api[0]
	}
	results := make([]*stream.Result, len(bodies))
	errs := make([]error, len(bodies))
	var ready, wg sync.WaitGroup
	gate := make(chan struct{})
	ready.Add(len(bodies))
	for i, body := range bodies {
		wg.Go(func() {
			ready.Done()
			<-gate
			results[i], errs[i] = client.Stream(context.Background(), on, body, maxTokens)
		})
	}
	ready.Wait()
	close(gate)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			tb.Fatalf("request %d: %v", i, err)
		}
	}
	return results
}

// joinTraces pairs every result with the trace of the same prompt_tokens.
func joinTraces(results []*stream.Result, traces []refengine.RequestTrace) ([]refengine.RequestTrace, error) {
	byTokens := make(map[int]refengine.RequestTrace, len(traces))
	for _, tr := range traces {
		if _, dup := byTokens[tr.PromptTokens]; dup {
			return nil, fmt.Errorf("two requests of %d prompt tokens: the join needs distinct contexts", tr.PromptTokens)
		}
		byTokens[tr.PromptTokens] = tr
	}
	out := make([]refengine.RequestTrace, len(results))
	for i, res := range results {
		if res.Usage == nil || res.Usage.PromptTokens == nil {
			return nil, fmt.Errorf("request %d: no usage.prompt_tokens to join on", i)
		}
		tr, ok := byTokens[*res.Usage.PromptTokens]
		if !ok {
			return nil, fmt.Errorf("request %d: no trace of %d prompt tokens", i, *res.Usage.PromptTokens)
		}
		out[i] = tr
	}
	return out, nil
}

// measureWave runs one wave of n concurrent requests and compares every content chunk's
// client arrival with its server flush.
func measureWave(tb testing.TB, s *refengine.Server, client *stream.Client, bodies [][]byte, words int, api ...stream.API) timingErrors {
	tb.Helper()
	s.ResetTraces()
	results := wave(tb, client, bodies, 2*words, api...)
	traces, err := joinTraces(results, s.Traces())
	if err != nil {
		tb.Fatal(err)
	}
	var e timingErrors
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	for i, res := range results {
		tr := traces[i]
		if len(res.Arrivals) != words || len(tr.ChunkTimes) < words {
			tb.Fatalf("request %d: %d client arrivals, %d server chunks, want %d", i, len(res.Arrivals), len(tr.ChunkTimes), words)
		}
		var prevClient, prevServer time.Time
		for k, at := range res.Arrivals {
			client, server := res.Start.Add(at), tr.ChunkTimes[k]
			offset := client.Sub(server)
			e.offset = append(e.offset, us(offset))
			if k == 0 {
				e.ttft = append(e.ttft, math.Abs(us(offset)))
			} else {
				e.itl = append(e.itl, math.Abs(us(client.Sub(prevClient)-server.Sub(prevServer))))
			}
			prevClient, prevServer = client, server
		}
	}
	return e
}

// quantile is the nearest-rank q-quantile (0 < q ≤ 1) of values (sorted in place).
func quantile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	slices.Sort(values)
	k := int(math.Ceil(q*float64(len(values)))) - 1
	return values[min(max(k, 0), len(values)-1)]
}

// TestClientTimingAccuracy guards the client's clock against gross regressions, on every
// API's event grammar: at concurrency 64 the median error of the first chunk's arrival and
// of inter-chunk gaps stays under 2 ms (the benchmark, BenchmarkAccuracy, reports the real
// figures: tens of µs). The client shares the engine's cores here: on a busy machine its
// reads wait for a slice (3.5 ms in the median beside two CPU hogs), and the bound is the
// machine's slack instead. Not parallel: it measures.
func TestClientTimingAccuracy(t *testing.T) {
	if raceEnabled {
		t.Skip("timing under the race detector")
	}
	machine := busy.Now()
	tolerance := max(2000, float64(machine.Slack().Microseconds())) // µs
	const concurrency = 64
	s := accuracyEngine(t, 5*time.Millisecond)
	client := stream.New(stream.Options{BaseURL: s.BaseURL(), Timeout: 30 * time.Second, StallTimeout: 10 * time.Second, Connections: concurrency})
	defer client.Close()
	for _, api := range []stream.API{stream.APIChat, stream.APIResponses, stream.APIMessages} {
		e := measureWave(t, s, client, accuracyBodies(t, concurrency, accuracyWords, api), accuracyWords, api)
		ttft50, ttft99 := quantile(e.ttft, 0.5), quantile(e.ttft, 0.99)
		itl50, itl99 := quantile(e.itl, 0.5), quantile(e.itl, 0.99)
		t.Logf("%s c%d: TTFT error p50 %.0fµs p99 %.0fµs, ITL error p50 %.0fµs p99 %.0fµs, arrival offset p50 %.0fµs (%d chunks)",
			api, concurrency, ttft50, ttft99, itl50, itl99, quantile(e.offset, 0.5), len(e.offset))
		if ttft50 > tolerance || itl50 > tolerance {
			t.Errorf("%s: median error TTFT %.0fµs, ITL %.0fµs: want both under %.0fµs (machine %s)", api, ttft50, itl50, tolerance, machine)
		}
	}
}
