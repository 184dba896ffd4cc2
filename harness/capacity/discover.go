package capacity

import (
	"context"
	"fmt"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
)

// discover fills in the model and the context window when the scenario leaves them open:
// the model from GET /v1/models, the window from /v1/models, else from the engine's own
// endpoints (llama.cpp, Ollama, SGLang), recording which answered. A server that cannot
// list models is fine when neither is needed; one that cannot be reached is not.
func discover(ctx context.Context, client *stream.Client, base string, sc *Scenario) (artifact.Capabilities, error) {
	var caps artifact.Capabilities
	if sc.MaxContextTokens > 0 {
		caps.MaxContextTokens, caps.MaxContextSource = sc.MaxContextTokens, new(WindowConfigured)
		if sc.Model != "" {
			return caps, nil
		}
	}
	models, err := client.Models(ctx)
	caps.ModelsEndpoint = new(err == nil)
	if err := refused(err, base); err != nil {
		// Every request would fail the same way: say so once, before sending any.
		return caps, err
	}
	if sc.Model == "" {
		if err != nil {
			return caps, fmt.Errorf("no model to request: name one in the scenario (GET /models: %v)", err)
		}
		// An engine lists what a feature's requests name (LoRA adapters) beside the model.
		m, err := onlyModel(slices.DeleteFunc(slices.Clone(models), func(m stream.Model) bool {
			return slices.Contains(sc.featureModels(), m.ID)
		}))
		if err != nil {
			return caps, fmt.Errorf("%w; name one in the scenario", err)
		}
		sc.Model = m
	}
	if sc.MaxContextTokens > 0 {
		return caps, nil
	}
	if w := listedWindow(models, sc.Model); w > 0 {
		sc.MaxContextTokens = w
		caps.MaxContextTokens, caps.MaxContextSource = w, new(stream.WindowFromModels)
		return caps, nil
	}
	if w, err := client.NativeWindow(ctx, sc.Model); err == nil {
		sc.MaxContextTokens = w.Tokens
		caps.MaxContextTokens, caps.MaxContextSource, caps.MaxContextNote = w.Tokens, new(w.Source), w.Note
	}
	return caps, nil
}

// listedWindow is the window GET /models gives model: its own entry's, else that of the
// id it stands for untagged (Ollama serves "name" for the listed "name:latest"); 0 none.
func listedWindow(models []stream.Model, model string) int {
	for _, id := range []string{model, model + ":latest"} {
		for _, m := range models {
			if m.ID == id && m.MaxContextTokens > 0 {
				return m.MaxContextTokens
			}
		}
	}
	return 0
}

// WindowConfigured is the window source of a scenario that set MaxContextTokens.
const WindowConfigured = "configured"
