package adaptive

import (
	"math"
	"slices"
	"sort"

	"github.com/spindle-sched/spindle/clock"
)

// Workload Estimator: how many tasks each job with a goal should run in
// parallel now. Adaptive's s_req assumes the job alone and the machines its
// own; Reverse-Adaptive's s_fit comes from a reverse placement of every job's
// remaining work into what the machines will have left over time.

// sReq is the parallelism that finishes work task-seconds by the goal,
// left seconds away: ⌈work / left⌉. A job with no time left, or whose task
// length is unknown, needs every task it could run (pend).
func sReq(work, left, pend float64, known bool) float64 {
	if !known || left <= 0 {
		return pend
	}
	return ceilTasks(work / left)
}

// ceilTasks rounds a parallelism up to whole tasks, forgiving the rounding
// error of the arithmetic that produced it.
func ceilTasks(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Ceil(x - 1e-9)
}

// demand is one job's remaining work as the Sfit estimator sees it, in
// units of capacity × seconds (the policy uses dominant shares of the
// cluster, tests may use task slots).
type demand struct {
	goal clock.Time // absolute
	work float64    // left to do
	rate float64    // the most it can use at once: its tasks left × their size
}

// capacityFunc returns the capacity left to jobs with goals over [a, b], in
// the units of demand.work.
type capacityFunc func(a, b clock.Time) float64

// plan is a reverse placement: the periods between now and the last goal,
// what each job does in each, and what fits nowhere before its goal.
type plan struct {
	bounds   []clock.Time // period p is (bounds[p-1], bounds[p]], with bounds[-1] = now
	placed   [][]float64  // placed[p][j]
	overflow []float64    // by job: work that fits in no period before its goal
}

// reversePlace is the Sfit estimator's core. Time from now to the last goal
// is cut into stationary periods at every goal and at every cut (the knots
// of the load forecast, where the capacity's slope changes). Walking
// backwards from the last period, each period's capacity is shared among the
// jobs whose goal is at or after its end, each asking for all the work it
// still has to place up to what it can run in the period, max-min fairly
// (the paper's "same utility" within a period); what a job cannot place is
// pushed to the preceding period, so each job's work lands as late as the
// machines allow. Work still unplaced after the first period fits nowhere
// before the goal: the job will be late. Jobs whose goal is already past
// take no part.
func reversePlace(now clock.Time, jobs []demand, cuts []clock.Time, capacity capacityFunc) plan {
	var pl plan
	last := now
	for _, j := range jobs {
		if j.goal > now {
			pl.bounds = append(pl.bounds, j.goal)
			last = max(last, j.goal)
		}
	}
	for _, c := range cuts {
		if c > now && c < last {
			pl.bounds = append(pl.bounds, c)
		}
	}
	slices.Sort(pl.bounds)
	pl.bounds = slices.Compact(pl.bounds)
	pl.placed = make([][]float64, len(pl.bounds))
	left := make([]float64, len(jobs))
	for i, j := range jobs {
		if j.goal > now {
			left[i] = j.work
		}
	}
	var idx []int
	var want []float64
	for p := len(pl.bounds) - 1; p >= 0; p-- {
		a, b := now, pl.bounds[p]
		if p > 0 {
			a = pl.bounds[p-1]
		}
		span := b.Sub(a).Seconds()
		idx, want = idx[:0], want[:0]
		for i, j := range jobs {
			if j.goal >= b && left[i] > 0 {
				idx = append(idx, i)
				want = append(want, min(left[i], j.rate*span))
			}
		}
		pl.placed[p] = make([]float64, len(jobs))
		if len(idx) == 0 {
			continue
		}
		got := waterfill(want, capacity(a, b))
		for k, i := range idx {
			pl.placed[p][i] = got[k]
			left[i] -= got[k]
		}
	}
	pl.overflow = left
	return pl
}

// current returns job i's work in the first period plus its overflow, and
// the first period's end: the rate it must sustain now to keep to the plan.
func (pl *plan) current(i int) (work float64, end clock.Time, ok bool) {
	if len(pl.bounds) == 0 {
		return 0, 0, false
	}
	return pl.placed[0][i] + pl.overflow[i], pl.bounds[0], true
}

// waterfill shares capacity max-min fairly among wants: everyone gets the
// same amount, up to what it wants, and what the satisfied leave over goes
// to the others.
func waterfill(want []float64, capacity float64) []float64 {
	got := make([]float64, len(want))
	order := make([]int, len(want))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return want[order[a]] < want[order[b]] })
	left := max(capacity, 0)
	for k, i := range order {
		fair := left / float64(len(order)-k)
		got[i] = min(want[i], fair)
		left -= got[i]
	}
	return got
}

// estimateNeeds sets every started job's need: s_req or s_fit.
func (p *Policy) estimateNeeds(now clock.Time) {
	if p.cfg.Mode == Adaptive {
		for _, ji := range p.active {
			work, _, _, _, known := ji.remaining(now)
			ji.need = sReq(work, ji.goal.Sub(now).Seconds(), float64(ji.pend()), known)
		}
		return
	}
	dem := make([]demand, len(p.active))
	shares := make([]float64, len(p.active))
	knowns := make([]bool, len(p.active))
	last := now
	for i, ji := range p.active {
		_, shareWork, rate, share, known := ji.remaining(now)
		shares[i], knowns[i] = share, known
		dem[i] = demand{goal: ji.goal, rate: rate}
		if known {
			// A job whose task length is unknown needs everything anyway
			// and is left out of the others' plan.
			dem[i].work = shareWork
		}
		last = max(last, ji.goal)
	}
	pl := reversePlace(now, dem, p.cuts(now, last), p.capacityFunc())
	for i, ji := range p.active {
		pend := float64(ji.pend())
		work, end, ok := pl.current(i)
		switch {
		case !knowns[i] || ji.goal <= now || !ok:
			ji.need = pend
		case shares[i] <= 0:
			ji.need = 0
		default:
			ji.need = ceilTasks(work / end.Sub(now).Seconds() / shares[i])
		}
	}
}

// cuts returns the forecast's knots in (now, last): where the capacity left
// by the external load changes slope, so periods cut there see it as linear.
func (p *Policy) cuts(now, last clock.Time) []clock.Time {
	if p.forecast == nil {
		return nil
	}
	var out []clock.Time
	for t := p.forecast.NextKnot(now); t < last; t = p.forecast.NextKnot(t) {
		out = append(out, t)
	}
	return out
}

// capacityFunc is the capacity, in dominant share × seconds, that the
// forecast leaves to jobs with goals: the cluster less the external load
// and less what ApplicationMasters and jobs without goals hold now (assumed
// held throughout).
func (p *Policy) capacityFunc() capacityFunc {
	res := p.reserved()
	return func(a, b clock.Time) float64 {
		c := b.Sub(a).Seconds() * (1 - res)
		if p.forecast != nil {
			c -= p.forecast.Integral(a, b)
		}
		return max(c, 0)
	}
}
