package capacity

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// fakeDCGM is a DCGM exporter of one H100 busy at 1980 MHz; from its throttleFrom-th read
// on (0: never) it reports a HW thermal slowdown at 1410 MHz.
func fakeDCGM(t *testing.T, throttleFrom int64) *httptest.Server {
	t.Helper()
	var reads atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := reads.Add(1)
		clock, reasons := 1980, 0
		if throttleFrom > 0 && n >= throttleFrom {
			clock, reasons = 1410, 0x40
		}
		labels := `gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="h"`
		var b strings.Builder
		for _, f := range []struct {
			name string
			v    int
		}{{"DCGM_FI_DEV_SM_CLOCK", clock}, {"DCGM_FI_DEV_MEM_CLOCK", 2619}, {"DCGM_FI_DEV_POWER_USAGE", 640}, {"DCGM_FI_DEV_GPU_TEMP", 71},
			{"DCGM_FI_DEV_GPU_UTIL", 97}, {"DCGM_FI_DEV_FB_USED", 71000}, {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", reasons}} {
			fmt.Fprintf(&b, "# TYPE %s gauge\n%s{%s} %d\n", f.name, f.name, labels, f.v)
		}
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(s.Close)
	return s
}

// A run with a DCGM exporter beside it records the GPU's state and is judged by it: a GPU
// that held its clocks passes, one that throttled halfway through makes an invalid run
// naming the GPU, the reason and the time, and a run with nothing to read records the
// GPUs as unknown. The model the exporter names fills the artifact's gpu.
func TestGPUTelemetryJudgesTheRun(t *testing.T) {
	engine := fastEngine(t, refengine.Options{ITL: 5 * time.Millisecond})
	sc := Scenario{Requests: 32, Concurrency: 4, ContextTokens: 1000, MaxTokens: 80, ResponseWords: 64, Policy: PolicyStrict, Calibrate: true}
	judge := func(tg Target) (*artifact.Benchmark, gate.Result) {
		b := mustRun(t, tg, sc)
		return b, gate.GPUHeldClocks(gate.GPUBounds{}, nil).Judge(b)
	}

	steady := target(engine)
	steady.GPUMetricsURL = fakeDCGM(t, 0).URL + "/metrics"
	b, r := judge(steady)
	if !r.Passed() || r.Skipped != "" || b.GPU == nil || *b.GPU != "NVIDIA H100 80GB HBM3" {
		t.Fatalf("steady: %+v, gpu %v", r, b.GPU)
	}
	if n := len(b.Extension.GPU.GPUs[0].Series); n < 4 {
		t.Errorf("steady: %d samples over a %v run", n, time.Duration(b.FinishedAtUnixNs-b.StartedAtUnixNs))
	}
	t.Logf("steady: %s", r.Message)

	throttled := target(engine)
	throttled.GPUMetricsURL = fakeDCGM(t, 3).URL + "/metrics"
	b, r = judge(throttled)
	if r.Outcome != gate.InvalidRun || !strings.Contains(r.Message, "GPU 0 throttled ") || !strings.Contains(r.Message, "s into the measured phase (HW thermal slowdown): SM clock 1410 MHz") {
		t.Fatalf("throttled: %+v", r)
	}
	if allowed := gate.GPUHeldClocks(gate.GPUBounds{AllowThrottle: true, ClockBound: 0.5}, nil).Judge(b); !allowed.Passed() || !strings.Contains(allowed.Message, "allowed: gpu_allow_throttle") {
		t.Errorf("throttle allowed: %+v", allowed)
	}
	t.Logf("throttled: %s", r.Message)

	missing := target(engine)
	missing.GPUMetricsURL = metricsOff
	b, r = judge(missing)
	if r.Skipped != "unknown: not sampled (off)" || b.Extension.GPU.Source != "none" || b.GPU != nil {
		t.Errorf("missing: %+v, telemetry %+v", r, b.Extension.GPU)
	}
}
