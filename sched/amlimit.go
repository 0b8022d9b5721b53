package sched

import (
	"math"

	"github.com/spindle-sched/spindle/resource"
)

// This file is the ApplicationMaster limit, YARN's guard against a burst of
// applications whose AMs take the whole cluster and then wait for task
// containers that can never come (the deadlock AutoAdmin describes). Every
// policy with an AM limit computes its limit its own way (Capacity's
// maximum-am-resource-percent of what a queue may use, Fair's maxAMShare of
// a queue's fair share, a share of the cluster) and asks AMRoom what one
// more AM may take, so that the test itself, the run's resource calculator
// and the "at least one AM" rule are written once.

// AMLimit returns fraction of usable, rounded up in every resource: the most
// a set of AMs may hold when they may take that fraction of what is usable to
// them. Capacity's limit is maximum-am-resource-percent of what the queue
// may use now (YARN multiplies and normalizes up); Fair's is maxAMShare of
// the queue's fair share (Hadoop 3 multiplies and rounds up, "to allow AM to
// run when there is only one vcore on the cluster"). spindle has no minimum
// allocation to normalize to, so the limit rounds up to whole units.
//
// A negative fraction turns the limit off (Fair's maxAMShare = -1): the
// result is NoAMLimit.
func AMLimit(usable resource.Vector, fraction float64) resource.Vector {
	if fraction < 0 {
		return NoAMLimit
	}
	var l resource.Vector
	for d := range usable {
		// The slack keeps an exact product (0.1 × 20480) from rounding
		// up past itself.
		l[d] = int64(math.Ceil(float64(usable[d])*fraction - 1e-9))
	}
	return l
}

// NoAMLimit is the limit of a policy whose AM limit is off: AMRoom returns
// the whole cluster for it, however many AMs run.
var NoAMLimit = resource.Vector{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64}

// AMRoom returns what one more ApplicationMaster may take when the AMs
// counted against limit hold used: an AM whose request fits the result
// (resource.Vector.Fits) keeps used + AM within limit under the run's
// resource calculator (Config.Calculator, View.Calculator). It is YARN's
// test, amIfStarted = used + AM ≤ limit (Capacity's activateApplications,
// Fair's canRunAppAM), turned into a vector that caps what a node offers.
//
// When no AM is counted (used is none under the calculator), the whole
// cluster is returned: one AM may always start, however large, as Capacity
// does ("skipping enforcement to allow at least one application to
// start"), and so it is for NoAMLimit. Resources the calculator ignores
// are bounded by the cluster only.
func (v *View) AMRoom(limit, used resource.Vector) resource.Vector {
	return amRoom(v.c.calc, v.c.cl.Capacity(), limit, used)
}

// AMRoomIn is AMRoom with the calculator given: for a policy that
// deliberately compares AMs another way than the run does (drf checks
// every resource, as YARN's Fair scheduler does under its drf policy).
func (v *View) AMRoomIn(calc resource.Calculator, limit, used resource.Vector) resource.Vector {
	return amRoom(calc, v.c.cl.Capacity(), limit, used)
}

func amRoom(calc resource.Calculator, cluster, limit, used resource.Vector) resource.Vector {
	if limit == NoAMLimit || calc.LessOrEqual(cluster, used, resource.Vector{}) {
		return cluster
	}
	return calc.Room(cluster, used, limit)
}

// Calculator returns the run's resource calculator (Config.Calculator).
func (v *View) Calculator() resource.Calculator { return v.c.calc }
