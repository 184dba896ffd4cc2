package capacity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/internal/suggest"
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
	// FirstToken is how long the preflight's one-token request waited for its answer.
	FirstToken time.Duration
}

// PreflightOptions say what a preflight checks for.
type PreflightOptions struct {
	// Model is the model to request; empty takes the first GET /models lists.
	Model string
	// Window is a configured context window; 0 discovers it.
	Window int
	// API is the API a one-token probe goes to (chat when empty).
	API API
	// ProbeTimeout bounds each step of the preflight, listing the models and the one-token
	// probe's first token; 0 is defaultProbeTimeout. An engine that accepts connections
	// and never answers fails the run within it, not after a request's whole timeout.
	ProbeTimeout time.Duration
}

// defaultProbeTimeout is how long the preflight waits for an answer at each step: a loaded
// engine answers one token within a second; half a minute leaves a cold start's compile or
// a tiny model's load room, and keeps a wedged engine's cost under a minute.
const defaultProbeTimeout = 30 * time.Second

// errProbeDeadline is the preflight's own deadline, told apart from a request's.
var errProbeDeadline = errors.New("the preflight's deadline passed")

// Preflight checks, before any scenario, that the endpoint can run one, and returns what
// it found: it answers (GET /models), it accepts the key, it serves the model (listed by
// GET /models, or answered when not listed: an alias), it streams a token of it (one
// one-token request), and its context window (GET /models, else the engine's own
// endpoints). Each step has ProbeTimeout. A failure is one error naming what failed: an
// unreachable endpoint, refused credentials, a model the engine does not serve with the
// ids it does, or the step an engine that never answers did not pass.
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

	within := cmp.Or(opts.ProbeTimeout, defaultProbeTimeout)
	listCtx, cancel := context.WithTimeoutCause(ctx, within, errProbeDeadline)
	models, listErr := client.Models(listCtx)
	cancel()
	if errors.Is(context.Cause(listCtx), errProbeDeadline) && ctx.Err() == nil {
		return fail(fmt.Errorf("the endpoint at %s took the connection but did not answer GET /models within %v (ANVIL_PROBE_TIMEOUT): is the engine still starting, or wedged?", target.BaseURL, within))
	}
	if err := refused(listErr, target.BaseURL); err != nil {
		return fail(err)
	}
	hint := noV1(target.BaseURL, listErr)
	for _, m := range models {
		ep.Served = append(ep.Served, m.ID)
	}
	switch {
	case opts.Model == "" && listErr != nil:
		return fail(fmt.Errorf("no model to request: GET /models failed (%v)%s; name one (ANVIL_MODEL)", listErr, hint))
	case opts.Model == "":
		m, err := onlyModel(models)
		if err != nil {
			return fail(fmt.Errorf("%w; name one (ANVIL_MODEL)", err))
		}
		ep.Model = m
	case slices.Contains(ep.Served, opts.Model):
		ep.Model = opts.Model
	default:
		p, err := probeWithin(ctx, client, opts.Model, opts.API, within)
		if errors.Is(err, errNoAnswer) {
			return fail(fmt.Errorf("model %q is not listed, and %w", opts.Model, err))
		}
		if err != nil {
			return fail(notServed("model", opts.Model, ep.Served, listErr, err, hint))
		}
		ep.Model, ep.Alias, ep.FirstToken = opts.Model, true, p.ttft
	}
	if !ep.Alias {
		// Listed is not served: an engine can list a model it never answers.
		p, err := probeWithin(ctx, client, ep.Model, opts.API, within)
		switch {
		case errors.Is(err, errNoAnswer):
			return fail(fmt.Errorf("model %q is listed, but %w", ep.Model, err))
		case err != nil:
			return fail(fmt.Errorf("model %q is listed, but a one-token request for it failed: %w", ep.Model, err))
		}
		ep.FirstToken = p.ttft
	}
	switch {
	case opts.Window > 0:
		ep.Window, ep.WindowSource = opts.Window, WindowConfigured
	default:
		if w := listedWindow(models, ep.Model); w > 0 {
			ep.Window, ep.WindowSource = w, stream.WindowFromModels
		}
		if ep.Window == 0 {
			if w, err := client.NativeWindow(ctx, ep.Model); err == nil {
				ep.Window, ep.WindowSource = w.Tokens, w.Source
			}
		}
	}
	return ep, nil
}

// notServed says that the engine does not serve name (a model, an adapter): what GET /models
// listed (or why it could not), the one-token request's refusal, hint, and the served id
// name was probably meant to be.
func notServed(what, name string, served []string, listErr, refusal error, hint string) error {
	listed := "GET /models lists " + listOf(served)
	if listErr != nil {
		listed = fmt.Sprintf("GET /models failed (%v)", listErr)
	}
	return fmt.Errorf("%s %q is not served: %s, and a one-token request for it was refused: %v%s%s", what, name, listed, refusal, hint, didYouMean(name, served))
}

// noV1 is a hint for a GET /models that found nothing (404) at a base URL not ending in
// /v1, where OpenAI-compatible engines serve: else "".
func noV1(base string, err error) string {
	var se *stream.Error
	if !errors.As(err, &se) || se.Status != http.StatusNotFound {
		return ""
	}
	u, perr := url.Parse(base)
	if perr != nil || strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		return ""
	}
	return fmt.Sprintf("; the base URL %s does not end in /v1, where OpenAI-compatible engines serve (ANVIL_BASE_URL=%s/v1?)",
		base, strings.TrimRight(base, "/"))
}

// didYouMean names the served id model was probably meant to be: one that adds a tag to it
// (Ollama's llama3.2:1b for llama3.2), else the nearest within a quarter of its length in
// edits; "" when none is close.
func didYouMean(model string, served []string) string {
	m := ""
	for _, id := range served {
		if strings.HasPrefix(id, model+":") && (m == "" || len(id) < len(m)) {
			m = id
		}
	}
	if m == "" {
		m = suggest.Nearest(model, served, max(2, len(model)/4))
	}
	if m == "" {
		// Ollama lists tiny-llama:latest for a tiny-llama asked: compare without tags.
		base := func(id string) string { b, _, _ := strings.Cut(id, ":"); return b }
		bases := make([]string, len(served))
		for i, id := range served {
			bases[i] = base(id)
		}
		if near := suggest.Nearest(base(model), bases, max(2, len(base(model))/4)); near != "" {
			m = served[slices.Index(bases, near)]
		}
	}
	if m == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", m)
}

// refused is the error of a GET /models that says no run can start: the endpoint cannot be
// reached, or it refused the credentials. nil otherwise (an engine may not list models).
func refused(err error, base string) error {
	var se *stream.Error
	if err == nil || !errors.As(err, &se) {
		return nil
	}
	switch {
	case se.Kind == stream.KindConnect || se.Kind == stream.KindTimeout || se.Kind == stream.KindCancelled:
		return fmt.Errorf("endpoint unreachable at %s (GET /models: %v); is the engine running there (ANVIL_BASE_URL)?", base, err)
	case se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden:
		return fmt.Errorf("the endpoint refused the credentials (GET /models: %v); check the API key (ANVIL_API_KEY)", err)
	}
	return nil
}

// probed is what a probe's answer held: its time to first output (zero when it held none)
// and the prompt tokens the engine counted (nil when it reported none).
type probed struct {
	ttft         time.Duration
	promptTokens *int
	// How far the request got: a response (its status) and the events it streamed.
	answered       bool
	status, events int
}

// probe sends one request of the least tokens api takes for model, with images when given,
// and returns what its answer held, or why it was not served.
func probe(ctx context.Context, client *stream.Client, model string, api API, images ...stream.Image) (probed, error) {
	zero := 0.0
	req := stream.ChatRequest{Model: model, Prompt: "Reply with the word ok.", MaxTokens: api.supports().ProbeTokens, Temperature: &zero, API: api.wire(), Images: images}
	body, err := req.AppendBody(nil)
	if err != nil {
		return probed{}, err
	}
	res, err := client.Stream(ctx, req.API, body, req.MaxTokens)
	if res != nil {
		defer res.Release()
	}
	if err != nil {
		if res == nil {
			return probed{}, err
		}
		return probed{answered: res.Streamed, status: res.StatusCode, events: res.Events}, err
	}
	p := probed{ttft: res.FirstOutput, answered: true, status: res.StatusCode, events: res.Events}
	if res.Usage != nil {
		p.promptTokens = res.Usage.PromptTokens
	}
	return p, nil
}

// errNoAnswer is a probe the engine took and never answered within the preflight's
// deadline; its message says which step it never passed.
var errNoAnswer = errors.New("did not answer")

// probeWithin is probe with the preflight's deadline: an engine that takes the request and
// never streams its token is an error saying how far it got (no response, a response and
// no event, events and no token), wrapping errNoAnswer.
func probeWithin(ctx context.Context, client *stream.Client, model string, api API, within time.Duration) (probed, error) {
	pctx, cancel := context.WithTimeoutCause(ctx, within, errProbeDeadline)
	defer cancel()
	p, err := probe(pctx, client, model, api)
	if err == nil && p.ttft == 0 {
		err = errors.New("its answer held no token")
	}
	if err == nil || !errors.Is(context.Cause(pctx), errProbeDeadline) || ctx.Err() != nil {
		return p, err
	}
	step := "the connection and the request were taken, but no response came (no HTTP status)"
	switch {
	case p.events > 0:
		step = fmt.Sprintf("a response came (HTTP %d) and %d events, but no token", p.status, p.events)
	case p.answered:
		step = fmt.Sprintf("a response came (HTTP %d, a stream), but no event", p.status)
	}
	return p, fmt.Errorf("%w a one-token request within %v (ANVIL_PROBE_TIMEOUT): %s; is the engine loading the model, wedged, or busy with another client?", errNoAnswer, within, step)
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
		// A LoRA adapter is listed with its base model as its parent: not a model to
		// measure alone.
		if m.ID != "" && m.Parent == "" && !slices.Contains(ids, m.ID) {
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
