package capacity

import (
	"slices"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/schedule"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// ThinkingMode is how a scenario drives a model's thinking switch.
type ThinkingMode string

// Thinking modes.
const (
	// ThinkingDefault sends no thinking control: the model's own default applies.
	ThinkingDefault ThinkingMode = "default"
	// ThinkingEnabled and ThinkingDisabled send chat_template_kwargs.enable_thinking.
	ThinkingEnabled  ThinkingMode = "enabled"
	ThinkingDisabled ThinkingMode = "disabled"
	// ThinkingUnsupported sends nothing and records that the model has no switch.
	ThinkingUnsupported ThinkingMode = "unsupported"
)

// Choices lists the thinking modes.
func (ThinkingMode) Choices() []string {
	return []string{string(ThinkingDefault), string(ThinkingEnabled), string(ThinkingDisabled), string(ThinkingUnsupported)}
}

// Valid reports whether m is one of Choices.
func (m ThinkingMode) Valid() bool { return slices.Contains(m.Choices(), string(m)) }

// switches reports whether the mode sends chat_template_kwargs.enable_thinking.
func (m ThinkingMode) switches() bool { return m == ThinkingEnabled || m == ThinkingDisabled }

// ReasoningEffort is sent as reasoning_effort; empty sends nothing.
type ReasoningEffort string

// Choices lists the efforts engines accept (OpenAI's and gpt-oss's names).
func (ReasoningEffort) Choices() []string {
	return []string{"none", "minimal", "low", "medium", "high", "max", "xhigh"}
}

// Valid reports whether e is empty or one of Choices.
func (e ReasoningEffort) Valid() bool { return e == "" || slices.Contains(e.Choices(), string(e)) }

// CacheIntent is what a scenario expects of the engine's prefix cache, recorded in the
// artifact so matchers can hold the run to it.
type CacheIntent string

// Cache intents.
const (
	// CacheIntentNone makes no statement.
	CacheIntentNone CacheIntent = ""
	// CacheIntentCold expects no prompt token served from a cache.
	CacheIntentCold CacheIntent = "cold"
	// CacheIntentSharedPrefix expects the shared prefix to be served from the cache.
	CacheIntentSharedPrefix CacheIntent = "shared-prefix"
)

// Choices lists the cache intents that state something.
func (CacheIntent) Choices() []string {
	return []string{string(CacheIntentCold), string(CacheIntentSharedPrefix)}
}

// Valid reports whether i is empty or one of Choices.
func (i CacheIntent) Valid() bool {
	return i == CacheIntentNone || slices.Contains(i.Choices(), string(i))
}

// API is the wire protocol a scenario's requests speak: chat (the default, also when
// empty), completions, responses (OpenAI's Responses API), messages (Anthropic's Messages
// API) or ollama (Ollama's native /api/chat). It is part of the workload: the artifact
// records it, and runs on two APIs are not comparable.
type API string

// APIs.
const (
	APIChat        API = "chat"
	APICompletions API = "completions"
	APIResponses   API = "responses"
	APIMessages    API = "messages"
	APIOllama      API = "ollama"
)

func (a API) wire() stream.API { return stream.API(a) }

// Choices lists the APIs.
func (API) Choices() []string { return stream.APIChat.Choices() }

// Valid reports whether a is empty (chat) or one of Choices.
func (a API) Valid() bool { return a.wire().Valid() }

// Name is the API as the artifact records it: "chat" for the empty default.
func (a API) Name() string { return a.wire().Name() }

// supports is what a request on the API can carry.
func (a API) supports() stream.Support { return a.wire().Supports() }

// Policy is what a response that misses the controlled output becomes: a failed request
// (strict) or a recorded miss (observe).
type Policy string

// CacheMode is how prompts relate to each other's prefixes: unique, or a shared prefix.
type CacheMode string

// Arrival is an open loop's model of the gaps between request starts.
type Arrival string

// Output is the form a response is asked to give its words in: text, a tool call, or a
// JSON object.
type Output string

// Policies, cache modes, arrival models and outputs.
const (
	PolicyStrict  = Policy(workload.PolicyStrict)
	PolicyObserve = Policy(workload.PolicyObserve)
	CacheUnique   = CacheMode(workload.CacheUnique)
	CacheShared   = CacheMode(workload.CacheShared)
	Poisson       = Arrival(schedule.Poisson)
	Constant      = Arrival(schedule.Constant)
	OutputText    = Output(workload.OutputText)
	OutputTool    = Output(workload.OutputToolCall)
	OutputJSON    = Output(workload.OutputJSON)
)

// Choices lists the policies.
func (Policy) Choices() []string { return workload.PolicyStrict.Choices() }

// Valid reports whether p is one of Choices.
func (p Policy) Valid() bool { return workload.Policy(p).Valid() }

// Choices lists the cache modes.
func (CacheMode) Choices() []string { return workload.CacheUnique.Choices() }

// Valid reports whether m is one of Choices.
func (m CacheMode) Valid() bool { return workload.CacheMode(m).Valid() }

// Choices lists the arrival models.
func (Arrival) Choices() []string { return schedule.Poisson.Choices() }

// Valid reports whether a is one of Choices.
func (a Arrival) Valid() bool { return schedule.Arrival(a).Valid() }

// Choices lists the outputs.
func (Output) Choices() []string { return workload.OutputText.Choices() }

// Valid reports whether o is one of Choices.
func (o Output) Valid() bool { return workload.Output(o).Valid() }

// ThinkTime is how the pause between a session's answer and its next turn is drawn.
type ThinkTime string

// Think-time distributions.
const (
	// ThinkFixed waits exactly the scenario's ThinkTime.
	ThinkFixed ThinkTime = "fixed"
	// ThinkExponential draws each pause from an exponential distribution of that mean
	// (seeded by ContextSeed), as independent users pause.
	ThinkExponential ThinkTime = "exponential"
)

// Choices lists the think-time distributions.
func (ThinkTime) Choices() []string { return []string{string(ThinkFixed), string(ThinkExponential)} }
