package capacity

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// wattsDCGM is a DCGM exporter of two GPUs drawing 300 W each, its energy counter (mJ)
// counting from its start when counter is set, else only its power.
func wattsDCGM(t *testing.T, counter bool) (*httptest.Server, func(from, to time.Time) float64) {
	t.Helper()
	start := time.Now()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mj := time.Since(start).Milliseconds() * 300
		fmt.Fprintln(w, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge")
		for gpu := range 2 {
			fmt.Fprintf(w, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",modelName=\"NVIDIA H100 80GB HBM3\"} 300\n", gpu)
		}
		if counter {
			fmt.Fprintln(w, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter")
			for gpu := range 2 {
				fmt.Fprintf(w, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"%d\",modelName=\"NVIDIA H100 80GB HBM3\"} %d\n", gpu, mj)
			}
		}
	}))
	t.Cleanup(s.Close)
	// The exporter's own count: 600 W between two instants.
	return s, func(from, to time.Time) float64 { return 600 * to.Sub(from).Seconds() }
}

// Against an exporter at 300 W a GPU, the joules per output token of the measured phase
// are within 10% of the exporter's own count over it, from its energy counter and, without
// one, from its power integrated; with a price an hour, the cost of a million output
// tokens follows from the phase's wall time.
func TestEnergyPerTokenAsTheExporterCountsIt(t *testing.T) {
	engine := fastEngine(t, refengine.Options{ITL: 5 * time.Millisecond})
	sc := Scenario{Requests: 48, Concurrency: 4, ContextTokens: 500, MaxTokens: 80, ResponseWords: 64, Policy: PolicyStrict, WarmupRequests: 4}
	for _, counter := range []bool{true, false} {
		exporter, count := wattsDCGM(t, counter)
		tg := target(engine)
		tg.GPUMetricsURL, tg.GPUPricePerHour = exporter.URL+"/metrics", 4
		b := mustRun(t, tg, sc)
		g := b.Extension.GPU
		if g.EnergyJ == nil || b.Metrics.OutputTokens == nil {
			t.Fatalf("counter %v: no energy (%s) or no output tokens: %+v", counter, g.Error, g.EnergySource)
		}
		started := time.Unix(0, b.StartedAtUnixNs)
		finished := started.Add(time.Duration(float64(b.WallClockMs) * float64(time.Millisecond)))
		want := count(started, finished) / float64(*b.Metrics.OutputTokens)
		got, _ := artifact.LookupFigure("joules_per_output_token")
		v, _ := got.Of(b)
		cost, _ := artifact.LookupFigure("cost_per_million_output_tokens")
		c, _ := cost.Of(b)
		t.Logf("counter %v (%s): %.1f J over %.2f s, %.4f J per output token against the exporter's %.4f; cost %.2f per million output tokens",
			counter, g.EnergySource, float64(*g.EnergyJ), float64(b.WallClockMs)/1000, *v, want, *c)
		if math.Abs(*v-want) > 0.1*want {
			t.Errorf("counter %v: %.4f J per output token, the exporter counts %.4f", counter, *v, want)
		}
		if wantCost := 4 * float64(b.WallClockMs) / 3.6e6 / float64(*b.Metrics.OutputTokens) * 1e6; math.Abs(*c-wantCost) > 1e-9*wantCost {
			t.Errorf("cost %.4f, want %.4f", *c, wantCost)
		}
	}
}
