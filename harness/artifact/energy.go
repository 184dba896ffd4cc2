package artifact

// energyFigures are what the measured phase's energy (GPUTelemetry.EnergyJ) cost a token,
// run-level and lower better: joules per output token and per token (prompt and output, as
// InferenceX counts both), and with the GPUs' price an hour, the cost of a million output
// tokens over the phase's wall time. Absent without an energy, or without exact token
// counts.
func energyFigures() []Figure {
	of := func(value func(b *Benchmark, joules, output float64) (float64, bool)) func(*Benchmark) (*float64, int) {
		return func(b *Benchmark) (*float64, int) {
			g := b.Extension
			if g == nil || g.GPU == nil || b.Metrics.OutputTokens == nil || *b.Metrics.OutputTokens == 0 {
				return nil, -1
			}
			joules := 0.0
			if g.GPU.EnergyJ != nil {
				joules = float64(*g.GPU.EnergyJ)
			}
			if v, ok := value(b, joules, float64(*b.Metrics.OutputTokens)); ok {
				return &v, -1
			}
			return nil, -1
		}
	}
	return []Figure{
		{Key: "joules_per_output_token", of: of(func(b *Benchmark, joules, output float64) (float64, bool) {
			return joules / output, b.Extension.GPU.EnergyJ != nil
		})},
		{Key: "joules_per_token", of: of(func(b *Benchmark, joules, output float64) (float64, bool) {
			prompt := 0.0
			if b.Metrics.PromptTokens != nil {
				prompt = float64(*b.Metrics.PromptTokens)
			}
			return joules / (output + prompt), b.Extension.GPU.EnergyJ != nil
		})},
		{Key: "cost_per_million_output_tokens", of: of(func(b *Benchmark, _, output float64) (float64, bool) {
			price := b.Extension.GPU.PricePerHour
			if price == nil {
				return 0, false
			}
			return float64(*price) * float64(b.WallClockMs) / 3.6e6 / output * 1e6, true
		})},
	}
}
