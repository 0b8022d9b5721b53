package record

import (
	"testing"
	"time"

	"github.com/spindle-sched/spindle/workload"
)

// reactions, case by case: which waves are measured, and from what.
func TestReactions(t *testing.T) {
	pod := func(created, ended float64) *podRec {
		p := &podRec{created: at(created), started: at(created + 0.1)}
		if ended > 0 {
			p.ended = at(ended)
		}
		return p
	}
	waves := func(n ...int) []workload.Phase {
		out := make([]workload.Phase, len(n))
		for i, k := range n {
			out[i].Tasks = k
		}
		return out
	}
	driver := &podRec{created: at(0), started: at(1)}
	for _, tc := range []struct {
		name  string
		am    *podRec
		tasks []*podRec
		waves []workload.Phase
		want  []time.Duration // the samples, in order
	}{
		{"executors after their driver started", driver, []*podRec{pod(1.5, 5), pod(1.6, 6)}, waves(2), []time.Duration{500 * time.Millisecond}},
		{"tasks created with the driver: nothing to react to", &podRec{created: at(0), started: at(2)}, []*podRec{pod(1, 5)}, waves(1), nil},
		{"no driver: the first wave is not timed, the second from its cause", nil,
			[]*podRec{pod(0, 4), pod(0, 7), pod(4.3, 9)}, waves(2, 1), []time.Duration{300 * time.Millisecond}},
		{"the latest end before the creation is the cause", nil,
			[]*podRec{pod(0, 3), pod(0, 4), pod(0, 9), pod(4.25, 10)}, waves(3, 1), []time.Duration{250 * time.Millisecond}},
		{"three waves after a driver", driver,
			[]*podRec{pod(2, 5), pod(5.5, 8), pod(8.1, 9)}, waves(1, 1, 1), []time.Duration{time.Second, 500 * time.Millisecond, 100 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := builder{c: &core{}}
			b.reactions(tc.am, tc.tasks, tc.waves)
			var want latencies
			for _, d := range tc.want {
				want.add(d)
			}
			if b.c.react.n != want.n || b.c.react.buckets != want.buckets {
				t.Errorf("%d samples, median %v; want %d, %v", b.c.react.n, b.c.react.quantile(0.5), want.n, want.quantile(0.5))
			}
		})
	}
}
