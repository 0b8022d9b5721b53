package adaptive

import (
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/sched"
)

// Task Scheduler: enforces the placement as nodes offer resources. A node's
// free resources go first to ApplicationMasters (a job cannot run without
// one), earliest goal first, then jobs without goals in submission order,
// as long as AMs hold no more than max_am_share of the cluster under the
// run's resource calculator (sched.View.AMRoom; the paper's
// Hadoop had no AM containers; without a limit a burst of jobs fills the
// cluster with AMs, as YARN's own schedulers prevent); then to the jobs with
// goals that hold fewer
// containers than the placement gives them, lowest utility first; then to
// jobs without goals, in submission order; and what is still free to the
// jobs with goals that could use more, lowest utility first, so that no
// resource idles while some job could use it. Utilities are re-evaluated as
// containers are allocated and released, so between cycles each container
// goes where the lowest utility gains.

// rekey refreshes a job's place in the scheduler's order after what it holds,
// asks for or needs changed.
func (p *Policy) rekey(ji *jobInfo) {
	ji.keyBehind = ji.held < ji.target
	if p.cfg.Triage {
		ji.keyU = ji.prio
	} else {
		ji.keyU = Utility(float64(ji.held), ji.need, float64(ji.pend()))
	}
	p.goals.Fix(ji.j)
}

// before orders jobs with goals: behind their placement first, then by
// utility, then by goal, then by submission.
func (p *Policy) before(a, b *sched.Job) bool {
	ja, jb := p.jobs[a.ID()], p.jobs[b.ID()]
	if ja.keyBehind != jb.keyBehind {
		return ja.keyBehind
	}
	if ja.keyU != jb.keyU {
		return ja.keyU < jb.keyU
	}
	if ja.goal != jb.goal {
		return ja.goal < jb.goal
	}
	return a.ID() < b.ID()
}

// Pick chooses the ask that gets a container on n.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	room := n.Free()
	if p.capped() {
		c := n.Capacity()
		room = room.Min(c.Sub(cluster.ExternalShare(c, p.peak)).Sub(n.Allocated()))
	}
	if p.amWait.Len() > 0 {
		if a := p.amWait.First(n, room.Min(p.v.AMRoom(p.amLimit, p.v.Cluster().AMAllocated()))); a != nil {
			return a
		}
	}
	a := p.goals.First(n, room)
	if a != nil && p.jobs[a.Job().ID()].keyBehind {
		return a
	}
	if b := p.best.First(n, room); b != nil {
		return b
	}
	return a
}

// amBefore orders jobs waiting for their AM: jobs with goals first, the
// earliest goal first (all of them have nothing yet, so the utility ties at
// −1 and the placement's tie-break decides), then jobs without goals, then
// by submission.
func (p *Policy) amBefore(a, b *sched.Job) bool {
	ga, gb := p.jobs[a.ID()].goal, p.jobs[b.ID()].goal
	if (ga >= 0) != (gb >= 0) {
		return ga >= 0
	}
	if ga != gb {
		return ga < gb
	}
	return a.ID() < b.ID()
}
