package capacity

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/internal/fields"
)

// maxRequestRate bounds an open loop's rate, in requests per second.
const maxRequestRate = 100000

// maxTimeout bounds a request's timeout.
const maxTimeout = time.Hour

var (
	clockDomainPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	fingerprintPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// Validate reports every problem of the scenario at once (errors.Join of *fields.FieldError), the
// same whether it came from ANVIL_* variables, a scenarios file or code: every field out
// of its range or its choices (the tags), but those the scenario's kind gives its own
// value, then the rules that tie fields together, the kinds' own among them. Zero enums
// and a zero Concurrency of a burst are valid: Run fills them in.
func (sc Scenario) Validate() error {
	k := sc.kind()
	errs := fields.Problems(&sc, func(field string) bool { return k.replaces(sc, field) })
	errs = append(errs, sc.combinations(k)...)
	errs = append(errs, sc.featureProblems(k)...)
	errs = append(errs, sc.oneKind()...)
	errs = append(errs, sc.Trace.problems(sc)...)
	errs = append(errs, sc.Sessions.problems(sc)...)
	errs = append(errs, sc.shardProblems(k)...)
	errs = append(errs, sc.searchProblems(k)...)
	return errors.Join(errs...)
}

// addProblem records a field's problem (see fields.FieldError).
type addProblem func(field string, value any, problem string, others ...string)

// problemsInto is the addProblem that appends each problem to errs.
func problemsInto(errs *[]error) addProblem {
	return func(field string, value any, problem string, others ...string) {
		*errs = append(*errs, &fields.FieldError{Field: field, Value: value, Problem: problem, Others: others})
	}
}

// combinations are the problems of fields that depend on each other.
func (sc Scenario) combinations(k kind) []error {
	var errs []error
	add := problemsInto(&errs)
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
	errs = append(errs, sc.wordProblems(k)...)
	if sc.RequestCanaries && sc.MaxTokens < 16 {
		add("RequestCanaries", nil, fmt.Sprintf("needs %%s >= 16 (got %d)", sc.MaxTokens), "MaxTokens")
	}
	if sc.PromptNonce != "" && !promptNoncePattern.MatchString(sc.PromptNonce) {
		add("PromptNonce", sc.PromptNonce, "want 1 to 16 lowercase letters")
	}
	if !sc.CacheIntent.Valid() {
		add("CacheIntent", string(sc.CacheIntent), "unknown intent (want "+fields.JoinChoices(sc.CacheIntent.Choices())+" or empty)")
	}
	if sc.ReasoningEffort != "" && !sc.API.supports().ReasoningEffort {
		add("ReasoningEffort", string(sc.ReasoningEffort), "needs %s "+apisWith(func(s stream.Support) bool { return s.ReasoningEffort })+
			": "+sc.API.Name()+" has no reasoning effort (use thinking_mode)", "API")
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
	if sc.ConfigurationFingerprint != "" && !fingerprintPattern.MatchString(sc.ConfigurationFingerprint) {
		add("ConfigurationFingerprint", sc.ConfigurationFingerprint, "want sha256:<64 lowercase hex digits>")
	}
	return errs
}

// wordProblems are the problems of the code words asked for, where the scenario sets them
// (a trace's lines set their own), and of the forms an answer can give them in.
func (sc Scenario) wordProblems(k kind) []error {
	var errs []error
	add := problemsInto(&errs)
	ownWords := !k.replaces(sc, "ResponseWords")
	if ownWords && sc.policy() == PolicyStrict && sc.ResponseWords == 0 {
		add("Policy", string(PolicyStrict), "needs %s > 0", "ResponseWords")
	}
	if ownWords && sc.ResponseWords > 0 && sc.MaxTokens >= 1 && sc.MaxTokens <= sc.ResponseWords {
		add("MaxTokens", sc.MaxTokens, fmt.Sprintf("leaves no room for %%s=%d words and the end token (want > %d)", sc.ResponseWords, sc.ResponseWords), "ResponseWords")
	}
	if sc.Output == "" || sc.Output == OutputText {
		return errs
	}
	if !sc.API.supports().Tools {
		add("Output", string(sc.Output), "needs %s "+apisWith(func(s stream.Support) bool { return s.Tools })+": "+sc.API.Name()+" has no tools or response_format", "API")
	}
	if ownWords && sc.ResponseWords == 0 {
		add("Output", string(sc.Output), "needs %s > 0: the words are what it checks", "ResponseWords")
	}
	if sc.RequestCanaries {
		add("RequestCanaries", nil, "needs %s text: a canary marker begins a text answer", "Output")
	}
	return errs
}

// conflicts are the problems of a kind that sets its own schedule and sharing (a trace,
// sessions) named by field: a burst, an open loop, a shared prefix, and an API that sends
// no conversation.
func conflicts(field string, value any, sc Scenario) []error {
	var errs []error
	for _, c := range []struct {
		name string
		on   bool
	}{{"Burst", sc.Burst > 0}, {"RequestRate", sc.RequestRate > 0}, {"PromptCacheMode", sc.shared()}} {
		if c.on {
			errs = append(errs, &fields.FieldError{Field: field, Value: value, Problem: "cannot be combined with %s (it sets its own schedule and sharing)", Others: []string{c.name}})
		}
	}
	if !sc.API.supports().Conversation {
		errs = append(errs, &fields.FieldError{Field: "API", Value: string(sc.API),
			Problem: "a trace or a session needs a conversation: " + apisWith(func(s stream.Support) bool { return s.Conversation })})
	}
	return errs
}

// shardProblems are the problems of a sharded scenario: a shard out of range, more shards
// than requests or streams, and no clock domain to compare merged timestamps in.
func (sc Scenario) shardProblems(k kind) []error {
	sh := sc.Shard
	shard := fmt.Sprintf("%d/%d", sh.Index, sh.Count)
	var errs []error
	add := func(field string, value any, problem string) {
		errs = append(errs, &fields.FieldError{Field: field, Value: value, Problem: problem})
	}
	if sh.Count < 0 || (sh.Count > 1 && (sh.Index < 0 || sh.Index >= sh.Count)) || (sh.Count <= 1 && sh.Index != 0) {
		add("Shard", shard, "want i/N with 0 <= i < N")
		return errs
	}
	if !sh.sharded() {
		return nil
	}
	if n := k.requests(sc); n > 0 && n < sh.Count {
		add("Shard", shard, fmt.Sprintf("more shards than the %d requests", n))
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
func (sc Scenario) RequestCount() int { return sc.kind().requests(sc) }

// Validate reports every problem of the target at once (errors.Join of *fields.FieldError). The
// base URL is never echoed: it may carry credentials. Zero timeouts are valid: Run fills
// in the defaults.
func (t Target) Validate() error {
	var errs []error
	add := func(field string, value any, format string, args ...any) {
		errs = append(errs, &fields.FieldError{Field: field, Value: value, Problem: fmt.Sprintf(format, args...)})
	}
	if msg := checkBaseURL(t.BaseURL); msg != "" {
		add("BaseURL", nil, "%s", msg)
	}
	if t.Timeout < 0 || t.Timeout > maxTimeout {
		add("Timeout", t.Timeout, "out of range (want a duration in (0, 1h])")
	}
	if t.StallTimeout < 0 || t.StallTimeout > maxTimeout || (t.Timeout > 0 && t.StallTimeout > t.Timeout) {
		errs = append(errs, &fields.FieldError{Field: "StallTimeout", Value: t.StallTimeout, Problem: "out of range (want a duration in (0, %s])", Others: []string{"Timeout"}})
	}
	if !(t.GPUPricePerHour >= 0 && t.GPUPricePerHour <= 1e6) {
		add("GPUPricePerHour", t.GPUPricePerHour, "out of range (want a price an hour in [0, 1e6])")
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

// apisWith lists the APIs whose requests can carry what has asks: "chat, responses or
// messages".
func apisWith(has func(stream.Support) bool) string {
	var out []string
	for _, a := range APIChat.Choices() {
		if has(API(a).supports()) {
			out = append(out, a)
		}
	}
	return fields.JoinChoices(out)
}
