package chart

import (
	"fmt"
	"io"
	"strings"
)

// builder collects one chart's markup, written out at once.
type builder struct{ strings.Builder }

func (b *builder) f(format string, args ...any) { fmt.Fprintf(&b.Builder, format, args...) }

func (b *builder) line(x1, y1, x2, y2 float64, stroke, extra string) {
	b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"%s/>`, num(x1), num(y1), num(x2), num(y2), stroke, extra)
}

func (b *builder) rect(x, y, w, h float64, fill string) {
	b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`, num(x), num(y), num(w), num(h), fill)
}

func (b *builder) text(x, y float64, anchor, fill, s string) {
	b.f(`<text x="%s" y="%s" text-anchor="%s" fill="%s">%s</text>`, num(x), num(y), anchor, fill, esc(s))
}

func (b *builder) writeTo(w io.Writer) error {
	b.WriteString(`</svg>`)
	_, err := io.WriteString(w, b.String())
	return err
}

// marker draws a marker shape at (x, y), filled, or hollow with a thick outline.
func (b *builder) marker(shape string, x, y float64, color string, hollow bool) {
	const r = 3.5
	paint := fmt.Sprintf(`fill="%s"`, color)
	if hollow {
		paint = fmt.Sprintf(`fill="#ffffff" stroke="%s" stroke-width="2"`, color)
	}
	switch shape {
	case "square":
		b.f(`<rect x="%s" y="%s" width="7" height="7" %s/>`, num(x-r), num(y-r), paint)
	case "diamond":
		b.f(`<path d="M%s %sl%s %sl%s %sl%s %sz" %s/>`, num(x), num(y-r-1), num(r+1), num(r+1), num(-r-1), num(r+1), num(-r-1), num(-r-1), paint)
	case "triangle":
		b.f(`<path d="M%s %sl%s %sh%sz" %s/>`, num(x), num(y-r-1), num(r+1), num(2*r+2), num(-2*r-2), paint)
	default:
		b.f(`<circle cx="%s" cy="%s" r="%s" %s/>`, num(x), num(y), num(r), paint)
	}
}
