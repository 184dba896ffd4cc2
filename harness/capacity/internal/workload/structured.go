package workload

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// WordsSchema is the JSON schema of RecordWordsTool's arguments and of a JSON answer: an
// object with one string member, wordsMember.
const WordsSchema = `{"type":"object","properties":{"` + wordsMember + `":{"type":"string","description":"the requested words, separated by single spaces"}},"required":["` + wordsMember + `"],"additionalProperties":false}`

// RecordWordsDescription is what RecordWordsTool is offered as.
const RecordWordsDescription = "Record the words the user asked for."

// Call is one tool call of a response.
type Call struct {
	Name, Arguments string
	// Truncated reports that the arguments were cut at the capture limit.
	Truncated bool
}

// maxShownChars bounds the text of a response a problem quotes.
const maxShownChars = 120

// ScoreToolCalls scores a tool-call response: it must make exactly one call, of
// RecordWordsTool, whose arguments are a JSON object with a string wordsMember and nothing
// else; the words in it are scored as ScoreControlledOutput scores a text. problem says
// what was wrong with the structure ("" when nothing was): under strict it fails the
// request, under observe it is recorded.
func ScoreToolCalls(calls []Call, content string, requested int, policy Policy) (artifact.ControlledOutput, string) {
	switch {
	case len(calls) == 0:
		return unscored(requested, policy), fmt.Sprintf("no tool call (text %s)", quote(content))
	case len(calls) > 1:
		names := make([]string, len(calls))
		for k, c := range calls {
			names[k] = c.Name
		}
		return unscored(requested, policy), fmt.Sprintf("%d tool calls (%s), want one call of %s", len(calls), strings.Join(names, ", "), RecordWordsTool)
	case calls[0].Name != RecordWordsTool:
		return unscored(requested, policy), fmt.Sprintf("called %q, want %s", calls[0].Name, RecordWordsTool)
	}
	return scoreWordsObject(calls[0].Arguments, !calls[0].Truncated, requested, policy, subject{"the arguments", "are", "have", "the arguments'"})
}

// ScoreJSONAnswer scores a structured-output response: its text must be a JSON object with
// a string wordsMember and nothing else, whose words are scored as in ScoreToolCalls.
func ScoreJSONAnswer(content string, complete bool, requested int, policy Policy) (artifact.ControlledOutput, string) {
	return scoreWordsObject(content, complete, requested, policy, subject{"the answer", "is", "has", "the answer's"})
}

// subject is what a problem speaks of, with its verbs.
type subject struct{ noun, be, have, possessive string }

// scoreWordsObject parses text, a JSON object holding the words, and scores them.
func scoreWordsObject(text string, complete bool, requested int, policy Policy, what subject) (artifact.ControlledOutput, string) {
	if !complete {
		return ScoreControlledOutput("", false, requested, policy, ""), fmt.Sprintf("%s %s cut at the capture limit", what.noun, what.be)
	}
	var members map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&members); err != nil || members == nil || dec.More() {
		why := "not a JSON object"
		if err != nil {
			why = "not valid JSON: " + err.Error()
		}
		return unscored(requested, policy), fmt.Sprintf("%s %s %s: %s", what.noun, what.be, why, quote(text))
	}
	raw, ok := members[wordsMember]
	var words string
	switch {
	case !ok:
		return unscored(requested, policy), fmt.Sprintf("%s %s no %q member: %s", what.noun, what.have, wordsMember, quote(text))
	case json.Unmarshal(raw, &words) != nil:
		return unscored(requested, policy), fmt.Sprintf("%s %q is not a string: %s", what.possessive, wordsMember, quote(string(raw)))
	case len(members) > 1:
		co := ScoreControlledOutput(words, true, requested, policy, "")
		co.Passed = policy != PolicyStrict
		return co, fmt.Sprintf("%s %s members beyond %q, which the schema forbids: %s", what.noun, what.have, wordsMember, quote(text))
	}
	return ScoreControlledOutput(words, true, requested, policy, ""), ""
}

// unscored is the score of a response whose words could not be found: none observed.
func unscored(requested int, policy Policy) artifact.ControlledOutput {
	exact := false
	return artifact.ControlledOutput{CaptureComplete: true, ExactAdherence: &exact, Policy: string(policy),
		RequestedWords: requested, Passed: policy != PolicyStrict}
}

// quote is text for a message: quoted, cut to maxShownChars.
func quote(text string) string {
	if len(text) > maxShownChars {
		cut := maxShownChars
		for cut > 0 && !isRuneStart(text[cut]) {
			cut--
		}
		return fmt.Sprintf("%q...", text[:cut])
	}
	return fmt.Sprintf("%q", text)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
