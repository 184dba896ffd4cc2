package artifact

import "fmt"

// An answer that arrived at once: of streamedMinChunks output chunks or more, its first
// output and its end less than streamedWithinMs apart. No engine decodes four tokens that
// fast; a proxy that buffers responses, or an engine that flushes only at the end, delivers
// every answer so.
const (
	streamedMinChunks = 4
	streamedWithinMs  = 0.1
)

// AnswersAtOnce counts the successful answers long enough to tell (of is "answers of 4 or
// more output chunks", content and reasoning) and how many of them arrived at once
// (within is "first output to end under 0.1 ms"). Such an answer's TTFT is the time to the
// whole answer, and its TPOT measures nothing.
func (b *Benchmark) AnswersAtOnce() (atOnce, answers int, of, within string) {
	of = fmt.Sprintf("answers of %d or more output chunks", streamedMinChunks)
	within = fmt.Sprintf("first output to end under %g ms", streamedWithinMs)
	if b == nil {
		return 0, 0, of, within
	}
	for _, r := range b.RequestTimings {
		if r.ContentChunks+r.ReasoningChunks < streamedMinChunks {
			continue
		}
		answers++
		if float64(r.GenerationMs) < streamedWithinMs {
			atOnce++
		}
	}
	return atOnce, answers, of, within
}
