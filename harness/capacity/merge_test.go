package capacity

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/internal/fields"
)

func shardedScenario() Scenario {
	sc := validScenario()
	sc.Requests, sc.Concurrency, sc.ContextTokens, sc.ContextSeed = 10, 4, 0, 44 // a sampled plan
	sc.ClockDomainID, sc.Model = "host-a", refengine.DefaultModel
	return sc
}

// runShards runs n shards of sc at once, started together.
func runShards(t *testing.T, tg Target, sc Scenario, n int) []NamedArtifact {
	t.Helper()
	out := make([]NamedArtifact, n)
	start := time.Now().Add(300 * time.Millisecond)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s := sc
			s.Shard, s.StartAt = Shard{Index: i, Count: n}, start
			b, err := Run(context.Background(), tg, s)
			if err != nil {
				t.Errorf("shard %d: %v", i, err)
				return
			}
			if err := Verify(b); err != nil {
				t.Errorf("shard %d does not verify: %v", i, err)
			}
			out[i] = NamedArtifact{Name: fmt.Sprintf("shard-%d.json", i), Benchmark: b}
		})
	}
	wg.Wait()
	return out
}

// The shards of a run together are the unsharded run: the same indices exactly once, the
// same plan and prompts, and every merged figure recomputed from the rows.
func TestShardsMergeIntoTheUnshardedRun(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{MaxModelLen: 200_000})
	sc := shardedScenario()
	whole := mustRun(t, target(s), sc)
	shards := runShards(t, target(s), sc, 3)
	if t.Failed() {
		t.FailNow()
	}
	for _, sh := range shards {
		x := sh.Extension.Shard
		if x == nil || x.Count != 3 || x.TotalRequests != 10 || sh.Metrics.ThroughputTokS != nil || x.StartSkewMs == nil {
			t.Fatalf("%s: shard %+v, throughput %v", sh.Name, x, sh.Metrics.ThroughputTokS)
		}
		if sh.Concurrency < 1 || float64(*x.StartSkewMs) > 100 {
			t.Errorf("%s: concurrency %d, start skew %v ms", sh.Name, sh.Concurrency, *x.StartSkewMs)
		}
	}
	if shards[0].Concurrency+shards[1].Concurrency+shards[2].Concurrency != 4 {
		t.Errorf("concurrency split %d+%d+%d, want 4", shards[0].Concurrency, shards[1].Concurrency, shards[2].Concurrency)
	}
	merged, err := Merge([]NamedArtifact{shards[2], shards[0], shards[1]})
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(merged); err != nil {
		t.Fatalf("the merged artifact does not verify: %v", err)
	}
	if merged.Requests != 10 || merged.Completed != 10 || merged.Concurrency != 4 || merged.Metrics.ThroughputTokS == nil || len(merged.Extension.MergedFrom) != 3 {
		t.Fatalf("merged: %d requests, %d completed, concurrency %d, throughput %v", merged.Requests, merged.Completed, merged.Concurrency, merged.Metrics.ThroughputTokS)
	}
	if fmt.Sprint(merged.ContextDistribution) != fmt.Sprint(whole.ContextDistribution) {
		t.Errorf("plan %v, unsharded %v", merged.ContextDistribution, whole.ContextDistribution)
	}
	for i, r := range merged.RequestTimings {
		w := whole.RequestTimings[i]
		if r.RequestIndex != i || r.PlannedContextTokens != w.PlannedContextTokens || *r.PromptTokens != *w.PromptTokens {
			t.Errorf("request %d: planned %d prompt %d, unsharded %d %d", i, r.PlannedContextTokens, *r.PromptTokens, w.PlannedContextTokens, *w.PromptTokens)
		}
	}
	for _, sp := range merged.Extension.Timeline {
		if sp.StartOffsetMs == nil || *sp.StartOffsetMs < 0 || float64(*sp.StartOffsetMs) > float64(merged.WallClockMs) {
			t.Errorf("request %d starts at %v of a %v ms run", sp.RequestIndex, sp.StartOffsetMs, merged.WallClockMs)
		}
	}
}

// A merged run of multi-token chunks says what the unsharded run says of them.
func TestAMergedRunKeepsTheChunkingNote(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{TokensPerChunk: 4})
	sc := shardedScenario()
	whole := mustRun(t, target(s), sc)
	merged, err := Merge(runShards(t, target(s), sc, 2))
	if err != nil {
		t.Fatal(err)
	}
	w, m := whole.Extension.ITL, merged.Extension.ITL
	if w.Note == "" || m.Note != w.Note || m.TokensPerChunk == nil || *m.TokensPerChunk != *w.TokensPerChunk || m.Basis != itlMerged {
		t.Errorf("merged chunking %+v (note %q), unsharded %+v (note %q)", m, m.Note, w, w.Note)
	}
	// Every response named the engine's model, in the shards as in the whole run.
	want := map[string]int{refengine.DefaultModel: whole.Requests}
	if !maps.Equal(whole.Extension.ServedModels, want) || !maps.Equal(merged.Extension.ServedModels, want) {
		t.Errorf("served models: unsharded %v, merged %v, want %v", whole.Extension.ServedModels, merged.Extension.ServedModels, want)
	}
}

func TestMergeRefusesWhatIsNotOneRun(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{MaxModelLen: 200_000})
	shards := runShards(t, target(s), shardedScenario(), 3)
	if t.Failed() {
		t.FailNow()
	}
	other := shardedScenario()
	other.MaxTokens = 128
	foreign := runShards(t, target(s), other, 3)
	// Shard 1's requests relabelled as shard 0's.
	overlapping, ext, x := *shards[1].Benchmark, *shards[1].Extension, *shards[1].Extension.Shard
	x.Index = 0
	ext.Shard, overlapping.Extension = &x, &ext

	for _, c := range []struct {
		name   string
		shards []NamedArtifact
		want   []string
	}{
		{"missing", shards[:2], []string{"shard 2 of 3 missing"}},
		{"twice", []NamedArtifact{shards[0], shards[1], shards[2], shards[1]}, []string{"shard 1 is given twice: shard-1.json and shard-1.json"}},
		{"another workload", []NamedArtifact{shards[0], foreign[1], shards[2]}, []string{"shard 1 (shard-1.json): max_tokens 128 vs 64, against shard 0 (shard-0.json)"}},
		{"relabelled", []NamedArtifact{shards[0], {Name: "renamed.json", Benchmark: &overlapping}, shards[2]}, []string{"shard 0 is given twice: shard-0.json and renamed.json", "shard 1 of 3 missing"}},
		{"overlap", []NamedArtifact{{Name: "renamed.json", Benchmark: &overlapping}, shards[1], shards[2]}, []string{"request 1 is in shard 0 (renamed.json) and in shard 1 (shard-1.json): the shards overlap", "the shards ran 6 of the run's 10 requests"}},
		{"not a shard", []NamedArtifact{{Name: "whole.json", Benchmark: &artifact.Benchmark{}}}, []string{"whole.json is not a shard artifact"}},
	} {
		_, err := Merge(c.shards)
		for _, want := range c.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", c.name, err, want)
			}
		}
	}
}

func TestShardValidation(t *testing.T) {
	t.Parallel()
	sc := shardedScenario()
	sc.Shard = Shard{Index: 3, Count: 3}
	sc.ClockDomainID = ""
	invalid, _ := fields.Errors(sc.Validate())
	var got []string
	for _, f := range invalid {
		got = append(got, f.Error())
	}
	msg := strings.Join(got, "\n")
	for _, want := range []string{`Shard="3/3": want i/N`} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	sc.Shard = Shard{Index: 0, Count: 8}
	invalid, _ = fields.Errors(sc.Validate())
	got = got[:0]
	for _, f := range invalid {
		got = append(got, f.Error())
	}
	msg = strings.Join(got, "\n")
	for _, want := range []string{"more shards than the concurrency 4", "ClockDomainID: required when sharding"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

// A sharded trace and sharded sessions: a session never spans shards, each shard holds the
// other shards' trace lines as sent when due, and the merged artifact's requests find what
// the workload shares within their ranges.
func TestShardedTraceAndSessionsMerge(t *testing.T) {
	t.Parallel()
	s := fastEngine(t, refengine.Options{PrefixCache: true, MaxModelLen: 200_000})
	trace := writeTrace(t,
		traceLine(0, 700, 8, 1, 2, 3), traceLine(40, 600, 6, 1, 2, 4), traceLine(80, 500, 5, 5, 6),
		traceLine(120, 760, 9, 1, 2, 3), traceLine(160, 400, 4, 5, 7), traceLine(200, 650, 4, 1, 2, 8))
	tsc := Scenario{Trace: Trace{File: trace, BlockTokens: 256}, Concurrency: 4, Calibrate: true, ClockDomainID: "host-a", Model: refengine.DefaultModel}
	merged, err := Merge(runShards(t, target(s), tsc, 2))
	if err != nil {
		t.Fatal(err)
	}
	if merged.Completed != 6 || merged.Extension.Trace == nil || merged.Extension.Trace.StartErrorMs.Samples != 6 {
		t.Fatalf("merged trace: completed %d, %+v", merged.Completed, merged.Extension.Trace)
	}
	for _, sp := range merged.Extension.Timeline {
		if c, lo, hi := *sp.CachedTokens, *sp.ExpectedCachedMin, *sp.ExpectedCachedMax; c < lo-16 || c > hi+16 {
			t.Errorf("request %d (line %d): cached %d, expected %d to %d", sp.RequestIndex, *sp.TraceLine, c, lo, hi)
		}
	}

	ssc := Scenario{Sessions: Sessions{Count: 4, Turns: 3, TurnTokens: 100}, Concurrency: 2, ContextTokens: 1000, ResponseWords: 8, MaxTokens: 32,
		Calibrate: true, ClockDomainID: "host-a", Model: refengine.DefaultModel}
	shards := runShards(t, target(s), ssc, 2)
	for k, sh := range shards {
		for _, sp := range sh.Extension.Timeline {
			if *sp.Session%2 != k {
				t.Errorf("shard %d ran session %d", k, *sp.Session)
			}
		}
	}
	merged, err = Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if ss := merged.Extension.Sessions; ss == nil || ss.Sessions != 4 || ss.ByTurn[2].Requests != 4 || *ss.ByTurn[2].CacheHitRate < 0.5 {
		t.Fatalf("merged sessions %+v", ss)
	}
}
