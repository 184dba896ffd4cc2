package main

import (
	"bufio"
	"context"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

func TestRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	env := map[string]string{apiKeyEnv: "k3y"}
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-ttft", "1ms", "-model", "m"},
			func(k string) string { return env[k] }, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read banner: %v", err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "refengine serving m at ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("banner %q", line)
	}
	if strings.Contains(line, "k3y") {
		t.Errorf("banner leaks the API key")
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	for key, want := range map[string]int{"": 401, "k3y": 200} {
		req, _ := http.NewRequest(http.MethodGet, base+"/models", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("key %q: status %d, want %d", key, resp.StatusCode, want)
		}
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancellation")
	}
}

func TestRunBadFlags(t *testing.T) {
	t.Parallel()
	done, cancel := context.WithCancel(context.Background())
	cancel() // a wrongly accepted configuration returns at once instead of serving
	for _, args := range [][]string{{"-itl", "-1ms"}, {"-tokenizer", "wordpiece"}, {"-nope"}, {"extra"},
		{"-overflow", "drop"}, {"-faults", "bogus=1"}, {"-reasoning-field", "thoughts"}, {"-faults", "stall_after=3"},
		{"-speed", "-1"}, {"-run-cv", "1.5"}, {"-drift", "-1"}, {"-cold-factor", "-2"}} {
		args = append([]string{"-addr", "127.0.0.1:0"}, args...)
		if err := run(done, args, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

func TestOptionsFlags(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts := refengine.Flags(fs)
	err := fs.Parse([]string{"-prefix-cache", "-cache-block-tokens", "32", "-cache-capacity-blocks", "100",
		"-think", "-reasoning-tokens", "5", "-reasoning-field", "reasoning", "-reject-thinking-controls",
		"-overflow", "timeslice", "-max-batch", "8", "-tokens-per-chunk", "3", "-disable-tokenize",
		"-faults", "stall_after=3,stall_for=2s,extra_words=4", "-extra-words", "1",
		"-speed", "1.15", "-run-cv", "0.03", "-run-seed", "9", "-drift", "0.05", "-cold-requests", "20", "-cold-factor", "3",
		"-spec-tokens", "3", "-spec-accept", "0.7"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := opts()
	if err != nil {
		t.Fatal(err)
	}
	wantFaults := refengine.Faults{StallAfter: 3, StallFor: 2 * time.Second, ExtraWords: 1}
	if !o.PrefixCache || o.CacheBlockTokens != 32 || o.CacheCapacityBlocks != 100 || !o.ThinkByDefault ||
		o.ReasoningTokens != 5 || o.ReasoningField != "reasoning" || !o.RejectThinkingControls ||
		o.Overflow != "timeslice" || o.MaxBatch != 8 || o.TokensPerChunk != 3 || !o.DisableTokenize ||
		o.Faults != wantFaults || o.Tokenizer == nil || o.Speed != 1.15 || o.RunCV != 0.03 || o.RunSeed != 9 ||
		o.Drift != 0.05 || o.ColdRequests != 20 || o.ColdFactor != 3 || o.SpecTokens != 3 || o.SpecAccept != 0.7 {
		t.Errorf("options %+v", o)
	}
}
