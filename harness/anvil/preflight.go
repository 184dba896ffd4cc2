package anvil

import (
	"cmp"
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/anvil/internal/junit"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// preflight makes sure, before any request of a scenario, that this suite's gated
// scenarios can run against the endpoint at baseURL: it checks the endpoint once per run
// (capacity.Preflight; a later suite takes the first one's finding, and skips when it
// failed), then every selected gated scenario: a baseline it cannot be compared with, a
// budget it cannot judge, a fixed context the window cannot hold. A failure ends the suite
// with every problem in one message, classified for the verdict.
func preflight(ctx SpecContext, cfg config.Config, baseURL string) {
	r := runOf()
	s, err := gate.UpdateSummary(r.OutDir, r.ID, func(*gate.Summary) {})
	if err != nil {
		Fail(fmt.Sprintf("the run's verdict cannot be read: %v", err))
	}
	found := s.Preflight
	if found == nil || cfg.UsesEmbeddedEngine() {
		found = checkEndpoint(ctx, cfg, baseURL)
	}

	refusals := checkBaselineBuilds(ctx, cfg.ProbeTimeout)
	for _, reg := range registry {
		if !reg.selected() {
			continue
		}
		if msg := cfg.ConfiguredRepeatsProblem(); reg.configured && msg != "" {
			refusals = append(refusals, gate.Result{Check: "scenario " + reg.g.Name, Kind: gate.KindRun, Outcome: gate.RunFailed, Message: msg})
		}
		blocks := max(reg.g.Scenario.Repeats, 1)
		for _, res := range reg.g.Spec.Refusals(reg.g.Scenario.RequestCount()*blocks, blocks) {
			res.Message = "scenario " + reg.g.Name + ": " + res.Message
			refusals = append(refusals, res)
		}
		if reach := reg.g.Spec.HistoryReach(); reach != "" {
			fmt.Fprintf(os.Stdout, "\nanvilbench preflight: scenario %s: %s\n", reg.g.Name, reach)
		}
		if sc := reg.g.Scenario; found.Window > 0 && sc.MaxContextTokens == 0 {
			if err := sc.FitsWindow(found.Window, "from "+found.WindowSource); err != nil {
				refusals = append(refusals, gate.Result{Check: "scenario " + reg.g.Name, Kind: gate.KindRun, Outcome: gate.RunFailed,
					Message: fmt.Sprintf("scenario %s: %v", reg.g.Name, err)})
			}
		}
	}
	if len(refusals) == 0 {
		return
	}
	worst := refusals[0]
	var lines []string
	for _, res := range refusals {
		if res.Outcome.Worse(worst.Outcome) {
			worst = res
		}
		lines = append(lines, res.Message)
	}
	msg := "preflight: " + strings.Join(lines, "\n  ")
	AddReportEntry(junit.CheckEntry, gate.Result{Check: "preflight", Kind: worst.Kind, Outcome: worst.Outcome, Message: msg}, ReportEntryVisibilityNever)
	Fail(msg)
}

// checkBaselineBuilds runs the preflight of every baseline build the selected scenarios
// interleave with, once each: an engine that is down, refuses the key or does not serve
// the model is refused before any request, not found half-way through a run.
func checkBaselineBuilds(ctx SpecContext, within time.Duration) []gate.Result {
	var out []gate.Result
	checked := map[string]bool{}
	for _, reg := range registry {
		in := reg.g.Interleave
		if !reg.selected() || in == nil {
			continue
		}
		model := cmp.Or(in.Model, reg.g.Scenario.Model)
		if key := in.Baseline.BaseURL + " " + model; checked[key] {
			continue
		} else {
			checked[key] = true
		}
		ep, err := capacity.Preflight(ctx, in.Baseline, capacity.PreflightOptions{Model: model, Window: reg.g.Scenario.MaxContextTokens,
			API: reg.g.Scenario.API, ProbeTimeout: within})
		if err != nil {
			out = append(out, gate.Result{Check: "scenario " + reg.g.Name, Kind: gate.KindRun, Outcome: gate.RunFailed,
				Message: fmt.Sprintf("scenario %s: the baseline build at %s (ANVIL_BASELINE_URL, baseline_url): %v", reg.g.Name, in.Baseline.BaseURL, err)})
			continue
		}
		fmt.Fprintf(os.Stdout, "\nanvilbench preflight: the baseline build at %s serves %s\n", in.Baseline.BaseURL, ep.Model)
	}
	return out
}

// checkEndpoint runs the endpoint's preflight and records what it found in the run's
// verdict, failing the suite when the endpoint cannot run a scenario.
func checkEndpoint(ctx SpecContext, cfg config.Config, baseURL string) *gate.Preflight {
	r := runOf()
	ep, err := capacity.Preflight(ctx, cfg.Target(baseURL), capacity.PreflightOptions{
		Model: cfg.Model, Window: cfg.Scenario.MaxContextTokens, API: cfg.Scenario.API, ProbeTimeout: cfg.ProbeTimeout})
	err = onEmbeddedEngine(err, cfg.UsesEmbeddedEngine())
	found := &gate.Preflight{OK: err == nil, Suite: suiteName, Model: ep.Model, Served: ep.Served, Window: ep.Window, WindowSource: ep.WindowSource}
	if err != nil {
		found.Message, found.Outcome = err.Error(), gate.RunFailed
	} else {
		found.Message = fmt.Sprintf("model %s served", ep.Model)
		if ep.Alias {
			found.Message += " (not listed by GET /models: an alias the engine answers)"
		}
		if ep.Window > 0 {
			found.Message += fmt.Sprintf("; window %d tokens (%s)", ep.Window, ep.WindowSource)
		}
		found.Message += fmt.Sprintf("; a one-token request answered in %.0f ms", ep.FirstToken.Seconds()*1000)
	}
	if !cfg.UsesEmbeddedEngine() {
		if _, werr := gate.UpdateSummary(r.OutDir, r.ID, func(s *gate.Summary) { s.Preflight = found }); werr != nil {
			Fail(fmt.Sprintf("the run's verdict cannot be written: %v", werr))
		}
		fmt.Fprintf(os.Stdout, "\nanvilbench preflight: %s\n", found.Message)
	}
	if err != nil {
		AddReportEntry(junit.CheckEntry, gate.Result{Check: "preflight", Kind: gate.KindRun, Outcome: gate.RunFailed, Message: "preflight: " + err.Error()}, ReportEntryVisibilityNever)
		Fail("preflight: " + err.Error())
	}
	return found
}

// onEmbeddedEngine says, on a failed preflight of the embedded engine, that it was the
// embedded engine: a user who set ANVIL_MODEL for an engine but forgot ANVIL_BASE_URL (or
// exported it into another shell) would otherwise read that their model is not served.
func onEmbeddedEngine(err error, embedded bool) error {
	if err == nil || !embedded {
		return err
	}
	return fmt.Errorf("ANVIL_BASE_URL is not set, so this checked the embedded reference engine: %w", err)
}
