package sched

// The order in which a parent offers a node to its children, as the
// policies that share a tree define it. The policies and the preemption
// monitor compare queues through these functions, so that the monitor
// never takes a container the scheduler would hand straight back.
//
// A queue with no guarantee (capacity 0, as YARN allows) has no used
// capacity: what it holds over nothing. It comes after every sibling with
// a guarantee, whatever they hold, and before another queue without one
// when it holds less: it is offered what the guaranteed queues leave.

// CapacityBefore reports whether Capacity offers a node to sibling a,
// holding share ua of the cluster, before sibling b, holding ub: the lower
// used capacity (share over absolute capacity) first.
func CapacityBefore(a *Queue, ua float64, b *Queue, ub float64) bool {
	return capacityLess(a, ua, b, ub, 0)
}

// FairBefore reports whether Fair and DRF offer a node to sibling a before
// sibling b (YARN Fair's FairSharePolicy): a queue below its minimum share
// (its absolute capacity) before one at or above it, two below by share
// over minimum share, two above by share over weight.
func FairBefore(a *Queue, ua float64, b *Queue, ub float64) bool {
	return fairLess(a, ua, b, ub, 0)
}

// orderTolerance is the relative difference below which the monitor holds
// two queues level (see less). Usage is integral (resource units), so a
// share is one division of integers and exact ties compute alike; ratios
// equal in exact arithmetic but reached through different divisions (30
// units over a guarantee of 0.3 against 70 over 0.7) differ by an ulp or
// two, 1e-16 relative. One resource unit of a cluster of 10^9 units (a
// petabyte in megabytes) is 1e-9 of it: the tolerance is far below any
// real difference and far above rounding.
const orderTolerance = 1e-12

// less reports x < y by more than tol relative to the larger; tol 0 is
// exact comparison.
func less(x, y, tol float64) bool {
	if tol == 0 {
		return x < y
	}
	return y-x > tol*max(abs(x), abs(y))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// capacityLess is CapacityBefore with tolerance tol.
func capacityLess(a *Queue, ua float64, b *Queue, ub float64, tol float64) bool {
	za, zb := a.abs <= 0, b.abs <= 0
	switch {
	case za && zb:
		return less(ua, ub, tol)
	case za != zb:
		return zb
	}
	return less(ua/a.abs, ub/b.abs, tol)
}

// fairLess is FairBefore with tolerance tol.
func fairLess(a *Queue, ua float64, b *Queue, ub float64, tol float64) bool {
	na, nb := less(ua, a.abs, tol), less(ub, b.abs, tol)
	switch {
	case na && nb:
		return less(ua/a.abs, ub/b.abs, tol)
	case na != nb:
		return na
	}
	za, zb := a.spec.Weight <= 0, b.spec.Weight <= 0
	switch {
	case za && zb:
		return less(ua, ub, tol)
	case za != zb:
		return zb
	}
	return less(ua/a.spec.Weight, ub/b.spec.Weight, tol)
}
