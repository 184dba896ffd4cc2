package artifact

// BaselineRef names a gate's baseline and keeps the figures a report compares.
type BaselineRef struct {
	// Design is what the run was judged against: DesignStored (one stored run),
	// DesignHistory (earlier runs) or DesignInterleaved (a baseline build run beside it).
	Design string `json:"design"`
	// Source is the baseline's file (a history's directory or pattern) as configured;
	// RunID and StartedAt are its own (a history's latest run's).
	Source    string `json:"source"`
	RunID     string `json:"run_id"`
	StartedAt string `json:"started_at"`
	// Metrics are the baseline's values of the headline figures (HeadlineFigures) that it records; for a
	// history, the level of its latest runs (after its last change of level).
	Metrics map[string]float64 `json:"metrics"`
	// History are a history's runs, oldest first, with their figures and levels; null
	// for another design.
	History []HistoryRun `json:"history"`
	// GateBy is the change the gate had to resolve (ANVIL_GATE_BY); a change worse than
	// half of it, significant, is a regression, and the report marks what is worse by
	// more than half of it. 0 when no gate compared.
	GateBy float64 `json:"gate_by"`
}

// Designs of a comparison (BaselineRef.Design).
const (
	DesignStored      = "stored run"
	DesignHistory     = "history"
	DesignInterleaved = "interleaved"
)

// HistoryRun is one run of a history baseline.
type HistoryRun struct {
	RunID           string `json:"run_id"`
	StartedAt       string `json:"started_at"`
	StartedAtUnixNs int64  `json:"started_at_unix_ns"`
	// Metrics are its values of the headline figures (HeadlineFigures); Levels the level of the history it
	// belongs to at each (the geometric mean of the runs between two changes of level).
	Metrics map[string]float64 `json:"metrics"`
	Levels  map[string]float64 `json:"levels"`
}

// BaselineRef is the reference to this artifact as a run's stored baseline, read from
// source: its run and its headline figures (HeadlineFigures).
func (b *Benchmark) BaselineRef(source string) *BaselineRef {
	ref := &BaselineRef{Design: DesignStored, Source: source, RunID: b.Run(), StartedAt: b.StartedAt, Metrics: map[string]float64{}}
	for _, f := range HeadlineFigures() {
		if v, _ := f.Of(b); v != nil {
			ref.Metrics[f.Key] = *v
		}
	}
	return ref
}
