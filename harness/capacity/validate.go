package capacity

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/workload"
)

// FieldError is one invalid field of a Scenario or a Target. Field is the field's name as a
// scenarios file spells it, which is also its ANVIL_* variable without the prefix, in lower
// case ("requests", "max_tokens"), so every front end can name it its own way (Render).
type FieldError struct {
	Field string
	// Value is the offending value, shown after the name; nil shows none.
	Value any
	// Problem says what is wrong; other fields appear in it as {field}.
	Problem string
}

// Error names the fields as a scenarios file does: `requests=0: out of range (want 1..10000)`.
func (e *FieldError) Error() string { return e.Render(func(f string) string { return f }) }

// Render writes the problem with every field named by name, e.g. the ANVIL_* variable.
func (e *FieldError) Render(name func(field string) string) string {
	var b strings.Builder
	b.WriteString(name(e.Field))
	switch v := e.Value.(type) {
	case nil:
	case string:
		fmt.Fprintf(&b, "=%q", v)
	default:
		fmt.Fprintf(&b, "=%v", v)
	}
	b.WriteString(": ")
	rest := e.Problem
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			break
		}
		b.WriteString(rest[:open])
		b.WriteString(name(rest[open+1 : open+end]))
		rest = rest[open+end+1:]
	}
	b.WriteString(rest)
	return b.String()
}

// FieldErrors returns the FieldErrors of an error from Validate (joined errors, joins of
// joins included), in order; any other error in it is returned as is in rest.
func FieldErrors(err error) (fields []*FieldError, rest []error) {
	switch e := err.(type) {
	case nil:
	case *FieldError:
		fields = append(fields, e)
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			f, r := FieldErrors(inner)
			fields, rest = append(fields, f...), append(rest, r...)
		}
	default:
		rest = append(rest, err)
	}
	return fields, rest
}

// IntBounds are the accepted ranges of a scenario's integer fields: the original tool's,
// except concurrency, which goes to 1024 because the client holds that many streams.
var IntBounds = map[string][2]int{
	"requests":             {1, 10000},
	"concurrency":          {1, 1024},
	"context_tokens":       {0, 1048576},
	"context_margin":       {0, 1048576},
	"max_context_tokens":   {0, 1048576},
	"max_tokens":           {1, 65536},
	"response_words":       {0, 65536},
	"shared_prefix_tokens": {0, 262144},
	"burst":                {0, 256},
}

// MaxRequestRate bounds an open loop's rate, in requests per second.
const MaxRequestRate = 100000

// MaxTimeout bounds a request's timeout.
const MaxTimeout = time.Hour

var (
	clockDomainPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	fingerprintPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// Validate reports every problem of the scenario at once (errors.Join of *FieldError), the
// same whether it came from ANVIL_* variables, a scenarios file or code. Zero enums and a
// zero Concurrency of a burst are valid: Run fills them in.
func (sc Scenario) Validate() error {
	var errs []error
	add := func(field string, value any, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Value: value, Problem: fmt.Sprintf(format, args...)})
	}
	between := func(field string, v int) {
		b := IntBounds[field]
		if v < b[0] || v > b[1] {
			add(field, v, "out of range (want %d..%d)", b[0], b[1])
		}
	}
	// A burst's size is its request count; its concurrency follows.
	if sc.Burst {
		if top := IntBounds["burst"][1]; sc.Requests < 1 || sc.Requests > top {
			add("burst", sc.Requests, "out of range (want 1..%d)", top)
		}
	} else {
		between("requests", sc.Requests)
		between("concurrency", sc.Concurrency)
	}
	between("context_tokens", sc.ContextTokens)
	if sc.ContextTokens > 0 && sc.ContextTokens < workload.MinPromptTokens {
		add("context_tokens", sc.ContextTokens, "too small (want 0 to sample, or %d..1048576)", workload.MinPromptTokens)
	}
	if sc.ContextTokens == 0 && len(sc.ContextBuckets) > 0 {
		if err := workload.CheckBuckets(sc.ContextBuckets); err != nil {
			add("context_buckets", nil, "%v", err)
		}
	}
	between("context_margin", sc.ContextMargin)
	between("max_context_tokens", sc.MaxContextTokens)
	between("max_tokens", sc.MaxTokens)
	between("response_words", sc.ResponseWords)
	between("shared_prefix_tokens", sc.SharedPrefixTokens)
	if sc.MaxContextTokens > 0 && sc.MaxContextTokens <= sc.MaxTokens+sc.ContextMargin {
		add("max_context_tokens", sc.MaxContextTokens, "must exceed {max_tokens} + {context_margin} (%d)", sc.MaxTokens+sc.ContextMargin)
	}

	policy := sc.policy()
	if !policy.Valid() {
		add("controlled_output_policy", string(sc.Policy), "unknown policy (want %s)", joinValues(workload.Policies))
	}
	if policy == workload.PolicyStrict && sc.ResponseWords == 0 {
		add("controlled_output_policy", string(policy), "needs {response_words} > 0")
	}
	if sc.ResponseWords > 0 && sc.MaxTokens >= 1 && sc.MaxTokens <= sc.ResponseWords {
		add("max_tokens", sc.MaxTokens, "leaves no room for {response_words}=%d words and the end token (want > %d)", sc.ResponseWords, sc.ResponseWords)
	}
	if sc.RequestCanaries && sc.MaxTokens < 16 {
		add("request_canaries", nil, "needs {max_tokens} >= 16 (got %d)", sc.MaxTokens)
	}
	if sc.PromptCacheMode != "" && !sc.PromptCacheMode.Valid() {
		add("prompt_cache_mode", string(sc.PromptCacheMode), "unknown mode (want %s)", joinValues(workload.CacheModes))
	}
	if sc.PromptNonce != "" && !promptNoncePattern.MatchString(sc.PromptNonce) {
		add("prompt_nonce", sc.PromptNonce, "want 1 to 16 lowercase letters")
	}
	if !sc.CacheIntent.Valid() {
		add("cache_intent", string(sc.CacheIntent), "unknown intent (want cold, shared-prefix or empty)")
	}
	if sc.ThinkingMode != "" && !sc.ThinkingMode.Valid() {
		add("thinking_mode", string(sc.ThinkingMode), "unknown mode (want %s)", joinValues(ThinkingModes))
	}
	if !sc.ReasoningEffort.Valid() {
		add("reasoning_effort", string(sc.ReasoningEffort), "unknown effort (want %s)", joinValues(ReasoningEfforts))
	}
	if sc.ReasoningEffort != "" && sc.ThinkingMode.switches() {
		add("reasoning_effort", nil, "cannot be combined with {thinking_mode}=%s (use one control)", sc.ThinkingMode)
	}
	if t := sc.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		add("temperature", *t, "out of range (want 0..2)")
	}
	if t := sc.TopP; t != nil && (math.IsNaN(*t) || *t <= 0 || *t > 1) {
		add("top_p", *t, "out of range (want a number in (0, 1])")
	}
	if math.IsNaN(sc.RequestRate) || sc.RequestRate < 0 || sc.RequestRate > MaxRequestRate {
		add("request_rate", sc.RequestRate, "out of range (want 0 for a closed loop, or requests per second up to %d)", MaxRequestRate)
	}
	if sc.Arrival != "" && !sc.Arrival.Valid() {
		add("arrival", string(sc.Arrival), "unknown model (want poisson or constant)")
	}
	if sc.RequestRate > 0 && sc.Burst {
		add("request_rate", sc.RequestRate, "cannot be combined with {burst}")
	}
	if math.IsNaN(sc.CharsPerToken) || sc.CharsPerToken < 0 {
		add("chars_per_token", sc.CharsPerToken, "want a positive number, or 0 for the default")
	}
	if sc.ProgressInterval < 0 {
		add("progress_interval", sc.ProgressInterval, "want a positive duration, or 0 for the default")
	}
	if sc.ClockDomainID != "" && !clockDomainPattern.MatchString(sc.ClockDomainID) {
		add("clock_domain_id", sc.ClockDomainID, "want 1 to 64 of A-Z a-z 0-9 . _ -")
	}
	if sh := sc.Shard; sh.Count < 0 || (sh.Count > 1 && (sh.Index < 0 || sh.Index >= sh.Count)) || (sh.Count <= 1 && sh.Index != 0) {
		add("shard", fmt.Sprintf("%d/%d", sh.Index, sh.Count), "want i/N with 0 <= i < N")
	} else if sh.sharded() {
		if sc.Requests < sh.Count {
			add("shard", fmt.Sprintf("%d/%d", sh.Index, sh.Count), "more shards than the %d requests", sc.Requests)
		}
		if !sc.Burst && sc.Concurrency < sh.Count {
			add("shard", fmt.Sprintf("%d/%d", sh.Index, sh.Count), "more shards than the concurrency %d: every shard needs a stream", sc.Concurrency)
		}
		if sc.ClockDomainID == "" {
			add("clock_domain_id", nil, "required when sharding: merged timestamps compare across hosts only within one clock domain")
		}
	}
	if sc.ConfigurationFingerprint != "" && !fingerprintPattern.MatchString(sc.ConfigurationFingerprint) {
		add("configuration_fingerprint", sc.ConfigurationFingerprint, "want sha256:<64 lowercase hex digits>")
	}
	return errors.Join(errs...)
}

// Validate reports every problem of the target at once (errors.Join of *FieldError). The
// base URL is never echoed: it may carry credentials. Zero timeouts are valid: Run fills
// in the defaults.
func (t Target) Validate() error {
	var errs []error
	add := func(field string, value any, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Value: value, Problem: fmt.Sprintf(format, args...)})
	}
	if msg := checkBaseURL(t.BaseURL); msg != "" {
		add("base_url", nil, "%s", msg)
	}
	if t.Timeout < 0 || t.Timeout > MaxTimeout {
		add("timeout", t.Timeout, "out of range (want a duration in (0, 1h])")
	}
	if t.StallTimeout < 0 || t.StallTimeout > MaxTimeout || (t.Timeout > 0 && t.StallTimeout > t.Timeout) {
		add("stall_timeout", t.StallTimeout, "out of range (want a duration in (0, {timeout}])")
	}
	return errors.Join(errs...)
}

// checkBaseURL validates an endpoint without ever echoing it.
func checkBaseURL(raw string) string {
	if raw == "" {
		return "empty (want e.g. http://127.0.0.1:8080/v1)"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "not a URL (want e.g. http://127.0.0.1:8080/v1)"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("scheme %q not supported (want http or https)", u.Scheme)
	}
	if u.Host == "" {
		return "no host (want e.g. http://127.0.0.1:8080/v1)"
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "must not carry a query or fragment"
	}
	return ""
}

func joinValues[T ~string](values []T) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		if v != "" {
			parts = append(parts, string(v))
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
