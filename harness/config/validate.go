package config

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/compare"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/workload"
)

// MinContextTokens is the smallest non-zero planned context: the smallest a prompt is built for.
const MinContextTokens = workload.MinPromptTokens

// MaxTimeout bounds ANVIL_TIMEOUT.
const MaxTimeout = capacity.MaxTimeout

// rangeHint is the accepted range of an integer variable, for a value that did not parse.
func rangeHint(key string) string {
	field := strings.ToLower(strings.TrimPrefix(key, Prefix))
	if b, ok := capacity.IntBounds[field]; ok {
		return fmt.Sprintf(" (want %d..%d)", b[0], b[1])
	}
	return ""
}

// Validate checks every field and every combination, returning all problems at once. The
// scenario is checked by capacity.Scenario.Validate, the one validation every scenario
// goes through, with its fields named by their ANVIL_* variables. The input files are
// Load's: it reads and checks ANVIL_BUDGETS_FILE and ANVIL_BASELINE once, before Validate.
func (c Config) Validate() error {
	var p Problems
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }

	_, err := c.scenario(c.Workload)
	p = append(p, render(err, variable)...)
	// The embedded engine's URL is not known yet: a valid one stands in for an empty
	// ANVIL_BASE_URL, so the timeouts are still checked.
	base := c.BaseURL
	if base == "" {
		base = "http://127.0.0.1/v1"
	}
	p = append(p, render(c.Target(base).Validate(), variable)...)
	if c.Timeout == 0 {
		add("%sTIMEOUT=0s: out of range (want a duration in (0, 1h])", Prefix)
	}
	if c.StallTimeout == 0 {
		add("%sSTALL_TIMEOUT=0s: out of range (want a duration in (0, %sTIMEOUT])", Prefix, Prefix)
	}
	if c.ProgressInterval <= 0 {
		add("%sPROGRESS_INTERVAL=%s: want a positive duration", Prefix, c.ProgressInterval)
	}
	if _, err := budget.Parse(c.Budgets); err != nil {
		add("%sBUDGETS: %v", Prefix, err)
	}
	p = append(p, render(c.Gate.validate(), variable)...)
	if c.OutDir == "" {
		add("%sOUT_DIR: empty (want a directory path)", Prefix)
	}
	if c.RunID != "" && !gate.ValidRunID(c.RunID) {
		add("%sRUN_ID=%q: want 1 to 64 of A-Z a-z 0-9 . _ -", Prefix, c.RunID)
	}
	if len(p) > 0 {
		return p
	}
	return nil
}

// validate checks the regression gate.
func (g Gate) validate() error {
	var errs []error
	for _, m := range g.metrics() {
		if err := compare.CheckMetric(m); err != nil {
			errs = append(errs, &capacity.FieldError{Field: "gate_metrics", Problem: fmt.Sprintf("%q: %v", m, err)})
		}
	}
	if math.IsNaN(g.GateBy) || g.GateBy <= 0 || g.GateBy >= 1 {
		errs = append(errs, &capacity.FieldError{Field: "gate_by", Value: g.GateBy, Problem: "out of range (want a fraction in (0, 1), e.g. 0.05 for 5%)"})
	}
	if math.IsNaN(g.ContextTolerance) || g.ContextTolerance <= 0 || g.ContextTolerance >= 1 {
		errs = append(errs, &capacity.FieldError{Field: "context_tolerance", Value: g.ContextTolerance, Problem: "out of range (want a fraction in (0, 1), e.g. 0.02 for 2%)"})
	}
	if !g.GateInconclusive.Valid() || g.GateInconclusive == "" {
		errs = append(errs, &capacity.FieldError{Field: "gate_inconclusive", Value: string(g.GateInconclusive), Problem: "want fail or pass"})
	}
	if math.IsNaN(g.MaxClientCPUPct) || g.MaxClientCPUPct <= 0 {
		errs = append(errs, &capacity.FieldError{Field: "max_client_cpu_pct", Value: g.MaxClientCPUPct, Problem: "want a percentage above 0 (90: the client may want up to 90% of its cores)"})
	}
	if math.IsNaN(g.MaxStartLagPct) || g.MaxStartLagPct <= 0 || g.MaxStartLagPct > 100 {
		errs = append(errs, &capacity.FieldError{Field: "max_start_lag_pct", Value: g.MaxStartLagPct, Problem: "out of range (want a percentage in (0, 100])"})
	}
	return errors.Join(errs...)
}

// render writes the problems of a Validate error one per line, naming each field with name.
func render(err error, name func(field string) string) Problems {
	fields, rest := capacity.FieldErrors(err)
	var p Problems
	for _, f := range fields {
		p = append(p, f.Render(name))
	}
	for _, e := range rest {
		p = append(p, e.Error())
	}
	return p
}

// ParsedBudgets returns the budgets of ANVIL_BUDGETS, then those of ANVIL_BUDGETS_FILE as
// Load read them (both already validated by Load).
func (c Config) ParsedBudgets() []budget.Budget {
	b, _ := budget.Parse(c.Budgets)
	return append(b, c.fileBudgets...)
}

// BaselineArtifact is the artifact of ANVIL_BASELINE as Load read it; nil without one.
func (c Config) BaselineArtifact() *artifact.Benchmark { return c.baseline }

// ParsedGateMetrics returns the metrics of ANVIL_GATE_METRICS.
func (c Config) ParsedGateMetrics() []string { return c.metrics() }
