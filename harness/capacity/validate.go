package capacity

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/internal/fields"
)

// FieldError is one invalid field of a Scenario or a Target, named by its Go field
// ("MaxTokens"), so that every front end can name it its own way (Render): a scenarios
// file by its key, the configuration by its ANVIL_* variable.
type FieldError struct {
	Field string
	// Value is the offending value, shown after the name; nil shows none.
	Value any
	// Problem says what is wrong; each %s in it is one of Others, named as Field is.
	Problem string
	Others  []string
}

// Error names the fields by their Go names: `Requests=0: out of range (want 1..10000)`.
func (e *FieldError) Error() string { return e.Render(func(f string) string { return f }) }

// Render writes the problem with every field named by name.
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
	if len(e.Others) == 0 {
		b.WriteString(e.Problem)
		return b.String()
	}
	others := make([]any, len(e.Others))
	for i, o := range e.Others {
		others[i] = name(o)
	}
	fmt.Fprintf(&b, e.Problem, others...)
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

// KeyOf is the key (the tag) of a Scenario field named by its Go name; "" for a field
// without one.
func KeyOf(field string) string {
	if f, ok := reflect.TypeFor[Scenario]().FieldByName(field); ok {
		return f.Tag.Get("key")
	}
	return ""
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
// same whether it came from ANVIL_* variables, a scenarios file or code: every field out
// of its range or its choices (the tags), then the rules that tie fields together. Zero
// enums and a zero Concurrency of a burst are valid: Run fills them in.
func (sc Scenario) Validate() error {
	var errs []error
	add := func(field string, value any, problem string, others ...string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Problem: problem, Others: others})
	}
	for _, v := range fields.OutOfRange(&sc) {
		if sc.replaces(v.Field.Name) {
			continue
		}
		add(v.Field.Name, v.Value, "out of range (want "+v.Field.Range.String()+")")
	}
	for _, v := range fields.Unknown(&sc) {
		add(v.Field.Name, v.Value, "unknown value (want "+joinChoices(v.Choices)+")")
	}
	errs = append(errs, sc.combinations()...)
	return errors.Join(errs...)
}

// replaces reports whether the scenario's kind takes the place of field: a burst's size of
// Requests and Concurrency, a trace's lines of Requests and MaxTokens, sessions of
// Requests.
func (sc Scenario) replaces(field string) bool {
	switch {
	case sc.Burst > 0:
		return field == "Requests" || field == "Concurrency"
	case sc.Trace != "":
		return field == "Requests" || field == "MaxTokens"
	case sc.Sessions > 0:
		return field == "Requests"
	}
	return false
}

// combinations are the problems of fields that depend on each other.
func (sc Scenario) combinations() []error {
	var errs []error
	add := func(field string, value any, problem string, others ...string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Problem: problem, Others: others})
	}
	if sc.ContextTokens > 0 && sc.ContextTokens < workload.MinPromptTokens {
		add("ContextTokens", sc.ContextTokens, fmt.Sprintf("too small (want 0 to sample, or %d..1048576)", workload.MinPromptTokens))
	}
	if sc.ContextTokens == 0 && len(sc.ContextBuckets) > 0 {
		if err := workload.CheckBuckets(sc.ContextBuckets); err != nil {
			add("ContextBuckets", nil, err.Error())
		}
	}
	if sc.MaxContextTokens > 0 && sc.MaxContextTokens <= sc.MaxTokens+sc.ContextMargin {
		add("MaxContextTokens", sc.MaxContextTokens, fmt.Sprintf("must exceed %%s + %%s (%d)", sc.MaxTokens+sc.ContextMargin), "MaxTokens", "ContextMargin")
	}
	if sc.policy() == workload.PolicyStrict && sc.ResponseWords == 0 && sc.Trace == "" {
		add("Policy", string(PolicyStrict), "needs %s > 0", "ResponseWords")
	}
	if sc.ResponseWords > 0 && sc.MaxTokens >= 1 && sc.MaxTokens <= sc.ResponseWords && sc.Trace == "" {
		add("MaxTokens", sc.MaxTokens, fmt.Sprintf("leaves no room for %%s=%d words and the end token (want > %d)", sc.ResponseWords, sc.ResponseWords), "ResponseWords")
	}
	if sc.RequestCanaries && sc.MaxTokens < 16 {
		add("RequestCanaries", nil, fmt.Sprintf("needs %%s >= 16 (got %d)", sc.MaxTokens), "MaxTokens")
	}
	if sc.PromptNonce != "" && !promptNoncePattern.MatchString(sc.PromptNonce) {
		add("PromptNonce", sc.PromptNonce, "want 1 to 16 lowercase letters")
	}
	if !sc.CacheIntent.Valid() {
		add("CacheIntent", string(sc.CacheIntent), "unknown intent (want "+joinChoices(sc.CacheIntent.Choices())+" or empty)")
	}
	if sc.ReasoningEffort != "" && sc.ThinkingMode.switches() {
		add("ReasoningEffort", nil, fmt.Sprintf("cannot be combined with %%s=%s (use one control)", sc.ThinkingMode), "ThinkingMode")
	}
	if sc.RequestRate > 0 && sc.Burst > 0 {
		add("RequestRate", sc.RequestRate, "cannot be combined with %s", "Burst")
	}
	if math.IsNaN(sc.CharsPerToken) || sc.CharsPerToken < 0 {
		add("CharsPerToken", sc.CharsPerToken, "want a positive number, or 0 for the default")
	}
	if sc.ProgressInterval < 0 {
		add("ProgressInterval", sc.ProgressInterval, "want a positive duration, or 0 for the default")
	}
	if sc.ClockDomainID != "" && !clockDomainPattern.MatchString(sc.ClockDomainID) {
		add("ClockDomainID", sc.ClockDomainID, "want 1 to 64 of A-Z a-z 0-9 . _ -")
	}
	errs = append(errs, sc.shardProblems()...)
	errs = append(errs, sc.kindProblems()...)
	if sc.ConfigurationFingerprint != "" && !fingerprintPattern.MatchString(sc.ConfigurationFingerprint) {
		add("ConfigurationFingerprint", sc.ConfigurationFingerprint, "want sha256:<64 lowercase hex digits>")
	}
	return errs
}

// kindProblems are the problems of a trace, a session or a structured-output scenario:
// what each cannot be combined with.
func (sc Scenario) kindProblems() []error {
	var errs []error
	add := func(field string, value any, problem string, others ...string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Problem: problem, Others: others})
	}
	conflicts := func(field string, value any, set bool) {
		for _, c := range []struct {
			name string
			on   bool
		}{{"Burst", sc.Burst > 0}, {"RequestRate", sc.RequestRate > 0}, {"PromptCacheMode", sc.shared()}} {
			if set && c.on {
				add(field, value, "cannot be combined with %s (it sets its own schedule and sharing)", c.name)
			}
		}
	}
	trace, sessions := sc.Trace != "", sc.Sessions > 0
	conflicts("Trace", sc.Trace, trace)
	conflicts("Sessions", sc.Sessions, sessions)
	if trace && sessions {
		add("Trace", sc.Trace, "cannot be combined with %s", "Sessions")
	}
	if sc.TraceBlockTokens > 0 && sc.TraceBlockTokens < 16 {
		add("TraceBlockTokens", sc.TraceBlockTokens, "want 0 (the default, 512) or at least 16 tokens")
	}
	if sessions && sc.Turns == 0 {
		add("Turns", 0, "a session needs at least one turn")
	}
	if sc.SessionRate > 0 && !sessions {
		add("SessionRate", sc.SessionRate, "needs %s > 0", "Sessions")
	}
	if sc.ThinkTime < 0 || sc.ThinkTime > time.Hour {
		add("ThinkTime", sc.ThinkTime, "want a duration in [0, 1h]")
	}
	if (trace || sessions) && sc.API == APICompletions {
		add("API", string(sc.API), "a trace or a session needs chat (it sends a conversation)")
	}
	if sc.Output == "" || sc.Output == OutputText {
		return errs
	}
	if sc.API == APICompletions {
		add("Output", string(sc.Output), "needs %s chat: /v1/completions has no tools or response_format", "API")
	}
	if sc.ResponseWords == 0 && !trace {
		add("Output", string(sc.Output), "needs %s > 0: the words are what it checks", "ResponseWords")
	}
	if sc.RequestCanaries {
		add("RequestCanaries", nil, "needs %s text: a canary marker begins a text answer", "Output")
	}
	if sessions {
		add("Output", string(sc.Output), "a session's turns answer in text; %s is for single requests and traces", "Sessions")
	}
	return errs
}

// shardProblems are the problems of a sharded scenario: a shard out of range, more shards
// than requests or streams, and no clock domain to compare merged timestamps in.
func (sc Scenario) shardProblems() []error {
	sh := sc.Shard
	shard := fmt.Sprintf("%d/%d", sh.Index, sh.Count)
	var errs []error
	add := func(field string, value any, problem string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Problem: problem})
	}
	if sh.Count < 0 || (sh.Count > 1 && (sh.Index < 0 || sh.Index >= sh.Count)) || (sh.Count <= 1 && sh.Index != 0) {
		add("Shard", shard, "want i/N with 0 <= i < N")
		return errs
	}
	if !sh.sharded() {
		return nil
	}
	if n := sc.RequestCount(); sc.Sessions > 0 && sc.Sessions < sh.Count {
		add("Shard", shard, fmt.Sprintf("more shards than the %d sessions: a session never spans shards", sc.Sessions))
	} else if n > 0 && n < sh.Count {
		add("Shard", shard, fmt.Sprintf("more shards than the %d requests", sc.RequestCount()))
	}
	if sc.Burst == 0 && sc.Concurrency < sh.Count {
		add("Shard", shard, fmt.Sprintf("more shards than the concurrency %d: every shard needs a stream", sc.Concurrency))
	}
	if sc.ClockDomainID == "" {
		add("ClockDomainID", nil, "required when sharding: merged timestamps compare across hosts only within one clock domain")
	}
	return errs
}

// RequestCount is how many requests the scenario sends: its burst's size, its sessions'
// turns, or Requests; 0 for a trace, whose lines are counted when it is read.
func (sc Scenario) RequestCount() int {
	switch {
	case sc.Trace != "":
		return 0
	case sc.Burst > 0:
		return sc.Burst
	case sc.Sessions > 0:
		return sc.Sessions * sc.Turns
	}
	return sc.Requests
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
		add("BaseURL", nil, "%s", msg)
	}
	if t.Timeout < 0 || t.Timeout > MaxTimeout {
		add("Timeout", t.Timeout, "out of range (want a duration in (0, 1h])")
	}
	if t.StallTimeout < 0 || t.StallTimeout > MaxTimeout || (t.Timeout > 0 && t.StallTimeout > t.Timeout) {
		errs = append(errs, &FieldError{Field: "StallTimeout", Value: t.StallTimeout, Problem: "out of range (want a duration in (0, %s])", Others: []string{"Timeout"}})
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

// joinChoices lists choices for a message: "a, b or c".
func joinChoices(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}
