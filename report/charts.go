package report

import (
	"html"
	"html/template"
	"math"
)

// palette starts with the Okabe–Ito colour-blind-safe set (yellow
// darkened to read on white) and adds four for comparisons of every
// policy; runs take colours in order, so a run keeps its colour in every
// chart of a report.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#222222", "#B39B00",
	"#8C564B", "#6A3D9A", "#17BECF", "#8C8C8C"}

// dashes tell apart lines that share a colour once the palette wraps.
var dashes = []string{"", "6 3", "2 2", "8 3 2 3"}

func runColor(i int) string { return palette[i%len(palette)] }
func runDash(i int) string  { return dashes[(i/len(palette))%len(dashes)] }

const (
	chartWidth  = 880.0
	marginLeft  = 72.0
	marginRight = 24.0
	plotHeight  = 260.0
	titleHeight = 24.0
	legendRow   = 18.0
	axisBelow   = 48.0
	charWidth   = 6.6 // rough advance of a 12 px sans-serif character
)

type point struct{ X, Y float64 }

// legendItem is one entry of a chart's legend; kind selects the swatch.
type legendItem struct {
	name, color, kind, dash string
}

// Swatch kinds; the zero value draws a filled box.
const (
	swatchLine   = "line"
	swatchShade  = "shade"
	swatchHollow = "hollow"
	swatchUnder  = "under"
	swatchMark   = "mark"
	swatchMiss   = "miss"
	swatchBand   = "band"
)

// legendLayout places items left to right, wrapping to new rows, and
// returns each item's position and the rows used.
func legendLayout(items []legendItem, width float64) (xs, ys []float64, rows int) {
	x, row := 0.0, 0
	for _, it := range items {
		w := 22 + charWidth*float64(len([]rune(it.name))) + 16
		if x > 0 && x+w > width {
			x, row = 0, row+1
		}
		xs = append(xs, x)
		ys = append(ys, float64(row)*legendRow)
		x += w
	}
	if len(items) > 0 {
		rows = row + 1
	}
	return xs, ys, rows
}

func drawLegend(s *svgWriter, items []legendItem, x0, y0, width float64) {
	xs, ys, _ := legendLayout(items, width)
	s.open("g", "class", "legend")
	for i, it := range items {
		x, y := x0+xs[i], y0+ys[i]
		switch it.kind {
		case swatchLine:
			s.line(x, y+6, x+16, y+6, "stroke", it.color, "stroke-width", "2.5", "stroke-dasharray", it.dash)
		case swatchShade:
			s.rect(x, y, 16, 12, "fill", shadeColor, "stroke", "#bbbbbb")
		case swatchHollow:
			s.rect(x+1, y+1, 14, 10, "fill", it.color, "fill-opacity", "0.12", "stroke", it.color, "stroke-width", "1.5")
		case swatchUnder:
			s.rect(x, y, 16, 6, "fill", it.color)
			s.rect(x, y+6, 16, 6, "fill", it.color, "fill-opacity", underOpacity)
		case swatchMark:
			s.line(x, y+6, x+16, y+6, "stroke", "#000000", "stroke-width", "2")
		case swatchMiss:
			s.text(x+8, y+11, "×", "text-anchor", "middle", "fill", "#666666", "font-size", "14")
		case swatchBand:
			s.rect(x, y, 16, 12, "fill", bandColor, "stroke", "#888888")
		default:
			s.rect(x, y, 16, 12, "fill", it.color)
		}
		s.text(x+22, y+10, it.name)
	}
	s.close("g")
}

const (
	shadeColor   = "#ececec"
	bandColor    = "#c9c9c9"
	underOpacity = "0.38"
	gridColor    = "#e3e3e3"
	axisColor    = "#444444"
)

// frame is the plotting area of a chart and its scales.
type frame struct {
	left, top, width, height float64
	x, y                     linear
}

func (f frame) bottom() float64 { return f.top + f.height }
func (f frame) right() float64  { return f.left + f.width }

// drawYAxis draws horizontal grid lines with labels and the rotated y label.
func drawYAxis(s *svgWriter, f frame, ts []float64, label string) {
	step := 1.0
	if len(ts) > 1 {
		step = ts[1] - ts[0]
	}
	s.open("g", "class", "axis y")
	for _, t := range ts {
		y := f.y.at(t)
		s.line(f.left, y, f.right(), y, "stroke", gridColor)
		s.text(f.left-6, y+4, tickLabel(t, step), "text-anchor", "end", "fill", axisColor)
	}
	s.line(f.left, f.top, f.left, f.bottom(), "stroke", axisColor)
	mid := f.top + f.height/2
	s.text(16, mid, label, "text-anchor", "middle", "transform", "rotate(-90 16 "+num(mid)+")", "fill", axisColor)
	s.close("g")
}

// drawXAxis draws tick marks and labels under a numeric x axis.
func drawXAxis(s *svgWriter, f frame, ts []float64, label string, withLabels bool) {
	step := 1.0
	if len(ts) > 1 {
		step = ts[1] - ts[0]
	}
	s.open("g", "class", "axis x")
	s.line(f.left, f.bottom(), f.right(), f.bottom(), "stroke", axisColor)
	for _, t := range ts {
		x := f.x.at(t)
		s.line(x, f.bottom(), x, f.bottom()+4, "stroke", axisColor)
		if withLabels {
			s.text(x, f.bottom()+17, tickLabel(t, step), "text-anchor", "middle", "fill", axisColor)
		}
	}
	if label != "" {
		s.text(f.left+f.width/2, f.bottom()+38, label, "text-anchor", "middle", "fill", axisColor)
	}
	s.close("g")
}

func drawTitle(s *svgWriter, title string) {
	s.text(0, 16, title, "font-size", "14", "font-weight", "bold")
}

// lineSeries is one line of a line chart.
type lineSeries struct {
	Name, Color, Dash string
	// Step holds each value until the next point (post-step), for counts
	// and allocations that change at instants.
	Step   bool
	Points []point
}

// lineChart draws series against shared numeric axes.
type lineChart struct {
	Title, XLabel, YLabel string
	Series                []lineSeries
	// YMax, when positive, fixes the top of the y axis (1 for fractions).
	YMax float64
	// ZeroX starts the x axis at zero, as time and durations do.
	ZeroX bool
	// Counts keeps y ticks on whole numbers.
	Counts bool
}

func (c *lineChart) svg() template.HTML {
	xlo, xhi := math.Inf(1), math.Inf(-1)
	yhi := 0.0
	ylo := 0.0
	for _, sr := range c.Series {
		for _, p := range sr.Points {
			xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
			if !math.IsNaN(p.Y) {
				yhi, ylo = math.Max(yhi, p.Y), math.Min(ylo, p.Y)
			}
		}
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi = 0, 1
	}
	if c.ZeroX {
		xlo = math.Min(0, xlo)
	}
	if c.YMax > 0 {
		yhi = c.YMax
	}
	xts, xlo, xhi := ticks(xlo, xhi, 8)
	yts, ylo, yhi := ticks(ylo, yhi, 5)
	if c.Counts && len(yts) > 1 && yts[1]-yts[0] < 1 {
		// A step below one only happens for a handful of jobs.
		yts, ylo, yhi = countTicks(ylo, yhi)
	}

	items := make([]legendItem, len(c.Series))
	for i, sr := range c.Series {
		items[i] = legendItem{name: sr.Name, color: sr.Color, kind: swatchLine, dash: sr.Dash}
	}
	lw := chartWidth - marginLeft - marginRight
	_, _, rows := legendLayout(items, lw)
	top := titleHeight + float64(rows)*legendRow + 10
	f := frame{left: marginLeft, top: top, width: lw, height: plotHeight}
	f.x = linear{xlo, xhi, f.left, f.right()}
	f.y = linear{ylo, yhi, f.bottom(), f.top}
	s := newSVG(chartWidth, top+plotHeight+axisBelow, c.Title)
	drawTitle(s, c.Title)
	drawLegend(s, items, marginLeft, titleHeight+4, lw)
	drawYAxis(s, f, yts, c.YLabel)
	drawXAxis(s, f, xts, c.XLabel, true)
	for _, sr := range c.Series {
		s.open("g", "class", "series", "data-name", sr.Name)
		s.title(sr.Name)
		s.elem("path", "d", linePath(f, sr.Points, sr.Step), "fill", "none", "stroke", sr.Color,
			"stroke-width", "2", "stroke-dasharray", sr.Dash, "stroke-linejoin", "round")
		s.close("g")
	}
	return s.html()
}

// linePath traces points in pixel space; with step, each value holds until
// the next point's x. A NaN value leaves a gap.
func linePath(f frame, pts []point, step bool) string {
	var p pathBuilder
	for i, pt := range pts {
		if math.IsNaN(pt.Y) {
			// A gap: a step holds its value up to here, and the next
			// point starts a new stroke.
			if step && p.open {
				p.lineTo(f.x.at(pt.X), f.y.at(pts[i-1].Y))
			}
			p.open = false
			continue
		}
		x, y := f.x.at(pt.X), f.y.at(pt.Y)
		if i > 0 && step && p.open {
			p.lineTo(x, f.y.at(pts[i-1].Y))
		}
		p.lineTo(x, y)
	}
	return p.String()
}

// panel is one run's strip of a panel chart.
type panel struct {
	Name, Color, Note string
	Points            []point // a step function
}

// panelChart draws one strip per run on a shared time axis ("small
// multiples"): allocation curves of several policies overlap too much to
// read in one plot. An optional band, drawn down from the top of every
// strip, shows capacity taken by load outside the scheduler.
type panelChart struct {
	Title, XLabel, YLabel string
	XMax, YMax            float64
	Panels                []panel
	Band                  []point
	BandName              string
}

const (
	panelHeight = 74.0
	panelGap    = 22.0
)

func (c *panelChart) svg() template.HTML {
	xts, xlo, xhi := ticks(0, math.Max(c.XMax, 1e-9), 8)
	yts, ylo, yhi := ticks(0, c.YMax, 2)
	var items []legendItem
	for _, p := range c.Panels {
		items = append(items, legendItem{name: p.Name, color: p.Color})
	}
	if len(c.Band) > 0 {
		items = append(items, legendItem{name: c.BandName, kind: swatchBand})
	}
	lw := chartWidth - marginLeft - marginRight
	_, _, rows := legendLayout(items, lw)
	// Each strip's label sits above it, so the first needs room too.
	top := titleHeight + float64(rows)*legendRow + 10 + panelGap
	n := float64(max(1, len(c.Panels)))
	total := n*panelHeight + (n-1)*panelGap
	s := newSVG(chartWidth, top+total+axisBelow, c.Title)
	drawTitle(s, c.Title)
	drawLegend(s, items, marginLeft, titleHeight+4, lw)
	// One rotated y label for the whole stack.
	mid := top + total/2
	s.text(16, mid, c.YLabel, "text-anchor", "middle", "transform", "rotate(-90 16 "+num(mid)+")", "fill", axisColor)
	for i, p := range c.Panels {
		f := frame{left: marginLeft, top: top + float64(i)*(panelHeight+panelGap), width: lw, height: panelHeight}
		f.x = linear{xlo, xhi, f.left, f.right()}
		f.y = linear{ylo, yhi, f.bottom(), f.top}
		step := yts[1] - yts[0]
		s.open("g", "class", "axis y")
		for _, t := range yts {
			y := f.y.at(t)
			s.line(f.left, y, f.right(), y, "stroke", gridColor)
			s.text(f.left-6, y+4, tickLabel(t, step), "text-anchor", "end", "fill", axisColor)
		}
		s.line(f.left, f.top, f.left, f.bottom(), "stroke", axisColor)
		s.close("g")
		label := p.Name
		if p.Note != "" {
			label += " — " + p.Note
		}
		s.text(f.left+4, f.top-5, label, "font-weight", "bold", "fill", p.Color)
		if len(c.Band) > 0 {
			// One series, repeated in every strip: only the first counts.
			cls := "band"
			if i == 0 {
				cls = "series band"
			}
			s.open("g", "class", cls, "data-name", c.BandName)
			s.title(c.BandName)
			s.elem("path", "d", bandPath(f, c.Band, c.YMax), "fill", bandColor, "fill-opacity", "0.7", "stroke", "#888888", "stroke-width", "1")
			s.close("g")
		}
		s.open("g", "class", "series", "data-name", p.Name)
		s.title(p.Name)
		if len(p.Points) > 0 {
			s.elem("path", "d", areaPath(f, p.Points), "fill", p.Color, "fill-opacity", "0.28", "stroke", "none")
			s.elem("path", "d", linePath(f, p.Points, true), "fill", "none", "stroke", p.Color, "stroke-width", "1.5")
		}
		s.close("g")
		drawXAxis(s, f, xts, "", i == len(c.Panels)-1)
	}
	last := frame{left: marginLeft, top: top + total - panelHeight, width: lw, height: panelHeight}
	s.text(last.left+last.width/2, last.bottom()+38, c.XLabel, "text-anchor", "middle", "fill", axisColor)
	return s.html()
}

// areaPath closes a step function down to the baseline.
func areaPath(f frame, pts []point) string {
	var p pathBuilder
	base := f.y.at(0)
	p.moveTo(f.x.at(pts[0].X), base)
	for i, pt := range pts {
		x := f.x.at(pt.X)
		if i > 0 {
			p.lineTo(x, f.y.at(pts[i-1].Y))
		}
		p.lineTo(x, f.y.at(pt.Y))
	}
	p.lineTo(f.x.at(pts[len(pts)-1].X), base)
	p.closePath()
	return p.String()
}

// bandPath fills from the top of the strip down to top − v: the share of
// every machine that other workloads take (a piecewise-linear curve).
func bandPath(f frame, pts []point, top float64) string {
	var p pathBuilder
	p.moveTo(f.x.at(pts[0].X), f.y.at(top))
	for _, pt := range pts {
		p.lineTo(f.x.at(pt.X), f.y.at(top-pt.Y))
	}
	p.lineTo(f.x.at(pts[len(pts)-1].X), f.y.at(top))
	p.closePath()
	return p.String()
}

// bar is one bar of a grouped bar chart.
type bar struct {
	V float64
	// Under, when positive, is drawn lighter at the bottom of the bar: the
	// waiting part of a completion time.
	Under float64
	// OK is false when the value is undefined (the job never got there).
	OK     bool
	Hollow bool // outline only: e.g. a missed goal
	Tip    string
}

type barSeries struct {
	Name, Color string
	Bars        []bar // one per group
}

type barGroup struct {
	Label, Tip string
	Shade      bool    // a shaded column (small jobs)
	Mark       float64 // a horizontal mark across the group (a goal); NaN for none
}

// barChart draws one group per job with a bar per run, the DRESS paper's
// per-job figures.
type barChart struct {
	Title, XLabel, YLabel string
	Groups                []barGroup
	Series                []barSeries
	// Legend entries for the optional encodings; empty leaves them out.
	ShadeName, UnderName, HollowName, MarkName, MissName string
}

// Bars are at least minBarWidth wide, and the chart widens (scrolling
// sideways in the page) up to maxBarPlot to give them goodBarWidth.
const (
	minBarWidth  = 2.0
	goodBarWidth = 4.0
)

func (c *barChart) svg() template.HTML {
	ng, ns := len(c.Groups), max(1, len(c.Series))
	lw := chartWidth - marginLeft - marginRight
	plotW := math.Max(lw, math.Min(maxBarPlot, float64(ng)*float64(ns)*goodBarWidth/0.8))
	if need := float64(ng) * float64(ns) * minBarWidth / 0.8; need > plotW {
		plotW = need
	}
	groupW := plotW / float64(max(1, ng))
	barW := math.Min(18, groupW*0.8/float64(ns))

	yhi := 0.0
	for _, sr := range c.Series {
		for _, b := range sr.Bars {
			if b.OK {
				yhi = math.Max(yhi, b.V)
			}
		}
	}
	for _, g := range c.Groups {
		if !math.IsNaN(g.Mark) {
			yhi = math.Max(yhi, g.Mark)
		}
	}
	yts, ylo, yhi := ticks(0, yhi, 5)

	var items []legendItem
	for _, sr := range c.Series {
		items = append(items, legendItem{name: sr.Name, color: sr.Color})
	}
	if c.UnderName != "" {
		items = append(items, legendItem{name: c.UnderName, color: "#777777", kind: swatchUnder})
	}
	if c.ShadeName != "" {
		items = append(items, legendItem{name: c.ShadeName, kind: swatchShade})
	}
	if c.HollowName != "" && c.anyHollow() {
		items = append(items, legendItem{name: c.HollowName, color: "#777777", kind: swatchHollow})
	}
	if c.MarkName != "" {
		items = append(items, legendItem{name: c.MarkName, kind: swatchMark})
	}
	if c.MissName != "" && c.anyMissing() {
		items = append(items, legendItem{name: c.MissName, kind: swatchMiss})
	}
	_, _, rows := legendLayout(items, lw)
	top := titleHeight + float64(rows)*legendRow + 10
	f := frame{left: marginLeft, top: top, width: plotW, height: plotHeight}
	f.y = linear{ylo, yhi, f.bottom(), f.top}
	s := newSVG(marginLeft+plotW+marginRight, top+plotHeight+axisBelow, c.Title)
	drawTitle(s, c.Title)
	drawLegend(s, items, marginLeft, titleHeight+4, lw)

	s.open("g", "class", "shade")
	for i, g := range c.Groups {
		if g.Shade {
			s.rect(f.left+float64(i)*groupW, f.top, groupW, f.height, "fill", shadeColor)
		}
	}
	s.close("g")
	drawYAxis(s, f, yts, c.YLabel)

	for si, sr := range c.Series {
		s.open("g", "class", "series", "data-name", sr.Name)
		for gi, b := range sr.Bars {
			if gi >= ng {
				break
			}
			x := f.left + float64(gi)*groupW + (groupW-barW*float64(ns))/2 + float64(si)*barW
			if !b.OK {
				s.open("text", "x", num(x+barW/2), "y", num(f.bottom()-3), "text-anchor", "middle", "fill", "#666666", "font-size", "11")
				s.title(b.Tip)
				s.b.WriteString("×")
				s.close("text")
				continue
			}
			// A zero still shows, as a hairline, unlike an undefined value.
			y0, y1 := f.y.at(0), math.Min(f.y.at(b.V), f.y.at(0)-1)
			if b.Hollow {
				s.elemTip("rect", b.Tip, "x", num(x+0.75), "y", num(y1), "width", num(math.Max(0.5, barW-1.5)), "height", num(y0-y1),
					"fill", sr.Color, "fill-opacity", "0.12", "stroke", sr.Color, "stroke-width", "1.5")
				continue
			}
			if b.Under > 0 {
				yu := f.y.at(math.Min(b.Under, b.V))
				s.open("g")
				s.title(b.Tip)
				s.rect(x, yu, barW, y0-yu, "fill", sr.Color, "fill-opacity", underOpacity)
				s.rect(x, y1, barW, yu-y1, "fill", sr.Color)
				s.close("g")
				continue
			}
			s.elemTip("rect", b.Tip, "x", num(x), "y", num(y1), "width", num(barW), "height", num(y0-y1), "fill", sr.Color)
		}
		s.close("g")
	}

	s.open("g", "class", "marks")
	for i, g := range c.Groups {
		if math.IsNaN(g.Mark) {
			continue
		}
		y := f.y.at(g.Mark)
		s.elemTip("line", g.Tip, "x1", num(f.left+float64(i)*groupW+1), "y1", num(y), "x2", num(f.left+float64(i+1)*groupW-1), "y2", num(y),
			"stroke", "#000000", "stroke-width", "2")
	}
	s.close("g")

	// Label every k-th group so labels never overlap.
	maxLabel := 1
	for _, g := range c.Groups {
		maxLabel = max(maxLabel, len([]rune(g.Label)))
	}
	every := max(1, int(math.Ceil((charWidth*float64(maxLabel)+6)/groupW)))
	s.open("g", "class", "axis x")
	s.line(f.left, f.bottom(), f.right(), f.bottom(), "stroke", axisColor)
	for i, g := range c.Groups {
		if i%every != 0 {
			continue
		}
		x := f.left + (float64(i)+0.5)*groupW
		s.line(x, f.bottom(), x, f.bottom()+4, "stroke", axisColor)
		s.open("text", "x", num(x), "y", num(f.bottom()+17), "text-anchor", "middle", "fill", axisColor)
		s.title(g.Tip)
		s.b.WriteString(html.EscapeString(g.Label))
		s.close("text")
	}
	s.text(f.left+math.Min(plotW, lw)/2, f.bottom()+38, c.XLabel, "text-anchor", "middle", "fill", axisColor)
	s.close("g")
	return s.html()
}

func (c *barChart) anyMissing() bool {
	for _, sr := range c.Series {
		for _, b := range sr.Bars {
			if !b.OK {
				return true
			}
		}
	}
	return false
}

func (c *barChart) anyHollow() bool {
	for _, sr := range c.Series {
		for _, b := range sr.Bars {
			if b.OK && b.Hollow {
				return true
			}
		}
	}
	return false
}

// countTicks steps by one over a small range of counts.
func countTicks(lo, hi float64) (ts []float64, tlo, thi float64) {
	tlo, thi = math.Floor(lo), math.Max(math.Ceil(hi), math.Floor(lo)+1)
	for v := tlo; v <= thi; v++ {
		ts = append(ts, v)
	}
	return ts, tlo, thi
}
