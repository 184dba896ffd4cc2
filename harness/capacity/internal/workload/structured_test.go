package workload

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWordsSchemaIsJSON(t *testing.T) {
	t.Parallel()
	if !json.Valid([]byte(WordsSchema)) {
		t.Fatal(WordsSchema)
	}
}

func TestScoreToolCalls(t *testing.T) {
	t.Parallel()
	good := Call{Name: RecordWordsTool, Arguments: `{"words": "code code code"}`}
	co, problem := ScoreToolCalls([]Call{good}, "", 3, PolicyStrict)
	if problem != "" || !co.Passed || *co.ExactAdherence != true || co.ObservedCodeWords != 3 {
		t.Errorf("a good call: %+v %q", co, problem)
	}
	for name, c := range map[string]struct {
		calls   []Call
		content string
		want    string
	}{
		"none":      {nil, "code code code", `no tool call (text "code code code")`},
		"two":       {[]Call{good, good}, "", "2 tool calls (record_words, record_words), want one call of record_words"},
		"other":     {[]Call{{Name: "lookup", Arguments: "{}"}}, "", `called "lookup", want record_words`},
		"bad json":  {[]Call{{Name: RecordWordsTool, Arguments: `{"words": "code code`}}, "", "the arguments are not valid JSON"},
		"not obj":   {[]Call{{Name: RecordWordsTool, Arguments: `["code"]`}}, "", "the arguments are not valid JSON"},
		"no words":  {[]Call{{Name: RecordWordsTool, Arguments: `{"text": "code"}`}}, "", `the arguments have no "words" member`},
		"number":    {[]Call{{Name: RecordWordsTool, Arguments: `{"words": 3}`}}, "", `the arguments' "words" is not a string`},
		"extra":     {[]Call{{Name: RecordWordsTool, Arguments: `{"words": "code code code", "x": 1}`}}, "", "members beyond"},
		"truncated": {[]Call{{Name: RecordWordsTool, Arguments: `{"words": "code`, Truncated: true}}, "", "cut at the capture limit"},
		"trailing":  {[]Call{{Name: RecordWordsTool, Arguments: `{"words": "code code code"} {}`}}, "", "not a JSON object"},
	} {
		co, problem := ScoreToolCalls(c.calls, c.content, 3, PolicyStrict)
		if !strings.Contains(problem, c.want) || co.Passed {
			t.Errorf("%s: %+v %q, want %q", name, co, problem, c.want)
		}
	}
	// Valid structure, wrong words: no structural problem, adherence fails.
	co, problem = ScoreToolCalls([]Call{{Name: RecordWordsTool, Arguments: `{"words": "code code"}`}}, "", 3, PolicyStrict)
	if problem != "" || co.Passed || co.ObservedCodeWords != 2 {
		t.Errorf("two words of three: %+v %q", co, problem)
	}
	// Observe records and keeps.
	if co, problem := ScoreToolCalls(nil, "", 3, PolicyObserve); !co.Passed || problem == "" {
		t.Errorf("observe: %+v %q", co, problem)
	}
}

func TestScoreJSONAnswer(t *testing.T) {
	t.Parallel()
	if co, problem := ScoreJSONAnswer(` {"words":"code code"} `, true, 2, PolicyStrict); problem != "" || !co.Passed {
		t.Errorf("good: %+v %q", co, problem)
	}
	if _, problem := ScoreJSONAnswer("code code", true, 2, PolicyStrict); !strings.Contains(problem, "the answer is not valid JSON") {
		t.Errorf("text: %q", problem)
	}
}
