// Package ordered is the policy that serves jobs in one fixed order: FIFO
// (by submission) and SJF (by estimate) are this policy with different
// orders. Keeping it in one place keeps them from drifting apart.
//
// By default the policy is work-conserving, as YARN's FifoScheduler is: a
// job whose next request does not fit a node lets the next job in order use
// it. With strict set, the first job in order blocks every later one until
// its next request fits: plain head-of-line service.
//
// A job's priority comes before the order: every job of a higher priority is
// served before any of a lower one, as YARN's application priority orders
// applications within a queue. It is applied here, once, so FIFO and SJF
// read it alike; with every priority equal (the default, 0) the order is
// the policy's own.
//
// The set of jobs it picks from is kept by AsksChanged alone. The core calls
// it whenever one of a job's asks starts or stops being outstanding, and a
// job that finishes or is ended by its driver has its asks withdrawn (and
// AsksChanged called) first, so a finished job is never in the set and the
// policy needs no FinishObserver; Core.Check holds that a finished job asks
// for nothing.
package ordered

import (
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/sched"
)

// Less orders two jobs of equal priority: true when a is served before b. It
// must be a strict order that does not change while both jobs wait (ties
// broken by job ID).
type Less func(a, b *sched.Job) bool

// Policy serves the jobs with outstanding asks in the order of its Less.
type Policy struct {
	strict  bool
	wanting *jobq.Queue // jobs with outstanding asks, by priority, then in order
}

// New returns a policy serving jobs by priority, then in the order of less;
// strict makes the first job block every later one until its next request
// fits.
func New(less Less, strict bool) *Policy {
	return &Policy{strict: strict, wanting: jobq.New(jobq.PriorityThen(less), nil)}
}

// AsksChanged keeps the set of jobs with outstanding asks.
func (p *Policy) AsksChanged(j *sched.Job) { p.wanting.Update(j) }

// Pick returns the first outstanding ask, in order, that fits n; in strict
// mode only the first job's next ask, if it fits.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	if !p.strict {
		return p.wanting.First(n, free)
	}
	head := p.wanting.Head()
	if head == nil {
		return nil
	}
	// Every job in the set has an outstanding ask, so NextAsk is not nil;
	// the check keeps Pick total should that ever change.
	if a := head.NextAsk(); a != nil && a.Request.Fits(free) && a.EligibleOn(n) {
		return a
	}
	return nil
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Policy      = (*Policy)(nil)
	_ sched.AskObserver = (*Policy)(nil)
)
