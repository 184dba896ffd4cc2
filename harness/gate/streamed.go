package gate

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// StreamedAnswers checks that the answers were streamed: a run in which most answers of 4
// output chunks or more arrived at once (artifact.Benchmark.AnswersAtOnce) measured a
// buffer, a proxy's (nginx's proxy_buffering) or the engine's own, not the decode. Its TTFT
// is the time to the whole answer and its TPOT is missing. A few such answers are reported
// and pass: a client stalled past a whole short answer reads it at once too.
func StreamedAnswers() Check {
	return Check{Name: "streams its answers", Kind: KindOutput, judge: func(a *artifact.Benchmark) Result {
		atOnce, answers, of, within := a.AnswersAtOnce()
		if answers == 0 {
			return skipped(fmt.Sprintf("no %s: whether they were streamed cannot be told", of))
		}
		if 2*atOnce > answers {
			return found(RunFailed, fmt.Sprintf("%d of the %d %s were not streamed: each arrived at once (%s), so TTFT measured the whole answer and TPOT nothing; a proxy that buffers responses (nginx's proxy_buffering) or an engine that flushes only at the end does this",
				atOnce, answers, of, within))
		}
		msg := fmt.Sprintf("%d of the %d %s arrived over time", answers-atOnce, answers, of)
		if atOnce > 0 {
			msg += fmt.Sprintf("; %d arrived at once", atOnce)
		}
		return held(msg)
	}}
}
