package gate

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// StreamedAnswers checks that the answers were streamed: a run in which most answers of
// budget.StreamedMinChunks output chunks or more arrived at once (budget.AtOnce) measured a
// buffer, a proxy's (nginx's proxy_buffering) or the engine's own, not the decode. Its TTFT
// is the time to the whole answer and its TPOT is missing. A few such answers are reported
// and pass: a client stalled past a whole short answer reads it at once too.
func StreamedAnswers() Check {
	return Check{Name: "streams its answers", Kind: KindOutput, judge: func(a *artifact.Benchmark) Result {
		atOnce, answers := budget.AtOnce(a)
		if answers == 0 {
			return skipped(fmt.Sprintf("no answer had %d or more output chunks: whether they were streamed cannot be told", budget.StreamedMinChunks))
		}
		if 2*atOnce > answers {
			return found(RunFailed, fmt.Sprintf("%d of the %d answers of %d or more output chunks were not streamed: each arrived at once (first output to end under %g ms), so TTFT measured the whole answer and TPOT nothing; a proxy that buffers responses (nginx's proxy_buffering) or an engine that flushes only at the end does this",
				atOnce, answers, budget.StreamedMinChunks, budget.StreamedWithin))
		}
		msg := fmt.Sprintf("%d of the %d answers of %d or more output chunks arrived over time", answers-atOnce, answers, budget.StreamedMinChunks)
		if atOnce > 0 {
			msg += fmt.Sprintf("; %d arrived at once", atOnce)
		}
		return held(msg)
	}}
}
