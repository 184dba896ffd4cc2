package capacity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/stream"
)

// Endpoint is what a preflight found of the endpoint under test.
type Endpoint struct {
	// Model is the model the run requests: the one named, or the first GET /models listed.
	Model string
	// Served are the ids GET /models listed; nil when it could not list them.
	Served []string
	// Alias is true when Model is not listed but a one-token request for it was served (an
	// engine may serve an alias it does not list, e.g. Ollama's "name" for "name:latest").
	Alias bool
	// Window is the served context window, 0 unknown; WindowSource where it came from
	// (WindowConfigured, "/v1/models", an engine's own endpoint).
	Window       int
	WindowSource string
}

// PreflightOptions say what a preflight checks for.
type PreflightOptions struct {
	// Model is the model to request; empty takes the first GET /models lists.
	Model string
	// Window is a configured context window; 0 discovers it.
	Window int
	// Legacy probes /v1/completions instead of /v1/chat/completions.
	Legacy bool
}

// Preflight checks, before any scenario, that the endpoint can run one, and returns what
// it found: it answers (GET /models), it accepts the key, it serves the model (listed by
// GET /models, or a one-token request for it is answered: at most one probe request), and
// its context window (GET /models, else the engine's own endpoints). A failure is one
// error naming what failed: an unreachable endpoint, refused credentials, or a model the
// engine does not serve with the ids it does.
func Preflight(ctx context.Context, target Target, opts PreflightOptions) (Endpoint, error) {
	var ep Endpoint
	if err := target.Validate(); err != nil {
		return ep, fmt.Errorf("invalid target: %w", err)
	}
	target = target.withDefaults()
	client := stream.New(stream.Options{BaseURL: target.BaseURL, APIKey: target.APIKey, Timeout: target.Timeout,
		StallTimeout: target.StallTimeout, Connections: 1, UserSpaceStamps: true})
	defer client.Close()
	san := newSanitizer(target)
	fail := func(err error) (Endpoint, error) { return ep, errors.New(san.clean(err.Error())) }

	models, listErr := client.Models(ctx)
	if err := refused(listErr); err != nil {
		return fail(err)
	}
	for _, m := range models {
		ep.Served = append(ep.Served, m.ID)
	}
	switch {
	case opts.Model == "" && listErr != nil:
		return fail(fmt.Errorf("no model to request: GET /models failed (%v); name one (ANVIL_MODEL)", listErr))
	case opts.Model == "":
		m, err := onlyModel(models)
		if err != nil {
			return fail(fmt.Errorf("%w; name one (ANVIL_MODEL)", err))
		}
		ep.Model = m
	case slices.Contains(ep.Served, opts.Model):
		ep.Model = opts.Model
	default:
		if err := probe(ctx, client, opts.Model, opts.Legacy); err != nil {
			listed := "GET /models lists " + listOf(ep.Served)
			if listErr != nil {
				listed = fmt.Sprintf("GET /models failed (%v)", listErr)
			}
			return fail(fmt.Errorf("model %q is not served: %s, and a one-token request for it was refused: %v", opts.Model, listed, err))
		}
		ep.Model, ep.Alias = opts.Model, true
	}
	switch {
	case opts.Window > 0:
		ep.Window, ep.WindowSource = opts.Window, WindowConfigured
	default:
		for _, m := range models {
			if m.ID == ep.Model && m.MaxContextTokens > 0 {
				ep.Window, ep.WindowSource = m.MaxContextTokens, stream.WindowFromModels
			}
		}
		if ep.Window == 0 {
			if w, err := client.NativeWindow(ctx, ep.Model); err == nil {
				ep.Window, ep.WindowSource = w.Tokens, w.Source
			}
		}
	}
	return ep, nil
}

// refused is the error of a GET /models that says no run can start: the endpoint cannot be
// reached, or it refused the credentials. nil otherwise (an engine may not list models).
func refused(err error) error {
	var se *stream.Error
	if err == nil || !errors.As(err, &se) {
		return nil
	}
	switch {
	case se.Kind == stream.KindConnect || se.Kind == stream.KindTimeout || se.Kind == stream.KindCancelled:
		return fmt.Errorf("endpoint unreachable (GET /models: %v); is the engine running at the base URL?", err)
	case se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden:
		return fmt.Errorf("the endpoint refused the credentials (GET /models: %v); check the API key (ANVIL_API_KEY)", err)
	}
	return nil
}

// probe sends one request of one token for model and returns why it was not served.
func probe(ctx context.Context, client *stream.Client, model string, legacy bool) error {
	zero := 0.0
	req := stream.ChatRequest{Model: model, Prompt: "Reply with the word ok.", MaxTokens: 1, Temperature: &zero, Legacy: legacy}
	body, err := req.AppendBody(nil)
	if err != nil {
		return err
	}
	res, err := client.Stream(ctx, req.Path(), body, req.MaxTokens)
	if err != nil {
		return err
	}
	res.Release()
	return nil
}

// listOf names ids for a message, the first few of many.
func listOf(ids []string) string {
	const shown = 8
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) > shown {
		return strings.Join(ids[:shown], ", ") + fmt.Sprintf(" (and %d more)", len(ids)-shown)
	}
	return strings.Join(ids, ", ")
}

// onlyModel is the model to request when none was named: the one the engine lists. Of
// several it picks none, since engines need not keep their order (Ollama's changes between
// calls) and every scenario of a run must measure the same one.
func onlyModel(models []stream.Model) (string, error) {
	var ids []string
	for _, m := range models {
		if m.ID != "" && !slices.Contains(ids, m.ID) {
			ids = append(ids, m.ID)
		}
	}
	switch len(ids) {
	case 0:
		return "", errors.New("no model to request: GET /models listed none")
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("no model to request: GET /models lists %d, %s, and which one to measure is not said", len(ids), listOf(ids))
}
