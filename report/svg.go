package report

import (
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// svgWriter builds one SVG element as text. The report needs only
// rectangles, lines, paths and text, so a writer this small is easier to
// keep deterministic and escaped than a charting dependency.
type svgWriter struct {
	b strings.Builder
}

// newSVG opens an <svg> of the given size. There is no xmlns attribute:
// HTML5 places inline <svg> in the SVG namespace by itself, and leaving it
// out keeps the report free of any URL.
func newSVG(w, h float64, label string) *svgWriter {
	s := &svgWriter{}
	s.open("svg", "viewBox", "0 0 "+num(w)+" "+num(h), "width", num(w), "height", num(h),
		"role", "img", "aria-label", label,
		"font-family", "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif",
		"font-size", "12")
	return s
}

// attrs writes key="value" pairs; values are escaped for a double-quoted
// attribute.
func (s *svgWriter) attrs(kv []string) {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		s.b.WriteByte(' ')
		s.b.WriteString(kv[i])
		s.b.WriteString(`="`)
		s.b.WriteString(html.EscapeString(kv[i+1]))
		s.b.WriteByte('"')
	}
}

func (s *svgWriter) open(tag string, kv ...string) {
	s.b.WriteByte('<')
	s.b.WriteString(tag)
	s.attrs(kv)
	s.b.WriteString(">")
}

func (s *svgWriter) close(tag string) {
	s.b.WriteString("</")
	s.b.WriteString(tag)
	s.b.WriteString(">\n")
}

// elem writes an empty element.
func (s *svgWriter) elem(tag string, kv ...string) {
	s.b.WriteByte('<')
	s.b.WriteString(tag)
	s.attrs(kv)
	s.b.WriteString("/>\n")
}

// elemTip writes an element with a <title> child, which browsers show as a
// tooltip: the exact values behind a bar or a point, without any script.
func (s *svgWriter) elemTip(tag, tip string, kv ...string) {
	if tip == "" {
		s.elem(tag, kv...)
		return
	}
	s.open(tag, kv...)
	s.title(tip)
	s.close(tag)
}

func (s *svgWriter) title(t string) {
	s.b.WriteString("<title>")
	s.b.WriteString(html.EscapeString(t))
	s.b.WriteString("</title>")
}

// text writes a text element; kv adds attributes such as text-anchor.
func (s *svgWriter) text(x, y float64, t string, kv ...string) {
	s.open("text", append([]string{"x", num(x), "y", num(y)}, kv...)...)
	s.b.WriteString(html.EscapeString(t))
	s.close("text")
}

func (s *svgWriter) rect(x, y, w, h float64, kv ...string) {
	s.elem("rect", append([]string{"x", num(x), "y", num(y), "width", num(w), "height", num(h)}, kv...)...)
}

func (s *svgWriter) line(x1, y1, x2, y2 float64, kv ...string) {
	s.elem("line", append([]string{"x1", num(x1), "y1", num(y1), "x2", num(x2), "y2", num(y2)}, kv...)...)
}

func (s *svgWriter) String() string {
	return s.b.String() + "</svg>\n"
}

// html closes the element for the page. Every value written went through
// attrs, text or title, which escape it, so the markup is safe as is.
func (s *svgWriter) html() template.HTML {
	return template.HTML(s.String())
}

// num formats a coordinate or value with at most two decimals: enough for
// a screen, and short, so large charts stay small.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "0"
	}
	r := math.Round(x*100) / 100
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// pathBuilder accumulates an SVG path's d attribute.
type pathBuilder struct {
	b    strings.Builder
	open bool
}

func (p *pathBuilder) moveTo(x, y float64) {
	if p.b.Len() > 0 {
		p.b.WriteByte(' ')
	}
	p.b.WriteString("M")
	p.b.WriteString(num(x))
	p.b.WriteByte(' ')
	p.b.WriteString(num(y))
	p.open = true
}

func (p *pathBuilder) lineTo(x, y float64) {
	if !p.open {
		p.moveTo(x, y)
		return
	}
	p.b.WriteString("L")
	p.b.WriteString(num(x))
	p.b.WriteByte(' ')
	p.b.WriteString(num(y))
}

func (p *pathBuilder) closePath() { p.b.WriteString("Z") }

func (p *pathBuilder) String() string { return p.b.String() }
