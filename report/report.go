// Package report renders report.html: one self-contained page (inline SVG
// and CSS, no scripts, fonts or network) that shows what the scheduling
// policies of a run or a comparison did. It reads only saved run
// directories (summary.json, jobs.csv, timeline.csv), so a report can be
// re-rendered without re-simulating, and the same directories always give
// the same bytes.
//
// Charts are drawn by a small SVG writer in this package rather than a
// charting library: the few chart kinds needed (grouped bars, step lines,
// stacked strips) fit in a few hundred lines of standard library code whose
// output is byte-stable and tested against golden files.
package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/metrics"
)

// FileName is the report's name inside a run or comparison directory.
const FileName = "report.html"

// Options adjust a rendering.
type Options struct {
	// Generator names the program in the page footer, e.g. "spindle 0.1.0".
	Generator string
}

// figure is one chart with its caption.
type figure struct {
	ID, Kind string
	SVG      template.HTML // built by svgWriter, which escapes every value
	Series   int
	Caption  string
	// Scroll lets a wide chart scroll sideways instead of shrinking.
	Scroll bool
}

// htmlTable is a table of text cells.
type htmlTable struct {
	Caption string
	Head    []cell
	Rows    [][]cell
}

type cell struct {
	Text, Class, Color, Tip string
}

type detail struct {
	Summary, Body string
}

// section is one titled part of the page.
type section struct {
	ID, Title string
	Intro     string
	Tables    []htmlTable
	Figures   []figure
	Notes     []string
	Details   []detail
	// Collapsed puts the tables in a closed <details>, for long data.
	Collapsed bool
}

type runChip struct {
	Name, Color, Dir string
}

type page struct {
	Title     string
	Facts     []string
	Runs      []runChip
	Sections  []section
	Generator string
}

// WriteFile renders the runs into path.
func WriteFile(path string, runs []*Run, opt Options) error {
	var buf bytes.Buffer
	if err := Render(&buf, runs, opt); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// Render writes the HTML report of the runs.
func Render(w io.Writer, runs []*Run, opt Options) error {
	if len(runs) == 0 {
		return fmt.Errorf("report: no runs")
	}
	p := build(runs, opt)
	if err := pageTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func build(runs []*Run, opt Options) *page {
	s0 := runs[0].Summary
	p := &page{Generator: opt.Generator}
	p.Title = "spindle report: " + s0.Workload
	if len(runs) > 1 {
		p.Title = fmt.Sprintf("spindle report: %s, %d policies", s0.Workload, len(runs))
	}
	p.Facts = facts(runs)
	for i, r := range runs {
		p.Runs = append(p.Runs, runChip{Name: r.Name, Color: runColor(i), Dir: filepath.Base(r.Dir)})
	}
	jobs := alignJobs(runs)

	sum := section{ID: "summary", Title: "Summary", Tables: []htmlTable{summaryTable(runs)}}
	if len(runs) > 1 {
		sum.Intro = "The best value of each row is highlighted (lower is better for times, higher for completions, throughput, utilisation and goals met); ties are all highlighted. Averages are over completed jobs, so when some run completed every job, runs that did not are not ranked except on completions."
	} else {
		sum.Intro = "Averages are over completed jobs."
	}
	sum.Notes = deadlockNotes(runs)
	p.Sections = append(p.Sections, sum)

	k := bucketSize(len(jobs), len(runs))
	perJobNote := "Jobs are numbered in submission order; hover a bar for the job and its exact value."
	if k > 1 {
		perJobNote = fmt.Sprintf("With %d jobs, each group of bars is the mean of %d consecutive jobs in submission order; hover a bar for the exact value.", len(jobs), k)
	}
	p.Sections = append(p.Sections,
		section{ID: "wait", Title: "Waiting time per job",
			Intro:   "Waiting time is from submission to the job's first task running (the DRESS paper's definition). " + perJobNote,
			Figures: []figure{waitFigure(runs, jobs)}},
		section{ID: "jct", Title: "Completion time per job",
			Intro:   "Completion time is from submission to the last task completed; the lighter lower part of each bar is the waiting time, the rest is running. " + perJobNote,
			Figures: []figure{jctFigure(runs, jobs)}},
		section{ID: "cdf", Title: "Completion-time distribution",
			Intro:   "For each completion time x, the fraction of all jobs that completed within x. A curve further left and higher is better; a curve that stops below 1 did not complete every job. Where runs coincide, the later run in the legend is drawn on top.",
			Figures: []figure{cdfFigure(runs)}},
		section{ID: "throughput", Title: "Jobs completed over time",
			Intro:   "The number of jobs completed by each simulated instant: the steeper, the higher the throughput. Where runs coincide, the later run in the legend is drawn on top.",
			Figures: []figure{throughputFigure(runs)}},
	)
	util := section{ID: "utilization", Title: "Cluster utilisation over time",
		Intro: "The cluster's allocated share in its dominant resource (AM containers included), one strip per run."}
	f, notes := utilFigure(runs)
	if f != nil {
		util.Figures = append(util.Figures, *f)
		if hasExternal(runs) {
			util.Intro += " The grey band, drawn down from 100 %, is the capacity taken by the external (non-YARN) load of the workload."
		}
	}
	util.Notes = notes
	p.Sections = append(p.Sections, util)
	if g := goalFigure(runs, jobs); g != nil {
		p.Sections = append(p.Sections, section{ID: "goals", Title: "Completion-time goals",
			Intro:   "Each job with a goal: its completion time per run against its goal (black line). Outlined bars missed the goal. " + perJobNote,
			Tables:  []htmlTable{goalTable(runs)},
			Figures: []figure{*g}})
	}
	p.Sections = append(p.Sections, internalSections(runs)...)
	if js := jobsSection(runs, jobs); js != nil {
		p.Sections = append(p.Sections, *js)
	}
	return p
}

func hasExternal(runs []*Run) bool {
	for _, r := range runs {
		if r.External != nil {
			return true
		}
	}
	return false
}

// facts lists what the runs share, for the page header.
func facts(runs []*Run) []string {
	s := runs[0].Summary
	out := []string{
		"workload " + s.Workload,
		plural(s.JobsTotal, "job") + ", " + plural(s.Tasks, "task"),
		plural(s.Nodes, "node"),
	}
	same := func(f func(*metrics.Summary) string) (string, bool) {
		v := f(runs[0].Summary)
		for _, r := range runs[1:] {
			if f(r.Summary) != v {
				return "", false
			}
		}
		return v, true
	}
	for _, x := range []struct {
		label string
		f     func(*metrics.Summary) string
	}{
		{"seed", func(s *metrics.Summary) string { return strconv.FormatUint(s.Seed, 10) }},
		{"admission", func(s *metrics.Summary) string { return s.Admission }},
		{"estimates", estimates},
	} {
		if v, ok := same(x.f); ok {
			out = append(out, x.label+" "+v)
		}
	}
	return out
}

func estimates(s *metrics.Summary) string {
	if s.EstimateError != 0 {
		return fmt.Sprintf("%s (error ±%g)", s.Estimates, s.EstimateError)
	}
	return s.Estimates
}

// better tells which way a summary row improves.
type better int

const (
	noBest better = iota
	lower
	higher
)

// summaryRow is one line of the summary table: a value per run, with the
// decimals it is shown with (values are compared as shown, so a
// highlighted cell never looks equal to a plain one).
type summaryRow struct {
	label    string
	better   better
	decimals int
	value    func(s *metrics.Summary) *float64
	text     func(s *metrics.Summary) string // overrides the number's text
	cls      func(s *metrics.Summary) string
	// ranksAll ranks runs that left jobs unfinished too: the rows that
	// count completions.
	ranksAll bool
}

func f64(v float64) *float64 { return &v }

func summaryRows(runs []*Run) []summaryRow {
	secs := func(label string, f func(s *metrics.Summary) *float64) summaryRow {
		return summaryRow{label: label, better: lower, decimals: 1, value: f}
	}
	count := func(n, of int) string { return fmt.Sprintf("%d/%d", n, of) }
	rows := []summaryRow{
		{label: "jobs completed", better: higher, ranksAll: true, value: func(s *metrics.Summary) *float64 { return f64(float64(s.JobsCompleted)) },
			text: func(s *metrics.Summary) string { return count(s.JobsCompleted, s.JobsTotal) }},
		{label: "deadlocked", text: func(s *metrics.Summary) string {
			if s.Deadlocked {
				return "yes"
			}
			return "no"
		}, cls: func(s *metrics.Summary) string {
			if s.Deadlocked {
				return "bad"
			}
			return ""
		}},
		secs("makespan (s)", func(s *metrics.Summary) *float64 {
			if s.JobsCompleted == 0 {
				return nil // no job completed: no makespan, not one of 0 s
			}
			return &s.MakespanS
		}),
		secs("wait avg (s)", func(s *metrics.Summary) *float64 { return s.WaitAvgS }),
		secs("wait median (s)", func(s *metrics.Summary) *float64 { return s.WaitMedianS }),
		secs("JCT avg (s)", func(s *metrics.Summary) *float64 { return s.JCTAvgS }),
		secs("JCT median (s)", func(s *metrics.Summary) *float64 { return s.JCTMedianS }),
		secs("JCT p95 (s)", func(s *metrics.Summary) *float64 { return s.JCTP95S }),
	}
	for _, c := range []metrics.Category{metrics.Small, metrics.Large} {
		cat := func(s *metrics.Summary) *metrics.CategoryStats {
			if cs := s.Categories[c]; cs != nil {
				return cs
			}
			return &metrics.CategoryStats{}
		}
		rows = append(rows,
			summaryRow{label: string(c) + " jobs completed", better: higher, ranksAll: true,
				value: func(s *metrics.Summary) *float64 { return f64(float64(cat(s).Completed)) },
				text:  func(s *metrics.Summary) string { return count(cat(s).Completed, cat(s).Jobs) }},
			secs(string(c)+" wait avg (s)", func(s *metrics.Summary) *float64 { return cat(s).WaitAvg }),
			secs(string(c)+" JCT avg (s)", func(s *metrics.Summary) *float64 { return cat(s).JCTAvg }),
			secs(string(c)+" JCT median (s)", func(s *metrics.Summary) *float64 { return cat(s).JCTMedian }),
		)
	}
	rows = append(rows,
		summaryRow{label: "throughput (jobs/h)", better: higher, decimals: 1, value: func(s *metrics.Summary) *float64 { return &s.ThroughputPerH }},
		summaryRow{label: "utilisation (mean)", better: higher, decimals: 3, value: func(s *metrics.Summary) *float64 { return &s.UtilizationAvg }},
	)
	anyRun := func(f func(s *metrics.Summary) bool) bool {
		for _, r := range runs {
			if f(r.Summary) {
				return true
			}
		}
		return false
	}
	if anyRun(func(s *metrics.Summary) bool { return s.Deadlocked }) {
		// What a deadlocked run's utilisation covers; not ranked, since a
		// longer span is neither better nor worse.
		rows = append(rows, summaryRow{label: "span to the stop (s)", decimals: 1, value: func(s *metrics.Summary) *float64 {
			if s.SpanS == nil {
				return &s.MakespanS
			}
			return s.SpanS
		}})
	}
	if anyRun(func(s *metrics.Summary) bool { return s.DeadlineMetFrac != nil }) {
		rows = append(rows,
			summaryRow{label: "goals met (fraction)", better: higher, decimals: 3, value: func(s *metrics.Summary) *float64 { return s.DeadlineMetFrac }},
			secs("lateness avg (s)", func(s *metrics.Summary) *float64 { return s.LatenessAvgS }),
			secs("lateness p95 (s)", func(s *metrics.Summary) *float64 { return s.LatenessP95S }),
		)
	}
	if anyRun(func(s *metrics.Summary) bool { return s.ExternalUnmet != nil }) {
		rows = append(rows, secs("external unmet (vcore-s)", func(s *metrics.Summary) *float64 {
			if s.ExternalUnmet == nil {
				return nil
			}
			return &s.ExternalUnmet.VCoreS
		}))
	}
	differ := func(f func(s *metrics.Summary) string) bool {
		return anyRun(func(s *metrics.Summary) bool { return f(s) != f(runs[0].Summary) })
	}
	if differ(func(s *metrics.Summary) string { return s.Admission }) {
		rows = append(rows, summaryRow{label: "admission", text: func(s *metrics.Summary) string { return s.Admission }})
	}
	if differ(estimates) {
		rows = append(rows, summaryRow{label: "estimates", text: estimates})
	}
	if differ(func(s *metrics.Summary) string { return strconv.FormatUint(s.Seed, 10) }) {
		rows = append(rows, summaryRow{label: "seed", text: func(s *metrics.Summary) string { return strconv.FormatUint(s.Seed, 10) }})
	}
	rows = append(rows, summaryRow{label: "simulated events", text: func(s *metrics.Summary) string { return strconv.FormatUint(s.Events, 10) }})
	return rows
}

func summaryTable(runs []*Run) htmlTable {
	t := htmlTable{Head: []cell{{Text: "metric"}}}
	for i, r := range runs {
		t.Head = append(t.Head, cell{Text: r.Name, Color: runColor(i)})
	}
	for _, row := range summaryRows(runs) {
		cells := []cell{{Text: row.label, Class: "label"}}
		shown := make([]*float64, len(runs))
		for i, r := range runs {
			c := cell{Text: "–"}
			if row.value != nil {
				if v := row.value(r.Summary); v != nil && !math.IsNaN(*v) {
					scale := math.Pow(10, float64(row.decimals))
					shown[i] = f64(math.Round(*v*scale) / scale)
					c.Text = strconv.FormatFloat(*v, 'f', row.decimals, 64)
				}
			}
			if row.text != nil {
				c.Text = row.text(r.Summary)
			}
			if row.cls != nil {
				c.Class = row.cls(r.Summary)
			}
			cells = append(cells, c)
		}
		if row.better != noBest && len(runs) > 1 {
			markBest(cells[1:], rankable(runs, shown, row.ranksAll), row.better)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// rankable keeps the values of the runs that completed every job, when
// any did: a run that left jobs unfinished has a short makespan and
// averages over the jobs it did finish, which must not win. Rows that
// count completions (ranksAll) rank every run.
func rankable(runs []*Run, vals []*float64, ranksAll bool) []*float64 {
	if ranksAll {
		return vals
	}
	complete := 0
	for _, r := range runs {
		if r.Summary.JobsCompleted == r.Summary.JobsTotal {
			complete++
		}
	}
	if complete == 0 {
		return vals
	}
	out := make([]*float64, len(vals))
	for i, r := range runs {
		if r.Summary.JobsCompleted == r.Summary.JobsTotal {
			out[i] = vals[i]
		}
	}
	return out
}

// markBest highlights the best of the given values, unless every run
// shows it; nil values take no part.
func markBest(cells []cell, vals []*float64, b better) {
	var best *float64
	for _, v := range vals {
		if v != nil && (best == nil || (b == lower && *v < *best) || (b == higher && *v > *best)) {
			best = v
		}
	}
	if best == nil {
		return
	}
	n, ranked := 0, 0
	for _, v := range vals {
		if v != nil {
			ranked++
			if *v == *best {
				n++
			}
		}
	}
	if n == ranked && ranked == len(vals) {
		return
	}
	for i, v := range vals {
		if v != nil && *v == *best {
			cells[i].Class = strings.TrimSpace(cells[i].Class + " best")
		}
	}
}

// deadlockNotes says which runs stopped with jobs stuck, grouped by state.
func deadlockNotes(runs []*Run) []string {
	var out []string
	for _, r := range runs {
		s := r.Summary
		if !s.Deadlocked {
			continue
		}
		var states []string
		by := map[string][]string{}
		for _, j := range s.StuckJobs {
			if _, ok := by[j.State]; !ok {
				states = append(states, j.State)
			}
			by[j.State] = append(by[j.State], j.ID)
		}
		var parts []string
		for _, st := range states {
			ids := by[st]
			more := ""
			if len(ids) > 5 {
				more = fmt.Sprintf(", … (%d more)", len(ids)-5)
				ids = ids[:5]
			}
			parts = append(parts, fmt.Sprintf("%d %s (%s%s)", len(by[st]), st, strings.Join(ids, ", "), more))
		}
		out = append(out, fmt.Sprintf("%s deadlocked: %d of %d jobs never finished: %s.", r.Name, len(s.StuckJobs), s.JobsTotal, strings.Join(parts, "; ")))
	}
	return out
}

// goalTable counts goals met and missed per run.
func goalTable(runs []*Run) htmlTable {
	t := htmlTable{Head: []cell{{Text: "run"}, {Text: "jobs with a goal"}, {Text: "met"}, {Text: "missed"}, {Text: "of which not completed"}}}
	for i, r := range runs {
		goals, met, unfinished := 0, 0, 0
		for _, j := range r.Jobs {
			if j.Met == nil {
				continue
			}
			goals++
			if *j.Met {
				met++
			} else if j.JCT == nil {
				unfinished++
			}
		}
		t.Rows = append(t.Rows, []cell{{Text: r.Name, Color: runColor(i), Class: "label"}, {Text: strconv.Itoa(goals)},
			{Text: strconv.Itoa(met)}, {Text: strconv.Itoa(goals - met)}, {Text: strconv.Itoa(unfinished)}})
	}
	return t
}

// maxJobRows bounds the per-job table; past it the page would be long
// and jobs.csv is the better place to look.
const maxJobRows = 1000

// jobsSection is the per-job data behind the charts, collapsed.
func jobsSection(runs []*Run, jobs []*jobRow) *section {
	s := &section{ID: "jobs", Title: "Jobs"}
	if len(jobs) > maxJobRows {
		s.Notes = []string{fmt.Sprintf("%d jobs: see each run's jobs.csv for the per-job values.", len(jobs))}
		return s
	}
	t := htmlTable{Head: []cell{{Text: "#"}, {Text: "job"}, {Text: "category"}, {Text: "submit (s)"}, {Text: "goal (s)"}}}
	for i, r := range runs {
		t.Head = append(t.Head, cell{Text: r.Name + " wait (s)", Color: runColor(i)}, cell{Text: r.Name + " JCT (s)", Color: runColor(i)})
	}
	opt := func(v *float64) string {
		if v == nil {
			return "–"
		}
		return strconv.FormatFloat(*v, 'f', 1, 64)
	}
	for i, j := range jobs {
		row := []cell{{Text: strconv.Itoa(i + 1)}, {Text: j.ID, Class: "label"}, {Text: string(j.Category)},
			{Text: strconv.FormatFloat(j.Submit, 'f', 1, 64)}, {Text: opt(j.Deadline)}}
		for ri := range runs {
			pj := j.per[ri]
			if pj == nil {
				row = append(row, cell{Text: "–"}, cell{Text: "–"})
				continue
			}
			jc := cell{Text: opt(pj.JCT)}
			if pj.Met != nil && !*pj.Met {
				jc.Class, jc.Tip = "bad", "goal missed"
			}
			row = append(row, cell{Text: opt(pj.Wait)}, jc)
		}
		t.Rows = append(t.Rows, row)
	}
	s.Tables, s.Collapsed = []htmlTable{t}, true
	s.Intro = "Per job, in submission order: the values behind the charts above (– where undefined; red JCT: goal missed)."
	return s
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
