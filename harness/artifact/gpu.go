package artifact

// GPUTelemetry is the state of the engine's GPUs sampled before, through and after a run
// (a DCGM exporter's fields, or nvidia-smi's): what a verdict needs to know the run measured
// the engine, not a GPU that throttled or ran at other clocks.
type GPUTelemetry struct {
	// Source is "dcgm <url>", "nvidia-smi", or "none" (Note says why: nothing to read).
	Source string `json:"source"`
	Note   string `json:"note,omitempty"`
	// Error is the last failed read, "" when none failed; Samples counts the reads.
	Error   string     `json:"error,omitempty"`
	Samples int        `json:"samples"`
	GPUs    []GPUState `json:"gpus"`
	// EnergyJ is what every GPU drew over the measured phase, in joules, from EnergySource:
	// DCGM's energy counter, or its power integrated where a GPU has no counter; absent
	// when a GPU has neither across the phase.
	EnergyJ      *Float `json:"energy_j,omitempty"`
	EnergySource string `json:"energy_source,omitempty"`
	// PricePerHour is what the GPUs cost an hour (ANVIL_GPU_PRICE_PER_HOUR), for the cost
	// per million output tokens; absent when not given.
	PricePerHour *Float `json:"price_per_hour,omitempty"`
}

// GPUState is one GPU's samples.
type GPUState struct {
	GPU    string      `json:"gpu"`
	Model  string      `json:"model"`
	Series []GPUSample `json:"series"`
}

// GPUSample is one GPU's state at OffsetMs from the measured phase's start (negative
// before it); During marks the samples taken within it. Null fields were not reported.
type GPUSample struct {
	OffsetMs       Float  `json:"offset_ms"`
	During         bool   `json:"during"`
	SMClockMHz     *Float `json:"sm_clock_mhz"`
	MemClockMHz    *Float `json:"mem_clock_mhz"`
	PowerW         *Float `json:"power_w"`
	TemperatureC   *Float `json:"temperature_c"`
	UtilizationPct *Float `json:"utilization_pct"`
	MemoryUsedMiB  *Float `json:"memory_used_mib"`
	// EnergyMJ is DCGM's energy counter since the driver loaded, in mJ.
	EnergyMJ *Float `json:"energy_mj,omitempty"`
	// Reasons is the driver's clock event (throttle) reasons bitmask, NVML's; ReasonNames
	// names its bits.
	Reasons     *uint64  `json:"reasons,omitempty"`
	ReasonNames []string `json:"reason_names,omitempty"`
}

// GPUThrottleReasons are the clock event reasons that hold a busy GPU below the clocks its
// work would run at: SW power cap, HW slowdown, SW thermal, HW thermal, HW power brake.
const GPUThrottleReasons uint64 = 0x4 | 0x8 | 0x20 | 0x40 | 0x80

// gpuReasons are NVML's clock event reasons, by bit.
var gpuReasons = []struct {
	bit  uint64
	name string
}{
	{0x1, "GPU idle"}, {0x2, "applications clocks setting"}, {0x4, "SW power cap"}, {0x8, "HW slowdown"},
	{0x10, "sync boost"}, {0x20, "SW thermal slowdown"}, {0x40, "HW thermal slowdown"},
	{0x80, "HW power brake slowdown"}, {0x100, "display clock setting"},
}

// Throttles names the sample's throttle reasons (those of GPUThrottleReasons it reports),
// not the reasons that hold an idle GPU's clocks down; none without reasons.
func (s GPUSample) Throttles() []string {
	if s.Reasons == nil {
		return nil
	}
	return GPUReasonNames(*s.Reasons & GPUThrottleReasons)
}

// GPUReasonNames names the clock event reasons set in mask.
func GPUReasonNames(mask uint64) []string {
	var out []string
	for _, r := range gpuReasons {
		if mask&r.bit != 0 {
			out = append(out, r.name)
		}
	}
	return out
}
