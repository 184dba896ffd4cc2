package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/units"
)

// Label is the verdict column: the outcome, or "improved" for a pass that significantly
// improved.
func (r Row) Label() string {
	if r.Outcome == Pass && r.Verdict != nil && r.Verdict.Improved {
		return "improved"
	}
	return string(r.Outcome)
}

// cells are the table cells of the row: metric, old, new, delta, verdict.
func (r Row) cells() [5]string {
	return [5]string{r.Metric, r.figure(r.Baseline), r.figure(r.Current), r.delta(), r.Label()}
}

func (r Row) figure(v *float64) string {
	switch {
	case v == nil:
		return "n/a"
	case r.Metric == failedMetric:
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	return units.Format(*v, units.Of(r.Metric))
}

func (r Row) delta() string {
	d := r.Delta()
	switch {
	case d == nil:
		return ""
	case r.Metric == failedMetric:
		return fmt.Sprintf("%+d", int(*d))
	}
	return signedPercent(*d)
}

var header = [5]string{"metric", "old", "new", "delta", "verdict"}

// Text renders the report as an aligned table followed by one line per row and, when the
// workloads differ, the differences.
func (r Report) Text() string {
	var buf bytes.Buffer
	if names := r.names(); names != "" {
		fmt.Fprintf(&buf, "%s (gate %s)\n\n", names, percent(r.By))
	}
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	for _, cells := range append([][5]string{header}, r.rowCells()...) {
		fmt.Fprintln(tw, strings.Join(cells[:], "\t"))
	}
	tw.Flush()
	buf.WriteString("\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&buf, "%s: %s\n", row.Metric, row.Message)
	}
	r.writeDifferences(&buf, "")
	return buf.String()
}

// Markdown renders the report as a GitHub-flavoured table (regressions in bold) followed by
// the row messages and any differences, for a pull request or a job summary.
func (r Report) Markdown() string {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "### anvilbench compare: %s (gate %s)\n\n", r.Outcome(), percent(r.By))
	if names := r.names(); names != "" {
		fmt.Fprintf(&buf, "%s\n\n", names)
	}
	fmt.Fprintf(&buf, "| %s |\n|---|---:|---:|---:|---|\n", strings.Join(header[:], " | "))
	for i, cells := range r.rowCells() {
		if r.Rows[i].Outcome == Regressed {
			cells[4] = "**" + cells[4] + "**"
		}
		for j := range cells {
			cells[j] = strings.ReplaceAll(cells[j], "|", `\|`)
		}
		fmt.Fprintf(&buf, "| %s |\n", strings.Join(cells[:], " | "))
	}
	buf.WriteString("\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&buf, "- `%s`: %s\n", row.Metric, row.Message)
	}
	r.writeDifferences(&buf, "- ")
	return buf.String()
}

// names is "baseline OLD vs current NEW", or "" when the report is unlabelled.
func (r Report) names() string {
	if r.BaselineName == "" && r.CurrentName == "" {
		return ""
	}
	return fmt.Sprintf("baseline %s vs current %s", r.BaselineName, r.CurrentName)
}

func (r Report) rowCells() [][5]string {
	out := make([][5]string, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = row.cells()
	}
	return out
}

func (r Report) writeDifferences(buf *bytes.Buffer, bullet string) {
	if len(r.Differences) == 0 {
		return
	}
	buf.WriteString("\nworkload differences:\n")
	indent := "  "
	if bullet != "" { // markdown: a list needs a blank line before it
		buf.WriteString("\n")
		indent = bullet
	}
	for _, d := range r.Differences {
		fmt.Fprintf(buf, "%s%s\n", indent, d)
	}
}

// jsonRow is a row as JSON: the verdict's figures, with null for what was not computed.
type jsonRow struct {
	Metric          string   `json:"metric"`
	Baseline        *float64 `json:"baseline"`
	Current         *float64 `json:"current"`
	Delta           *float64 `json:"delta"`
	Verdict         string   `json:"verdict"`
	Message         string   `json:"message"`
	Ratio           *float64 `json:"ratio"`
	RatioCI95Low    *float64 `json:"ratio_ci95_low"`
	RatioCI95High   *float64 `json:"ratio_ci95_high"`
	P               *float64 `json:"p"`
	BaselineSamples *int     `json:"baseline_samples"`
	CurrentSamples  *int     `json:"current_samples"`
}

// JSON renders the report as one JSON object: by, outcome, comparable, differences and rows.
func (r Report) JSON() ([]byte, error) {
	doc := struct {
		Baseline    string                `json:"baseline,omitempty"`
		Current     string                `json:"current,omitempty"`
		By          float64               `json:"by"`
		Outcome     Outcome               `json:"outcome"`
		Comparable  bool                  `json:"comparable"`
		Differences []artifact.Difference `json:"differences"`
		Rows        []jsonRow             `json:"rows"`
	}{Baseline: r.BaselineName, Current: r.CurrentName, By: r.By, Outcome: r.Outcome(), Comparable: r.Comparable, Differences: r.Differences, Rows: []jsonRow{}}
	if doc.Differences == nil {
		doc.Differences = []artifact.Difference{}
	}
	for _, row := range r.Rows {
		j := jsonRow{Metric: row.Metric, Baseline: finite(row.Baseline), Current: finite(row.Current), Delta: finite(row.Delta()), Verdict: row.Label(), Message: row.Message}
		if v := row.Verdict; v != nil && (v.Outcome == Pass || v.Outcome == Regressed) {
			j.Ratio, j.RatioCI95Low, j.RatioCI95High, j.P = finite(&v.Ratio), finite(&v.RatioLow), finite(&v.RatioHigh), finite(&v.P)
			j.BaselineSamples, j.CurrentSamples = &v.BaselineSamples, &v.CurrentSamples
		}
		doc.Rows = append(doc.Rows, j)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode comparison: %w", err)
	}
	return append(out, '\n'), nil
}

// finite drops NaN and infinities, which JSON cannot carry.
func finite(v *float64) *float64 {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return nil
	}
	c := *v
	return &c
}
