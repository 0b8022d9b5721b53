package adaptive

import (
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/internal/pq"
)

// Placement Algorithm: how many containers each job with a goal should hold
// this cycle. Starting from what each holds (tasks are never preempted), the
// capacity left is handed out one container at a time to the job whose
// utility is lowest, until it runs out or every job has all it could use:
// the placement that maximises the lowest utility, and among those the next
// lowest, and so on. Ties go to the earlier goal, then the earlier job.

// replan recomputes every started job's need, the placement, and the task
// scheduler's order.
func (p *Policy) replan(now clock.Time) {
	p.plans++
	if len(p.active) == 0 {
		return
	}
	if p.cfg.Triage {
		p.triageNeeds(now)
		p.triagePlace()
	} else {
		p.estimateNeeds(now)
		p.place()
	}
	for _, ji := range p.active {
		p.rekey(ji)
	}
}

// candidate is a job in the placement.
type candidate struct {
	ji    *jobInfo
	s     int // containers given so far, counting those held
	pend  int
	share float64
	pos   int
}

// place sets each started job's target. The capacity is what the cluster
// has free (for Reverse-Adaptive, within the room it keeps for the forecast
// load) plus what the jobs hold, as the fraction of the cluster free in its
// scarcest resource.
func (p *Policy) place() {
	cl := p.v.Cluster()
	free := cl.Free()
	if p.capped() {
		limit := p.capacity.Sub(cluster.ExternalShare(p.capacity, p.peak)).Sub(cl.Allocated())
		free = free.Min(limit)
	}
	left := p.freeShare(free)
	h := pq.New(func(a, b *candidate) bool {
		ua := Utility(float64(a.s), a.ji.need, float64(a.pend))
		ub := Utility(float64(b.s), b.ji.need, float64(b.pend))
		if ua != ub {
			return ua < ub
		}
		if a.ji.goal != b.ji.goal {
			return a.ji.goal < b.ji.goal
		}
		return a.ji.j.ID() < b.ji.j.ID()
	}, func(c *candidate, i int) { c.pos = i })
	for _, ji := range p.active {
		_, _, _, share, _ := ji.remaining(p.v.Now())
		ji.target = ji.held
		c := &candidate{ji: ji, s: ji.held, pend: ji.pend(), share: share}
		if c.s < c.pend && share > 0 {
			h.Push(c)
		}
	}
	for h.Len() > 0 {
		c := h.Min()
		if c.share > left+1e-12 {
			h.Remove(0) // does not fit what is left; smaller jobs may
			continue
		}
		c.s++
		c.ji.target = c.s
		left -= c.share
		if c.s >= c.pend {
			h.Remove(0)
		} else {
			h.Fix(0)
		}
	}
}

// capped reports whether placement keeps room for a forecast load.
func (p *Policy) capped() bool { return p.cfg.Mode == Reverse && p.peak > 0 }
