package fair

import (
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/internal/qtree"
	"github.com/spindle-sched/spindle/sched"
)

// The queue tree, as YARN's Fair scheduler walks it: a parent offers a node
// to its children in the order of FairSharePolicy's comparator: those below
// their minimum share (their absolute capacity, as YARN Fair's
// minResources) first, by usage over that share; then the others furthest
// below their fair share, usage over weight; stable in workload order. With
// weights equal to capacities (the default) the two orders agree, and this
// is usage over weight throughout. A
// queue's instantaneous fair share is its weight's fraction of its active
// siblings' (those with jobs admitted or asking), times its parent's: the
// AM limit is max_am_share of it. With flat queues (children of the root)
// this is the walk the policy always made.

// wants reports whether a job in fq's subtree asks for a container.
func (fq *queue) wants() bool {
	if fq.running != nil {
		return fq.running.Len() > 0 || fq.amWait.Len() > 0
	}
	for _, c := range fq.children {
		if c.wants() {
			return true
		}
	}
	return false
}

// pickUnder offers node n to parent's children, furthest below their fair
// share first; fairFrac is parent's instantaneous fair share of the
// cluster.
func (p *Policy) pickUnder(parent *queue, n *cluster.Node, fairFrac float64) *sched.Ask {
	parent.order = parent.order[:0]
	active := 0.0
	for _, fq := range parent.children {
		wants := fq.wants()
		if wants || fq.q.ActiveJobs() > 0 {
			active += fq.weight
		}
		if wants {
			parent.order = append(parent.order, fq)
		}
	}
	if len(parent.order) > 1 {
		qtree.SortStable(parent.order, func(qa, qb *queue) bool {
			return sched.FairBefore(qa.q, p.share(qa.q.Usage()), qb.q, p.share(qb.q.Usage()))
		})
	}
	for _, fq := range parent.order {
		frac := fairFrac * fq.weight / active
		var a *sched.Ask
		if fq.running != nil {
			a = p.pickIn(fq, n, frac)
		} else {
			a = p.pickUnder(fq, n, frac)
		}
		if a != nil {
			return a
		}
	}
	return nil
}

// fairFrac is leaf fq's instantaneous fair share of the cluster, as
// pickUnder computes it on the way down: at every level its weight's
// fraction of its active siblings' (itself counted as active).
func (p *Policy) fairFrac(fq *queue) float64 {
	if len(p.queues) == 1 {
		return 1
	}
	frac := 1.0
	for q := fq.q; q.Parent() != nil; q = q.Parent() {
		parent := p.root
		if pq := q.Parent(); pq.Index() >= 0 {
			parent = p.queues[pq.Index()]
		}
		self := p.root
		if q.Index() >= 0 {
			self = p.queues[q.Index()]
		}
		active := 0.0
		for _, c := range parent.children {
			if c == self || c.wants() || c.q.ActiveJobs() > 0 {
				active += c.weight
			}
		}
		frac *= self.weight / active
	}
	return frac
}
