package artifact

// Drift is how far one figure moved over a run's measured phase, its requests in start
// order, those of each block's first and last waves left out (a closed loop's ramp and
// drain, when fewer requests are in flight), tested over the medians of Groups groups of
// consecutive requests (requests that share batches are alike): a trend by Mann-Kendall's
// test, its size by Sen's slope over the window with its 99.5% interval, and the largest
// single change of level by Pettitt's.
type Drift struct {
	Figure   string `json:"figure"`
	Requests int    `json:"requests"`
	Groups   int    `json:"groups"`
	// FromMs and ToMs are the window's first and last start after the start of the
	// request phase; Median the figure's median over it.
	FromMs Float `json:"from_ms"`
	ToMs   Float `json:"to_ms"`
	Median Float `json:"median"`
	// TrendPct is Sen's slope over the window, in percent of the median, TrendLowPct and
	// TrendHighPct its interval; TrendP Mann-Kendall's two-sided p.
	TrendPct     Float `json:"trend_pct"`
	TrendLowPct  Float `json:"trend_low_pct"`
	TrendHighPct Float `json:"trend_high_pct"`
	TrendP       Float `json:"trend_p"`
	// ShiftPct is the median after the most likely change of level less the median before,
	// in percent of the one before; ShiftAtMs where it falls; ShiftP Pettitt's p.
	ShiftPct  Float `json:"shift_pct"`
	ShiftAtMs Float `json:"shift_at_ms"`
	ShiftP    Float `json:"shift_p"`
}
