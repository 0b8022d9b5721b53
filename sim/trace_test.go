package sim

import (
	"fmt"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

// recorder wraps a policy and logs each decision and container transition,
// so two runs can be compared step by step.
type recorder struct {
	schedtest.Forward
	v   *sched.View
	log []string
}

func record(f func(v *sched.View) (sched.Policy, error), into **recorder) func(v *sched.View) (sched.Policy, error) {
	return func(v *sched.View) (sched.Policy, error) {
		p, err := f(v)
		r := &recorder{Forward: schedtest.Wrap(p), v: v}
		*into = r
		return r, err
	}
}

func (r *recorder) Pick(n *cluster.Node) *sched.Ask {
	a := r.Forward.Pick(n)
	if a != nil {
		r.log = append(r.log, fmt.Sprintf("%v %v job %s phase %d", r.v.Now(), n, a.Job().Key(), a.Phase()))
	}
	return a
}

func (r *recorder) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	r.Forward.ContainerChanged(c, from)
	r.log = append(r.log, fmt.Sprintf("%v %v %v", r.v.Now(), c, c.State()))
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
