package workload

import (
	"regexp"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// ScoreControlledOutput scores a response's visible text against the instruction to give
// exactly requested code words. A leading own marker (canaries) is not counted. Words are
// whitespace-separated; a word is a code word only when it equals codeWord exactly, so
// "code." or "Code" count as extra words. Under strict only an exact, complete capture
// passes; under observe every response passes and is only recorded.
func ScoreControlledOutput(visible string, complete bool, requested int, policy Policy, ownMarker string) artifact.ControlledOutput {
	if ownMarker != "" {
		visible = strings.TrimPrefix(visible, ownMarker)
	}
	var code, extra int
	for _, w := range strings.Fields(visible) {
		if w == codeWord {
			code++
		} else {
			extra++
		}
	}
	out := artifact.ControlledOutput{
		CaptureComplete:    complete,
		ObservedCodeWords:  code,
		ObservedExtraWords: extra,
		Policy:             string(policy),
		RequestedWords:     requested,
		Passed:             policy != PolicyStrict,
	}
	if complete {
		exact := code == requested && extra == 0
		out.ExactAdherence = &exact
		out.Passed = out.Passed || exact
	}
	return out
}

var anyMarker = regexp.MustCompile(`ANVIL_REQ_-?[0-9]+_[0-9]+`)

// CheckCanary checks that a response begins at its first character with its own marker and
// carries no other request's marker. A truncated capture fails closed: a foreign marker
// could sit in the part that was not kept.
func CheckCanary(visible string, complete bool, marker string) artifact.RequestCanary {
	c := artifact.RequestCanary{
		CaptureComplete: complete,
		Marker:          marker,
		MarkerAtStart:   strings.HasPrefix(visible, marker) && !continuesMarker(visible[min(len(marker), len(visible)):]),
	}
	for _, m := range anyMarker.FindAllString(visible, -1) {
		if m == marker {
			c.ObservedMarkerCount++
		} else {
			c.ForeignMarkerCount++
		}
	}
	c.Passed = c.MarkerAtStart && c.ForeignMarkerCount == 0 && complete
	return c
}

// continuesMarker reports whether rest extends a marker's digits (ANVIL_REQ_0_000012 is
// not ANVIL_REQ_0_00001).
func continuesMarker(rest string) bool {
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}
