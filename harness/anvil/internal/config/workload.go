package config

import (
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// GatedScenario is a scenario with everything that judges it: the configured scenario
// (Config.Configured) or one of a scenarios file (Config.Scenarios).
type GatedScenario struct {
	// Name names the scenario's specs and artifact; Labels are added to its specs.
	Name   string
	Labels []string
	// Scenario is the workload, with the configuration's identity (model, engine, GPU, tier,
	// clock domain, fingerprint), progress interval and shard.
	Scenario capacity.Scenario
	// Spec judges its run: budgets, baseline, gated metrics, tolerances, client bounds.
	gate.Spec
	// Interleave is the baseline build the scenario runs interleaved with; nil for a run
	// of the endpoint alone.
	Interleave *capacity.Interleaving
}

// ConfiguredName names the configured scenario.
const ConfiguredName = "configured"

// Configured is the scenario the ANVIL_* variables describe, with its budgets
// (ANVIL_BUDGETS and ANVIL_BUDGETS_FILE) and baseline. Load has validated it.
func (c Config) Configured() GatedScenario {
	spec := c.Gate
	spec.Budgets = c.ParsedBudgets()
	interleave := c.Interleaving()
	judgedAgainst(&spec, c.Baseline, c.baselines.of(ConfiguredName, true), interleave)
	spec.Searched = c.Scenario.Search.On()
	c.countStarts(&spec, ConfiguredName)
	return GatedScenario{Name: ConfiguredName, Scenario: c.configured(), Spec: spec, Interleave: interleave}
}

// Scenarios are the scenarios of ANVIL_SCENARIOS_FILE as Load read and validated them;
// none without a file.
func (c Config) Scenarios() []GatedScenario { return c.scenarios }

// configured is the configuration's scenario with its identity: what every scenario of
// the configuration, configured or from a file, starts from.
func (c Config) configured() capacity.Scenario {
	sc := c.Scenario
	sc.Name = ConfiguredName
	sc.Model, sc.Engine, sc.GPU, sc.Tier = c.Model, c.Engine, c.GPU, c.Tier
	sc.ClockDomainID, sc.ConfigurationFingerprint = c.ClockDomainID, c.ConfigurationFingerprint
	sc.ProgressInterval = c.ProgressInterval
	sc.Shard, sc.StartAt = c.shard, c.startAt
	return sc
}

// Target is the endpoint at baseURL (ANVIL_BASE_URL, or the embedded engine's) with the
// configured key and timeouts.
func (c Config) Target(baseURL string) capacity.Target {
	return capacity.Target{BaseURL: baseURL, APIKey: c.APIKey, Timeout: c.Timeout, StallTimeout: c.StallTimeout, MetricsURL: c.MetricsURL, GPUMetricsURL: c.GPUMetricsURL, GPUPricePerHour: c.GPUPricePerHour,
		UserSpaceStamps: !c.KernelTimestamps, TransmitStamps: c.TransmitStamps}
}
