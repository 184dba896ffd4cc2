package capacity_test

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Replay the first 40 lines of a Mooncake trace at 20 times its speed against an engine
// with a prefix cache: each request finds cached the blocks the trace shares with the
// lines before it.
func ExampleRun_trace() {
	engine, err := refengine.Start(refengine.Options{PrefixCache: true, ITL: time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer engine.Close()
	sc := capacity.Scenario{
		Trace:       capacity.Trace{File: filepath.Join("..", "..", "testdata", "traces", "agentic-300.jsonl"), Lines: 40, Speedup: 20},
		Concurrency: 16, Calibrate: true,
	}
	run, err := capacity.Run(context.Background(), capacity.Target{BaseURL: engine.BaseURL()}, sc)
	if err != nil {
		panic(err)
	}
	within := 0
	for _, span := range run.Extension.Timeline {
		if c := *span.CachedTokens; c >= *span.ExpectedCachedMin-16 && c <= *span.ExpectedCachedMax+16 {
			within++
		}
	}
	fmt.Printf("%d of %d lines replayed; %d found what the trace shares cached\n", run.Completed, run.Requests, within)
	// Output: 40 of 40 lines replayed; 40 found what the trace shares cached
}

// Four conversations of three turns: from the second turn on, each finds its history
// cached.
func ExampleRun_sessions() {
	engine, err := refengine.Start(refengine.Options{PrefixCache: true, ITL: time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer engine.Close()
	sc := capacity.Scenario{Sessions: capacity.Sessions{Count: 4, Turns: 3, TurnTokens: 200}, Concurrency: 2, ContextTokens: 2000,
		ResponseWords: 16, MaxTokens: 64, Calibrate: true}
	run, err := capacity.Run(context.Background(), capacity.Target{BaseURL: engine.BaseURL()}, sc)
	if err != nil {
		panic(err)
	}
	for _, turn := range run.Extension.Sessions.ByTurn {
		fmt.Printf("turn %d: %d sessions, more than 80%% cached: %t\n", turn.Turn, turn.Requests, *turn.CacheHitRate > 0.8)
	}
	// Output:
	// turn 1: 4 sessions, more than 80% cached: false
	// turn 2: 4 sessions, more than 80% cached: true
	// turn 3: 4 sessions, more than 80% cached: true
}
