package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// sectionRun is one run's value of a report section: the top-level key of
// its summary.json that a policy or admission controller wrote.
type sectionRun struct {
	Run   *Run
	Index int // the run's position, which fixes its colour
	Of    int // how many runs the report has
	Raw   json.RawMessage
}

// sectionFunc draws one report section for the runs that have it. It
// fills the section's figures, tables and notes; an error makes the
// report fall back to the generic rendering, with the error as a note.
type sectionFunc func(sec *section, runs []sectionRun) error

// sectionRenderers maps the summary sections that have charts of their
// own to their renderers, each in its own file of this package; sections
// without one are drawn generically (see renderGeneric).
var sectionRenderers = map[string]sectionFunc{
	"autoadmin": drawAutoAdmin,
	"dress":     drawDress,
}

// internalSections renders every report section found in the runs'
// summaries, in name order.
func internalSections(runs []*Run) []section {
	byName := map[string][]sectionRun{}
	for i, r := range runs {
		for name, v := range r.Summary.Reports {
			raw, err := rawJSON(v)
			if err != nil {
				raw = json.RawMessage(strconv.Quote(fmt.Sprintf("(cannot encode: %v)", err)))
			}
			byName[name] = append(byName[name], sectionRun{Run: r, Index: i, Of: len(runs), Raw: raw})
		}
	}
	var out []section
	for _, name := range sortedKeys(byName) {
		sr := byName[name]
		sec := section{ID: "internals-" + slug(name), Title: "Policy internals: " + name}
		if f, ok := sectionRenderers[name]; ok {
			if err := f(&sec, sr); err != nil {
				sec = section{ID: sec.ID, Title: sec.Title, Notes: []string{fmt.Sprintf("The %s section could not be drawn as expected (%v); it is shown generically.", name, err)}}
				renderGeneric(&sec, sr)
			}
		} else {
			renderGeneric(&sec, sr)
		}
		out = append(out, sec)
	}
	return out
}

// rawJSON gives a section's JSON: as read back from summary.json it is
// already raw; as produced in memory by a run it is encoded here.
func rawJSON(v any) (json.RawMessage, error) {
	if r, ok := v.(json.RawMessage); ok {
		return r, nil
	}
	return json.Marshal(v)
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// genericChart is one chart of a section: the generic shape documented in
// docs/report.md, and what the specific renderers build too.
type genericChart struct {
	Title  string     `json:"title"`
	XLabel string     `json:"x_label"`
	YLabel string     `json:"y_label"`
	Step   bool       `json:"step"`
	Series namedLines `json:"series"`
}

type genericTable struct {
	Title   string              `json:"title"`
	Columns []string            `json:"columns"`
	Rows    [][]json.RawMessage `json:"rows"`
}

// namedLines keeps the series in the order the JSON lists them, so a
// section's author decides the legend order.
type namedLines []namedLine

type namedLine struct {
	Name   string
	Points []point
}

// UnmarshalJSON reads {"name": [[x, y], ...], ...}; a null y is a gap.
func (n *namedLines) UnmarshalJSON(b []byte) error {
	members, err := orderedObject(b)
	if err != nil {
		return err
	}
	for _, kv := range members {
		var raw [][]*float64
		if err := json.Unmarshal(kv.val, &raw); err != nil {
			return fmt.Errorf("series %q: want [[x, y], ...]: %w", kv.key, err)
		}
		line := namedLine{Name: kv.key}
		for i, p := range raw {
			if len(p) != 2 || p[0] == nil {
				return fmt.Errorf("series %q: point %d: want [x, y]", kv.key, i)
			}
			y := math.NaN()
			if p[1] != nil {
				y = *p[1]
			}
			line.Points = append(line.Points, point{*p[0], y})
		}
		*n = append(*n, line)
	}
	return nil
}

type keyVal struct {
	key string
	val json.RawMessage
}

// orderedObject splits a JSON object into its members in order.
func orderedObject(b []byte) ([]keyVal, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want an object")
	}
	var out []keyVal
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		out = append(out, keyVal{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the object")
	}
	return out, nil
}

// timeKeys name the x of time series written as records or columns.
var timeKeys = []string{"t_s", "t", "time_s"}

// recordSeries reads [{"t_s": 1, "a": 2, "b": 3}, ...]: one line per
// numeric member, in the order of the first record. ok is false when the
// value is not such a list.
func recordSeries(raw json.RawMessage) (lines namedLines, ok bool) {
	var recs []json.RawMessage
	if json.Unmarshal(raw, &recs) != nil || len(recs) == 0 {
		return nil, false
	}
	var names []string
	timeKey := ""
	index := map[string]int{}
	for i, rec := range recs {
		members, err := orderedObject(rec)
		if err != nil {
			return nil, false
		}
		vals := map[string]*float64{}
		for _, kv := range members {
			var v *float64
			if json.Unmarshal(kv.val, &v) != nil {
				continue // not a number: not drawn
			}
			vals[kv.key] = v
			if i == 0 {
				if timeKey == "" && v != nil && contains(timeKeys, kv.key) {
					timeKey = kv.key
					continue
				}
				index[kv.key] = len(names)
				names = append(names, kv.key)
				lines = append(lines, namedLine{Name: kv.key})
			}
		}
		t := vals[timeKey]
		if timeKey == "" || t == nil {
			return nil, false
		}
		for _, n := range names {
			y := math.NaN()
			if v := vals[n]; v != nil {
				y = *v
			}
			lines[index[n]].Points = append(lines[index[n]].Points, point{*t, y})
		}
	}
	return lines, len(lines) > 0
}

// columnSeries reads {"t_s": [...], "a": [...], "b": {"x": [...]}}: every
// numeric list as long as the times is a line, named by its path; rest is
// what is not.
func columnSeries(raw json.RawMessage) (lines namedLines, rest []keyVal, ok bool) {
	members, err := orderedObject(raw)
	if err != nil {
		return nil, nil, false
	}
	var ts []float64
	timeKey := ""
	for _, kv := range members {
		if contains(timeKeys, kv.key) && json.Unmarshal(kv.val, &ts) == nil {
			timeKey = kv.key
			break
		}
	}
	if len(ts) == 0 {
		return nil, nil, false
	}
	var add func(prefix string, members []keyVal)
	add = func(prefix string, members []keyVal) {
		for _, kv := range members {
			if prefix == "" && kv.key == timeKey {
				continue
			}
			var col []*float64
			if json.Unmarshal(kv.val, &col) == nil && len(col) == len(ts) {
				line := namedLine{Name: prefix + kv.key}
				for i, v := range col {
					y := math.NaN()
					if v != nil {
						y = *v
					}
					line.Points = append(line.Points, point{ts[i], y})
				}
				lines = append(lines, line)
				continue
			}
			if sub, err := orderedObject(kv.val); err == nil && prefix == "" {
				add(kv.key+".", sub)
				continue
			}
			rest = append(rest, keyVal{prefix + kv.key, kv.val})
		}
	}
	add("", members)
	return lines, rest, len(lines) > 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splitByScale groups lines whose largest values are within a factor of
// ten, so a ratio in [0, 1] does not lie flat under counts in the tens.
// Groups keep the order of their first line; all-zero lines join the
// smallest scale.
func splitByScale(lines namedLines) []namedLines {
	peaks := make([]float64, len(lines))
	order := make([]int, len(lines))
	for i, l := range lines {
		order[i] = i
		for _, p := range l.Points {
			if !math.IsNaN(p.Y) {
				peaks[i] = math.Max(peaks[i], math.Abs(p.Y))
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return peaks[order[a]] < peaks[order[b]] })
	group := make([]int, len(lines))
	g, base := 0, 0.0
	for _, i := range order {
		switch p := peaks[i]; {
		case p == 0:
		case base == 0:
			base = p
		case p > 10*base:
			g, base = g+1, p
		}
		group[i] = g
	}
	var out []namedLines
	at := map[int]int{}
	for i, l := range lines {
		k, ok := at[group[i]]
		if !ok {
			k = len(out)
			at[group[i]] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], l)
	}
	return out
}

// runCharts are the charts drawn from one run's section.
type runCharts struct {
	sr     sectionRun
	charts []genericChart
}

// addCharts draws the runs' charts. In a report of one run, each series
// has its own colour. Otherwise a series takes its run's colour, as
// everywhere in the report, and a dash pattern of its own; the charts at
// the same position in several runs are merged, so runs of one policy
// with different options read against each other.
func addCharts(sec *section, per []runCharts, defaultTitle string) {
	maxCharts := 0
	for _, p := range per {
		maxCharts = max(maxCharts, len(p.charts))
	}
	for ci := range maxCharts {
		var c *lineChart
		for _, p := range per {
			if ci >= len(p.charts) {
				continue
			}
			gc := p.charts[ci]
			if c == nil {
				c = &lineChart{Title: gc.Title, XLabel: gc.XLabel, YLabel: gc.YLabel, ZeroX: true}
				if c.Title == "" {
					c.Title = defaultTitle
				}
				if c.XLabel == "" {
					c.XLabel = "simulated time (s)"
				}
			}
			for si, line := range gc.Series {
				ls := lineSeries{Name: line.Name, Step: gc.Step, Points: thin(line.Points)}
				switch {
				case p.sr.Of <= 1:
					ls.Color, ls.Dash = runColor(si), runDash(si)
				case len(per) == 1:
					ls.Color, ls.Dash = runColor(p.sr.Index), dashes[si%len(dashes)]
				default:
					ls.Name = p.sr.Run.Name + ": " + line.Name
					ls.Color, ls.Dash = runColor(p.sr.Index), dashes[si%len(dashes)]
				}
				c.Series = append(c.Series, ls)
			}
		}
		if c != nil && len(c.Series) > 0 {
			sec.Figures = append(sec.Figures, figure{ID: fmt.Sprintf("%s-chart-%d", sec.ID, ci+1), Kind: "line", SVG: c.svg(), Series: len(c.Series)})
		}
	}
}

// maxDetail bounds the JSON shown for one run's section.
const maxDetail = 200_000

// sectionParts is what the generic reading makes of one run's section.
type sectionParts struct {
	charts []genericChart
	tables []htmlTable
	values []keyVal // scalars, by dotted path
	rest   []keyVal // shown as JSON
	notes  []string
	title  string
}

// readGeneric sorts a section's members into charts, tables, values and
// the rest. skip lists members a specific renderer has drawn already.
func readGeneric(sr sectionRun, skip map[string]bool) sectionParts {
	var p sectionParts
	members, err := orderedObject(sr.Raw)
	if err != nil {
		p.rest = []keyVal{{"", sr.Raw}}
		return p
	}
	var top genericChart
	for _, kv := range members {
		if skip[kv.key] {
			continue
		}
		var err error
		switch kv.key {
		case "title":
			err = json.Unmarshal(kv.val, &p.title)
		case "x_label":
			err = json.Unmarshal(kv.val, &top.XLabel)
		case "y_label":
			err = json.Unmarshal(kv.val, &top.YLabel)
		case "step":
			err = json.Unmarshal(kv.val, &top.Step)
		case "charts":
			var cs []genericChart
			if err = json.Unmarshal(kv.val, &cs); err == nil {
				p.charts = append(p.charts, cs...)
			}
		case "tables":
			var ts []genericTable
			if err = json.Unmarshal(kv.val, &ts); err == nil {
				for _, gt := range ts {
					p.tables = append(p.tables, tableOf(gt, &p.notes))
				}
			}
		default:
			if kv.key == "series" {
				if e := json.Unmarshal(kv.val, &top.Series); e == nil {
					continue
				}
			}
			if lines, ok := recordSeries(kv.val); ok {
				p.charts = append(p.charts, scaledCharts(kv.key, lines)...)
				continue
			}
			if lines, rest, ok := columnSeries(kv.val); ok {
				p.charts = append(p.charts, scaledCharts(kv.key, lines)...)
				for _, r := range rest {
					p.rest = append(p.rest, keyVal{kv.key + "." + r.key, r.val})
				}
				continue
			}
			if t, ok := recordTable(kv.key, kv.val); ok {
				p.tables = append(p.tables, t)
				continue
			}
			if vals, ok := scalars(kv.key, kv.val); ok {
				p.values = append(p.values, vals...)
				continue
			}
			p.rest = append(p.rest, kv)
			continue
		}
		if err != nil {
			p.notes = append(p.notes, fmt.Sprintf("%s: %q is not in the generic shape (%v); shown as JSON.", sr.Run.Name, kv.key, err))
			p.rest = append(p.rest, kv)
		}
	}
	if len(top.Series) > 0 {
		p.charts = append([]genericChart{top}, p.charts...)
	}
	return p
}

// scaledCharts draws a time series member as one chart per scale.
func scaledCharts(key string, lines namedLines) []genericChart {
	var out []genericChart
	for _, g := range splitByScale(lines) {
		var names []string
		for _, l := range g {
			names = append(names, l.Name)
		}
		title := key + ": " + strings.Join(names, ", ")
		out = append(out, genericChart{Title: title, YLabel: "value", Step: true, Series: g})
	}
	return out
}

// scalars flattens a number, string, boolean or null, or an object of
// them (nested up to three levels), into dotted paths.
func scalars(path string, raw json.RawMessage) ([]keyVal, bool) {
	var out []keyVal
	var walk func(path string, raw json.RawMessage, depth int) bool
	walk = func(path string, raw json.RawMessage, depth int) bool {
		t := bytes.TrimSpace(raw)
		if len(t) == 0 {
			return false
		}
		switch t[0] {
		case '{':
			members, err := orderedObject(t)
			if err != nil || depth >= 3 {
				return false
			}
			for _, kv := range members {
				if !walk(path+"."+kv.key, kv.val, depth+1) {
					return false
				}
			}
			return true
		case '[':
			return false
		default:
			out = append(out, keyVal{path, t})
			return true
		}
	}
	if !walk(path, raw, 0) {
		return nil, false
	}
	return out, true
}

// recordTable shows a list of objects (such as job sets) as a table, one
// column per member in first-seen order.
func recordTable(key string, raw json.RawMessage) (htmlTable, bool) {
	var recs []json.RawMessage
	if json.Unmarshal(raw, &recs) != nil || len(recs) == 0 {
		return htmlTable{}, false
	}
	var cols []string
	rows := make([]map[string]json.RawMessage, len(recs))
	for i, rec := range recs {
		members, err := orderedObject(rec)
		if err != nil {
			return htmlTable{}, false
		}
		rows[i] = map[string]json.RawMessage{}
		for _, kv := range members {
			if _, ok := rows[i][kv.key]; !ok && !containsRow(rows[:i], kv.key) && !contains(cols, kv.key) {
				cols = append(cols, kv.key)
			}
			rows[i][kv.key] = kv.val
		}
	}
	t := htmlTable{Caption: key}
	for _, c := range cols {
		t.Head = append(t.Head, cell{Text: c})
	}
	for i, r := range rows {
		if i == maxJobRows {
			break
		}
		var cells []cell
		for _, c := range cols {
			v, ok := r[c]
			if !ok {
				cells = append(cells, cell{Text: "–"})
				continue
			}
			cells = append(cells, textCell(cellText(v)))
		}
		t.Rows = append(t.Rows, cells)
	}
	if len(rows) > maxJobRows {
		t.Caption += fmt.Sprintf(" (the first %d of %d)", maxJobRows, len(rows))
	}
	return t, true
}

func containsRow(rows []map[string]json.RawMessage, key string) bool {
	for _, r := range rows {
		if _, ok := r[key]; ok {
			return true
		}
	}
	return false
}

func tableOf(gt genericTable, notes *[]string) htmlTable {
	t := htmlTable{Caption: gt.Title}
	for _, c := range gt.Columns {
		t.Head = append(t.Head, cell{Text: c})
	}
	for i, row := range gt.Rows {
		if i == maxJobRows {
			*notes = append(*notes, fmt.Sprintf("Table %q has %d rows; the first %d are shown.", gt.Title, len(gt.Rows), maxJobRows))
			break
		}
		var cells []cell
		for _, v := range row {
			cells = append(cells, textCell(cellText(v)))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// renderGeneric draws a section from its shape alone: time series as line
// charts, lists of records as tables, scalars in one table with a column
// per run, and the rest as pretty-printed JSON in a collapsed block.
func renderGeneric(sec *section, runs []sectionRun) {
	renderParts(sec, runs, nil)
}

// renderParts is renderGeneric without the members in skip.
func renderParts(sec *section, runs []sectionRun, skip map[string]bool) {
	parts := make([]sectionParts, len(runs))
	var per []runCharts
	titled := false
	for i, sr := range runs {
		parts[i] = readGeneric(sr, skip)
		if parts[i].title != "" && !titled {
			sec.Title, titled = "Policy internals: "+parts[i].title, true
		}
		sec.Notes = append(sec.Notes, parts[i].notes...)
		per = append(per, runCharts{sr: sr, charts: parts[i].charts})
	}
	addCharts(sec, per, strings.TrimPrefix(sec.Title, "Policy internals: "))
	addValues(sec, runs, parts)
	for i, p := range parts {
		for _, t := range p.tables {
			if len(runs) > 1 || t.Caption == "" {
				t.Caption = strings.TrimSuffix(runs[i].Run.Name+": "+t.Caption, ": ")
			}
			sec.Tables = append(sec.Tables, t)
		}
	}
	for i, p := range parts {
		if len(p.rest) == 0 {
			continue
		}
		var body string
		if len(p.rest) == 1 && p.rest[0].key == "" {
			body = pretty(p.rest[0].val)
		} else {
			var b bytes.Buffer
			b.WriteByte('{')
			for j, kv := range p.rest {
				if j > 0 {
					b.WriteByte(',')
				}
				k, _ := json.Marshal(kv.key)
				b.Write(k)
				b.WriteByte(':')
				b.Write(kv.val)
			}
			b.WriteByte('}')
			body = pretty(b.Bytes())
		}
		label := "data"
		if len(sec.Figures) > 0 || len(sec.Tables) > 0 {
			label = "other data"
		}
		sec.Details = append(sec.Details, detail{Summary: fmt.Sprintf("%s: %s (JSON)", runs[i].Run.Name, label), Body: body})
	}
}

// addValues puts every run's scalars in one table: a row per path, a
// column per run.
func addValues(sec *section, runs []sectionRun, parts []sectionParts) {
	var paths []string
	vals := map[string][]string{}
	for i, p := range parts {
		for _, kv := range p.values {
			if _, ok := vals[kv.key]; !ok {
				paths = append(paths, kv.key)
				vals[kv.key] = make([]string, len(runs))
			}
			vals[kv.key][i] = cellText(kv.val)
		}
	}
	if len(paths) == 0 {
		return
	}
	t := htmlTable{Caption: "values", Head: []cell{{Text: "value"}}}
	for _, sr := range runs {
		t.Head = append(t.Head, cell{Text: sr.Run.Name, Color: runColor(sr.Index)})
	}
	for _, p := range paths {
		row := []cell{{Text: p, Class: "label"}}
		for _, v := range vals[p] {
			if v == "" {
				v = "–"
			}
			row = append(row, textCell(v))
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = append(sec.Tables, t)
}

// pretty indents JSON for reading, cut at maxDetail bytes.
func pretty(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	if len(s) > maxDetail {
		s = strings.ToValidUTF8(s[:maxDetail], "") + "\n… (cut; the whole section is in summary.json)"
	}
	return s
}

// cellText shows a JSON value in a table cell: strings bare, lists of
// strings joined, numbers to four decimals (summary.json keeps them
// whole), the rest as JSON.
func cellText(v json.RawMessage) string {
	if string(bytes.TrimSpace(v)) == "null" {
		return "–"
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var f float64
	if json.Unmarshal(v, &f) == nil {
		return fmtNumber(f)
	}
	var ss []string
	if json.Unmarshal(v, &ss) == nil && ss != nil {
		return strings.Join(ss, ", ")
	}
	return string(bytes.TrimSpace(v))
}

// textCell lets long text (a configuration, a list of jobs) wrap instead
// of widening its table past the page.
func textCell(s string) cell {
	c := cell{Text: s}
	if len([]rune(s)) > 32 {
		c.Class = "wrap"
	}
	return c
}

// fmtNumber writes integers whole, other values to four decimals, and
// tiny or huge ones with an exponent.
func fmtNumber(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e15:
		return strconv.FormatFloat(v, 'g', 6, 64)
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 0.001:
		return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}
