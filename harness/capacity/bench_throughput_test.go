package capacity

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

const (
	throughputStreams = 1024
	throughputWords   = 200
)

// BenchmarkThroughput: the client holds 1024 concurrent streams of 200 tokens against a
// reference engine in the same process (both on this machine's cores).
//
//   - zero-latency: ITL 1ns, so the engine sends every chunk as fast as it can write it: the
//     events per second the client reads (every event: role, content, finish, usage and
//     [DONE] chunks) from the first event to the last, target ≥ 100k/s on 2 cores. With a
//     1ns prefill the first streams would be over before the last were sent; a fixed 300 ms
//     prefill lines all 1024 up (peak-streams reports the engine's peak in flight), and is
//     outside the measured window.
//   - itl10ms: a 10 ms decode step, 100k chunks/s asked of the engine. The client's gaps
//     between consecutive content chunks against the gaps between the engine's flushes of the
//     same chunks (refengine.Traces, joined by prompt_tokens): the inflation of the mean gap
//     in % (target ≤ 10%), and the median and p99 absolute error of single gaps in µs. When
//     the engine cannot hold its step on the shared cores, its own gaps are its truth, not
//     the client's error: engine-step-ms is their mean.
func BenchmarkThroughput(b *testing.B) {
	ensureDescriptors(b, 4*throughputStreams+256)
	b.Run("zero-latency", func(b *testing.B) {
		benchThroughput(b, refengine.Options{ITL: 1, PrefillOverhead: 300 * time.Millisecond}, false)
	})
	b.Run("itl10ms", func(b *testing.B) {
		benchThroughput(b, refengine.Options{ITL: 10 * time.Millisecond, PrefillOverhead: 20 * time.Millisecond}, true)
	})
}

func benchThroughput(b *testing.B, opts refengine.Options, gaps bool) {
	s, err := refengine.Start(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	client := stream.New(stream.Options{BaseURL: s.BaseURL(), Timeout: 5 * time.Minute, StallTimeout: time.Minute, Connections: throughputStreams})
	defer client.Close()
	p := workload.Prompts{Seed: 9, CharsPerToken: workload.DefaultCharsPerToken, ResponseWords: throughputWords}
	bodies := make([][]byte, throughputStreams)
	for i := range bodies {
		// Distinct contexts, so prompt_tokens joins a result to its trace.
		prompt, err := p.Prompt(i, 256+8*i)
		if err != nil {
			b.Fatal(err)
		}
		if bodies[i], err = (stream.ChatRequest{Model: refengine.DefaultModel, Prompt: prompt, MaxTokens: throughputWords + 56}).Body(); err != nil {
			b.Fatal(err)
		}
	}
	var events, peak int
	var window time.Duration
	var clientGaps, serverGaps, gapErrs []float64
	for b.Loop() {
		s.ResetTraces()
		results := wave(b, client, bodies, throughputWords+56)
		traces := s.Traces()
		peak = max(peak, peakConcurrency(traces))
		var first, last time.Time
		for _, res := range results {
			events += res.Events
			if len(res.Arrivals) != throughputWords {
				b.Fatalf("%d content chunks, want %d", len(res.Arrivals), throughputWords)
			}
			if f := res.Start.Add(res.FirstOutput); first.IsZero() || f.Before(first) {
				first = f
			}
			if e := res.Start.Add(res.End); e.After(last) {
				last = e
			}
		}
		window += last.Sub(first)
		if !gaps {
			continue
		}
		joined, err := joinTraces(results, traces)
		if err != nil {
			b.Fatal(err)
		}
		for i, res := range results {
			ct := joined[i].ChunkTimes
			for k := 1; k < len(res.Arrivals); k++ {
				c, s := res.Arrivals[k]-res.Arrivals[k-1], ct[k].Sub(ct[k-1])
				clientGaps = append(clientGaps, float64(c)/1e6)
				serverGaps = append(serverGaps, float64(s)/1e6)
				gapErrs = append(gapErrs, math.Abs(float64(c-s))/1e3)
			}
		}
	}
	b.ReportMetric(float64(events)/window.Seconds(), "events/s")
	b.ReportMetric(float64(peak), "peak-streams")
	b.ReportMetric(0, "ns/op")
	if !gaps {
		return
	}
	cm, sm := mean(clientGaps), mean(serverGaps)
	b.ReportMetric(100*(cm/sm-1), "itl-mean-inflation-%")
	b.ReportMetric(quantile(gapErrs, 0.5), "itl-err-p50-us")
	b.ReportMetric(quantile(gapErrs, 0.99), "itl-err-p99-us")
	b.ReportMetric(sm, "engine-step-ms")
}

func mean(v []float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// peakConcurrency is the largest number of requests the engine had in flight at once.
func peakConcurrency(traces []refengine.RequestTrace) int {
	type edge struct {
		at    time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(traces))
	for _, tr := range traces {
		edges = append(edges, edge{tr.Arrived, 1}, edge{tr.Finished, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // an end before a start at the same instant
	})
	peak, n := 0, 0
	for _, e := range edges {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}
