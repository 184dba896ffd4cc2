package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// GPUBounds say what of the GPUs' state a run may show and still have measured the engine.
type GPUBounds struct {
	// AllowThrottle keeps a run whose GPU throttled (a power cap, a thermal or hardware
	// slowdown: artifact.GPUThrottleReasons) from being invalid; the check says it happened.
	AllowThrottle bool `key:"gpu_allow_throttle" default:"false"`
	// ClockBound bounds how far the busy SM clock may move within the run, and from the
	// baseline's, relative to the higher.
	ClockBound float64 `key:"gpu_clock_bound" range:"(0,1)" default:"0.05"`
}

// GPUHeldClocks checks that the run measured the engine and not its GPUs' state: no GPU
// throttled during the measured phase (unless bounds allow it), no GPU's SM clock moved
// beyond the bound while busy, and, against a baseline that sampled them too, each GPU's
// median busy SM clock within the bound of the baseline's. Either is an invalid run, named
// with the GPU, the reason and the time. A run that could not see its GPUs (no exporter,
// no nvidia-smi) is recorded as unknown: the check is skipped, saying so.
func GPUHeldClocks(bounds GPUBounds, baseline *artifact.Benchmark) Check {
	if bounds.ClockBound == 0 {
		bounds.ClockBound = 0.05
	}
	return Check{Name: "measured GPUs that held their clocks", Kind: KindEngine, judge: func(a *artifact.Benchmark) Result {
		t := gpuTelemetry(a)
		switch {
		case t == nil:
			return skipped("the run did not look at its GPUs")
		case t.Source == "none":
			return skipped("unknown: " + t.Note)
		case len(t.GPUs) == 0:
			return skipped(fmt.Sprintf("unknown: no sample of the GPUs from %s (%s)", t.Source, t.Error))
		}
		var problems, notes, summary []string
		for _, g := range t.GPUs {
			name := "GPU " + g.GPU
			if ev, ok := firstThrottle(g.Series); ok {
				msg := fmt.Sprintf("%s throttled %.1f s into the measured phase (%s)%s", name, float64(ev.OffsetMs)/1000, strings.Join(ev.Throttles(), ", "), clockAt(ev))
				if bounds.AllowThrottle {
					notes = append(notes, msg+" (allowed: gpu_allow_throttle)")
				} else {
					problems = append(problems, msg)
				}
			}
			busy := busyClocks(g.Series)
			if len(busy) == 0 {
				summary = append(summary, name+": no busy sample during the run")
				continue
			}
			lo, hi := slices.Min(busy), slices.Max(busy)
			if moved := (hi - lo) / hi; moved > bounds.ClockBound {
				problems = append(problems, fmt.Sprintf("%s's SM clock moved %.0f%% while busy (%.0f to %.0f MHz over %d samples; bound %.0f%%)",
					name, 100*moved, hi, lo, len(busy), 100*bounds.ClockBound))
			}
			median := median(busy)
			if base := baselineClock(baseline, g.GPU); base > 0 {
				if apart := math.Abs(median-base) / max(median, base); apart > bounds.ClockBound {
					problems = append(problems, fmt.Sprintf("%s ran at %.0f MHz, the baseline's at %.0f MHz (%.0f%% apart; bound %.0f%%): the runs measured different clocks",
						name, median, base, 100*apart, 100*bounds.ClockBound))
				}
			}
			summary = append(summary, fmt.Sprintf("%s (%s): SM clock %.0f MHz (%.0f to %.0f) over %d busy samples", name, g.Model, median, lo, hi, len(busy)))
		}
		if len(problems) > 0 {
			return found(InvalidRun, strings.Join(problems, "; ")+": the figures measured the GPU's state, not the engine")
		}
		msg := strings.Join(summary, "; ") + ", no throttle"
		if len(notes) > 0 {
			msg = strings.Join(summary, "; ") + "; " + strings.Join(notes, "; ")
		}
		return held(fmt.Sprintf("%s (%s)", msg, t.Source))
	}}
}

func gpuTelemetry(a *artifact.Benchmark) *artifact.GPUTelemetry {
	if a == nil || a.Extension == nil {
		return nil
	}
	return a.Extension.GPU
}

// firstThrottle is the first sample of the measured phase with a throttle reason.
func firstThrottle(series []artifact.GPUSample) (artifact.GPUSample, bool) {
	for _, s := range series {
		if s.During && s.Reasons != nil && *s.Reasons&artifact.GPUThrottleReasons != 0 {
			return s, true
		}
	}
	return artifact.GPUSample{}, false
}

func clockAt(s artifact.GPUSample) string {
	if s.SMClockMHz == nil {
		return ""
	}
	return fmt.Sprintf(": SM clock %.0f MHz", float64(*s.SMClockMHz))
}

// busyClocks are the SM clocks of the measured phase's samples while the GPU worked: not
// idle by the driver's reasons, utilisation above zero where reported.
func busyClocks(series []artifact.GPUSample) []float64 {
	var out []float64
	for _, s := range series {
		if !s.During || s.SMClockMHz == nil || (s.Reasons != nil && *s.Reasons&0x1 != 0) || (s.UtilizationPct != nil && *s.UtilizationPct <= 0) {
			continue
		}
		out = append(out, float64(*s.SMClockMHz))
	}
	return out
}

// baselineClock is the baseline's median busy SM clock of gpu; 0 when it has none.
func baselineClock(b *artifact.Benchmark, gpu string) float64 {
	t := gpuTelemetry(b)
	if t == nil {
		return 0
	}
	for _, g := range t.GPUs {
		if g.GPU == gpu {
			if busy := busyClocks(g.Series); len(busy) > 0 {
				return median(busy)
			}
		}
	}
	return 0
}
