package artifact

// ExtensionVersion names the layout of the Extension block.
const ExtensionVersion = "anvilbench.extension/v1"

// Extension is anvilbench's own block, under the top-level key "anvilbench". It holds what
// the v1 format has no key for (per-request timelines, per-chunk timing, the client's own
// overhead, the arrival model). Every v1 key keeps its meaning; readers of the original
// format ignore an unknown top-level key, and the block is omitted when nil, so an artifact
// read from the original tool encodes back byte for byte.
type Extension struct {
	Version string `json:"version"`
	// Scenario names the spec that produced the artifact.
	Scenario string `json:"scenario"`
	// Complete is false when the run was interrupted: requests that never finished are
	// failures of type "cancelled".
	Complete bool `json:"complete"`
	// Timeline has one entry per request index, in index order.
	Timeline []RequestSpan `json:"timeline"`
}

// RequestSpan places one request on the run's clock.
type RequestSpan struct {
	RequestIndex int `json:"request_index"`
	// StartOffsetMs is the request start (the instant TTFT is measured from) after the start
	// of the request phase; null when the request was never sent.
	StartOffsetMs *Float `json:"start_offset_ms"`
	// TTFTMs and E2EMs repeat the row's figures so failures can be drawn too; null when
	// not observed.
	TTFTMs *Float `json:"ttft_ms"`
	E2EMs  *Float `json:"e2e_ms"`
	// Outcome is "ok" or the failure's error_type.
	Outcome string `json:"outcome"`
}
