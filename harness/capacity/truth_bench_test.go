package capacity

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// BenchmarkTruth measures the client against the truth out of process: the reference
// engine runs as a separate process pinned to its own CPU (ANVIL_TRUTH_SERVER_CPU, default
// 1) and records when it flushed every chunk (-serve-traces); each request is joined to
// its trace by its prompt's first line, and the errors are client minus engine:
//
//	ANVIL_TRUTH=1 taskset -c 0 go test -run '^$' -bench Truth -benchtime 1x ./harness/capacity
//
// Cases: "accuracy" streams (TTFT 50 ms, ITL 5 ms, 64 tokens) at concurrency 1, 16 and 256
// through the stream client, as ../shared/truth/peerbench does; "capacity" streams (no
// decode delay, 256 tokens) at 1024; and the configured spec's run (capacity.Run, 60
// requests of 2,000-token prompts at concurrency 4, TTFT 50 ms) for its per-request TTFT
// error. It needs taskset and two CPUs, so .ci/run does not run it.
func BenchmarkTruth(b *testing.B) {
	if os.Getenv("ANVIL_TRUTH") == "" {
		b.Skip("set ANVIL_TRUTH=1 and pin the client (taskset -c 0): the engine runs pinned to another CPU")
	}
	bin := filepath.Join(b.TempDir(), "refengine")
	build := exec.Command("go", "build", "-o", bin, "github.com/anvilbench/anvilbench/cmd/refengine")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the reference engine: %v\n%s", err, out)
	}
	accuracy := []string{"-ttft", "50ms", "-itl", "5ms", "-max-batch", "0"}
	flood := []string{"-ttft", "1ns", "-itl", "1ns", "-max-batch", "0"}
	for _, c := range []struct {
		name        string
		concurrency int
		requests    int
		tokens      int
		engine      []string
	}{
		{"accuracy/c1", 1, 40, 64, accuracy},
		{"accuracy/c16", 16, 160, 64, accuracy},
		{"accuracy/c256", 256, 1024, 64, accuracy},
		// Headers held back to the first token (llama.cpp, Ollama): TTFT is still stamped
		// when the bytes arrived, not when the caller got the response.
		{"held-headers/c16", 16, 160, 64, append(slices.Clone(accuracy), "-faults", "headers_with_first_token=1")},
		{"capacity/c1024", 1024, 2048, 256, flood},
		{"capacity/c4096", 4096, 8192, 256, flood},
	} {
		b.Run(c.name, func(b *testing.B) {
			ensureDescriptors(b, uint64(3*c.concurrency+256))
			url := startTruthEngine(b, bin, c.engine)
			for b.Loop() {
				truthStreams(b, url, c.concurrency, c.requests, c.tokens)
			}
		})
	}
	b.Run("configured/c4", func(b *testing.B) {
		url := startTruthEngine(b, bin, accuracy)
		for b.Loop() {
			truthConfigured(b, url)
		}
	})
}

// startTruthEngine starts the engine pinned to its CPU and returns its base URL.
func startTruthEngine(b *testing.B, bin string, args []string) string {
	b.Helper()
	cpu := os.Getenv("ANVIL_TRUTH_SERVER_CPU")
	if cpu == "" {
		cpu = "1"
	}
	cmd := exec.Command("taskset", append([]string{"-c", cpu, bin, "-addr", "127.0.0.1:0", "-serve-traces", "-max-model-len", "200000"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start the engine (taskset needed): %v", err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	url := strings.TrimSpace(line[strings.LastIndex(line, " ")+1:])
	if err != nil || !strings.HasPrefix(url, "http://") {
		b.Fatalf("the engine did not start: %q %v", line, err)
	}
	return url
}

type truthTrace struct {
	PromptHead    string  `json:"prompt_head"`
	ArrivedUnixNs int64   `json:"arrived_unix_ns"`
	FirstTokenNs  int64   `json:"first_token_unix_ns"`
	ChunkUnixNs   []int64 `json:"chunk_unix_ns"`
}

// truthTraces reads the engine's traces by prompt head, emptying its record.
func truthTraces(b *testing.B, baseURL string) map[string]truthTrace {
	b.Helper()
	resp, err := http.Get(strings.TrimSuffix(baseURL, "/v1") + "/ref/traces")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var traces []truthTrace
	if err := json.NewDecoder(resp.Body).Decode(&traces); err != nil {
		b.Fatal(err)
	}
	out := make(map[string]truthTrace, len(traces))
	for _, t := range traces {
		// Keyed by "# anvil request <seed>:<index>", the run's nonce after it left off.
		head, _, _ := strings.Cut(t.PromptHead, " run ")
		out[head] = t
	}
	return out
}

var truthSeed atomic.Int64

// truthStreams sends requests streams at the given concurrency through the stream client
// and reports the columns of ../shared/truth/peerbench.
func truthStreams(b *testing.B, url string, concurrency, requests, tokens int) {
	b.Helper()
	seed := truthSeed.Add(1)
	p := workload.Prompts{Seed: seed, CharsPerToken: workload.DefaultCharsPerToken, ResponseWords: 0}
	client := stream.New(stream.Options{BaseURL: url, Timeout: time.Minute, StallTimeout: 30 * time.Second, Connections: concurrency, TransmitStamps: true})
	defer client.Close()
	bodies := make([][]byte, requests)
	for i := range bodies {
		prompt, err := p.Prompt(i, 64)
		if err != nil {
			b.Fatal(err)
		}
		zero := 0.0
		if bodies[i], err = (stream.ChatRequest{Model: refengine.DefaultModel, Prompt: prompt, MaxTokens: tokens, Temperature: &zero}).Body(); err != nil {
			b.Fatal(err)
		}
	}
	results := make([]*stream.Result, requests)
	var next atomic.Int64
	var wg sync.WaitGroup
	cpu := cpuTime()
	b.ResetTimer()
	for range concurrency {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < requests; i = int(next.Add(1) - 1) {
				res, err := client.Stream(context.Background(), stream.APIChat, bodies[i], tokens)
				if err != nil {
					b.Errorf("request %d: %v", i, err)
					return
				}
				results[i] = res
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	defer b.StartTimer() // b.Loop refuses a stopped timer
	cpu = cpuTime() - cpu
	traces := truthTraces(b, url)

	var ttft, perITL, meanITL, lag, inflation, clientSend, serverReceipt []float64
	chunks := 0
	for i, res := range results {
		tr, ok := traces[fmt.Sprintf("# anvil request %d:%d", seed, i)]
		if res == nil || !ok || !res.HasFirstContent || len(tr.ChunkUnixNs) < len(res.Arrivals) {
			b.Fatalf("request %d not joined to a trace", i)
		}
		chunks += len(res.Arrivals)
		ttft = append(ttft, us(res.FirstContent)-float64(tr.FirstTokenNs-tr.ArrivedUnixNs)/1e3)
		start := res.Start.UnixNano()
		if res.HasSent {
			// The split of the send path: the request leaving, then the engine's handler
			// taking it.
			clientSend = append(clientSend, us(res.Sent))
			serverReceipt = append(serverReceipt, float64(tr.ArrivedUnixNs-start-int64(res.Sent))/1e3)
		}
		var client, server float64
		for k, a := range res.Arrivals {
			lag = append(lag, float64(start+int64(a)-tr.ChunkUnixNs[k])/1e3)
			if k > 0 {
				gc, gs := us(a-res.Arrivals[k-1]), float64(tr.ChunkUnixNs[k]-tr.ChunkUnixNs[k-1])/1e3
				perITL = append(perITL, gc-gs)
				client, server = client+gc, server+gs
			}
		}
		if n := float64(len(res.Arrivals) - 1); n > 0 {
			meanITL = append(meanITL, (client-server)/n)
			if server > 0 {
				inflation = append(inflation, client/server)
			}
		}
	}
	report := func(values []float64, q float64, unit string) {
		if len(values) > 0 {
			b.ReportMetric(quantile(values, q), unit)
		}
	}
	report(ttft, 0.5, "ttft-err-p50-us")
	report(ttft, 0.99, "ttft-err-p99-us")
	report(meanITL, 0.5, "mean-itl-err-p50-us")
	report(perITL, 0.99, "per-itl-err-p99-us")
	report(lag, 0.5, "chunk-lag-p50-us")
	report(lag, 0.99, "chunk-lag-p99-us")
	report(inflation, 0.5, "itl-inflation-p50-x")
	report(clientSend, 0.5, "client-send-p50-us")
	report(serverReceipt, 0.5, "sent-to-handler-p50-us")
	b.ReportMetric(cpu.Seconds()/float64(chunks)*1e6, "cpu-s/1M-chunks")
}

// truthConfigured runs the configured spec's scenario through capacity.Run and reports
// its per-request TTFT error against the engine's own first flush.
func truthConfigured(b *testing.B, url string) {
	b.Helper()
	seed := truthSeed.Add(1000)
	sc := Scenario{Requests: 60, Concurrency: 4, ContextTokens: 2000, ContextSeed: seed, MaxTokens: 64, ResponseWords: 32, Calibrate: true, Model: refengine.DefaultModel}
	run, err := Run(context.Background(), Target{BaseURL: url}, sc)
	if err != nil {
		b.Fatal(err)
	}
	if run.Completed != sc.Requests {
		b.Fatalf("completed %d of %d: %+v", run.Completed, sc.Requests, run.Failures)
	}
	traces := truthTraces(b, url)
	var errs []float64
	for _, r := range run.RequestTimings {
		tr, ok := traces[fmt.Sprintf("# anvil request %d:%d", seed, r.RequestIndex)]
		if !ok {
			b.Fatalf("request %d not joined to a trace", r.RequestIndex)
		}
		errs = append(errs, 1000*float64(r.TTFTMs)-float64(tr.FirstTokenNs-tr.ArrivedUnixNs)/1e3)
	}
	b.ReportMetric(quantile(errs, 0.5), "ttft-err-p50-us")
	b.ReportMetric(slices.Max(errs), "ttft-err-max-us")
	b.ReportMetric(float64(*run.Extension.ClientOverhead.GCCycles), "gc-cycles")
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }
