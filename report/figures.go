package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/metrics"
)

// jobRow is one job across the runs of a report; per[i] is nil where run i
// has no such job.
type jobRow struct {
	ID       string
	Category metrics.Category
	Submit   float64
	Deadline *float64
	per      []*metrics.Job
}

// alignJobs lines the runs' jobs up by ID in submission order (ties in
// workload order), the x-axis of the per-job charts.
func alignJobs(runs []*Run) []*jobRow {
	var rows []*jobRow
	byKey := map[string]*jobRow{}
	for ri, r := range runs {
		seen := map[string]int{}
		for ji := range r.Jobs {
			j := &r.Jobs[ji]
			// A repeated ID (not possible in a valid workload) still
			// matches its own occurrence in the other runs.
			seen[j.ID]++
			key := j.ID + "\x00" + strconv.Itoa(seen[j.ID])
			row, ok := byKey[key]
			if !ok {
				row = &jobRow{ID: j.ID, Category: j.Category, Submit: j.Submit, Deadline: j.Deadline, per: make([]*metrics.Job, len(runs))}
				byKey[key] = row
				rows = append(rows, row)
			}
			if row.Deadline == nil {
				row.Deadline = j.Deadline
			}
			row.per[ri] = j
		}
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Submit < rows[b].Submit })
	return rows
}

// maxBarPlot bounds a bar chart's width; beyond it consecutive jobs are
// averaged into one group.
const maxBarPlot = 3600.0

// bucketBarWidth is the bar width aimed at once jobs are averaged: with
// exactness gone, there is no reason for the chart to be wider than the
// page.
const bucketBarWidth = 5.0

// bucketSize is how many consecutive jobs share a bar group. Up to
// maxBarPlot pixels every job gets its own bars (the chart scrolls
// sideways); beyond, groups are sized to fit the page.
func bucketSize(jobs, runs int) int {
	need := float64(jobs) * float64(max(1, runs)) * minBarWidth / 0.8
	if need <= maxBarPlot {
		return 1
	}
	fit := float64(jobs) * float64(max(1, runs)) * bucketBarWidth / 0.8
	return int(math.Ceil(fit / (chartWidth - marginLeft - marginRight)))
}

// perJob builds the bars of one per-job chart. value gives a job's bar in
// one run (ok false when undefined); when k > 1, groups of k consecutive
// jobs are averaged.
func perJob(runs []*Run, jobs []*jobRow, k int, value func(row *jobRow, j *metrics.Job, run string) (b bar, ok bool)) ([]barGroup, []barSeries) {
	var groups []barGroup
	mixed := mixedCategories(jobs)
	for lo := 0; lo < len(jobs); lo += k {
		hi := min(lo+k, len(jobs))
		g := barGroup{Mark: math.NaN()}
		if k == 1 {
			j := jobs[lo]
			g.Label = strconv.Itoa(lo + 1)
			g.Tip = fmt.Sprintf("job %d: %s (%s, submitted at %s)", lo+1, j.ID, j.Category, fmtSeconds(j.Submit))
			g.Shade = j.Category == metrics.Small && mixed
			if j.Deadline != nil {
				g.Mark = *j.Deadline
				g.Tip += ", goal " + fmtSeconds(*j.Deadline)
			}
		} else {
			g.Label = strconv.Itoa(lo + 1)
			g.Tip = fmt.Sprintf("jobs %d–%d", lo+1, hi)
		}
		groups = append(groups, g)
	}
	series := make([]barSeries, len(runs))
	for ri, r := range runs {
		series[ri] = barSeries{Name: r.Name, Color: runColor(ri)}
		for gi, lo := 0, 0; lo < len(jobs); gi, lo = gi+1, lo+k {
			hi := min(lo+k, len(jobs))
			if k == 1 {
				var b bar
				if j := jobs[lo].per[ri]; j != nil {
					b, b.OK = value(jobs[lo], j, r.Name)
				} else {
					b.Tip = fmt.Sprintf("%s: %s: not in this run", jobs[lo].ID, r.Name)
				}
				series[ri].Bars = append(series[ri].Bars, b)
				continue
			}
			var sum, under float64
			n, hollow := 0, 0
			for _, row := range jobs[lo:hi] {
				if j := row.per[ri]; j != nil {
					if b, ok := value(row, j, r.Name); ok {
						sum, under, n = sum+b.V, under+b.Under, n+1
						if b.Hollow {
							hollow++
						}
					}
				}
			}
			b := bar{Tip: fmt.Sprintf("%s: %s: jobs %d–%d: no value", groups[gi].Tip, r.Name, lo+1, hi)}
			if n > 0 {
				b = bar{V: sum / float64(n), Under: under / float64(n), OK: true, Hollow: 2*hollow > n,
					Tip: fmt.Sprintf("%s: %s: mean %s over %d of %d jobs", groups[gi].Tip, r.Name, fmtSeconds(sum/float64(n)), n, hi-lo)}
				if hollow > 0 {
					b.Tip += fmt.Sprintf(", %d missed their goal", hollow)
				}
			}
			series[ri].Bars = append(series[ri].Bars, b)
		}
	}
	return groups, series
}

// scaleBars converts bar values and marks from seconds to the chart's unit.
func scaleBars(groups []barGroup, series []barSeries, div float64) {
	for i := range groups {
		groups[i].Mark /= div
	}
	for i := range series {
		for j := range series[i].Bars {
			series[i].Bars[j].V /= div
			series[i].Bars[j].Under /= div
		}
	}
}

func maxBar(series []barSeries, groups []barGroup) float64 {
	m := 0.0
	for _, s := range series {
		for _, b := range s.Bars {
			if b.OK {
				m = math.Max(m, b.V)
			}
		}
	}
	for _, g := range groups {
		if !math.IsNaN(g.Mark) {
			m = math.Max(m, g.Mark)
		}
	}
	return m
}

// jobAxisLabel explains the x axis of the per-job charts.
func jobAxisLabel(k int, shaded bool) string {
	switch {
	case k > 1:
		return fmt.Sprintf("jobs in submission order, %d per group (bars are means)", k)
	case shaded:
		return "job, in submission order (shaded columns: small jobs)"
	default:
		return "job, in submission order"
	}
}

func waitFigure(runs []*Run, jobs []*jobRow) figure {
	k := bucketSize(len(jobs), len(runs))
	groups, series := perJob(runs, jobs, k, func(row *jobRow, j *metrics.Job, run string) (bar, bool) {
		if j.Wait == nil {
			return bar{Tip: fmt.Sprintf("%s: %s: never started", row.ID, run)}, false
		}
		return bar{V: *j.Wait, Tip: fmt.Sprintf("%s: %s: waited %s", row.ID, run, fmtSeconds(*j.Wait))}, true
	})
	for i := range groups {
		groups[i].Mark = math.NaN() // goals belong to completion times
	}
	div, unit := timeUnit(maxBar(series, groups))
	scaleBars(groups, series, div)
	c := &barChart{Title: "Waiting time per job", YLabel: "waiting time (" + unit + ")",
		XLabel: jobAxisLabel(k, mixedCategories(jobs)), Groups: groups, Series: series, MissName: "never started"}
	if k == 1 && mixedCategories(jobs) {
		c.ShadeName = "small job"
	}
	return figure{ID: "wait-chart", Kind: "bar", SVG: c.svg(), Series: len(series), Scroll: true}
}

func jctFigure(runs []*Run, jobs []*jobRow) figure {
	k := bucketSize(len(jobs), len(runs))
	groups, series := perJob(runs, jobs, k, func(row *jobRow, j *metrics.Job, run string) (bar, bool) {
		if j.JCT == nil {
			return bar{Tip: fmt.Sprintf("%s: %s: not completed", row.ID, run)}, false
		}
		b := bar{V: *j.JCT, Tip: fmt.Sprintf("%s: %s: completed in %s", row.ID, run, fmtSeconds(*j.JCT))}
		if j.Wait != nil {
			b.Under = *j.Wait
			b.Tip += fmt.Sprintf(" (waited %s, then ran %s)", fmtSeconds(*j.Wait), fmtSeconds(*j.JCT-*j.Wait))
		}
		return b, true
	})
	for i := range groups {
		groups[i].Mark = math.NaN()
	}
	div, unit := timeUnit(maxBar(series, groups))
	scaleBars(groups, series, div)
	c := &barChart{Title: "Completion time per job", YLabel: "completion time (" + unit + ")",
		XLabel: jobAxisLabel(k, mixedCategories(jobs)), Groups: groups, Series: series,
		UnderName: "lighter part: waiting", MissName: "not completed"}
	if k == 1 && mixedCategories(jobs) {
		c.ShadeName = "small job"
	}
	return figure{ID: "jct-chart", Kind: "bar", SVG: c.svg(), Series: len(series), Scroll: true}
}

// mixedCategories tells whether shading small jobs says anything: when every job
// is of one category it would only tint the whole chart.
func mixedCategories(jobs []*jobRow) bool {
	small := 0
	for _, j := range jobs {
		if j.Category == metrics.Small {
			small++
		}
	}
	return small > 0 && small < len(jobs)
}

// goalFigure draws completion time against each job's goal, for the jobs
// that have one; nil when none has.
func goalFigure(runs []*Run, jobs []*jobRow) *figure {
	var withGoal []*jobRow
	for _, j := range jobs {
		if j.Deadline != nil {
			withGoal = append(withGoal, j)
		}
	}
	if len(withGoal) == 0 {
		return nil
	}
	k := bucketSize(len(withGoal), len(runs))
	groups, series := perJob(runs, withGoal, k, func(row *jobRow, j *metrics.Job, run string) (bar, bool) {
		if j.JCT == nil {
			return bar{Tip: fmt.Sprintf("%s: %s: not completed, goal missed", row.ID, run)}, false
		}
		missed := j.Met != nil && !*j.Met
		verdict := "met"
		if missed {
			verdict = "missed"
		}
		return bar{V: *j.JCT, Hollow: missed,
			Tip: fmt.Sprintf("%s: %s: completed in %s, goal %s %s", row.ID, run, fmtSeconds(*j.JCT), fmtSeconds(*row.Deadline), verdict)}, true
	})
	if k > 1 {
		// A mean goal over a group is drawn as the group's mark.
		for gi, lo := 0, 0; lo < len(withGoal); gi, lo = gi+1, lo+k {
			sum, n := 0.0, 0
			for _, j := range withGoal[lo:min(lo+k, len(withGoal))] {
				sum, n = sum+*j.Deadline, n+1
			}
			groups[gi].Mark = sum / float64(n)
		}
	}
	div, unit := timeUnit(maxBar(series, groups))
	scaleBars(groups, series, div)
	xl := "job with a goal, in submission order (numbered among those jobs)"
	if k > 1 {
		xl = fmt.Sprintf("jobs with a goal in submission order, %d per group (means; outline: most missed)", k)
	}
	c := &barChart{Title: "Completion time against each job's goal", YLabel: "completion time (" + unit + ")",
		XLabel: xl, Groups: groups, Series: series,
		HollowName: "goal missed (outline)", MarkName: "goal", MissName: "not completed"}
	if k == 1 && mixedCategories(withGoal) {
		c.ShadeName = "small job"
	}
	return &figure{ID: "goals-chart", Kind: "bar", SVG: c.svg(), Series: len(series), Scroll: true}
}

// maxPoints bounds the points of one line; longer monotone series keep
// evenly spaced points, which a screen cannot tell apart.
const maxPoints = 1200

func thin(pts []point) []point {
	if len(pts) <= maxPoints {
		return pts
	}
	k := int(math.Ceil(float64(len(pts)) / maxPoints))
	var out []point
	for i := 0; i < len(pts); i += k {
		out = append(out, pts[i])
	}
	if out[len(out)-1] != pts[len(pts)-1] {
		out = append(out, pts[len(pts)-1])
	}
	return out
}

func cdfFigure(runs []*Run) figure {
	maxJCT := 0.0
	for _, r := range runs {
		for _, j := range r.Jobs {
			if j.JCT != nil {
				maxJCT = math.Max(maxJCT, *j.JCT)
			}
		}
	}
	div, unit := timeUnit(maxJCT)
	c := &lineChart{Title: "Distribution of job completion times (CDF)", ZeroX: true, YMax: 1,
		XLabel: "job completion time x (" + unit + ")", YLabel: "fraction of jobs completed within x"}
	for ri, r := range runs {
		var jcts []float64
		for _, j := range r.Jobs {
			if j.JCT != nil {
				jcts = append(jcts, *j.JCT)
			}
		}
		sort.Float64s(jcts)
		n := float64(max(1, len(r.Jobs)))
		pts := []point{{0, 0}}
		for i, v := range jcts {
			pts = append(pts, point{v / div, float64(i+1) / n})
		}
		if last := pts[len(pts)-1]; last.X < maxJCT/div {
			pts = append(pts, point{maxJCT / div, last.Y})
		}
		c.Series = append(c.Series, lineSeries{Name: r.Name, Color: runColor(ri), Dash: runDash(ri), Step: true, Points: thin(pts)})
	}
	return figure{ID: "cdf-chart", Kind: "line", SVG: c.svg(), Series: len(c.Series)}
}

// endTime is the latest simulated time any run reached.
func endTime(runs []*Run) float64 {
	end := 0.0
	for _, r := range runs {
		end = math.Max(end, r.Summary.EndS)
		for _, j := range r.Jobs {
			if j.Finish != nil {
				end = math.Max(end, *j.Finish)
			}
		}
		if n := len(r.Timeline); n > 0 {
			end = math.Max(end, r.Timeline[n-1].T)
		}
	}
	return end
}

func throughputFigure(runs []*Run) figure {
	end := endTime(runs)
	div, unit := timeUnit(end)
	c := &lineChart{Title: "Jobs completed over time", ZeroX: true, Counts: true,
		XLabel: "simulated time (" + unit + ")", YLabel: "jobs completed"}
	for ri, r := range runs {
		var fin []float64
		for _, j := range r.Jobs {
			if j.Finish != nil && j.JCT != nil {
				fin = append(fin, *j.Finish)
			}
		}
		sort.Float64s(fin)
		pts := []point{{0, 0}}
		for i, t := range fin {
			pts = append(pts, point{t / div, float64(i + 1)})
		}
		if last := pts[len(pts)-1]; last.X < end/div {
			pts = append(pts, point{end / div, last.Y})
		}
		c.Series = append(c.Series, lineSeries{Name: r.Name, Color: runColor(ri), Dash: runDash(ri), Step: true, Points: thin(pts)})
	}
	return figure{ID: "throughput-chart", Kind: "line", SVG: c.svg(), Series: len(c.Series)}
}

// utilPoints turns a run's timeline into a step function in percent from
// 0 to end, averaging over equal time bins when it has too many samples.
func utilPoints(tl []Sample, end, div float64) []point {
	pts := []point{{0, 0}}
	for _, s := range tl {
		if s.T <= 0 && len(pts) == 1 {
			pts[0].Y = s.Util * 100
			continue
		}
		pts = append(pts, point{s.T / div, s.Util * 100})
	}
	if last := pts[len(pts)-1]; last.X < end/div {
		pts = append(pts, point{end / div, last.Y})
	}
	if len(pts) <= maxPoints {
		return pts
	}
	// Time-weighted means over bins keep the area, which is what the
	// average utilisation measures.
	bins := maxPoints / 2
	x0, x1 := pts[0].X, pts[len(pts)-1].X
	w := (x1 - x0) / float64(bins)
	out := make([]point, 0, bins+1)
	j := 0
	for b := range bins {
		lo, hi := x0+float64(b)*w, x0+float64(b+1)*w
		area := 0.0
		for j < len(pts)-1 && pts[j+1].X <= lo {
			j++
		}
		for i := j; i < len(pts)-1 && pts[i].X < hi; i++ {
			a, z := math.Max(lo, pts[i].X), math.Min(hi, pts[i+1].X)
			if z > a {
				area += pts[i].Y * (z - a)
			}
		}
		out = append(out, point{lo, area / w})
	}
	out = append(out, point{x1, out[len(out)-1].Y})
	return out
}

// utilNote says what a strip's mean covers: the makespan, or in a deadlocked
// run the span from the first submission to where the run stopped, with the
// deadlock's stuck allocation in it.
func utilNote(s *metrics.Summary) string {
	if s.Deadlocked && s.SpanS != nil {
		return fmt.Sprintf("mean %.1f %% over the %s the run covered; it ended deadlocked", s.UtilizationAvg*100, fmtSeconds(*s.SpanS))
	}
	return fmt.Sprintf("mean %.1f %% over the makespan", s.UtilizationAvg*100)
}

func utilFigure(runs []*Run) (*figure, []string) {
	end := endTime(runs)
	div, unit := timeUnit(end)
	c := &panelChart{Title: "Cluster utilisation over time", XMax: end / div, YMax: 100,
		XLabel: "simulated time (" + unit + ")", YLabel: "allocated, dominant resource (%)"}
	var notes []string
	for ri, r := range runs {
		if r.Timeline == nil {
			notes = append(notes, fmt.Sprintf("%s has no timeline.csv; its utilisation is not drawn.", r.Name))
			continue
		}
		c.Panels = append(c.Panels, panel{Name: r.Name, Color: runColor(ri),
			Note:   utilNote(r.Summary),
			Points: utilPoints(r.Timeline, end, div)})
	}
	if len(c.Panels) == 0 {
		return nil, notes
	}
	for _, r := range runs {
		if r.External != nil {
			for _, p := range curvePoints(r.External, end) {
				c.Band = append(c.Band, point{p.X / div, p.Y * 100})
			}
			c.BandName = "external load f(t), drawn down from 100 %"
			break
		}
	}
	series := len(c.Panels)
	if c.Band != nil {
		series++
	}
	return &figure{ID: "util-chart", Kind: "panels", SVG: c.svg(), Series: series}, notes
}

// curvePoints traces an external-load curve over [0, end] in seconds: at
// every knot and period boundary (with both sides of the jump a periodic
// curve may make there), so the piecewise-linear drawing is exact; past
// maxPoints knots, at evenly spaced times instead.
func curvePoints(c *cluster.LoadCurve, end float64) []point {
	endT := clock.Time(math.Round(end * float64(clock.Second)))
	at := func(t clock.Time) point { return point{t.Seconds(), c.At(t)} }
	pts := []point{at(0)}
	knots := c.Points()
	for t := clock.Time(0); ; {
		next := c.NextKnot(t)
		if next >= endT || next <= t {
			break
		}
		if len(pts) > maxPoints {
			return sampledCurve(c, endT)
		}
		if p := c.Period(); p > 0 && next%clock.Time(p) == 0 {
			// Past its last knot the curve holds the last value until the
			// period ends, then starts over.
			pts = append(pts, point{next.Seconds(), knots[len(knots)-1].Frac})
		}
		pts = append(pts, at(next))
		t = next
	}
	if endT > 0 {
		pts = append(pts, at(endT))
	}
	return pts
}

func sampledCurve(c *cluster.LoadCurve, end clock.Time) []point {
	n := clock.Time(maxPoints)
	pts := make([]point, 0, n+1)
	for i := clock.Time(0); i <= n; i++ {
		t := end * i / n
		pts = append(pts, point{t.Seconds(), c.At(t)})
	}
	return pts
}
