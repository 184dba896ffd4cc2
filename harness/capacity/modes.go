package capacity

import "slices"

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

// ThinkingModes lists the valid thinking modes.
var ThinkingModes = []ThinkingMode{ThinkingDefault, ThinkingEnabled, ThinkingDisabled, ThinkingUnsupported}

// Valid reports whether m is one of ThinkingModes.
func (m ThinkingMode) Valid() bool { return slices.Contains(ThinkingModes, m) }

// switches reports whether the mode sends chat_template_kwargs.enable_thinking.
func (m ThinkingMode) switches() bool { return m == ThinkingEnabled || m == ThinkingDisabled }

// ReasoningEffort is sent as reasoning_effort; empty sends nothing.
type ReasoningEffort string

// ReasoningEfforts lists the efforts engines accept (OpenAI's and gpt-oss's names).
var ReasoningEfforts = []ReasoningEffort{"none", "minimal", "low", "medium", "high", "max", "xhigh"}

// Valid reports whether e is empty or one of ReasoningEfforts.
func (e ReasoningEffort) Valid() bool { return e == "" || slices.Contains(ReasoningEfforts, e) }

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

// CacheIntents lists the valid cache intents.
var CacheIntents = []CacheIntent{CacheIntentNone, CacheIntentCold, CacheIntentSharedPrefix}

// Valid reports whether i is one of CacheIntents.
func (i CacheIntent) Valid() bool { return slices.Contains(CacheIntents, i) }
