package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/internal/fields"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// Validate checks every field and every combination, returning all problems at once. The
// scenario is checked by capacity.Scenario.Validate and the gate by gate.Spec.Validate,
// the validations every scenario and gate go through, with their fields named by their
// ANVIL_* variables. The input files are Load's: it reads and checks ANVIL_BUDGETS_FILE
// and ANVIL_BASELINE once, before Validate.
func (c Config) Validate() error {
	var p problemList
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }

	p = append(p, render(c.configured().Validate(), variable)...)
	// The embedded engine's URL is not known yet: a valid one stands in for an empty
	// ANVIL_BASE_URL, so the timeouts are still checked.
	base := c.BaseURL
	if base == "" {
		base = "http://127.0.0.1/v1"
	}
	p = append(p, render(c.Target(base).Validate(), variable)...)
	if c.BaselineURL != "" {
		for _, line := range render(c.Target(c.BaselineURL).Validate(), variable) {
			if strings.HasPrefix(line, Prefix+"BASE_URL") {
				p = append(p, Prefix+"BASELINE_URL"+strings.TrimPrefix(line, Prefix+"BASE_URL"))
			}
		}
		if c.Shard != "" || c.Shards != 0 {
			p = append(p, fmt.Sprintf("%sBASELINE_URL: an interleaved run is not sharded (its blocks alternate on one client); unset %sSHARD/%sSHARDS", Prefix, Prefix, Prefix))
		}
		// With a scenarios file each scenario is checked as it is read, and the configured
		// one, when a suite runs it, by the preflight (ConfiguredRepeatsProblem).
		if msg := c.ConfiguredRepeatsProblem(); msg != "" && c.ScenariosFile == "" {
			add("%s", msg)
		}
	}
	if c.Timeout == 0 {
		add("%sTIMEOUT=0s: out of range (want a duration in (0, 1h])", Prefix)
	}
	if c.StallTimeout == 0 {
		add("%sSTALL_TIMEOUT=0s: out of range (want a duration in (0, %sTIMEOUT])", Prefix, Prefix)
	}
	if c.ProbeTimeout <= 0 || c.ProbeTimeout > time.Hour {
		add("%sPROBE_TIMEOUT=%s: out of range (want a duration in (0, 1h])", Prefix, c.ProbeTimeout)
	}
	if c.ProgressInterval <= 0 {
		add("%sPROGRESS_INTERVAL=%s: want a positive duration", Prefix, c.ProgressInterval)
	}
	if _, err := budget.Parse(c.Budgets); err != nil {
		add("%sBUDGETS: %v", Prefix, err)
	}
	p = append(p, render(c.Gate.Validate(), variable)...)
	p = append(p, searchProblems(c.Scenario.Search, c.ParsedBudgets(), func(key string) string { return Prefix + strings.ToUpper(key) })...)
	if c.OutDir == "" {
		add("%sOUT_DIR: empty (want a directory path)", Prefix)
	}
	if c.RunName != "" && !runrecord.ValidID(c.RunName) {
		add("%sRUN_ID=%q: want 1 to 64 of A-Z a-z 0-9 . _ -", Prefix, c.RunName)
	}
	if len(p) > 0 {
		return p
	}
	return nil
}

// ConfiguredRepeatsProblem is what keeps the configured scenario from running interleaved
// with ANVIL_BASELINE_URL: fewer than 2 pairs of blocks (a search needs none); "" when
// nothing does.
func (c Config) ConfiguredRepeatsProblem() string {
	if c.BaselineURL == "" || c.Scenario.Search.On() {
		return ""
	}
	r := max(c.configured().Repeats, 1)
	if r >= minInterleavedPairs {
		return ""
	}
	return fmt.Sprintf("%sBASELINE_URL interleaves %sREPEATS pairs of blocks with the baseline build, and %sREPEATS=%d gives %d: a comparison needs at least %d (ABBA); set %sREPEATS=6 (docs/gating.md: what each number of pairs resolves)",
		Prefix, Prefix, Prefix, r, r, minInterleavedPairs, Prefix)
}

// searchProblems are what a search and its budgets do not fit, each naming its key by
// name: a search needs a budget to hold the load to, and a budget on a capacity needs the
// search that finds it.
func searchProblems(search capacity.Search, budgets []budget.Budget, name func(key string) string) problemList {
	var p problemList
	slo := 0
	for _, b := range budgets {
		over, onCapacity := map[string]string{"capacity_concurrency": "concurrency", "capacity_rps": "request_rate"}[b.Metric]
		switch {
		case !onCapacity:
			slo++
		case search.Over != over:
			p = append(p, fmt.Sprintf("%s: %s needs a search over %s (%s=%s:64, or {\"over\": %q, \"max\": 64} in a scenarios file)", name("budgets"), b, over, name("search"), over, over))
		}
	}
	if search.On() && slo == 0 {
		p = append(p, fmt.Sprintf("%s=%s: no budget to hold the load to: a search finds the highest load within the budgets, e.g. ttft_p95_ms<=200", name("search"), search))
	}
	return p
}

// render writes the problems of a Validate error one per line, naming each field with name.
func render(err error, name func(field string) string) problemList {
	return renderNoted(err, name, nil)
}

// renderNoted is render with note's words, if any, after each field's problem.
func renderNoted(err error, name func(field string) string, note func(*fields.FieldError) string) problemList {
	invalid, rest := fields.Errors(err)
	var p problemList
	for _, f := range invalid {
		line := f.Render(name)
		if note != nil {
			line += note(f)
		}
		p = append(p, line)
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

// BaselineArtifact is the artifact of ANVIL_BASELINE as Load read it; nil without one, and
// for a history.
func (c Config) BaselineArtifact() *artifact.Benchmark { return c.baselines.one }

// Interleaving is the baseline build every gated scenario runs interleaved with
// (ANVIL_BASELINE_URL, its model and key); nil without one.
func (c Config) Interleaving() *capacity.Interleaving {
	if c.BaselineURL == "" {
		return nil
	}
	t := c.Target(c.BaselineURL)
	if c.BaselineAPIKey.IsSet() {
		t.APIKey = c.BaselineAPIKey
	}
	return &capacity.Interleaving{Baseline: t, Model: c.BaselineModel}
}

// minInterleavedPairs is the fewest pairs of blocks an interleaved comparison judges.
const minInterleavedPairs = 2
