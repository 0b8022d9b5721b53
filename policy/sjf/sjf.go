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
//
// SJF is policy/internal/ordered with jobs ordered by Less; FIFO is the same
// policy in submission order. As with FIFO, a job of higher priority comes
// first; the estimate orders jobs of equal priority (all of them, by
// default).
package sjf

import (
	"github.com/spindle-sched/spindle/clock"
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
	return Config{Strict: r.Bool("strict", false, "head-of-line blocking: the shortest job whose next request does not fit stops every other job (default false: work-conserving)")}
}

// Policy is the SJF scheduler: the ordered policy by estimate.
type Policy = ordered.Policy

// New returns an SJF policy.
func New(_ *sched.View, cfg Config) *Policy { return ordered.New(Less, cfg.Strict) }

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
