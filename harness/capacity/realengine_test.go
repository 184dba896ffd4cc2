package capacity

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// realEngine is the Ollama deploy/ollama sets up, served on its default port
// (deploy/ollama/serve DIR 11434), with the fast tiny model.
const (
	realEngineURL   = "http://127.0.0.1:11434/v1"
	realEngineModel = "tiny-llama-fast"
)

// needRealEngine skips unless the real engine answers with its model listed.
func needRealEngine(t *testing.T) {
	t.Helper()
	client := &http.Client{Timeout: time.Second}
	resp, err := client.Get(realEngineURL + "/models")
	if err != nil {
		t.Skipf("no real engine at %s (deploy/ollama/setup DIR && deploy/ollama/serve DIR 11434 starts one): %v", realEngineURL, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	if !strings.Contains(b.String(), realEngineModel) {
		t.Skipf("the engine at %s does not serve %s", realEngineURL, realEngineModel)
	}
}

// Against Ollama (llama.cpp) with a random-weight model: a trace, sessions, a tool call
// and a JSON answer run end to end, every request accounted, and what the model did is in
// the figures and the structure problems. Observe: a random model follows no instruction.
func TestWorkloadsAgainstARealEngine(t *testing.T) {
	needRealEngine(t)
	tg := Target{BaseURL: realEngineURL, Timeout: 2 * time.Minute, StallTimeout: time.Minute}
	base := Scenario{Model: realEngineModel, Concurrency: 2, Policy: PolicyObserve, Calibrate: true, MaxTokens: 64, ResponseWords: 8}
	trace := base
	trace.Trace = Trace{File: filepath.Join("..", "..", "testdata", "traces", "agentic-300.jsonl"), Lines: 12, Speedup: 2}
	sessions := base
	sessions.Sessions, sessions.ContextTokens = Sessions{Count: 2, Turns: 4, TurnTokens: 200}, 2000
	tool, answer := base, base
	tool.Requests, tool.ContextTokens, tool.Output = 2, 800, OutputTool
	answer.Requests, answer.ContextTokens, answer.Output = 2, 800, OutputJSON
	for name, sc := range map[string]Scenario{"trace": trace, "sessions": sessions, "tool call": tool, "json": answer} {
		b, err := Run(context.Background(), tg, sc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.Completed+b.Failed != b.Requests || len(b.Extension.Timeline) != b.Requests {
			t.Errorf("%s: %d completed + %d failed of %d requests", name, b.Completed, b.Failed, b.Requests)
		}
		if acc := b.Extension.ContextAccuracy; acc.MaxAbsErrorPct == nil || *acc.MaxAbsErrorPct > 3 {
			t.Errorf("%s: the engine's prompt tokens off the plan: %+v", name, acc)
		}
		t.Logf("%s: %d of %d completed, ttft p50 %.0f ms", name, b.Completed, b.Requests, value(b.Metrics.TTFT.P50))
		if s := b.Extension.Sessions; s != nil {
			for _, turn := range s.ByTurn {
				t.Logf("  turn %d: ttft p50 %.0f ms, prompt %v tokens", turn.Turn, float64(turn.TTFTMs.P50), *turn.PromptTokensMean)
			}
			// Ollama's prompt cache: a later turn prefills only what is new.
			if s.ByTurn[1].TTFTMs.P50 >= s.ByTurn[0].TTFTMs.P50 {
				t.Errorf("sessions: turn 2 ttft %v ms, not below turn 1's %v ms", s.ByTurn[1].TTFTMs.P50, s.ByTurn[0].TTFTMs.P50)
			}
		}
		for _, span := range b.Extension.Timeline {
			if span.StructureProblem != nil {
				t.Logf("  request %d: %s", span.RequestIndex, *span.StructureProblem)
			}
		}
	}
}

func value(p *artifact.Float) float64 {
	if p == nil {
		return -1
	}
	return float64(*p)
}
