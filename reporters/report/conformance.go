package report

import (
	"cmp"

	"github.com/anvilbench/anvilbench/harness/gate"
)

// conformanceTable is what the endpoint honoured, per API (gate.Conformance), as the
// report draws it: a row per item, a cell per API.
type conformanceTable struct {
	Endpoint, Model string
	APIs            []string
	Rows            []conformanceRow
}

// conformanceRow is one item with its cells in the order of the table's APIs.
type conformanceRow struct {
	Item  string
	Cells []conformanceCell
}

// conformanceCell is one cell: Class is yes, no or na (for the page's colours).
type conformanceCell struct {
	Status, Detail, Class string
}

// conformanceOf is the table of a run's verdict; nil when the run held no conformance specs.
func conformanceOf(s *gate.Summary) *conformanceTable {
	if s == nil || s.Conformance == nil || len(s.Conformance.Rows) == 0 {
		return nil
	}
	c := s.Conformance
	t := &conformanceTable{Endpoint: c.Endpoint, Model: c.Model, APIs: c.APIs}
	for _, r := range c.Rows {
		row := conformanceRow{Item: r.Item}
		for _, api := range c.APIs {
			cell, ok := r.Cells[api]
			if !ok {
				row.Cells = append(row.Cells, conformanceCell{Status: "", Detail: "not asked", Class: "na"})
				continue
			}
			class := map[gate.ConformanceStatus]string{gate.Honoured: "yes", gate.NotHonoured: "no"}[cell.Status]
			row.Cells = append(row.Cells, conformanceCell{Status: string(cell.Status), Detail: cell.Detail, Class: cmp.Or(class, "na")})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
