package capacity

import (
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/internal/qtree"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// The queue tree, as YARN's Capacity scheduler walks it on a node update:
// from the root, a parent offers the node to its children from the most
// under-served (the lowest used capacity: what the child holds over its
// guarantee, both as shares of the cluster) to the least, stable in
// workload order, and each child takes only what keeps it and every
// ancestor within its maximum capacity. Idle capacity so goes first to the
// sibling furthest below its guarantee, and siblings that all want more
// grow in proportion to their guarantees. A leaf serves its jobs first in,
// first out. With flat queues (children of the root) this is the walk the
// policy always made.

// share is the queue's dominant share of the cluster; over its absolute
// capacity it is YARN's used capacity, compared by sched.CapacityBefore
// (which also places queues without a guarantee).
func (p *Policy) share(cq *queue) float64 {
	return cq.q.Usage().DominantShare(p.v.Cluster().Capacity())
}

// wants reports whether a job in cq's subtree asks for a container.
func (cq *queue) wants() bool {
	if cq.wanting != nil {
		return cq.wanting.Len() > 0 || cq.amWait.Len() > 0
	}
	for _, c := range cq.children {
		if c.wants() {
			return true
		}
	}
	return false
}

// pickUnder offers node n to parent's children, most under-served first;
// ceiling is what parent's own ceiling and its ancestors' leave (the whole
// cluster at the root).
func (p *Policy) pickUnder(parent *queue, n *cluster.Node, ceiling resource.Vector) *sched.Ask {
	parent.order = parent.order[:0]
	for _, cq := range parent.children {
		if cq.wants() {
			parent.order = append(parent.order, cq)
		}
	}
	if len(parent.order) > 1 {
		qtree.SortStable(parent.order, func(qa, qb *queue) bool {
			return sched.CapacityBefore(qa.q, p.share(qa), qb.q, p.share(qb))
		})
	}
	free := n.Free()
	for _, cq := range parent.order {
		// What the queue may still take: the node's free resources,
		// capped by its ceiling and its ancestors'.
		c := ceiling.Min(cq.ceiling.Sub(cq.q.Usage()))
		var a *sched.Ask
		if cq.wanting != nil {
			a = p.pickLeaf(cq, n, free, free.Min(c), c)
		} else {
			a = p.pickUnder(cq, n, c)
		}
		if a != nil {
			return a
		}
	}
	return nil
}
