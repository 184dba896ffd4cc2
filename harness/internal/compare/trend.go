package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Trend is one metric over a history of runs, oldest first, with the levels its change
// points leave: what anvilbench history prints and the report draws.
type Trend struct {
	Metric string
	Points []TrendPoint
	// Shifts are the history's changes of level, oldest first.
	Shifts []Shift
}

// TrendPoint is one run of a trend.
type TrendPoint struct {
	// Run is its place in the history, from 1; Artifact the run itself.
	Run      int
	Artifact *artifact.Benchmark
	// Value is the metric's figure; Level the geometric mean of its level's runs.
	Value, Level float64
}

// Shift is a change of a history's level.
type Shift struct {
	// AtRun is the first run of the new level (TrendPoint.Run).
	AtRun int
	// From and To are the two levels' figures; Change is To/From − 1.
	From, To, Change float64
}

// TrendOf is metric over runs in time order, skipping runs without a figure, and the
// change points E-divisive means finds in it (at 5%, seeded by seed): the same levels the
// history design judges a run against.
func TrendOf(runs []*artifact.Benchmark, metric string, seed int64) (Trend, error) {
	s, err := seriesOf(metric)
	if err != nil {
		return Trend{}, err
	}
	logs, kept := s.runFigures(runs)
	if len(logs) == 0 {
		return Trend{}, fmt.Errorf("%s: no run has a figure", metric)
	}
	t := Trend{Metric: metric}
	cps := changePoints(logs, seed)
	from := 0
	for k, seg := range split(logs, cps) {
		level := math.Exp(mean(seg))
		for j := range seg {
			t.Points = append(t.Points, TrendPoint{Run: from + j + 1, Artifact: kept[from+j], Value: math.Exp(seg[j]), Level: level})
		}
		if k > 0 {
			prev := t.Points[from-1].Level
			t.Shifts = append(t.Shifts, Shift{AtRun: from + 1, From: prev, To: level, Change: level/prev - 1})
		}
		from += len(seg)
	}
	return t, nil
}

// HistoryRef is the reference to a history baseline read from source that a run's artifact
// keeps: each run's headline figures and levels (TrendOf, seed 1), and as its figures the
// levels of its latest runs.
func HistoryRef(source string, runs []*artifact.Benchmark) *artifact.BaselineRef {
	ref := &artifact.BaselineRef{Design: artifact.DesignHistory, Source: source, Metrics: map[string]float64{}}
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b *artifact.Benchmark) int { return cmp.Compare(a.StartedAtUnixNs, b.StartedAtUnixNs) })
	index := map[*artifact.Benchmark]int{}
	for i, a := range runs {
		index[a] = i
		ref.History = append(ref.History, artifact.HistoryRun{RunID: a.Run(), StartedAt: a.StartedAt, StartedAtUnixNs: a.StartedAtUnixNs,
			Metrics: map[string]float64{}, Levels: map[string]float64{}})
	}
	for _, f := range artifact.HeadlineFigures() {
		key := f.Key
		t, err := TrendOf(runs, key, 1)
		if err != nil {
			continue
		}
		for _, p := range t.Points {
			h := &ref.History[index[p.Artifact]]
			h.Metrics[key], h.Levels[key] = p.Value, p.Level
		}
		ref.Metrics[key] = t.Points[len(t.Points)-1].Level
	}
	if n := len(ref.History); n > 0 {
		ref.RunID, ref.StartedAt = ref.History[n-1].RunID, ref.History[n-1].StartedAt
	}
	return ref
}
