package adaptive

import (
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
)

// Triage (adaptive+): max-min utility spreads lateness over every job, so
// when the machines are short every job ends a little late. Triage instead
// separates the jobs that can still meet their goal, even alone on what the
// forecast leaves, from those that cannot:
//
//   - a job is feasible when its remaining work, run as wide as it can on the
//     capacity the forecast leaves (the cluster less the external load, less
//     what AMs and jobs without goals hold now), ends by its goal;
//   - feasible jobs are planned backwards into the forecast as
//     Reverse-Adaptive does (s_fit, over the feasible jobs only), and are
//     served least laxity first: each gets its s_fit, then, in the same
//     order, whatever more it can use;
//   - jobs that cannot make their goal yield: they get what the feasible
//     jobs leave, the one that would finish soonest alone first, which keeps
//     their lateness short.
//
// Laxity is the goal less the job's finish alone. A job whose task length is
// unknown counts as feasible with laxity its time left.

// infeasiblePrio puts jobs that cannot meet their goal after every feasible
// one in the scheduler's order.
const infeasiblePrio = 1e15

// aloneHorizon bounds the forward walk of finishAlone.
const aloneHorizon = 30 * 24 * 3600 * clock.Second

// finishAlone is when work (dominant share × seconds) ends if the job runs
// at up to rate (its tasks left × their share) on the capacity c leaves,
// walking forward from now over the forecast's knots; clock.Never when
// never within the horizon.
func finishAlone(now clock.Time, work, rate float64, next func(clock.Time) clock.Time, c capacityFunc) clock.Time {
	if work <= 0 {
		return now
	}
	if rate <= 0 {
		return clock.Never
	}
	t := now
	for t < now.Add(aloneHorizon) {
		b := next(t)
		if b <= t || b > t.Add(3600*clock.Second) {
			b = t.Add(3600 * clock.Second)
		}
		span := b.Sub(t).Seconds()
		r := min(rate, c(t, b)/span)
		if r > 0 && work <= r*span {
			d, _ := clock.FromSeconds(work / r)
			return t.Add(d)
		}
		work -= max(r, 0) * span
		t = b
	}
	return clock.Never
}

// triageNeeds sets every started job's need and priority under triage.
func (p *Policy) triageNeeds(now clock.Time) {
	capf := p.capacityFunc()
	next := func(t clock.Time) clock.Time {
		if p.forecast == nil {
			return clock.Never
		}
		return p.forecast.NextKnot(t)
	}
	dem := make([]demand, len(p.active))
	shares := make([]float64, len(p.active))
	feasible := make([]bool, len(p.active))
	last := now
	for i, ji := range p.active {
		_, shareWork, rate, share, known := ji.remaining(now)
		shares[i] = share
		dem[i] = demand{goal: ji.goal, rate: rate}
		switch {
		case !known:
			feasible[i] = ji.goal > now
			ji.prio = ji.goal.Sub(now).Seconds()
		default:
			end := finishAlone(now, shareWork, rate, next, capf)
			feasible[i] = end <= ji.goal
			if feasible[i] {
				ji.prio = ji.goal.Sub(end).Seconds()
			} else {
				ji.prio = infeasiblePrio + end.Sub(now).Seconds()
				if end == clock.Never {
					ji.prio = 2 * infeasiblePrio
				}
			}
		}
		if feasible[i] && known {
			dem[i].work = shareWork
			last = max(last, ji.goal)
		} else {
			dem[i].goal = now // takes no part, and cuts no period
		}
		ji.feasible = feasible[i]
	}
	pl := reversePlace(now, dem, p.cuts(now, last), capf)
	for i, ji := range p.active {
		work, end, ok := pl.current(i)
		switch {
		case !feasible[i]:
			ji.need = 0
		case dem[i].work == 0 || !ok:
			ji.need = float64(ji.pend())
		case shares[i] <= 0:
			ji.need = 0
		default:
			ji.need = ceilTasks(work / end.Sub(now).Seconds() / shares[i])
		}
	}
}

// triagePlace sets targets: feasible jobs least laxity first up to their
// need, then the same order up to all they can use, then the jobs that
// cannot meet their goal, soonest done first.
func (p *Policy) triagePlace() {
	cl := p.v.Cluster()
	free := cl.Free()
	if p.capped() {
		free = free.Min(p.capacity.Sub(cluster.ExternalShare(p.capacity, p.peak)).Sub(cl.Allocated()))
	}
	left := p.freeShare(free)
	order := slices.Clone(p.active)
	slices.SortStableFunc(order, func(a, b *jobInfo) int {
		switch {
		case a.prio < b.prio:
			return -1
		case a.prio > b.prio:
			return 1
		}
		return int(a.j.ID()) - int(b.j.ID())
	})
	for _, ji := range order {
		ji.target = ji.held
	}
	give := func(ji *jobInfo, upTo int) {
		_, _, _, share, _ := ji.remaining(p.v.Now())
		if share <= 0 {
			return
		}
		for ji.target < upTo && share <= left+1e-12 {
			ji.target++
			left -= share
		}
	}
	for _, ji := range order {
		if ji.feasible {
			give(ji, min(ji.pend(), int(ji.need)))
		}
	}
	for _, ji := range order {
		if ji.feasible {
			give(ji, ji.pend())
		}
	}
	for _, ji := range order {
		if !ji.feasible {
			give(ji, ji.pend())
		}
	}
}
