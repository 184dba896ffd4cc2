package artifact

// Cancellation is what a run that abandoned some of its requests planned and saw: the
// share planned (Rate, of Planned requests) left after AfterTokens output chunks, and how
// many were (Abandoned: v1's requests = completed + failed + abandoned). An abandoned
// request is in no latency figure and counts as lost in goodput.
type Cancellation struct {
	Rate        float64 `json:"rate"`
	AfterTokens int     `json:"after_tokens"`
	Planned     int     `json:"planned"`
	Abandoned   int     `json:"abandoned"`
	// EngineStopped says whether the engine stopped what the client left: its running
	// requests gauge fell to none within StopTolerance of the measured phase's end; null when
	// nothing could tell (StopSource says why). DecodedOnMs is when it did, after that end:
	// how long the engine went on.
	EngineStopped *bool  `json:"engine_stopped"`
	DecodedOnMs   *Float `json:"decoded_on_ms"`
	StopSource    string `json:"stop_source"`
	// TokensPerLeft is what the engine's generated-tokens counter holds beyond the usage of
	// every request that ran to its end, per request left: about AfterTokens from an engine
	// that stopped, up to the whole answer from one that decoded on. Null when the engine
	// exports no counter or a request's usage is unknown.
	TokensPerLeft *Float `json:"tokens_per_left"`
}
