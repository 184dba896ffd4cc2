package anvil

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// A run gated by ttft_p95_ms<=80, against an engine whose TTFT straddles 80 ms, records
// slo_attainment and goodput_rps, and both equal a recount from its request rows: the
// requests within 80 ms over those attempted, and over the measured phase's wall time.
func TestARunRecordsItsSLOAttainmentAndGoodput(t *testing.T) {
	if os.Getenv("ANVIL_TEST_ROLE") == roleConfigured {
		Bootstrap("slo")
		DescribeConfigured()
		RunSpecs(t, "slo")
		return
	}
	engine, err := refengine.Start(refengine.Options{PrefillOverhead: 70 * time.Millisecond, RequestJitter: 0.2, ITL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	dir := t.TempDir()
	out, _ := suiteProcess(t, roleConfigured, dir, "ANVIL_BASE_URL="+engine.BaseURL(), "ANVIL_BUDGETS=ttft_p95_ms<=80",
		"ANVIL_REQUESTS=24", "ANVIL_CONCURRENCY=4", "ANVIL_CONTEXT_TOKENS=1000", "ANVIL_WARMUP_REQUESTS=0").CombinedOutput()
	b, err := artifact.Read(filepath.Join(dir, "out", "slo", "configured.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	x := b.Extension
	if x.SLOAttainment == nil || x.GoodputRPS == nil {
		t.Fatalf("no slo_attainment or goodput_rps in the artifact: %v %v", x.SLOAttainment, x.GoodputRPS)
	}
	within := 0
	for _, r := range b.RequestTimings {
		if r.TTFTMs <= 80 {
			within++
		}
	}
	attainment, goodput := float64(within)/float64(b.Requests), float64(within)/(float64(b.WallClockMs)/1000)
	t.Logf("%d of %d within 80 ms: attainment %.3f (recorded %.3f), goodput %.2f/s (recorded %.2f/s)",
		within, b.Requests, attainment, float64(*x.SLOAttainment), goodput, float64(*x.GoodputRPS))
	if math.Abs(float64(*x.SLOAttainment)-attainment) > 0.01 || math.Abs(float64(*x.GoodputRPS)-goodput) > 1e-6*goodput {
		t.Errorf("recorded attainment %v, goodput %v; recounted %.4f, %.4f", *x.SLOAttainment, *x.GoodputRPS, attainment, goodput)
	}
	// Both are figures a budget names.
	for text, want := range map[string]gate.Outcome{"slo_attainment>=0.99": gate.BudgetBroken, "slo_attainment>=0.5": gate.Pass, "goodput_rps>=1": gate.Pass} {
		bs, err := budget.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if r := gate.MeetBudget(bs[0]).Judge(b); r.Outcome != want {
			t.Errorf("%s: %s: %s", text, r.Outcome, r.Message)
		}
	}
	if within == 0 || within == b.Requests {
		t.Errorf("%d of %d requests within 80 ms: the engine was to straddle it", within, b.Requests)
	}
}
