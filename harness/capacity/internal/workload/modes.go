package workload

import "slices"

// Policy is what a response that misses the controlled output becomes.
type Policy string

// Controlled-output policies.
const (
	// PolicyStrict makes a non-exact or truncated response a failure, excluded from the figures.
	PolicyStrict Policy = "strict"
	// PolicyObserve records adherence and keeps every response.
	PolicyObserve Policy = "observe"
)

// Choices lists the valid policies.
func (Policy) Choices() []string { return []string{string(PolicyStrict), string(PolicyObserve)} }

// Valid reports whether p is one of Choices.
func (p Policy) Valid() bool { return slices.Contains(p.Choices(), string(p)) }

// Output is the form a response is asked to give its words in.
type Output string

// Output forms.
const (
	// OutputText asks for the words as the response's text.
	OutputText Output = "text"
	// OutputToolCall offers one tool, RecordWordsTool, and asks for one call of it with the
	// words in its wordsMember argument.
	OutputToolCall Output = "tool_call"
	// OutputJSON asks, with a JSON schema as response_format, for an object whose wordsMember
	// holds the words.
	OutputJSON Output = "json_schema"
)

// Choices lists the output forms.
func (Output) Choices() []string {
	return []string{string(OutputText), string(OutputToolCall), string(OutputJSON)}
}

// Valid reports whether o is one of Choices.
func (o Output) Valid() bool { return slices.Contains(o.Choices(), string(o)) }

// The tool a tool-call response calls, and the member of its arguments (and of a JSON
// response) that holds the words.
const (
	RecordWordsTool = "record_words"
	wordsMember     = "words"
)

// CacheMode is how prompts relate to each other's prefixes.
type CacheMode string

// Prompt cache modes.
const (
	// CacheUnique makes every prompt unique from its first line on.
	CacheUnique CacheMode = "unique"
	// CacheShared starts every prompt with the same byte-identical prefix.
	CacheShared CacheMode = "shared"
)

// Choices lists the valid cache modes.
func (CacheMode) Choices() []string { return []string{string(CacheUnique), string(CacheShared)} }

// Valid reports whether m is one of Choices.
func (m CacheMode) Valid() bool { return slices.Contains(m.Choices(), string(m)) }
