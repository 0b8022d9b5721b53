package sched

import "math"

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
//
// YARN's Capacity monitor also caps what a leaf accepts at the larger of
// its guarantee and what it holds now (TempQueuePerPartition.offer, through
// filterByMaxDeductAssigned), unless
// preemption-to-balance-queue-after-satisfied.enabled, off by default: a
// queue is given back its guarantee, but a queue above its guarantee is not
// grown further by taking from another queue above its own. Capped is
// therefore the default here too (DivideInput.Used); Balance lifts the cap.
// Fair's fair share has no such cap: Fair divides by weight (ByWeight) and
// ignores Used.
//
// Queues without a guarantee (capacity 0) take part in the sharing only
// once every sibling with a guarantee has what it asks for, then equally
// among themselves, as YARN's computeFixpointAllocation shares among queues
// of zero guarantee.

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
	// Used is what each queue holds now; when set (and neither ByWeight
	// nor Balance), a leaf is given at most max(its guarantee, Used), as
	// YARN's Capacity monitor does by default, and a parent at most what
	// its leaves may be given.
	Used []float64
	// Balance lifts that cap: queues above their guarantees are levelled
	// against one another too (YARN's
	// preemption-to-balance-queue-after-satisfied).
	Balance bool
	// Cap, Floor and Kept are scratch, indexed like Demand; allocated
	// when nil.
	Cap, Floor, Kept []float64
}

// Divide fills ideal, indexed by Queue.Index, with the share of the
// cluster each queue of root's tree should hold (YARN's ideal assignment):
// the root divides the whole cluster among its children, each parent what
// it was given among its own. A queue never gets more than its demand or
// its absolute maximum capacity, and gets at least min(guarantee, demand)
// whenever its parent was given that much.
func Divide(root *Queue, in DivideInput, ideal []float64) {
	if len(in.Cap) < len(in.Demand) {
		in.Cap = make([]float64, len(in.Demand))
	}
	if len(in.Floor) < len(in.Demand) {
		in.Floor = make([]float64, len(in.Demand))
	}
	if len(in.Kept) < len(in.Demand) {
		in.Kept = make([]float64, len(in.Demand))
	}
	capped := in.Used != nil && !in.ByWeight && !in.Balance
	setCaps(root, in, capped)
	divide(root, 1, in, ideal)
}

// setCaps fills in.Cap and in.Floor below p. A queue's cap is what it can
// use: its demand within its maximum capacity, for a capped leaf also
// within max(guarantee, used), for a capped parent within the sum of its
// children's caps. Its floor is what it is given before anything is
// shared: its guarantee as far as it asks for it, and at least what a
// queue spared from preemption holds (a parent: what its spared leaves
// hold), as YARN counts a non-preemptable queue's excess as untouchable.
// It returns the sums of the caps and of the untouchable parts of p's
// children.
func setCaps(p *Queue, in DivideInput, capped bool) (capSum, keptSum float64) {
	for _, q := range p.children {
		c := max(min(in.Demand[q.index], q.absMax), 0)
		kept := 0.0
		if q.Leaf() {
			if capped {
				c = min(c, max(q.abs, in.Used[q.index]))
			}
			if q.noPreempt && in.Used != nil {
				kept = min(in.Used[q.index], c)
			}
		} else {
			cs, ks := setCaps(q, in, capped)
			if capped {
				c = min(c, cs)
			}
			kept = min(ks, c)
		}
		in.Cap[q.index] = c
		in.Kept[q.index] = kept
		in.Floor[q.index] = max(min(q.abs, c), kept)
		capSum += c
		keptSum += kept
	}
	return capSum, keptSum
}

func divide(p *Queue, total float64, in DivideInput, ideal []float64) {
	n := len(p.children)
	if n == 0 {
		return
	}
	// Each child's cap (what it can use) and floor (what it is
	// guaranteed, as far as it asks for it).
	var capSum, floorSum, weighted float64
	for _, q := range p.children {
		c := in.Cap[q.index]
		ideal[q.index] = in.Floor[q.index] // for now
		capSum += c
		floorSum += ideal[q.index]
		if divideWeight(q, in) > 0 {
			weighted += c
		} else {
			weighted += ideal[q.index]
		}
	}
	switch {
	case total <= 0:
		for _, q := range p.children {
			ideal[q.index] = 0
		}
	case floorSum >= total:
		// Not even the floors fit (the parent was cut below its own, a
		// queue spared from preemption holds more than its guarantee, or
		// the measure does not add up). What spared queues hold comes
		// first, as far as it fits; the guarantees share the rest in
		// proportion.
		keptSum := 0.0
		for _, q := range p.children {
			keptSum += in.Kept[q.index]
		}
		rest, extra := max(total-keptSum, 0), floorSum-keptSum
		for _, q := range p.children {
			k := in.Kept[q.index]
			switch {
			case keptSum >= total:
				ideal[q.index] = k * total / keptSum
			case extra > 0:
				ideal[q.index] = k + (ideal[q.index]-k)*rest/extra
			}
		}
	case capSum <= total:
		for _, q := range p.children {
			ideal[q.index] = in.Cap[q.index]
		}
	case weighted >= total:
		// The children with a weight share what is left among
		// themselves; those without keep their floor (nothing).
		waterFill(p, total, in, ideal, func(q *Queue) float64 { return divideWeight(q, in) })
	default:
		// Every child with a weight has its cap, and what is left goes
		// to the children without one, equally.
		waterFill(p, total, in, ideal, func(q *Queue) float64 {
			if divideWeight(q, in) > 0 {
				return math.Inf(1)
			}
			return 1
		})
	}
	for _, q := range p.children {
		divide(q, ideal[q.index], in, ideal)
	}
}

// divideWeight is what q's share of what is left is in proportion to: its
// weight (Fair, DRF) or its guarantee (Capacity).
func divideWeight(q *Queue, in DivideInput) float64 {
	if in.ByWeight {
		return q.spec.Weight
	}
	return q.abs
}

// waterFill raises a level L until p's children, each at max(floor,
// min(cap, L × weight(q))), hold exactly total, and gives each that. The
// sum grows with L, so bisection finds it; 60 halvings are below the
// precision of a float64 share. An infinite weight stands for a child
// given its cap from the start.
func waterFill(p *Queue, total float64, in DivideInput, ideal []float64, weight func(*Queue) float64) {
	at := func(q *Queue, l float64) float64 {
		c := in.Cap[q.index]
		w := weight(q)
		if math.IsInf(w, 1) {
			return c
		}
		return max(in.Floor[q.index], min(c, l*w))
	}
	lo, hi := 0.0, 0.0
	for _, q := range p.children {
		if w := weight(q); w > 0 && !math.IsInf(w, 1) {
			hi = max(hi, in.Cap[q.index]/w)
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
