// Package fifo is YARN's FIFO scheduler: every free resource goes to the
// earliest-submitted job that can use it, a job of higher priority first
// (YARN's application priority). Queues are ignored: one order over every
// leaf's jobs.
//
// By default a job whose next request does not fit a node lets later jobs use
// that node, as YARN's FifoScheduler does (it walks applications in order and
// assigns whatever fits). With strict=true the head job blocks everyone behind
// it until its request fits, which is plain first-come-first-served.
package fifo

import (
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/sched"
)

// Config holds the policy's parameters.
type Config struct {
	Strict bool
}

// Params reads the parameters.
func Params(r *params.Reader) Config {
	return Config{Strict: r.Bool("strict", false, "head-of-line blocking: a job whose next request does not fit stops every later job (default false)")}
}

// Policy is the FIFO scheduler.
type Policy struct {
	cfg     Config
	wanting *jobq.Queue // jobs with outstanding asks, by priority then submission
}

// New returns a FIFO policy.
func New(_ *sched.View, cfg Config) *Policy {
	return &Policy{cfg: cfg, wanting: jobq.ByPriority(nil)}
}

// AsksChanged keeps the set of jobs with outstanding asks.
func (p *Policy) AsksChanged(j *sched.Job) { p.wanting.Update(j) }

// Pick returns the first outstanding ask, by priority then submission, that
// fits n.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	if !p.cfg.Strict {
		return p.wanting.First(n, free)
	}
	head := p.wanting.Head()
	if head == nil {
		return nil
	}
	if a := head.NextAsk(); a.Request.Fits(free) && a.EligibleOn(n) {
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
