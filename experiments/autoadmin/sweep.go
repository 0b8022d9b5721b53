// Package autoadmin is the AutoAdmin paper's evaluation (§2.3-§4): the
// static-reservation sweep and its best range, the RRP predictions of
// Tables 3.1 and 3.2, AutoAdmin's makespan and Perf Score on the 16
// homogeneous settings and the 6 heterogeneous experiments, the deadlock
// and YARN's own AM limits, and what each change of autoadmin+ buys. The
// sweep (sweep.go) is also the `spindle sweep` command's; Run simulates
// the report's plan, tables.go reduces the sweeps to the section's tables
// and quoted figures, and section.md.tmpl writes the text.
package autoadmin

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	aa "github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/workload"
)

// StaticSweepSpec is AutoAdmin's static sweep (§2.3, §4): one workload
// under one policy, once per static reservation, plus any other admission
// controllers to score against the best static point.
type StaticSweepSpec struct {
	Workload     *workload.Workload
	WorkloadName string
	Policy       string
	Reserves     []float64 // vcores, each run as static:<n>
	With         []string  // admission specs to score, e.g. "autoadmin"
	Seeds        []uint64  // every run is repeated on each seed
	Parallel     int
}

// StaticPoint is one admission setting over every seed.
type StaticPoint struct {
	Admission string
	Reserve   float64 // the static reservation; NaN for With entries
	// Makespans holds one makespan per seed (completed jobs only, when
	// the run deadlocked).
	Makespans       []float64
	DeadlockedSeeds int
	JobsCompleted   int // the fewest over seeds
	JobsTotal       int
	// Report is the first seed's admission report, when the controller
	// has one (autoadmin's R_R over time).
	Report any
}

// Makespan is the mean over seeds.
func (p *StaticPoint) Makespan() float64 { return section.Mean(p.Makespans) }

// Deadlocked reports whether any seed deadlocked.
func (p *StaticPoint) Deadlocked() bool { return p.DeadlockedSeeds > 0 }

// StaticSweepResult is the static curve, its best point and the scored
// controllers.
type StaticSweepResult struct {
	Points []StaticPoint
	// Best indexes the static point with the least mean makespan among
	// those that never deadlocked (the smaller reservation on a tie); -1
	// when every point deadlocked.
	Best int
	With []StaticPoint
}

// TieTolerance is how close to the least mean makespan a static point must
// come to tie with it: many reservations give the same makespan, to within
// the seeds' noise, so the optimum is a range, not a point.
const TieTolerance = 0.01

// BestRange returns the least and greatest reservation among the static
// points that never deadlocked and whose mean makespan is within tol of
// the best, and how many such points there are; n is 0 when every point
// deadlocked. The points between lo and hi need not all tie.
func (r *StaticSweepResult) BestRange(tol float64) (lo, hi float64, n int) {
	if r.Best < 0 {
		return math.NaN(), math.NaN(), 0
	}
	limit := r.Points[r.Best].Makespan() * (1 + tol)
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range r.Points {
		p := &r.Points[i]
		if !p.Deadlocked() && p.Makespan() <= limit {
			lo, hi, n = math.Min(lo, p.Reserve), math.Max(hi, p.Reserve), n+1
		}
	}
	return lo, hi, n
}

// RangeDistance is how far reservation x lies outside the best range
// [lo, hi] in vcores: 0 inside it, negative below, positive above.
func RangeDistance(x, lo, hi float64) float64 {
	switch {
	case x < lo:
		return x - lo
	case x > hi:
		return x - hi
	}
	return 0
}

// PerfScore is Eq. 4.1 for w against the best static point, NaN when w
// deadlocked or no static point completed. Every point of the best range
// scores at least 100/(1+TieTolerance) %.
func (r *StaticSweepResult) PerfScore(w *StaticPoint) float64 {
	if r.Best < 0 || w.Deadlocked() {
		return math.NaN()
	}
	return aa.PerfScore(w.Makespan(), r.Points[r.Best].Makespan())
}

// PerfScoreSeed is Eq. 4.1 on seed i alone, against that seed's best static
// point; NaN as PerfScore.
func (r *StaticSweepResult) PerfScoreSeed(w *StaticPoint, i int) float64 {
	best := math.Inf(1)
	for k := range r.Points {
		if p := &r.Points[k]; !p.Deadlocked() {
			best = math.Min(best, p.Makespans[i])
		}
	}
	if math.IsInf(best, 1) || w.Deadlocked() {
		return math.NaN()
	}
	return aa.PerfScore(w.Makespans[i], best)
}

// StaticAdmission is the admission spec of a static reservation.
func StaticAdmission(reserve float64) string {
	return "static:" + strconv.FormatFloat(reserve, 'f', -1, 64)
}

// StaticSweep runs the sweep. Runs go in parallel; the result does not
// depend on how many.
func StaticSweep(s StaticSweepSpec) (*StaticSweepResult, error) {
	specs, err := s.cellSpecs()
	if err != nil {
		return nil, err
	}
	all := make([]int, len(specs))
	for i := range all {
		all[i] = i
	}
	cells, err := RunSweepCells(s, all)
	if err != nil {
		return nil, err
	}
	return AggregateSweep(s.Reserves, s.With, len(s.Seeds), cells)
}

// SweepCell is one run of a sweep, an admission setting on one seed,
// reduced to what the sweep keeps of it. Cells are independent, so a sweep
// can be run in parts (spindle sweep --shard) and its cells joined.
type SweepCell struct {
	Admission     string  `json:"admission"`
	Seed          uint64  `json:"seed"`
	MakespanS     float64 `json:"makespan_s"`
	Deadlocked    bool    `json:"deadlocked"`
	JobsCompleted int     `json:"jobs_completed"`
	JobsTotal     int     `json:"jobs_total"`
	// Report is the run's AutoAdmin report, when the controller has one.
	Report *aa.Report `json:"autoadmin,omitempty"`
}

// SweepCellKeys names the sweep's cells in their canonical order: every
// admission setting (the static reservations, then With), each on every
// seed.
func SweepCellKeys(s StaticSweepSpec) []string {
	var keys []string
	for _, a := range s.admissions() {
		for _, seed := range s.Seeds {
			keys = append(keys, "admission="+a+" seed="+strconv.FormatUint(seed, 10))
		}
	}
	return keys
}

func (s StaticSweepSpec) admissions() []string {
	var adms []string
	for _, r := range s.Reserves {
		adms = append(adms, StaticAdmission(r))
	}
	return append(adms, s.With...)
}

// cellSpecs checks the sweep and returns its runs in cell order.
func (s StaticSweepSpec) cellSpecs() ([]runner.Spec, error) {
	if len(s.Seeds) == 0 {
		return nil, fmt.Errorf("sweep: no seeds")
	}
	// Check every admission spec before anything runs.
	for _, a := range append([]string{StaticAdmission(0)}, s.With...) {
		if err := runner.Check(runner.Spec{Policy: s.Policy, Admission: a}); err != nil {
			return nil, err
		}
	}
	var specs []runner.Spec
	for _, a := range s.admissions() {
		for _, seed := range s.Seeds {
			specs = append(specs, runner.Spec{Workload: s.Workload, WorkloadName: s.WorkloadName,
				Policy: s.Policy, Admission: a, Seed: seed})
		}
	}
	return specs, nil
}

// RunSweepCells runs the cells at positions picks (in SweepCellKeys order)
// and returns them in that order.
func RunSweepCells(s StaticSweepSpec, picks []int) ([]SweepCell, error) {
	specs, err := s.cellSpecs()
	if err != nil {
		return nil, err
	}
	mine := make([]runner.Spec, len(picks))
	for i, k := range picks {
		if k < 0 || k >= len(specs) {
			return nil, fmt.Errorf("sweep: cell %d of %d", k, len(specs))
		}
		mine[i] = specs[k]
	}
	batch := sweepBatch(s.Parallel)
	cells := make([]SweepCell, 0, len(mine))
	for lo := 0; lo < len(mine); lo += batch {
		hi := min(len(mine), lo+batch)
		outs, err := runner.RunAll(mine[lo:hi], s.Parallel, nil)
		if err != nil {
			return nil, err
		}
		for k, o := range outs {
			cells = append(cells, sweepCell(mine[lo+k], o.Summary, len(s.Workload.Jobs)))
		}
	}
	return cells, nil
}

// sweepBatch is how many runs a sweep starts at once: it runs in batches
// so that a sweep over a large workload keeps summaries, not every run's
// job timelines.
func sweepBatch(parallel int) int {
	if parallel <= 0 {
		return 32
	}
	return parallel * 4
}

// sweepCell is what a sweep keeps of run sp of a workload of jobs jobs.
func sweepCell(sp runner.Spec, sum *metrics.Summary, jobs int) SweepCell {
	c := SweepCell{Admission: sp.Admission, Seed: sp.Seed, MakespanS: sum.MakespanS, Deadlocked: sum.Deadlocked,
		JobsCompleted: sum.JobsCompleted, JobsTotal: jobs}
	if rep, ok := sum.Reports["autoadmin"].(aa.Report); ok {
		c.Report = &rep
	}
	return c
}

// sweepCells runs a sweep as an experiment's cells (section.Simulate), in
// the batches RunSweepCells runs; a share of the cells (cfg.Partial)
// returns no result.
func sweepCells(cfg section.Config, s StaticSweepSpec) (*StaticSweepResult, error) {
	specs, err := s.cellSpecs()
	if err != nil {
		return nil, err
	}
	batch := sweepBatch(s.Parallel)
	cells := make([]SweepCell, 0, len(specs))
	for lo := 0; lo < len(specs); lo += batch {
		hi := min(len(specs), lo+batch)
		got, err := section.Simulate(cfg, specs[lo:hi], func(i int, o *runner.Outcome) (SweepCell, error) {
			return sweepCell(specs[lo+i], o.Summary, len(s.Workload.Jobs)), nil
		}, nil)
		if err != nil {
			return nil, err
		}
		cells = append(cells, got...)
	}
	if cfg.Partial() {
		return nil, nil
	}
	return AggregateSweep(s.Reserves, s.With, len(s.Seeds), cells)
}

// AggregateSweep reduces every cell of a sweep, in SweepCellKeys order,
// to its points, best point and scored controllers.
func AggregateSweep(reserves []float64, with []string, seeds int, cells []SweepCell) (*StaticSweepResult, error) {
	n := len(reserves) + len(with)
	if seeds < 1 || len(cells) != n*seeds {
		return nil, fmt.Errorf("sweep: %d cells for %d settings on %d seeds", len(cells), n, seeds)
	}
	points := make([]StaticPoint, n)
	for i := range points {
		c := &cells[i*seeds]
		points[i] = StaticPoint{Admission: c.Admission, Reserve: math.NaN(), JobsCompleted: math.MaxInt, JobsTotal: c.JobsTotal}
		if i < len(reserves) {
			points[i].Reserve = reserves[i]
		}
	}
	for k := range cells {
		p, c := &points[k/seeds], &cells[k]
		p.Makespans = append(p.Makespans, c.MakespanS)
		if c.Deadlocked {
			p.DeadlockedSeeds++
		}
		p.JobsCompleted = min(p.JobsCompleted, c.JobsCompleted)
		if p.Report == nil && c.Report != nil {
			p.Report = *c.Report
		}
	}
	res := &StaticSweepResult{Points: points[:len(reserves)], With: points[len(reserves):], Best: -1}
	for i := range res.Points {
		p := &res.Points[i]
		if !p.Deadlocked() && (res.Best < 0 || p.Makespan() < res.Points[res.Best].Makespan()) {
			res.Best = i
		}
	}
	return res, nil
}

// ParseReserveRange reads FROM:TO:STEP into the values FROM, FROM+STEP, ...
// up to TO, inclusive.
func ParseReserveRange(s string) ([]float64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%q is not FROM:TO:STEP", s)
	}
	var v [3]float64
	for i, part := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not FROM:TO:STEP: %q is not a number", s, part)
		}
		v[i] = f
	}
	from, to, step := v[0], v[1], v[2]
	switch {
	case from < 0:
		return nil, fmt.Errorf("FROM:TO:STEP %q: FROM must not be negative", s)
	case to < from:
		return nil, fmt.Errorf("FROM:TO:STEP %q: TO must not be below FROM", s)
	case step <= 0:
		return nil, fmt.Errorf("FROM:TO:STEP %q: STEP must be positive", s)
	case (to-from)/step > 100000:
		return nil, fmt.Errorf("FROM:TO:STEP %q: more than 100000 points", s)
	}
	var out []float64
	for i := 0; ; i++ {
		x := from + float64(i)*step
		if x > to+step*1e-9 {
			break
		}
		// Decimal steps such as 0.1 accumulate error; keep the values as
		// typed.
		out = append(out, math.Round(x*1e6)/1e6)
	}
	return out, nil
}
