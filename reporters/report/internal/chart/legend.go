package chart

// legendItem is one entry of a legend: a line with its marker, or a colour swatch.
type legendItem struct {
	name, color, marker string
	swatch, dashed      bool
}

// legendRows puts items into rows that fit the width.
func legendRows(items []legendItem, width float64) [][]legendItem {
	var rows [][]legendItem
	var row []legendItem
	used := float64(marginLeft)
	for _, it := range items {
		w := 28 + textWidth(it.name)
		if len(row) > 0 && used+w > width-marginRight {
			rows, row, used = append(rows, row), nil, marginLeft
		}
		row, used = append(row, it), used+w
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows
}

// legend draws the rows from the top margin and returns the height they took.
func legend(b *builder, rows [][]legendItem) float64 {
	b.WriteString(`<g class="legend">`)
	for i, row := range rows {
		x, y := float64(marginLeft), marginTop+float64(i)*legendRow+legendRow/2
		for _, it := range row {
			if it.swatch {
				b.rect(x, y-5, 12, 10, it.color)
			} else {
				stroke := ` stroke-width="2"`
				if it.dashed {
					stroke += ` stroke-dasharray="5 3"`
				}
				b.line(x, y, x+16, y, it.color, stroke)
				b.marker(it.marker, x+8, y, it.color, false)
			}
			b.f(`<text x="%s" y="%s" font-size="%d" dominant-baseline="middle" fill="%s">%s</text>`, num(x+22), num(y), fontSize, inkColor, esc(it.name))
			x += 28 + textWidth(it.name)
		}
	}
	b.WriteString(`</g>`)
	return float64(len(rows)) * legendRow
}
