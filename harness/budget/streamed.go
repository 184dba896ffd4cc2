package budget

import (
	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Answers that arrive at once: of StreamedMinChunks output chunks or more, with their first
// output and their end less than StreamedWithin apart. No engine decodes four tokens that
// fast; a proxy that buffers responses, or an engine that flushes only at the end, delivers
// every answer so.
const (
	StreamedMinChunks = 4
	StreamedWithin    = 0.1 // ms
)

// AtOnce counts the successful answers of at least StreamedMinChunks output chunks
// (content and reasoning), and how many of them arrived at once: their generation_ms (first
// output to end) under StreamedWithin. Such an answer's TTFT is the time to the whole
// answer, and its TPOT measures nothing.
func AtOnce(a *artifact.Benchmark) (atOnce, answers int) {
	if a == nil {
		return 0, 0
	}
	for _, r := range a.RequestTimings {
		if r.ContentChunks+r.ReasoningChunks < StreamedMinChunks {
			continue
		}
		answers++
		if float64(r.GenerationMs) < StreamedWithin {
			atOnce++
		}
	}
	return atOnce, answers
}
