package workload

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const sampleTrace = `{"timestamp": 0, "input_length": 1000, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 100, "input_length": 600, "output_length": 20, "hash_ids": [1, 3], "extra": "ignored"}

{"timestamp": 100, "input_length": 512, "output_length": 5, "hash_ids": [4]}
{"timestamp": 400, "input_length": 1500, "output_length": 7, "hash_ids": [1, 2, 5]}
`

func TestReadTraceKeepsEveryLineInOrder(t *testing.T) {
	t.Parallel()
	tr, err := ReadTrace(strings.NewReader(sampleTrace), TraceSelection{Speedup: 2}, 512)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 4 || tr.Lines != 5 || tr.Skipped != 0 || len(tr.SHA256) != 64 {
		t.Fatalf("len %d lines %d skipped %d sha %q", tr.Len(), tr.Lines, tr.Skipped, tr.SHA256)
	}
	r := tr.Request(3)
	if r.Line != 5 || r.Offset != 200*time.Millisecond || r.InputTokens != 1500 || r.OutputTokens != 7 || fmt.Sprint(r.HashIDs) != "[1 2 5]" {
		t.Errorf("request 3: %+v", r)
	}
	if tr.Duration() != 200*time.Millisecond || fmt.Sprint(tr.Offsets()) != "[0s 50ms 50ms 200ms]" {
		t.Errorf("offsets %v", tr.Offsets())
	}
}

func TestReadTraceSelects(t *testing.T) {
	t.Parallel()
	tr, err := ReadTrace(strings.NewReader(sampleTrace), TraceSelection{FromMs: 100, UntilMs: 400, First: 1}, 512)
	if err != nil {
		t.Fatal(err)
	}
	// The window holds lines 2 and 4; the first of them is kept, due at 0.
	if tr.Len() != 1 || tr.Request(0).Line != 2 || tr.Request(0).Offset != 0 || tr.Skipped != 3 {
		t.Errorf("selected %d lines, first %+v, skipped %d", tr.Len(), tr.Request(0), tr.Skipped)
	}
	if _, err := ReadTrace(strings.NewReader(sampleTrace), TraceSelection{FromMs: 5000}, 512); err == nil || !strings.Contains(err.Error(), "no request the selection keeps") {
		t.Errorf("an empty selection: %v", err)
	}
}

func TestReadTraceNamesEveryProblemWithItsLine(t *testing.T) {
	t.Parallel()
	bad := `{"timestamp": 10, "input_length": 1000, "output_length": 10, "hash_ids": [1, 2]}
not json
{"timestamp": 5, "input_length": 100, "output_length": 1, "hash_ids": [1]}
{"input_length": 100, "output_length": 0, "hash_ids": [1]}
{"timestamp": 20, "input_length": 2000, "output_length": 1, "hash_ids": [1]}
{"timestamp": 30, "input_length": 100, "output_length": 1}
`
	_, err := ReadTrace(strings.NewReader(bad), TraceSelection{}, 512)
	var te *traceError
	if !errors.As(err, &te) {
		t.Fatalf("err %v, want a TraceError", err)
	}
	for _, want := range []string{
		"line 2: not a JSON object",
		"line 3: timestamp 5 is before the previous line's 10",
		"line 4: no timestamp", "line 4: output_length 0: want 1..",
		"line 5: 1 hash ids for input_length 2000: at 512 tokens a block it takes 4",
		"line 6: no hash_ids",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	many := strings.Repeat("x\n", 25)
	if _, err := ReadTrace(strings.NewReader(many), TraceSelection{}, 512); !errors.As(err, &te) || len(te.Problems) != maxTraceProblems || te.More != 15 {
		t.Errorf("25 bad lines: %v", err)
	}
	if _, err := ReadTrace(strings.NewReader(sampleTrace), TraceSelection{Speedup: -1}, 512); err == nil {
		t.Errorf("a negative speedup was accepted")
	}
}

func TestBlocksShareExactlyTheirIDs(t *testing.T) {
	t.Parallel()
	b := BlockPlan{Prompts: Prompts{Seed: 7, CharsPerToken: 3, ResponseWords: 9, Nonce: "abc"}, BlockChars: 1536}
	a, err := b.AppendTracePrompt(nil, 0, []int64{1, 2, 3}, 2000, 9)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.AppendTracePrompt(nil, 1, []int64{1, 2, 4}, 1800, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != b.Chars(2000) || len(c) != b.Chars(1800) {
		t.Errorf("lengths %d %d, want %d %d", len(a), len(c), b.Chars(2000), b.Chars(1800))
	}
	common := 0
	for common < len(a) && common < len(c) && a[common] == c[common] {
		common++
	}
	if common != 2*b.BlockChars {
		t.Errorf("prompts share %d bytes, want exactly the two blocks' %d", common, 2*b.BlockChars)
	}
	if a[b.BlockChars-1] != '\n' || !strings.Contains(string(a), `exactly 9 words`) || !strings.Contains(string(c), `exactly 4 words`) {
		t.Errorf("a block must end its line, and each prompt ask for its own words")
	}
	// Another nonce: no block in common.
	other := b
	other.Nonce = "xyz"
	d, _ := other.AppendTracePrompt(nil, 0, []int64{1, 2, 3}, 2000, 9)
	if d[0] == a[0] && d[1] == a[1] && d[2] == a[2] && d[3] == a[3] && string(d[:30]) == string(a[:30]) {
		t.Errorf("another run's nonce gives the same first block")
	}
	// A shorter cut of a block is a prefix of a longer one.
	short, long := b.AppendBlock(nil, 5, 100, false), b.AppendBlock(nil, 5, 400, false)
	if string(long[:100]) != string(short) {
		t.Errorf("a block's cut is not a prefix of a longer cut")
	}
	if _, err := b.AppendTracePrompt(nil, 0, []int64{1, 2}, 520, 9); !errors.Is(err, errContextTooSmall) {
		t.Errorf("a last block with no room for the instruction: %v", err)
	}
}

var update = flag.Bool("update", false, "rewrite the shipped trace from its generator")

// The shipped trace is what its generator writes: regenerate it with go test -run
// ShippedTrace -update.
func TestShippedTraceIsGenerated(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := generateTrace(&buf, shippedTrace()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "..", "..", "testdata", "traces", "agentic-300.jsonl")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, buf.Bytes()) {
		t.Fatalf("%s is not what ShippedTrace generates: go test ./harness/capacity/internal/workload -run ShippedTrace -update", path)
	}
	tr, err := ReadTrace(bytes.NewReader(shipped), TraceSelection{}, DefaultTraceBlockTokens)
	if err != nil {
		t.Fatal(err)
	}
	// It shares: most requests repeat blocks of an earlier one.
	seen, sharing := map[int64]bool{}, 0
	for i := range tr.Len() {
		r := tr.Request(i)
		if seen[r.HashIDs[0]] {
			sharing++
		}
		for _, id := range r.HashIDs {
			seen[id] = true
		}
	}
	if tr.Len() != 300 || sharing < 150 {
		t.Errorf("%d lines, %d start with a block seen before", tr.Len(), sharing)
	}
	t.Logf("%d lines over %v, %d share their first block with an earlier one, %d distinct blocks", tr.Len(), tr.Duration(), sharing, len(seen))
}

// A selection beyond what one replay takes is refused, counted, not held.
func TestReadTraceRefusesTooManyLines(t *testing.T) {
	t.Parallel()
	line := `{"timestamp": 0, "input_length": 100, "output_length": 2, "hash_ids": [1]}` + "\n"
	_, err := ReadTrace(strings.NewReader(strings.Repeat(line, maxTraceRequests+3)), TraceSelection{}, 512)
	if err == nil || !strings.Contains(err.Error(), "the selection holds 200003 lines; a replay takes at most 200000") {
		t.Errorf("%v", err)
	}
	if tr, err := ReadTrace(strings.NewReader(strings.Repeat(line, maxTraceRequests+3)), TraceSelection{First: 10}, 512); err != nil || tr.Len() != 10 {
		t.Errorf("the first 10 of them: %v", err)
	}
}
