package traces

import (
	"fmt"
	"math"
	"strings"
	"text/template"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/trace"
	"github.com/spindle-sched/spindle/workload"
)

// figures is one run's numbers.
type figures struct {
	completed, total                           int
	wait, jct, jctMed, jctP95, small, large, u float64
	makespan                                   float64
}

func figuresOf(s *metrics.Summary) figures {
	v := section.Deref
	return figures{
		completed: s.JobsCompleted, total: s.JobsTotal,
		wait: v(s.WaitAvgS), jct: v(s.JCTAvgS), jctMed: v(s.JCTMedianS), jctP95: v(s.JCTP95S),
		small: v(s.Categories[metrics.Small].JCTAvg), large: v(s.Categories[metrics.Large].JCTAvg),
		u: s.UtilizationAvg, makespan: s.MakespanS,
	}
}

// columns are the table's figures after the completed count, in the order
// of its header (section.md.tmpl).
var columns = []func(figures) float64{
	func(x figures) float64 { return x.wait },
	func(x figures) float64 { return x.jct },
	func(x figures) float64 { return x.jctMed },
	func(x figures) float64 { return x.jctP95 },
	func(x figures) float64 { return x.small },
	func(x figures) float64 { return x.large },
	func(x figures) float64 { return x.makespan },
}

func util(x figures) float64 { return x.u }
func jct(x figures) float64  { return x.jct }

func mean(fs []figures, f func(figures) float64) float64 {
	sum := 0.0
	for _, x := range fs {
		sum += f(x)
	}
	return sum / float64(len(fs))
}

// spread is the largest relative distance of a seed's value from the mean,
// as a fraction.
func spread(fs []figures, f func(figures) float64) float64 {
	m := mean(fs, f)
	worst := 0.0
	for _, x := range fs {
		if m != 0 {
			worst = math.Max(worst, math.Abs(f(x)-m)/m)
		}
	}
	return worst
}

// Section is everything the traces section shows.
type Section struct {
	Seeds        int
	Env, Default string
	Records      int64
	Skipped      []trace.Count
	Jobs, Tasks  int
	Clusters     []string // the converter's cluster notes
	Missing      []string // policies not registered in this build
	Busy         []Busy
	Loads        []Load
}

// Busy is FIFO's utilisation at one arrival scale, in percent.
type Busy struct{ Scale, Percent float64 }

// Load is the table and findings at one arrival scale.
type Load struct {
	Scale    float64
	Rows     []Row
	Findings Findings
}

// Row is one policy's means over seeds; a NaN column is undefined (no job
// of that kind completed).
type Row struct {
	Label       string
	Done, Total int // Done: the fewest completed over seeds
	Columns     []float64
	Util        float64
}

// Findings is what the table shows, from its numbers.
type Findings struct {
	Best, Worst       string
	BestJCT, WorstJCT float64
	AgainstFIFO       bool    // FIFO is run and is not the best
	Cut               float64 // the best's cut of FIFO's average JCT, a fraction
	Spread            float64 // the largest move of a row's average JCT across seeds, a fraction
}

func tables(seeds int, rows []row, missing []string, rep *trace.Report, w *workload.Workload, figs [][][]figures) Section {
	sec := Section{Seeds: seeds, Env: NASAEnv, Default: nasaDefault, Records: rep.Records, Skipped: rep.Skipped,
		Jobs: len(w.Jobs), Tasks: w.TotalTasks(), Missing: missing}
	for _, n := range rep.Notes {
		if c, ok := strings.CutPrefix(n, "cluster: "); ok {
			sec.Clusters = append(sec.Clusters, c)
		}
	}
	for l, load := range loads {
		for r, row := range rows {
			if row.policy == "fifo" {
				sec.Busy = append(sec.Busy, Busy{load, 100 * mean(figs[l][r], util)})
			}
		}
	}
	for l, load := range loads {
		ld := Load{Scale: load}
		worst := 0.0
		for r, row := range rows {
			fs := figs[l][r]
			out := Row{Label: row.label(), Done: fs[0].completed, Total: fs[0].total, Util: mean(fs, util)}
			for _, x := range fs {
				out.Done = min(out.Done, x.completed)
			}
			for _, c := range columns {
				out.Columns = append(out.Columns, mean(fs, c))
			}
			ld.Rows = append(ld.Rows, out)
			worst = math.Max(worst, spread(fs, jct))
		}
		ld.Findings = findings(rows, figs[l], worst)
		sec.Loads = append(sec.Loads, ld)
	}
	return sec
}

// findings picks the best and worst rows by average JCT and measures the
// best against FIFO.
func findings(rows []row, figs [][]figures, spread float64) Findings {
	avg := func(r int) float64 { return mean(figs[r], jct) }
	base := -1
	best, worst := 0, 0
	for r := range rows {
		if rows[r].policy == "fifo" {
			base = r
		}
		if avg(r) < avg(best) {
			best = r
		}
		if avg(r) > avg(worst) {
			worst = r
		}
	}
	f := Findings{Best: rows[best].label(), BestJCT: avg(best), Worst: rows[worst].label(), WorstJCT: avg(worst), Spread: spread}
	if base >= 0 && base != best {
		f.AgainstFIFO, f.Cut = true, 1-avg(best)/avg(base)
	}
	return f
}

var funcs = template.FuncMap{
	// pct formats a fraction as a percentage, with more digits when it is
	// small, so that a tiny difference does not read as none.
	"pct": func(f float64) string {
		if math.Abs(f) < 0.01 {
			return fmt.Sprintf("%.2f %%", 100*f)
		}
		return fmt.Sprintf("%.1f %%", 100*f)
	},
}
