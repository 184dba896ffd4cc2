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
