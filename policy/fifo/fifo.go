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
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/ordered"
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

// Policy is the FIFO scheduler: the ordered policy by submission.
type Policy = ordered.Policy

// New returns a FIFO policy.
func New(_ *sched.View, cfg Config) *Policy { return ordered.New(Less, cfg.Strict) }

// Less orders jobs by submission; ordered puts a job of higher priority
// first.
func Less(a, b *sched.Job) bool { return a.ID() < b.ID() }
