package anvil

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// Summary is the short console and JUnit view of one run: counts and the p50/p95 of the
// figures people read first. It holds no prompt, response or credential.
type Summary struct {
	Completed, Requests int
	TTFTp50, TTFTp95    string
	TPOTp50, TPOTp95    string
	E2Ep50, DecodeP50   string
	Throughput          string
	Protocol            string
	// Notes qualify the figures: how prompts were sized when calibration fell back, and
	// how far tpot may read low when chunks carried several tokens.
	Notes []string
}

// Summarize picks the summary figures of a run.
func Summarize(a *artifact.Benchmark) Summary {
	fig := func(key string) string {
		v, _, ok := a.Metrics.Lookup(key)
		if !ok || v == nil {
			return "n/a"
		}
		return budget.Format(*v, budget.Unit(key))
	}
	s := Summary{
		Completed: a.Completed, Requests: a.Requests,
		TTFTp50: fig("ttft_p50_ms"), TTFTp95: fig("ttft_p95_ms"),
		TPOTp50: fig("tpot_p50_ms"), TPOTp95: fig("tpot_p95_ms"),
		E2Ep50: fig("e2e_p50_ms"), DecodeP50: fig("decode_tok_s_p50"),
		Throughput: fig("throughput_tok_s"), Protocol: a.MeasurementProtocol,
	}
	if x := a.Extension; x != nil {
		if x.Calibration.Note != "" {
			s.Notes = append(s.Notes, "prompt sizes estimated: "+x.Calibration.Note)
		}
		if x.ITL.Note != "" {
			s.Notes = append(s.Notes, x.ITL.Note)
		}
	}
	return s
}

func (s Summary) String() string {
	line := fmt.Sprintf("completed %d/%d; ttft p50 %s p95 %s; tpot p50 %s p95 %s; e2e p50 %s; decode p50 %s; throughput %s (%s)",
		s.Completed, s.Requests, s.TTFTp50, s.TTFTp95, s.TPOTp50, s.TPOTp95, s.E2Ep50, s.DecodeP50, s.Throughput, s.Protocol)
	for _, n := range s.Notes {
		line += "\nnote: " + n
	}
	return line
}
