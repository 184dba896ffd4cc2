package config

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/compare"
	"github.com/anvilbench/anvilbench/harness/schedule"
	"github.com/anvilbench/anvilbench/harness/workload"
)

// intBounds are the accepted ranges of the integer variables (the original tool's bounds;
// concurrency goes beyond its 256 because the harness holds 1024 streams).
var intBounds = map[string][2]int{
	Prefix + "REQUESTS":             {1, 10000},
	Prefix + "CONCURRENCY":          {1, 1024},
	Prefix + "CONTEXT_TOKENS":       {0, 1048576},
	Prefix + "CONTEXT_MARGIN":       {0, 1048576},
	Prefix + "MAX_CONTEXT_TOKENS":   {0, 1048576},
	Prefix + "MAX_TOKENS":           {1, 65536},
	Prefix + "RESPONSE_WORDS":       {0, 65536},
	Prefix + "SHARED_PREFIX_TOKENS": {0, 262144},
	Prefix + "BURST":                {0, 256},
}

// MinContextTokens is the smallest non-zero planned context: the smallest a prompt is built for.
const MinContextTokens = workload.MinPromptTokens

// MaxTimeout bounds ANVIL_TIMEOUT.
const MaxTimeout = time.Hour

var (
	clockDomainPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	fingerprintPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

func rangeHint(key string) string {
	if b, ok := intBounds[key]; ok {
		return fmt.Sprintf(" (want %d..%d)", b[0], b[1])
	}
	return ""
}

// Validate checks every field and every combination, returning all problems at once. The
// input files are Load's: it reads and checks ANVIL_BUDGETS_FILE and ANVIL_BASELINE once,
// before Validate.
func (c Config) Validate() error {
	var p Problems
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }

	ints := map[string]int{
		Prefix + "REQUESTS":             c.Requests,
		Prefix + "CONCURRENCY":          c.Concurrency,
		Prefix + "CONTEXT_TOKENS":       c.ContextTokens,
		Prefix + "CONTEXT_MARGIN":       c.ContextMargin,
		Prefix + "MAX_CONTEXT_TOKENS":   c.MaxContextTokens,
		Prefix + "MAX_TOKENS":           c.MaxTokens,
		Prefix + "RESPONSE_WORDS":       c.ResponseWords,
		Prefix + "SHARED_PREFIX_TOKENS": c.SharedPrefixTokens,
		Prefix + "BURST":                c.Burst,
	}
	for _, key := range slices.Sorted(maps.Keys(ints)) {
		b := intBounds[key]
		if v := ints[key]; v < b[0] || v > b[1] {
			add("%s=%d: out of range (want %d..%d)", key, v, b[0], b[1])
		}
	}
	if c.ContextTokens > 0 && c.ContextTokens < MinContextTokens {
		add("%sCONTEXT_TOKENS=%d: too small (want 0 to sample, or %d..1048576)", Prefix, c.ContextTokens, MinContextTokens)
	}
	if _, err := workload.ParseBuckets(c.ContextBuckets); err != nil {
		add("%sCONTEXT_BUCKETS=%q: %v", Prefix, c.ContextBuckets, err)
	}
	if c.MaxContextTokens > 0 && c.MaxContextTokens <= c.MaxTokens+c.ContextMargin {
		add("%sMAX_CONTEXT_TOKENS=%d: must exceed %sMAX_TOKENS + %sCONTEXT_MARGIN (%d)",
			Prefix, c.MaxContextTokens, Prefix, Prefix, c.MaxTokens+c.ContextMargin)
	}
	switch c.ControlledOutputPolicy {
	case PolicyStrict, PolicyObserve:
	default:
		add("%sCONTROLLED_OUTPUT_POLICY=%q: unknown policy (want strict or observe)", Prefix, c.ControlledOutputPolicy)
	}
	if c.ControlledOutputPolicy == PolicyStrict && c.ResponseWords == 0 {
		add("%sCONTROLLED_OUTPUT_POLICY=strict needs %sRESPONSE_WORDS > 0", Prefix, Prefix)
	}
	if c.ResponseWords > 0 && c.MaxTokens <= c.ResponseWords {
		add("%sMAX_TOKENS=%d: leaves no room for %sRESPONSE_WORDS=%d words and the end token (want > %d)",
			Prefix, c.MaxTokens, Prefix, c.ResponseWords, c.ResponseWords)
	}
	p = append(p, c.validateWorkload()...)
	if c.Timeout <= 0 || c.Timeout > MaxTimeout {
		add("%sTIMEOUT=%s: out of range (want a duration in (0, 1h])", Prefix, c.Timeout)
	}
	if c.StallTimeout <= 0 || c.StallTimeout > c.Timeout {
		add("%sSTALL_TIMEOUT=%s: out of range (want a duration in (0, %sTIMEOUT])", Prefix, c.StallTimeout, Prefix)
	}
	if c.ClockDomainID != "" && !clockDomainPattern.MatchString(c.ClockDomainID) {
		add("%sCLOCK_DOMAIN_ID=%q: want 1 to 64 of A-Z a-z 0-9 . _ -", Prefix, c.ClockDomainID)
	}
	if c.ConfigurationFingerprint != "" && !fingerprintPattern.MatchString(c.ConfigurationFingerprint) {
		add("%sCONFIGURATION_FINGERPRINT=%q: want sha256:<64 lowercase hex digits>", Prefix, c.ConfigurationFingerprint)
	}
	if c.BaseURL != "" {
		if msg := checkBaseURL(c.BaseURL); msg != "" {
			add("%sBASE_URL: %s", Prefix, msg)
		}
	}
	if _, err := budget.Parse(c.Budgets); err != nil {
		add("%sBUDGETS: %v", Prefix, err)
	}
	p = append(p, c.validateGate()...)
	if c.OutDir == "" {
		add("%sOUT_DIR: empty (want a directory path)", Prefix)
	}
	if len(p) > 0 {
		return p
	}
	return nil
}

// checkBaseURL validates an endpoint without ever echoing it: it may carry credentials.
func checkBaseURL(raw string) string {
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

// ParsedBudgets returns the budgets of ANVIL_BUDGETS, then those of ANVIL_BUDGETS_FILE as
// Load read them (both already validated by Load).
func (c Config) ParsedBudgets() []budget.Budget {
	b, _ := budget.Parse(c.Budgets)
	return append(b, c.fileBudgets...)
}

// Prompt cache modes.
const (
	CacheUnique = "unique"
	CacheShared = "shared"
)

// Thinking modes and reasoning efforts accepted by ANVIL_THINKING_MODE and
// ANVIL_REASONING_EFFORT.
var (
	ThinkingModes    = []string{"default", "enabled", "disabled", "unsupported"}
	ReasoningEfforts = []string{"none", "minimal", "low", "medium", "high", "max", "xhigh"}
)

// validateWorkload checks the workload-shaping variables and their combinations.
func (c Config) validateWorkload() Problems {
	var p Problems
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if c.PromptCacheMode != CacheUnique && c.PromptCacheMode != CacheShared {
		add("%sPROMPT_CACHE_MODE=%q: unknown mode (want unique or shared)", Prefix, c.PromptCacheMode)
	}
	if c.Burst > 0 && c.PromptCacheMode != CacheShared {
		add("%sBURST=%d needs %sPROMPT_CACHE_MODE=shared", Prefix, c.Burst, Prefix)
	}
	if c.RequestCanaries && c.MaxTokens < 16 {
		add("%sREQUEST_CANARIES needs %sMAX_TOKENS >= 16 (got %d)", Prefix, Prefix, c.MaxTokens)
	}
	if !slices.Contains(ThinkingModes, c.ThinkingMode) {
		add("%sTHINKING_MODE=%q: unknown mode (want %s)", Prefix, c.ThinkingMode, strings.Join(ThinkingModes, ", "))
	}
	if c.ReasoningEffort != "" {
		if !slices.Contains(ReasoningEfforts, c.ReasoningEffort) {
			add("%sREASONING_EFFORT=%q: unknown effort (want %s)", Prefix, c.ReasoningEffort, strings.Join(ReasoningEfforts, ", "))
		}
		if c.ThinkingMode == "enabled" || c.ThinkingMode == "disabled" {
			add("%sREASONING_EFFORT cannot be combined with %sTHINKING_MODE=%s (use one control)", Prefix, Prefix, c.ThinkingMode)
		}
	}
	if t := c.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		add("%sTEMPERATURE=%v: out of range (want 0..2)", Prefix, *t)
	}
	if t := c.TopP; t != nil && (math.IsNaN(*t) || *t <= 0 || *t > 1) {
		add("%sTOP_P=%v: out of range (want a number in (0, 1])", Prefix, *t)
	}
	if math.IsNaN(c.RequestRate) || c.RequestRate < 0 || c.RequestRate > 100000 {
		add("%sREQUEST_RATE=%v: out of range (want 0 for a closed loop, or requests per second up to 100000)", Prefix, c.RequestRate)
	}
	if c.Arrival != schedule.Poisson && c.Arrival != schedule.Constant {
		add("%sARRIVAL=%q: unknown model (want poisson or constant)", Prefix, c.Arrival)
	}
	if c.RequestRate > 0 && c.Burst > 0 {
		add("%sREQUEST_RATE cannot be combined with %sBURST", Prefix, Prefix)
	}
	if c.ProgressInterval <= 0 {
		add("%sPROGRESS_INTERVAL=%s: want a positive duration", Prefix, c.ProgressInterval)
	}
	if c.API != "chat" && c.API != "completions" {
		add("%sAPI=%q: unknown API (want chat or completions)", Prefix, c.API)
	}
	return p
}

// validateGate checks the baseline and the regression gate.
func (c Config) validateGate() Problems {
	var p Problems
	for _, m := range c.ParsedGateMetrics() {
		if err := compare.CheckMetric(m); err != nil {
			p = append(p, fmt.Sprintf("%sGATE_METRICS: %q: %v", Prefix, m, err))
		}
	}
	if math.IsNaN(c.GateBy) || c.GateBy <= 0 || c.GateBy >= 1 {
		p = append(p, fmt.Sprintf("%sGATE_BY=%v: out of range (want a fraction in (0, 1), e.g. 0.05 for 5%%)", Prefix, c.GateBy))
	}
	return p
}

// BaselineArtifact is the artifact of ANVIL_BASELINE as Load read it; nil without one.
func (c Config) BaselineArtifact() *artifact.Benchmark { return c.baseline }

// ParsedGateMetrics returns the metrics of ANVIL_GATE_METRICS.
func (c Config) ParsedGateMetrics() []string {
	var out []string
	for m := range strings.SplitSeq(c.GateMetrics, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}
