package sched

// How a parent's share is divided among its children. This is the one
// place the core says what each queue of the tree should hold; the
// preemption monitor (preempt.go) takes containers back from the queues
// that hold more, and a status page may show it.
//
// YARN's Capacity scheduler (ProportionalCapacityPreemptionPolicy's
// computeIdealAllocation, which states as a fixpoint what its allocation
// converges to) gives each child of a parent first what it is guaranteed,
// as far as it asks for it (min(guarantee, demand), demand being what it
// holds plus what it waits for, capped by its maximum capacity), then
// shares what is left among the children that want more, the most
// under-served first, in proportion to their guarantees, until every child
// has what it asks for or nothing is left. Fair's fair share
// (ComputeFairShares) is the same water-filling with weights in place of
// guarantees, a child's min share as its floor and its max share as its
// cap. Both are therefore one computation, done here on shares of the
// cluster in one scalar measure (the caller's resource calculator: memory
// alone, YARN's default, or the dominant share).

// DivideInput is what Divide needs of every queue, as shares of the cluster
// in the caller's measure, indexed by Queue.Index (parents included):
// Demand is what the queue's subtree holds plus what it asks for and could
// be given (pending containers of admitted jobs). YARN starts each queue
// from min(used, guarantee) before sharing out the rest; the fixpoint it
// reaches is the same as starting from nothing, so what a queue holds now
// does not enter.
type DivideInput struct {
	Demand []float64
	// ByWeight shares what is left after guarantees in proportion to the
	// queues' weights (Fair, DRF) instead of their capacities (Capacity).
	ByWeight bool
}

// Divide fills ideal, indexed by Queue.Index, with the share of the
// cluster each queue of root's tree should hold (YARN's ideal assignment):
// the root divides the whole cluster among its children, each parent what
// it was given among its own. A queue never gets more than its demand or
// its absolute maximum capacity, and gets at least min(guarantee, demand)
// whenever its parent was given that much.
func Divide(root *Queue, in DivideInput, ideal []float64) {
	divide(root, 1, in, ideal)
}

func divide(p *Queue, total float64, in DivideInput, ideal []float64) {
	n := len(p.children)
	if n == 0 {
		return
	}
	// Each child's cap (what it can use) and floor (what it is
	// guaranteed, as far as it asks for it).
	var capSum, floorSum float64
	for _, q := range p.children {
		c := min(in.Demand[q.index], q.absMax)
		c = max(c, 0)
		ideal[q.index] = min(q.abs, c) // the floor, for now
		capSum += c
		floorSum += ideal[q.index]
	}
	switch {
	case total <= 0:
		for _, q := range p.children {
			ideal[q.index] = 0
		}
	case floorSum >= total:
		// Not even the guarantees fit (the parent was cut below its
		// own, or the measure does not add up): scale them down.
		for _, q := range p.children {
			ideal[q.index] *= total / floorSum
		}
	case capSum <= total:
		for _, q := range p.children {
			ideal[q.index] = max(min(in.Demand[q.index], q.absMax), 0)
		}
	default:
		// Water-filling: raise a level L until the children, each at
		// max(floor, min(cap, L × weight)), hold exactly total. The sum
		// grows with L, so bisection finds it; 60 halvings are below
		// the precision of a float64 share.
		weight := func(q *Queue) float64 {
			if in.ByWeight {
				return q.spec.Weight
			}
			return q.abs
		}
		at := func(q *Queue, l float64) float64 {
			c := max(min(in.Demand[q.index], q.absMax), 0)
			return max(min(q.abs, c), min(c, l*weight(q)))
		}
		lo, hi := 0.0, 0.0
		for _, q := range p.children {
			if w := weight(q); w > 0 {
				hi = max(hi, max(min(in.Demand[q.index], q.absMax), 0)/w)
			}
		}
		for range 60 {
			mid := (lo + hi) / 2
			sum := 0.0
			for _, q := range p.children {
				sum += at(q, mid)
			}
			if sum < total {
				lo = mid
			} else {
				hi = mid
			}
		}
		for _, q := range p.children {
			ideal[q.index] = at(q, hi)
		}
	}
	for _, q := range p.children {
		divide(q, ideal[q.index], in, ideal)
	}
}
