// Package sjf is Shortest-Job-First: the free resources of a node go to the
// job with the shortest estimated runtime. It is the baseline the DJSF paper
// (Hu and Li, Tsinghua Sci. Technol. 2022) improves on.
//
// A policy never sees task durations: the runtime it orders by is the job's
// estimate from the run's estimate source (declared, history or oracle).
// Jobs with no estimate (0) cannot be ranked, so they come after every job
// with one, in submission order, as if they were the longest; ties go to the
// earlier job.
//
// By default SJF is work-conserving: a job whose next request does not fit a
// node lets the next job in order use it, so a large short job does not block
// smaller ones behind it. With strict=true the shortest job with outstanding
// requests blocks every other until its next request fits.
package sjf

import (
	"github.com/spindle-sched/spindle/clock"
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
	return Config{Strict: r.Bool("strict", false, "head-of-line blocking: the shortest job whose next request does not fit stops every other job (default false: work-conserving)")}
}

// Policy is the SJF scheduler.
type Policy struct {
	cfg     Config
	wanting *jobq.Queue // jobs with outstanding asks, shortest estimate first
}

// New returns an SJF policy.
func New(_ *sched.View, cfg Config) *Policy {
	return &Policy{cfg: cfg, wanting: jobq.New(Less, nil)}
}

// Less orders jobs by estimate, unknown estimates last, then by submission.
func Less(a, b *sched.Job) bool {
	ea, eb := key(a), key(b)
	if ea != eb {
		return ea < eb
	}
	return a.ID() < b.ID()
}

func key(j *sched.Job) clock.Duration {
	if e := j.Spec().Estimate; e > 0 {
		return e
	}
	return clock.Duration(clock.Never)
}

// AsksChanged keeps the set of jobs with outstanding asks.
func (p *Policy) AsksChanged(j *sched.Job) { p.wanting.Update(j) }

// JobFinished drops the job.
func (p *Policy) JobFinished(j *sched.Job) { p.wanting.Update(j) }

// Pick returns the first outstanding ask, shortest job first, that fits n;
// in strict mode only the shortest job's next ask.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	if !p.cfg.Strict {
		return p.wanting.First(n, free)
	}
	head := p.wanting.Head()
	if head == nil {
		return nil
	}
	if a := head.NextAsk(); a != nil && a.Request.Fits(free) && a.EligibleOn(n) {
		return a
	}
	return nil
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Policy         = (*Policy)(nil)
	_ sched.AskObserver    = (*Policy)(nil)
	_ sched.FinishObserver = (*Policy)(nil)
)
