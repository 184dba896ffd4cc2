package capacity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

// writeTrace writes lines as a trace file and returns its path.
func writeTrace(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// traceLine is one Mooncake line.
func traceLine(ms, input, output int, ids ...int) string {
	return fmt.Sprintf(`{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": %s}`, ms, input, output,
		strings.ReplaceAll(fmt.Sprint(ids), " ", ", "))
}

// Against an engine that caches prefixes, each request finds exactly the blocks the trace
// shares with the lines before it, and every row records its line.
func TestTraceReplaySharesExactlyTheTracesBlocks(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{PrefixCache: true})
	path := writeTrace(t,
		traceLine(0, 700, 8, 1, 2, 3),
		traceLine(60, 600, 6, 1, 2, 4),
		traceLine(120, 500, 5, 5, 6),
		traceLine(180, 760, 9, 1, 2, 3),
		traceLine(240, 400, 4, 5, 7),
	)
	sc := Scenario{Trace: Trace{File: path, BlockTokens: 256}, Concurrency: 4, Policy: PolicyStrict, Calibrate: true}
	b := mustRun(t, target(s), sc)
	if b.Completed != 5 || b.Failed != 0 {
		t.Fatalf("completed %d failed %d: %+v", b.Completed, b.Failed, b.Failures)
	}
	tr := b.Extension.Trace
	if tr == nil || tr.Selected != 5 || tr.BlockTokens != 256 || !tr.BlockCharsExact || tr.StartErrorMs == nil || tr.StartErrorMs.Samples != 5 {
		t.Fatalf("trace block %+v", tr)
	}
	// Line 4 repeats line 1's blocks, its partial last one included: the engine may find
	// more of it, up to the whole prompt; every other line finds exactly its whole blocks.
	want := [][2]int{{0, 0}, {512, 512}, {0, 0}, {512, 760}, {256, 256}}
	for k, span := range b.Extension.Timeline {
		if span.TraceLine == nil || *span.TraceLine != k+1 {
			t.Errorf("request %d: trace line %v", k, span.TraceLine)
		}
		if span.ExpectedCachedMin == nil || *span.ExpectedCachedMin != want[k][0] || *span.ExpectedCachedMax != want[k][1] {
			t.Errorf("request %d: expected cached %v..%v, want %v", k, span.ExpectedCachedMin, span.ExpectedCachedMax, want[k])
		}
		if c := span.CachedTokens; c == nil || *c < want[k][0] || *c > want[k][1] {
			t.Errorf("request %d: the engine cached %v tokens, the trace shares %v", k, c, want[k])
		}
		if *span.PromptTokens != span.PlannedContextTokens && abs(*span.PromptTokens-span.PlannedContextTokens) > 8 {
			t.Errorf("request %d: prompt tokens %d for input_length %d", k, *span.PromptTokens, span.PlannedContextTokens)
		}
	}
	if b.MaxTokens != 9 || b.ResponseWords != 8 || b.ContextTokens != nil {
		t.Errorf("max_tokens %d response_words %d context_tokens %v", b.MaxTokens, b.ResponseWords, b.ContextTokens)
	}
}

func TestTraceProblemsAreNamedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{MaxModelLen: 4096})
	bad := writeTrace(t, traceLine(0, 1200, 8, 1, 2, 3), `{"timestamp": 5}`, traceLine(10, 9000, 8, 1, 2, 3))
	_, err := Run(t.Context(), target(s), Scenario{Trace: Trace{File: bad, BlockTokens: 512}, Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "line 2: no input_length") || !strings.Contains(err.Error(), "line 3: 3 hash ids") {
		t.Errorf("err %v", err)
	}
	long := writeTrace(t, traceLine(0, 1200, 8, 1, 2, 3), traceLine(10, 4000, 200, 1, 2, 3, 4, 5, 6, 7, 8))
	_, err = Run(t.Context(), target(s), Scenario{Trace: Trace{File: long, BlockTokens: 512}, Concurrency: 1, ContextMargin: 64})
	if err == nil || !strings.Contains(err.Error(), "lines 2 (4000+200)") {
		t.Errorf("over the window: %v", err)
	}
	if s.Requests() != 0 {
		t.Errorf("%d requests sent", s.Requests())
	}
}

// The shipped trace, against an engine with a prefix cache: every line accounted, and every
// request's cached tokens within what the trace shares (exactly, where requests are far
// enough apart for the range to be one value).
func TestShippedTraceReplays(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{PrefixCache: true, PrefillRate: 400_000, ITL: time.Millisecond, MaxBatch: 64})
	path := filepath.Join("..", "..", "testdata", "traces", "agentic-300.jsonl")
	b := mustRun(t, target(s), Scenario{Trace: Trace{File: path, Speedup: 8}, Concurrency: 64, Calibrate: true, WarmupRequests: 32, ResponseWords: 30})
	if b.Completed+b.Failed != 300 || b.Failed != 0 {
		t.Fatalf("completed %d failed %d: %v", b.Completed, b.Failed, b.Failures)
	}
	// The warm-up asks each request for the words its line's plan scores it on: none of
	// them fails its controlled output (its prompts asked for the scenario's words once).
	if w := b.Extension.Warmup; w == nil || w.Requests != 32 || w.Completed != 32 {
		t.Errorf("warm-up %+v", w)
	}
	exact, inRange := 0, 0
	for _, span := range b.Extension.Timeline {
		lo, hi, c := *span.ExpectedCachedMin, *span.ExpectedCachedMax, *span.CachedTokens
		if lo == hi {
			exact++
			if c != lo {
				t.Errorf("request %d (line %d): cached %d, the trace shares exactly %d", span.RequestIndex, *span.TraceLine, c, lo)
			}
		} else if c >= lo && c <= hi {
			inRange++
		} else {
			t.Errorf("request %d (line %d): cached %d, the trace shares %d to %d", span.RequestIndex, *span.TraceLine, c, lo, hi)
		}
	}
	tr := b.Extension.Trace
	t.Logf("%d requests with one expected value, %d within a range; start error %+v; %d lines lengthened by %d tokens at most",
		exact, inRange, *tr.StartErrorMs, tr.LengthenedLines, tr.LengthenedTokensMax)
	// Lines 10 tokens past a block boundary cannot hold the instruction: planned longer.
	if exact < 250 || tr.LengthenedLines == 0 || tr.LengthenedTokensMax > 64 || tr.Selected != 300 || tr.FileLines != 300 {
		t.Errorf("exact %d, trace %+v", exact, *tr)
	}
}
