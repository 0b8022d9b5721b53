// Package adaptive is the Adaptive Scheduler (Polo et al.) and the
// Reverse-Adaptive scheduler built on it for machines shared with other,
// time-varying workloads: MapReduce jobs with completion-time goals, placed
// so as to maximise the lowest utility across jobs.
//
// Both run a control loop every cycle T and are made of the five parts the
// Reverse-Adaptive paper names, one file each:
//
//   - Job Status Updater (status.go): each job's held, running and completed
//     tasks and its observed mean task length, from the container
//     transitions the resource manager sees (the declared estimate until a
//     task completes).
//   - Workload Estimator (estimator.go): how many tasks each job must run in
//     parallel now to meet its goal. Adaptive's s_req assumes the job has
//     the machines to itself for the time left; Reverse-Adaptive's s_fit
//     places every job's remaining work backwards from the last goal into
//     what the machines will have left as the external load f(t) is
//     forecast, and reads off the current period's share.
//   - Job Utility Calculator (utility.go): u(s) in [−1, 1], 0 at the need.
//   - Placement Algorithm (placement.go): the number of containers each job
//     should hold this cycle, maximising the lowest utility.
//   - Task Scheduler (scheduler.go): on each node update, the containers go
//     to ApplicationMasters (earliest goal first, within YARN's AM limit),
//     then to jobs below their placement, lowest utility first; then to
//     jobs without goals (best effort); then to the rest.
//
// Reverse-Adaptive also keeps room for the forecast load: during a cycle it
// places only into what the forecast leaves free at its peak over the
// lookahead (by default the cycle, for which the placement holds). Adaptive
// ignores f(t) altogether; both can only use what the resource manager says
// is usable now.
//
// For the report, each scheduler also projects, at a job's first control
// cycle, when the job will finish under its own model (projection.go), so
// the accuracy of the two models can be compared.
package adaptive

import (
	"fmt"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/policy/internal/shapes"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Mode selects the scheme.
type Mode int

// Modes.
const (
	Adaptive Mode = iota // s_req: ignores the external load
	Reverse              // s_fit: reverse placement into the forecast capacity
)

// Config holds the policy's parameters.
type Config struct {
	Mode  Mode
	Cycle clock.Duration // the control cycle T
	// Lookahead (Reverse only) is how far past each cycle's start the
	// placement keeps room for the forecast load; 0 keeps room for the
	// forecast now only.
	Lookahead clock.Duration
	// Project records each job's projected completion at its first cycle.
	Project bool
	// MaxAMShare limits the share of the cluster ApplicationMasters may
	// hold (YARN's maximum-am-resource-percent); negative disables it.
	MaxAMShare float64
	// Triage (Reverse only; adaptive+) lets jobs that can no longer meet
	// their goal yield to those that can, served least laxity first
	// (triage.go).
	Triage bool
}

// DefaultCycle is the control cycle T unless set.
const DefaultCycle = 10 * clock.Second

// Params reads the parameters; the mode is fixed by the policy name.
func Params(r *params.Reader, mode Mode) Config { return readParams(r, mode, false) }

// PlusParams reads the parameters of adaptive+: Reverse-Adaptive with
// triage on by default.
func PlusParams(r *params.Reader) Config { return readParams(r, Reverse, true) }

func readParams(r *params.Reader, mode Mode, triage bool) Config {
	cfg := Config{Mode: mode}
	cfg.Cycle = r.Duration("cycle", DefaultCycle, "control cycle T: needs, placement and (for reverse-adaptive) the room kept for the forecast load are recomputed this often (default 10s)")
	if mode == Reverse {
		la := r.Float("lookahead", -1, -1, 1e6, "seconds past each cycle's start over which placement keeps room for the forecast external load at its peak; -1 (default) means one cycle, the time the placement holds; 0 the present only")
		if la < 0 {
			cfg.Lookahead = cfg.Cycle
		} else if d, ok := clock.FromSeconds(la); ok {
			cfg.Lookahead = d
		}
	}
	if mode == Reverse {
		cfg.Triage = r.Bool("triage", triage, fmt.Sprintf("jobs that cannot meet their goal even alone yield to those that can, served least laxity first (adaptive+; default %v)", triage))
	}
	cfg.MaxAMShare = r.Float("max_am_share", 0.1, -1, 1, "share of the cluster ApplicationMasters may hold, compared under the run's resource calculator, as YARN's maximum-am-resource-percent (default 0.1, Capacity's default); one AM may always run; -1 disables the limit")
	cfg.Project = r.Bool("project", true, "at each job's first control cycle, project its completion with the scheduler's own model and report the error (default true; costs a little per job)")
	return cfg
}

// Policy is the Adaptive or Reverse-Adaptive scheduler.
type Policy struct {
	v        *sched.View
	cfg      Config
	capacity resource.Vector
	// amLimit is max_am_share of the cluster (sched.NoAMLimit when off);
	// the core's AM-limit test (sched.View.AMRoom) applies it.
	amLimit  resource.Vector
	forecast *cluster.LoadCurve

	// shapes are the nodes by capacity, for slots.
	shapes    *shapes.Counts
	slotCache map[[2]resource.Vector]int

	jobs   []*jobInfo // by job id
	active []*jobInfo // started, unfinished jobs with goals, by activation
	beHeld resource.Vector

	amWait *jobq.Queue // admitted jobs waiting for their AM, by goal (amBefore)
	goals  *jobq.Queue // jobs with goals asking for tasks, in the scheduler's order
	best   *jobq.Queue // jobs without goals asking for tasks, by submission

	peak float64 // forecast peak the placement keeps room for (Reverse)

	cycles, plans int
	estimates     []Estimate
	unprojected   int
}

// New returns an Adaptive or Reverse-Adaptive policy.
func New(v *sched.View, cfg Config) *Policy {
	p := &Policy{v: v, cfg: cfg, capacity: v.Cluster().Capacity(), slotCache: map[[2]resource.Vector]int{}}
	p.amLimit = sched.AMLimit(p.capacity, cfg.MaxAMShare)
	if cfg.Mode == Reverse {
		p.forecast = v.LoadForecast()
	}
	p.shapes = shapes.New(v.Cluster())
	p.amWait = jobq.New(p.amBefore, jobq.AMAsks)
	p.best = jobq.ByID(jobq.TaskAsks)
	p.goals = jobq.New(p.before, jobq.TaskAsks)
	p.setPeak(v.Now())
	return p
}

// ClusterChanged follows a cluster whose nodes join, leave or change: the
// AM limit, the room the placement divides, each task's share of the
// cluster and how many of a job's tasks the cluster holds at once (the
// waves its estimate is spread over) are measured on the cluster, so they
// are measured again. Live, 'spindle kube schedule' starts on the nodes it
// lists first and hears of the others as they join; sized on the first
// nodes, adaptive held most of a larger cluster idle (a replay came out at
// four times its own simulation's makespan).
func (p *Policy) ClusterChanged(n *cluster.Node) {
	shaped := p.shapes.Update(n)
	c := p.v.Cluster().Capacity()
	if c == p.capacity && !shaped {
		return
	}
	p.capacity = c
	p.amLimit = sched.AMLimit(c, p.cfg.MaxAMShare)
	clear(p.slotCache)
	for _, ji := range p.jobs {
		if ji != nil && ji.phases != nil {
			p.measure(ji)
		}
	}
}

// TickEvery is the control cycle.
func (p *Policy) TickEvery() clock.Duration { return p.cfg.Cycle }

// Tick runs a control cycle: new room for the forecast load, new needs, a
// new placement, and projections for jobs seeing their first cycle. The
// core then reconsiders every node.
func (p *Policy) Tick(now clock.Time) {
	p.cycles++
	p.setPeak(now)
	p.replan(now)
	if p.cfg.Project {
		p.projectNew(now)
	}
	for _, ji := range p.active {
		ji.planned = true
	}
}

// setPeak fixes, for the cycle starting at now, the forecast load the
// placement keeps room for.
func (p *Policy) setPeak(now clock.Time) {
	if p.forecast == nil {
		return
	}
	p.peak = p.forecast.Max(now, now.Add(p.cfg.Lookahead))
}

// JobSubmitted creates the job's descriptor.
func (p *Policy) JobSubmitted(j *sched.Job) {
	for int(j.ID()) >= len(p.jobs) {
		p.jobs = append(p.jobs, nil)
	}
	p.jobs[j.ID()] = p.newJobInfo(j)
}

// AsksChanged files the job with the scheduler's sets; a job with a goal
// that asks for tasks for the first time gets its need at once, without
// waiting for the next cycle.
func (p *Policy) AsksChanged(j *sched.Job) {
	ji := p.jobs[j.ID()]
	p.amWait.Update(j)
	if ji.goal < 0 {
		p.best.Update(j)
		return
	}
	first := !ji.started && j.State() == sched.Active
	if first {
		ji.started = true
		p.active = append(p.active, ji)
	}
	p.goals.Update(j)
	if first {
		p.replan(p.v.Now())
	} else {
		p.rekey(ji)
	}
}

// JobFinished drops the job and scores its projection.
func (p *Policy) JobFinished(j *sched.Job) {
	ji := p.jobs[j.ID()]
	p.amWait.Update(j)
	p.best.Update(j)
	p.goals.Update(j)
	if i := slices.Index(p.active, ji); i >= 0 {
		p.active = slices.Delete(p.active, i, i+1)
	}
	if ji.goal >= 0 && p.cfg.Project {
		if ji.forecast >= 0 {
			p.estimates = append(p.estimates, Estimate{Job: j.Key(), Submit: j.Submitted(), Goal: ji.goal,
				Projected: ji.forecast, Actual: j.LastCompleted()})
		} else {
			p.unprojected++
		}
	}
	p.jobs[j.ID()] = &jobInfo{j: j, goal: ji.goal} // release the phases
}

// freeShare is the fraction of the cluster a free vector amounts to in the
// resource it is scarcest in: what jobs can use of it.
func (p *Policy) freeShare(v resource.Vector) float64 {
	s := -1.0
	for d := resource.Dim(0); d < resource.NumDims; d++ {
		if p.capacity[d] > 0 {
			x := max(float64(v[d]), 0) / float64(p.capacity[d])
			if s < 0 || x < s {
				s = x
			}
		}
	}
	return max(s, 0)
}

// reserved is the dominant share held by containers the plan does not
// place: ApplicationMasters and the tasks of jobs without goals.
func (p *Policy) reserved() float64 {
	return p.v.Cluster().AMAllocated().Add(p.beHeld).DominantShare(p.capacity)
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Policy            = (*Policy)(nil)
	_ sched.SubmitObserver    = (*Policy)(nil)
	_ sched.AskObserver       = (*Policy)(nil)
	_ sched.FinishObserver    = (*Policy)(nil)
	_ sched.ContainerObserver = (*Policy)(nil)
	_ sched.ClusterObserver   = (*Policy)(nil)
	_ sched.Ticker            = (*Policy)(nil)
	_ sched.Reporter          = (*Policy)(nil)
)
