package capacity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/schedule"
	"github.com/anvilbench/anvilbench/harness/stream"
	"github.com/anvilbench/anvilbench/harness/workload"
)

// Run executes the scenario against the target and returns its artifact. Request failures
// are recorded in the artifact, never returned: every request index ends in exactly one of
// request_timings or failures. The error is for what prevents a run from starting (an
// unreachable endpoint, no model to name, no room in the context window); it is reported
// once instead of as one identical failure per request.
func Run(ctx context.Context, target Target, sc Scenario) (*artifact.Benchmark, error) {
	if sc.CharsPerToken == 0 {
		sc.CharsPerToken = workload.DefaultCharsPerToken
	}
	client := stream.New(stream.Options{
		BaseURL:      target.BaseURL,
		APIKey:       target.APIKey,
		Timeout:      target.Timeout,
		StallTimeout: target.StallTimeout,
		Connections:  sc.Concurrency,
	})
	defer client.Close()
	san := newSanitizer(target)

	if err := discover(ctx, client, &sc); err != nil {
		return nil, errors.New(san.clean(err.Error()))
	}
	capTokens := 0
	if sc.MaxContextTokens > 0 {
		capTokens = sc.MaxContextTokens - sc.MaxTokens - sc.ContextMargin
		if capTokens < workload.MinPromptTokens {
			return nil, fmt.Errorf("context window %d leaves %d prompt tokens after max_tokens %d and margin %d: need at least %d",
				sc.MaxContextTokens, capTokens, sc.MaxTokens, sc.ContextMargin, workload.MinPromptTokens)
		}
	}

	r := &run{
		sc:     sc,
		client: client,
		san:    san,
		plan:   workload.PlanContexts(sc.Requests, sc.ContextTokens, sc.ContextSeed, sc.ContextBuckets, capTokens),
		prompts: workload.Prompts{
			Seed:          sc.ContextSeed,
			CharsPerToken: sc.CharsPerToken,
			ResponseWords: sc.ResponseWords,
			Canaries:      sc.RequestCanaries,
		},
	}
	r.outcomes = make([]outcome, sc.Requests)

	// One time.Now gives both the Unix reading and the monotonic origin of the wall clock.
	started := time.Now()
	schedule.ClosedLoop(ctx, sc.Requests, sc.Concurrency, func(ctx context.Context, i int) {
		r.outcomes[i] = r.one(ctx, i)
	})
	finished := time.Now()

	return r.assemble(target, started, finished), nil
}

// discover fills in the model and the context window from GET /v1/models when the
// scenario leaves them open. A server that cannot list models is fine when neither is
// needed; one that cannot be reached is not.
func discover(ctx context.Context, client *stream.Client, sc *Scenario) error {
	if sc.Model != "" && sc.MaxContextTokens > 0 {
		return nil
	}
	models, err := client.Models(ctx)
	var se *stream.Error
	if err != nil && errors.As(err, &se) && (se.Kind == stream.KindConnect || se.Kind == stream.KindTimeout || se.Kind == stream.KindCancelled) {
		return fmt.Errorf("endpoint unreachable (GET /models: %v); is the engine running at ANVIL_BASE_URL?", err)
	}
	if sc.Model == "" {
		if err != nil {
			return fmt.Errorf("no model to request: set ANVIL_MODEL (GET /models: %v)", err)
		}
		if len(models) == 0 || models[0].ID == "" {
			return errors.New("no model to request: GET /models listed none; set ANVIL_MODEL")
		}
		sc.Model = models[0].ID
	}
	if sc.MaxContextTokens == 0 && err == nil {
		for _, m := range models {
			if m.ID == sc.Model {
				sc.MaxContextTokens = m.MaxContextTokens
				return nil
			}
		}
		if len(models) > 0 {
			sc.MaxContextTokens = models[0].MaxContextTokens
		}
	}
	return nil
}

// run is the state of one Run. outcomes[i] is written only by the worker of index i.
type run struct {
	sc       Scenario
	client   *stream.Client
	san      sanitizer
	plan     []int
	prompts  workload.Prompts
	outcomes []outcome
}
