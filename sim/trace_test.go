package sim

import (
	"fmt"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/sched"
)

// recorder wraps a policy, forwarding every observer interface the policy
// implements, and logs each decision, so two runs can be compared step by
// step.
type recorder struct {
	p   sched.Policy
	v   *sched.View
	log []string
}

func record(f func(v *sched.View) (sched.Policy, error), into **recorder) func(v *sched.View) (sched.Policy, error) {
	return func(v *sched.View) (sched.Policy, error) {
		p, err := f(v)
		r := &recorder{p: p, v: v}
		*into = r
		return r, err
	}
}

func (r *recorder) Pick(n *cluster.Node) *sched.Ask {
	a := r.p.Pick(n)
	if a != nil {
		r.log = append(r.log, fmt.Sprintf("%v %v job %s phase %d", r.v.Now(), n, a.Job().Key(), a.Phase()))
	}
	return a
}
func (r *recorder) JobSubmitted(j *sched.Job) {
	if o, ok := r.p.(sched.SubmitObserver); ok {
		o.JobSubmitted(j)
	}
}
func (r *recorder) JobAdmitted(j *sched.Job) {
	if o, ok := r.p.(sched.AdmitObserver); ok {
		o.JobAdmitted(j)
	}
}
func (r *recorder) JobFinished(j *sched.Job) {
	if o, ok := r.p.(sched.FinishObserver); ok {
		o.JobFinished(j)
	}
}
func (r *recorder) AsksChanged(j *sched.Job) {
	if o, ok := r.p.(sched.AskObserver); ok {
		o.AsksChanged(j)
	}
}
func (r *recorder) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	if o, ok := r.p.(sched.ContainerObserver); ok {
		o.ContainerChanged(c, from)
	}
	r.log = append(r.log, fmt.Sprintf("%v %v %v", r.v.Now(), c, c.State()))
}
func (r *recorder) NodeUpdated(n *cluster.Node) {
	if o, ok := r.p.(sched.NodeObserver); ok {
		o.NodeUpdated(n)
	}
}
func (r *recorder) TickEvery() clock.Duration {
	if o, ok := r.p.(sched.Ticker); ok {
		return o.TickEvery()
	}
	return 0
}
func (r *recorder) Tick(now clock.Time) {
	if o, ok := r.p.(sched.Ticker); ok {
		o.Tick(now)
	}
}

// firstDifference returns the first differing line of two logs with some
// context, or "".
func firstDifference(a, b []string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			from := max(0, i-5)
			return fmt.Sprintf("context:\n%v\nfirst difference at step %d:\n  %s\n  %s", a[from:i], i, x, y)
		}
	}
	return ""
}
