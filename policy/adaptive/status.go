package adaptive

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Job Status Updater: what the scheduler knows of each job, kept up to date
// from the container transitions the resource manager observes. It never
// sees a task's true duration: a task's length is COMPLETED − RUNNING as
// observed, and before any task of a job has completed the job's declared
// estimate stands in.

// jobInfo is one job's descriptor.
type jobInfo struct {
	j    *sched.Job
	goal clock.Time // absolute completion-time goal; -1 when none
	mu0  float64    // mean task length implied by the estimate, seconds; 0 unknown

	phases []phaseInfo
	done   int     // tasks completed over all phases
	doneS  float64 // their observed lengths, summed
	held   int     // task containers allocated and not yet ended

	// From the last plan.
	need     float64 // s_req or s_fit, in tasks
	prio     float64 // triage: laxity (s) of a feasible job; past infeasiblePrio otherwise
	feasible bool    // triage: can still meet its goal alone
	target   int     // containers the placement gives the job this cycle
	// The order key of the task scheduler (see scheduler.go).
	keyBehind bool
	keyU      float64

	started  bool       // has asked for tasks: its AM runs
	planned  bool       // has been through a control cycle
	forecast clock.Time // projected completion at its first control cycle, or -1
}

type phaseInfo struct {
	share   float64 // a task's dominant share of the cluster
	running int     // reported RUNNING and not yet ended
	runS    float64 // their RUNNING times, summed, in seconds
	done    int
	doneS   float64
}

// newJobInfo builds a descriptor at submission. The mean task length until
// a task completes is the estimate spread over the waves the job would run
// in alone on the cluster: with slots(k) containers of phase k's size
// fitting the cluster, estimate / Σ_k ⌈tasks_k / slots(k)⌉, which inverts
// how a standalone runtime arises when tasks are alike.
func (p *Policy) newJobInfo(j *sched.Job) *jobInfo {
	ji := &jobInfo{j: j, goal: -1, forecast: -1, phases: make([]phaseInfo, len(j.Spec().Phases))}
	spec := j.Spec()
	if spec.Deadline > 0 {
		ji.goal = j.Submitted().Add(spec.Deadline)
	}
	p.measure(ji)
	return ji
}

// measure sets what of a job's descriptor depends on the cluster: each
// phase's task share and the mean task length its estimate implies.
func (p *Policy) measure(ji *jobInfo) {
	spec := ji.j.Spec()
	waves := 0
	for k, ph := range spec.Phases {
		ji.phases[k].share = ph.Request.DominantShare(p.capacity)
		n := max(p.slots(ph.Request, spec.AM), 1)
		waves += (ph.Tasks + n - 1) / n
	}
	if spec.Estimate > 0 && waves > 0 {
		ji.mu0 = spec.Estimate.Seconds() / float64(waves)
	}
}

// slots is how many containers of size r the cluster holds at once beside
// an AM of size am, which takes its room on the first node it fits, as a
// standalone runtime is computed.
func (p *Policy) slots(r, am resource.Vector) int {
	key := [2]resource.Vector{r, am}
	if n, ok := p.slotCache[key]; ok {
		return n
	}
	n, placed := 0, am.IsZero()
	for _, g := range p.shapes.Groups() {
		n += g.Count * r.CountIn(g.Capacity)
		if !placed && am.Fits(g.Capacity) {
			n += r.CountIn(g.Capacity.Sub(am)) - r.CountIn(g.Capacity)
			placed = true
		}
	}
	p.slotCache[key] = n
	return n
}

// ContainerChanged keeps the counts of held, running and completed tasks and
// the observed task lengths.
func (p *Policy) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	if c.IsAM() || c.Phase() >= len(p.jobs[c.Job().ID()].phases) { // an open job's asks are not phases it declared
		return
	}
	ji := p.jobs[c.Job().ID()]
	ph := &ji.phases[c.Phase()]
	held := ji.held
	switch c.State() {
	case sched.Allocated:
		ji.held++
		if ji.goal < 0 {
			p.beHeld = p.beHeld.Add(c.Request())
		}
	case sched.Running:
		t, _ := c.Time(sched.Running)
		ph.running++
		ph.runS += t.Seconds()
	case sched.Completed, sched.Killed, sched.Failed, sched.Preempted, sched.Lost:
		if from >= sched.Allocated {
			ji.held--
			if ji.goal < 0 {
				p.beHeld = p.beHeld.Sub(c.Request())
			}
		}
		if from == sched.Running {
			start, _ := c.Time(sched.Running)
			ph.running--
			ph.runS -= start.Seconds()
			if c.State() == sched.Completed {
				end, _ := c.Time(sched.Completed)
				d := end.Sub(start).Seconds()
				ph.done++
				ph.doneS += d
				ji.done++
				ji.doneS += d
			}
		}
	}
	if ji.held != held {
		p.rekey(ji)
	}
}

// mu returns the mean task length of phase k as far as the scheduler knows:
// the phase's observed mean, else the job's, else the estimate's; false when
// nothing is known.
func (ji *jobInfo) mu(k int) (float64, bool) {
	ph := &ji.phases[k]
	switch {
	case ph.done > 0:
		return ph.doneS / float64(ph.done), true
	case ji.done > 0:
		return ji.doneS / float64(ji.done), true
	case ji.mu0 > 0:
		return ji.mu0, true
	}
	return 0, false
}

// remaining is what is left of the job at now: its work in task-seconds and
// in share-seconds (tasks not yet running take a mean task length, running
// ones what is left of it, at least nothing), the most share it could use
// at once (the largest number of tasks any phase has left), and the share
// of its current phase's task. known is false when no task length is known.
func (ji *jobInfo) remaining(now clock.Time) (work, shareWork, rate, share float64, known bool) {
	known = true
	nowS := now.Seconds()
	share = -1
	for k := range ji.phases {
		ph := &ji.phases[k]
		tasks := ji.j.Spec().Phases[k].Tasks
		left := tasks - ji.j.Phase(k).Completed
		if left <= 0 {
			continue
		}
		if share < 0 {
			share = ph.share
		}
		rate = max(rate, float64(left)*ph.share)
		mu, ok := ji.mu(k)
		known = known && ok
		unstarted := float64(left - ph.running)
		w := unstarted*mu + math.Max(0, float64(ph.running)*(mu-nowS)+ph.runS)
		work += w
		shareWork += w * ph.share
	}
	if share < 0 {
		share = 0
	}
	return work, shareWork, rate, share, known
}

// pend is s_pend: the containers the job holds plus those it asks for, the
// most it could run now.
func (ji *jobInfo) pend() int {
	n := ji.held
	for i, a := range ji.j.Asks() {
		if i > 0 {
			n += a.Pending
		}
	}
	return n
}

// tasksLeft counts the job's tasks not yet completed.
func (ji *jobInfo) tasksLeft() int {
	n := 0
	for k, ph := range ji.j.Spec().Phases {
		n += ph.Tasks - ji.j.Phase(k).Completed
	}
	return n
}
