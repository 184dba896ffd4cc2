package capacity

import "github.com/anvilbench/anvilbench/harness/artifact"

// groupFigures are the groups of plan (a feature's shares of the requests: adapters,
// priority classes; their names, weights and shares) with what became of their requests in
// b, each request's group named by of, and the v1 metrics of their successes.
func groupFigures(plan []artifact.Group, b *artifact.Benchmark, of func(artifact.RequestSpan) string) []artifact.Group {
	out := make([]artifact.Group, len(plan))
	at := map[string]int{}
	for k, g := range plan {
		out[k] = artifact.Group{Name: g.Name, Weight: g.Weight, Share: g.Share, Priority: g.Priority}
		at[g.Name] = k
	}
	rows := make([][]artifact.RequestTiming, len(out))
	byIndex := map[int]int{}
	for _, s := range b.Extension.Timeline {
		k := at[of(s)]
		byIndex[s.RequestIndex] = k
		out[k].Requests++
		switch {
		case s.Outcome == artifact.OutcomeAbandoned:
			out[k].Abandoned++
		case s.Outcome != "ok":
			out[k].Failed++
		}
	}
	for _, row := range b.RequestTimings {
		k := byIndex[row.RequestIndex]
		rows[k] = append(rows[k], row)
	}
	wall := float64(b.WallClockMs) / 1000
	for k := range out {
		out[k].Completed = len(rows[k])
		out[k].Metrics = buildMetrics(rows[k], nil, wall, out[k].Failed == 0)
	}
	return out
}
