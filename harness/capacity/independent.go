package capacity

import (
	"context"
	"fmt"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/schedule"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// independent sends Requests independent prompts, each its own, of a planned size fixed
// (ContextTokens) or sampled from ContextBuckets, in a closed loop, an open loop at
// RequestRate, or as one burst.
type independent struct {
	// clamp records how the served window clamped the plan; nil when it clamped nothing.
	clamp *artifact.ContextClamp
}

// A burst's size takes the place of Requests and Concurrency.
func (*independent) replaces(sc Scenario, field string) bool {
	return sc.Burst > 0 && (field == "Requests" || field == "Concurrency")
}

func (*independent) requests(sc Scenario) int {
	if sc.Burst > 0 {
		return sc.Burst
	}
	return sc.Requests
}

// plan sizes every prompt: a fixed size the served window cannot hold (with max_tokens and
// the margin) is refused unless the scenario clamps it; sampled sizes are clamped to the
// window, and each clamp is said and recorded.
func (k *independent) plan(r *run) ([]planned, error) {
	sc := r.sc
	capTokens := 0
	if sc.MaxContextTokens > 0 {
		capTokens = sc.MaxContextTokens - sc.MaxTokens - sc.ContextMargin
		if capTokens < workload.MinPromptTokens {
			return nil, fmt.Errorf("context window %d leaves %d prompt tokens after max_tokens %d and margin %d: need at least %d",
				sc.MaxContextTokens, capTokens, sc.MaxTokens, sc.ContextMargin, workload.MinPromptTokens)
		}
		if err := sc.FitsWindow(sc.MaxContextTokens, windowSource(r.caps)); err != nil {
			return nil, err
		}
	}
	sizes := workload.PlanContexts(sc.Requests, sc.ContextTokens, sc.ContextSeed, sc.ContextBuckets, capTokens)
	if k.clamp = clampOf(sc, sizes, capTokens, r.caps); k.clamp != nil && sc.Progress != nil {
		fmt.Fprintf(sc.Progress, "[%s] %s\n", sc.Name, k.clamp.Note)
	}
	plan := make([]planned, len(sizes))
	for i, size := range sizes {
		plan[i] = planned{context: size, maxTokens: sc.MaxTokens, words: sc.ResponseWords}
	}
	return plan, nil
}

// prepare fits each planned size to the endpoint's tokenizer where /tokenize counts text
// prompts, and sends the shard's requests in a closed loop, an open loop or a burst.
func (k *independent) prepare(ctx context.Context, r *run) ([]int, pacer, error) {
	sc := r.sc
	indices := sc.Shard.indices(sc.Requests)
	if r.calibration.Method == calibrationTokenize && sc.Output == OutputText {
		r.calibration.Fitted = fitSizes(ctx, r.client, sc, r.prompts, contexts(r.plan), indices)
	}
	send := requestUnits{r, k.prompt}
	switch {
	case sc.Burst > 0:
		return indices, burst{send}, nil
	case sc.RequestRate > 0:
		all, err := schedule.Arrivals(sc.Requests, sc.RequestRate, schedule.Arrival(sc.Arrival), sc.ContextSeed)
		if err != nil {
			return nil, nil, err
		}
		// A shard keeps its requests' places in the run's schedule.
		offsets := make([]time.Duration, len(indices))
		for j, i := range indices {
			offsets[j] = all[i]
		}
		return indices, openLoop{offsets: offsets, concurrency: r.concurrency, start: send.start}, nil
	}
	return indices, closedLoop{units: len(indices), concurrency: r.concurrency, start: send.start}, nil
}

// prompt appends request i's prompt of its planned size (the fitted size when /tokenize
// fitted it).
func (k *independent) prompt(dst []byte, r *run, i int) ([]byte, error) {
	size := r.plan[i].context
	if fitted, ok := r.calibration.Fitted[size]; ok {
		size = fitted
	}
	return r.prompts.AppendPrompt(dst, i, size)
}

// finish has nothing to work out: independent prompts share nothing to find cached.
func (*independent) finish(*run) {}

// record notes a clamped plan.
func (k *independent) record(_ *run, b *artifact.Benchmark) { b.Extension.ContextClamp = k.clamp }
