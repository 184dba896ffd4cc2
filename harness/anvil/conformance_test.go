package anvil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

const roleConformance = "conformance"

// The conformance table says what each engine did: an engine shaped like Ollama (a tagged
// id, its bare name an unlisted alias, prompts over the window cut silently) and one that
// reports no usage get the cells their behaviour earns, and the run names the truncation.
func TestTheConformanceTableSaysWhatTheEngineDid(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleConformance {
		Bootstrap("conformance")
		DescribeConformance()
		RunSpecs(t, "conformance")
		return
	}
	quick := refengine.Options{PrefillOverhead: time.Millisecond, PrefillRate: 4_000_000, ITL: time.Millisecond, MaxModelLen: 8192}
	ollamaLike := quick
	ollamaLike.Model, ollamaLike.Aliases, ollamaLike.TruncatePrompts = "tiny:latest", []string{"tiny"}, true
	noUsage := quick
	noUsage.Faults.NoUsage = true

	table := func(t *testing.T, opts refengine.Options, model string) *gate.Conformance {
		t.Helper()
		engine, err := refengine.Start(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer engine.Close()
		dir := t.TempDir()
		out, err := suiteProcess(t, roleConformance, dir, "ANVIL_BASE_URL="+engine.BaseURL(), "ANVIL_MODEL="+model,
			"ANVIL_REQUESTS=4", "ANVIL_CONCURRENCY=2", "ANVIL_CONTEXT_TOKENS=1000").CombinedOutput()
		if err != nil {
			t.Fatalf("the conformance suite failed: %v\n%s", err, out)
		}
		s, err := gate.ReadSummary(filepath.Join(dir, "out", runrecord.SummaryFile))
		if err != nil || s.Conformance == nil {
			t.Fatalf("no conformance table in the verdict: %v\n%s", err, out)
		}
		return s.Conformance
	}
	want := func(t *testing.T, c *gate.Conformance, api, item string, status gate.ConformanceStatus, detail string) {
		t.Helper()
		cell, ok := c.Cell(api, item)
		if !ok || cell.Status != status || !strings.Contains(cell.Detail, detail) {
			t.Errorf("%s / %s: %+v (recorded %v), want %s with %q", api, item, cell, ok, status, detail)
		}
	}

	t.Run("ollama-like", func(t *testing.T) {
		c := table(t, ollamaLike, "tiny")
		for _, api := range []string{"chat", "completions"} {
			want(t, c, api, itemModelServed, gate.Honoured, "tiny (not listed, answered)")
			want(t, c, api, itemStreams, gate.Honoured, "4 of 4 completed")
			want(t, c, api, itemUsage, gate.Honoured, "on 4 of 4 responses")
			want(t, c, api, itemWindow, gate.Honoured, "8192 tokens (/v1/models)")
			want(t, c, api, itemRefusesOverPlan, gate.Honoured, "a 8193-token context does not fit the served window of 8192 tokens")
			want(t, c, api, itemTruncation, gate.NotHonoured, "the engine counted 8192 prompt tokens for a 9216-token plan on every request: it truncated the prompt")
			want(t, c, api, itemAlias, gate.Honoured, "tiny, not listed, was answered")
			want(t, c, api, itemWrongModel, gate.Honoured, `model "tiny-anvil-nonexistent" is not served`)
		}
		want(t, c, "chat", itemSession, gate.Honoured, "6 of 6 turns completed")
		want(t, c, "chat", itemToolCall, gate.Honoured, "in 2 of 2 answers")
		want(t, c, "completions", itemToolCall, gate.NotApplicable, "needs API chat, responses, messages or ollama")
		want(t, c, "chat", itemStopsLeft, gate.Honoured, "2 left after 2 tokens: its ")
		want(t, c, "chat", itemImages, gate.Honoured, "refused before any request: model \"tiny\" does not take images")
		want(t, c, "completions", itemImages, gate.NotApplicable, "needs API chat, responses, messages or ollama")
		want(t, c, "chat", itemAdapters, gate.NotApplicable, "no adapters configured")
		want(t, c, "chat", itemPriorities, gate.NotApplicable, "no priority classes configured")
		want(t, c, "chat", itemAccounted, gate.Honoured, "19 of 19 requests over 6 runs")
	})
	t.Run("no usage", func(t *testing.T) {
		c := table(t, noUsage, refengine.DefaultModel)
		want(t, c, "chat", itemStreams, gate.Honoured, "4 of 4 completed")
		want(t, c, "chat", itemUsage, gate.NotHonoured, "on 0 of 4 responses")
		want(t, c, "chat", itemPlannedContext, gate.NotHonoured, "no response reported its prompt tokens")
		want(t, c, "chat", itemAlias, gate.NotApplicable, "has no :tag")
	})
}
