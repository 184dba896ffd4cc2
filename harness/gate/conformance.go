package gate

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
)

// Conformance is what the endpoint honoured of what the harness asks of an engine, API by
// API: the table the conformance specs fill (anvil.DescribeConformance). A cell the harness
// could not judge correctly fails its spec instead; the table records the engine.
type Conformance struct {
	// Endpoint is the base URL asked, Model the model the specs requested.
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
	// APIs are the table's columns in the order they were first filled.
	APIs []string `json:"apis"`
	// Rows are its rows in the order they were first filled.
	Rows []conformanceRow `json:"rows"`
}

// conformanceRow is one thing asked of the engine, with a cell per API.
type conformanceRow struct {
	Item  string                     `json:"item"`
	Cells map[string]ConformanceCell `json:"cells"`
}

// ConformanceCell says whether the engine honoured one item on one API, and what was seen.
type ConformanceCell struct {
	Status ConformanceStatus `json:"status"`
	Detail string            `json:"detail"`
}

// ConformanceStatus is a cell's verdict.
type ConformanceStatus string

// Statuses of a cell.
const (
	Honoured    ConformanceStatus = "yes"
	NotHonoured ConformanceStatus = "no"
	// NotApplicable: the API cannot ask it (a tool on /v1/completions), or what it needs is
	// unknown (no window to plan over).
	NotApplicable ConformanceStatus = "n/a"
)

// Set records cell for item on api, adding the row and the column where they are new.
func (c *Conformance) Set(api, item string, cell ConformanceCell) {
	if !slices.Contains(c.APIs, api) {
		c.APIs = append(c.APIs, api)
	}
	i := slices.IndexFunc(c.Rows, func(r conformanceRow) bool { return r.Item == item })
	if i < 0 {
		c.Rows = append(c.Rows, conformanceRow{Item: item, Cells: map[string]ConformanceCell{}})
		i = len(c.Rows) - 1
	}
	c.Rows[i].Cells[api] = cell
}

// Cell is the cell of item on api; ok is false when it was never filled.
func (c *Conformance) Cell(api, item string) (cell ConformanceCell, ok bool) {
	for _, r := range c.Rows {
		if r.Item == item {
			cell, ok = r.Cells[api]
			return cell, ok
		}
	}
	return cell, false
}

// Text is the table for a console: a row per item, a column per API, each cell its
// status ("-" where never filled), under the model and endpoint asked.
func (c *Conformance) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "conformance of %s at %s\n", c.Model, c.Endpoint)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "item")
	for _, api := range c.APIs {
		fmt.Fprint(tw, "\t"+api)
	}
	fmt.Fprintln(tw)
	for _, r := range c.Rows {
		fmt.Fprint(tw, r.Item)
		for _, api := range c.APIs {
			status := "-"
			if cell, ok := r.Cells[api]; ok {
				status = string(cell.Status)
			}
			fmt.Fprint(tw, "\t"+status)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return b.String()
}
