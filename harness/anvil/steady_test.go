package anvil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// An engine whose decode slows 4% a second over a 10-second run is named drifting, with
// the size of its drift, and the run is invalid (exit 6); the same engine at a steady pace
// holds. Both at concurrency 4, 33-token answers 4 ms a token apart.
func TestAnEngineThatSlowsDuringTheRunIsNamed(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleConfigured {
		Bootstrap("steady")
		DescribeConfigured()
		RunSpecs(t, "steady")
		return
	}
	t.Parallel()
	for _, tc := range []struct {
		name    string
		perMin  float64
		drifted bool
	}{{"4% a second", 2.4, true}, {"steady", 0, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := refengine.Start(refengine.Options{PrefillOverhead: 2 * time.Millisecond, ITL: 4 * time.Millisecond, Drift: tc.perMin})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			dir := t.TempDir()
			out, _ := suiteProcess(t, roleConfigured, dir, "ANVIL_BASE_URL="+e.BaseURL(), "ANVIL_REQUESTS=300", "ANVIL_CONCURRENCY=4",
				"ANVIL_CONTEXT_TOKENS=200", "ANVIL_WARMUP_REQUESTS=4").CombinedOutput()
			b, err := artifact.Read(filepath.Join(dir, "out", "steady", "configured.json"))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			s, err := gate.ReadSummary(filepath.Join(dir, "out", "gate.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range b.Extension.Steady {
				t.Logf("%s over %d requests %.1f-%.1f s: trend %+.1f%% (p=%.2g), shift %+.1f%% at %.1f s (p=%.2g)", d.Figure, d.Requests,
					float64(d.FromMs)/1000, float64(d.ToMs)/1000, float64(d.TrendPct), float64(d.TrendP), float64(d.ShiftPct), float64(d.ShiftAtMs)/1000, float64(d.ShiftP))
			}
			named := false
			for _, f := range s.Failed {
				t.Logf("%s: %s", f.Check, f.Message)
				named = named || f.Check != "" && strings.Contains(f.Message, "tpot drifted +")
			}
			if tc.drifted && (s.Outcome != gate.InvalidRun || !named) {
				t.Errorf("a decode slowing 4%% a second: %s (exit %d), the drift named %v", s.Outcome, s.ExitCode, named)
			}
			if !tc.drifted && s.Outcome != gate.Pass {
				t.Errorf("a steady engine: %s (exit %d)", s.Outcome, s.ExitCode)
			}
		})
	}
}
