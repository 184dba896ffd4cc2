// Package anvil is the toolkit anvilbench's suites are written with, and the one an engine
// team imports to write its own: a Ginkgo suite that measures an OpenAI-compatible
// endpoint, gates on budgets and baselines, and leaves artifacts, JUnit, a gate verdict and
// a report behind.
//
// A suite in an engine's repository is a package with one test file:
//
//	package bench_test
//
//	import (
//		"testing"
//
//		. "github.com/onsi/ginkgo/v2"
//		. "github.com/onsi/gomega"
//
//		"github.com/anvilbench/anvilbench/harness/anvil"
//	)
//
//	func TestEngine(t *testing.T) {
//		RegisterFailHandler(Fail)
//		RunSpecs(t, "engine")
//	}
//
//	var _ = anvil.Bootstrap("engine")   // configuration, embedded engine, JUnit, gate, report
//	var _ = anvil.DescribeScenarios()   // one gated container per scenario of ANVIL_SCENARIOS_FILE
//	var _ = anvil.DescribeConfigured()  // the scenario the ANVIL_* variables describe
//
// Specs of its own use Run (a scenario to an artifact), the matchers of package matchers,
// and PrivateEngine for proofs against a reference engine with a known behaviour, labelled
// LabelSelfTest so they stay apart from the engine's results.
//
// Configuration is read from ANVIL_* variables (package config); with ANVIL_BASE_URL empty
// the suite measures an embedded reference engine, so a fresh clone runs without a GPU.
package anvil
