package capacity

import (
	"strconv"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
)

// BenchmarkAccuracy reports how far the client's clock is from the server's truth (see
// accuracy_test.go): the median and p99 absolute error, in µs, of the first chunk's arrival
// (TTFT) and of inter-chunk gaps (ITL), and the median signed arrival offset, at concurrency
// 1, 64 and 256 against a reference engine with a 5 ms decode step in the same process, and
// with a 1 ms step (itl1ms, the stress variant). Every iteration is one wave of requests
// (concurrency of them, 8 at concurrency 1) of 32 content chunks each; errors pool over
// iterations. Target: under 100 µs median at concurrency 64. The Responses and Messages
// APIs' typed events (responses/, messages/) are measured at concurrency 1 and 64.
func BenchmarkAccuracy(b *testing.B) {
	for _, itl := range []time.Duration{5 * time.Millisecond, time.Millisecond} {
		prefix := ""
		if itl != 5*time.Millisecond {
			prefix = "itl" + itl.String() + "/"
		}
		for _, c := range []int{1, 64, 256} {
			b.Run(prefix+"c"+strconv.Itoa(c), func(b *testing.B) { benchAccuracy(b, itl, c, stream.APIChat) })
		}
	}
	for _, api := range []stream.API{stream.APIResponses, stream.APIMessages} {
		for _, c := range []int{1, 64} {
			b.Run(string(api)+"/c"+strconv.Itoa(c), func(b *testing.B) { benchAccuracy(b, 5*time.Millisecond, c, api) })
		}
	}
}

func benchAccuracy(b *testing.B, itl time.Duration, concurrency int, api stream.API) {
	s := accuracyEngine(b, itl)
	client := stream.New(stream.Options{BaseURL: s.BaseURL(), Timeout: time.Minute, StallTimeout: 30 * time.Second, Connections: concurrency})
	defer client.Close()
	n := concurrency
	sequential := concurrency == 1
	if sequential {
		n = 8
	}
	bodies := accuracyBodies(b, n, accuracyWords, api)
	// Warm the connections up so the first iteration measures what the others do.
	warm := bodies[:concurrency]
	measureWave(b, s, client, warm, accuracyWords, api)
	var all timingErrors
	for b.Loop() {
		if sequential {
			for i := range bodies {
				all.add(measureWave(b, s, client, bodies[i:i+1], accuracyWords, api))
			}
			continue
		}
		all.add(measureWave(b, s, client, bodies, accuracyWords, api))
	}
	b.ReportMetric(quantile(all.ttft, 0.5), "ttft-err-p50-us")
	b.ReportMetric(quantile(all.ttft, 0.99), "ttft-err-p99-us")
	b.ReportMetric(quantile(all.itl, 0.5), "itl-err-p50-us")
	b.ReportMetric(quantile(all.itl, 0.99), "itl-err-p99-us")
	b.ReportMetric(quantile(all.offset, 0.5), "offset-p50-us")
	b.ReportMetric(float64(len(all.offset)), "chunks")
	b.ReportMetric(0, "ns/op") // an iteration is a wave, its duration is the engine's
}
