package matchers

import (
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
)

// HaveHeldGPUClocks succeeds when the run's GPUs held their clocks (gate.GPUHeldClocks):
// none throttled during the measured phase, none's busy SM clock moved more than 5%, and
// none ran more than 5% from the baseline's clock when a baseline is given (nil: none).
//
//	Expect(run).To(HaveHeldGPUClocks(baseline))
//
// It fails with the GPU, the reason and the time, e.g. "GPU 0 throttled 6.0 s into the
// measured phase (HW thermal slowdown): SM clock 1410 MHz", and the run's gate is then an
// invalid run. Without GPU telemetry it passes, saying the GPUs' state is unknown.
func HaveHeldGPUClocks(baseline *artifact.Benchmark) types.GomegaMatcher {
	return named("HaveHeldGPUClocks", gate.GPUHeldClocks(gate.GPUBounds{}, baseline))
}
