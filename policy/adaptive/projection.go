package adaptive

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
)

// Completion projection: when the scheduler, by its own model, expects a job
// to finish. At a job's first control cycle the scheduler runs its model
// forward from that moment over every job with a goal then running: a
// fluid in which, every cycle, the needs are re-estimated by the scheduler's
// own estimator and the capacity it believes in is shared by its placement
// (maximising the lowest utility). A job runs at most as many tasks at once
// as it had left when the projection started; its work is a fluid, so its
// last wave may spread over more tasks than it has, which makes the
// projection a little early for jobs that run in several waves. Adaptive believes the capacity it sees
// now will last; Reverse-Adaptive believes the load forecast. Neither knows
// of jobs still to come. Comparing the projection with the actual
// completion measures how good each model is; the paper claims
// Reverse-Adaptive's is the better one.

// Estimate is one job's projected completion, made at its first control
// cycle, next to when it actually completed (its last task COMPLETED).
type Estimate struct {
	Job       string
	Submit    clock.Time
	Goal      clock.Time
	Projected clock.Time
	Actual    clock.Time
}

// maxProjectionSteps bounds a projection; jobs not done by then are
// projected to finish at the rate of their last step.
const maxProjectionSteps = 2000

// projected is a job in the projection.
type projected struct {
	ji    *jobInfo
	work  float64 // share-seconds left
	share float64
	tasks float64 // tasks left when the projection starts: the most it runs at once
	done  clock.Time
}

// projectNew projects the jobs seeing their first cycle.
func (p *Policy) projectNew(now clock.Time) {
	fresh := false
	for _, ji := range p.active {
		fresh = fresh || !ji.planned
	}
	if !fresh {
		return
	}
	done := p.project(now)
	for i, ji := range p.active {
		if !ji.planned {
			ji.forecast = done[i]
		}
	}
}

// project returns, for each started job, when the scheduler's model says it
// will complete.
func (p *Policy) project(now clock.Time) []clock.Time {
	js := make([]projected, len(p.active))
	for i, ji := range p.active {
		_, shareWork, _, share, known := ji.remaining(now)
		js[i] = projected{ji: ji, work: shareWork, share: share, tasks: float64(ji.tasksLeft()), done: -1}
		if shareWork <= 0 || share <= 0 || !known {
			// Nothing to model: an unknown task length, or nothing left.
			js[i].done = now
		}
	}
	step := p.cfg.Cycle
	capf := p.capacityFunc()
	// Adaptive's belief: what goal jobs could hold now, for ever.
	k0 := p.freeShare(p.v.Cluster().Free())
	for _, x := range js {
		k0 += float64(x.ji.held) * x.share
	}
	need := make([]float64, len(js))
	pend := make([]float64, len(js))
	var alloc []float64
	t := now
	for n := 0; n < maxProjectionSteps; n++ {
		live := 0
		for i := range js {
			if js[i].done < 0 {
				live++
				pend[i] = js[i].tasks
			} else {
				pend[i] = 0
			}
		}
		if live == 0 {
			break
		}
		k := k0
		if p.cfg.Mode == Reverse {
			k = capf(t, t.Add(step)) / step.Seconds()
		}
		p.projectNeeds(t, js, pend, need)
		alloc = fluidPlace(need, pend, js, k, alloc)
		end := t.Add(step)
		for i := range js {
			x := &js[i]
			if x.done >= 0 {
				continue
			}
			rate := alloc[i] * x.share
			if rate*step.Seconds() >= x.work {
				d, _ := clock.FromSeconds(x.work / rate)
				x.done, x.work = t.Add(d), 0
				continue
			}
			x.work -= rate * step.Seconds()
			if n == maxProjectionSteps-1 {
				d, _ := clock.FromSeconds(math.Min(x.work/math.Max(rate, 1e-9), 1e9))
				x.done = end.Add(d)
			}
		}
		t = end
	}
	out := make([]clock.Time, len(js))
	for i, x := range js {
		out[i] = x.done
	}
	return out
}

// projectNeeds is the scheduler's estimator on the projected state.
func (p *Policy) projectNeeds(t clock.Time, js []projected, pend, need []float64) {
	if p.cfg.Mode == Adaptive {
		for i, x := range js {
			if x.done < 0 {
				need[i] = sReq(x.work/x.share, x.ji.goal.Sub(t).Seconds(), pend[i], true)
			}
		}
		return
	}
	dem := make([]demand, len(js))
	last := t
	for i, x := range js {
		dem[i] = demand{goal: x.ji.goal, rate: pend[i] * x.share}
		if x.done < 0 {
			dem[i].work = x.work
		}
		last = max(last, x.ji.goal)
	}
	pl := reversePlace(t, dem, p.cuts(t, last), p.capacityFunc())
	for i, x := range js {
		if x.done >= 0 {
			continue
		}
		work, end, ok := pl.current(i)
		if !ok || x.ji.goal <= t {
			need[i] = pend[i]
			continue
		}
		need[i] = ceilTasks(work / end.Sub(t).Seconds() / x.share)
	}
}

// fluidPlace shares capacity k among the live jobs so as to maximise the
// lowest utility, with tasks as a fluid: every job gets the parallelism at
// which its utility reaches a common level, found by bisection.
func fluidPlace(need, pend []float64, js []projected, k float64, out []float64) []float64 {
	out = append(out[:0], make([]float64, len(js))...)
	at := func(i int, lv float64) float64 {
		n, m := need[i], pend[i]
		switch {
		case lv < 0:
			return min(m, n*(1+lv))
		case m > n:
			return n + lv*(m-n)
		}
		return m
	}
	total := func(lv float64) float64 {
		s := 0.0
		for i := range js {
			if js[i].done < 0 {
				s += at(i, lv) * js[i].share
			}
		}
		return s
	}
	lo, hi := -1.0, 1.0
	if total(hi) > k {
		for range 60 {
			mid := (lo + hi) / 2
			if total(mid) <= k {
				lo = mid
			} else {
				hi = mid
			}
		}
		hi = lo
	}
	for i := range js {
		if js[i].done < 0 {
			out[i] = at(i, hi)
		}
	}
	return out
}

// EstimateStats summarise projections against outcomes.
type EstimateStats struct {
	Jobs int `json:"jobs"`
	// AbsErrorAvgS is the mean |projected − actual| completion, seconds.
	AbsErrorAvgS *float64 `json:"abs_error_avg_s"`
	// ErrorAvgS is the mean projected − actual: negative when the model
	// is optimistic.
	ErrorAvgS *float64 `json:"error_avg_s"`
	// AbsErrorRelAvg is the mean |projected − actual| over the job's
	// actual completion time (from its submission).
	AbsErrorRelAvg *float64 `json:"abs_error_rel_avg"`
}

// SummarizeEstimates computes the stats of a set of projections.
func SummarizeEstimates(es []Estimate) EstimateStats {
	st := EstimateStats{Jobs: len(es)}
	if len(es) == 0 {
		return st
	}
	var abs, signed, rel float64
	for _, e := range es {
		d := e.Projected.Sub(e.Actual).Seconds()
		abs += math.Abs(d)
		signed += d
		rel += math.Abs(d) / math.Max(e.Actual.Sub(e.Submit).Seconds(), 1e-9)
	}
	n := float64(len(es))
	a, s, r := abs/n, signed/n, rel/n
	st.AbsErrorAvgS, st.ErrorAvgS, st.AbsErrorRelAvg = &a, &s, &r
	return st
}
