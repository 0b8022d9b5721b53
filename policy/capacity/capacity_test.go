package capacity_test

import (
	"testing"

	"github.com/spindle-sched/spindle/internal/schedtest"
	"github.com/spindle-sched/spindle/policy/capacity"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

func job(key, queue string, am resource.Vector, tasks int) sched.JobSpec {
	return sched.JobSpec{Key: key, Queue: queue, AM: am, Phases: []sched.PhaseSpec{{Tasks: tasks, Request: one, StartAfter: 1}}}
}

var (
	none = resource.Vector{}
	one  = resource.New(1, 1024)
	two  = resource.New(2, 2048)
)

func place(i, phase, n int) func(h *schedtest.Harness, js []*sched.Job) {
	return func(h *schedtest.Harness, js []*sched.Job) {
		for range n {
			h.Place(js[i], phase, 0)
		}
	}
}

func steps(fs ...func(h *schedtest.Harness, js []*sched.Job)) func(h *schedtest.Harness, js []*sched.Job) {
	return func(h *schedtest.Harness, js []*sched.Job) {
		for _, f := range fs {
			f(h, js)
		}
	}
}

func TestCapacityOrdering(t *testing.T) {
	twoQueues := func(yMax float64) []sched.QueueSpec {
		return []sched.QueueSpec{{Name: "x", Capacity: 0.5, MaxCapacity: 1}, {Name: "y", Capacity: 0.5, MaxCapacity: yMax}}
	}
	tests := []struct {
		name   string
		node   resource.Vector
		amPct  float64
		queues []sched.QueueSpec
		jobs   []sched.JobSpec
		setup  func(h *schedtest.Harness, js []*sched.Job)
		want   string
		wantAM bool
	}{
		{name: "the most under-served queue first", queues: twoQueues(1),
			jobs:  []sched.JobSpec{job("a", "x", none, 9), job("b", "y", none, 9)},
			setup: steps(place(0, 0, 3), place(1, 0, 1)), want: "b"},
		{name: "a queue at its ceiling is passed over", queues: twoQueues(0.3),
			jobs:  []sched.JobSpec{job("a", "x", none, 9), job("b", "y", none, 9)},
			setup: steps(place(0, 0, 4), place(1, 0, 3)), want: "a"},
		{name: "first in, first out inside a queue", jobs: []sched.JobSpec{job("a", "", none, 9), job("b", "", none, 9)},
			setup: steps(place(1, 0, 2), place(0, 0, 1)), want: "a"},
		{name: "an earlier job's AM before a later job's tasks", jobs: []sched.JobSpec{job("a", "", one, 2), job("b", "", none, 2)},
			want: "a", wantAM: true},
		{name: "the AM limit holds back AMs past max_am_percent", amPct: 0.1,
			jobs:  []sched.JobSpec{job("a", "", one, 9), job("b", "", one, 9)},
			setup: place(0, -1, 1), want: "a"},
		{name: "the first AM of a queue always runs", amPct: 0.05, jobs: []sched.JobSpec{job("a", "", one, 9)}, want: "a", wantAM: true},
		{name: "an AM too big for the limit lets a smaller one through", node: resource.New(20, 20480), amPct: 0.1,
			jobs:  []sched.JobSpec{job("a", "", one, 9), job("b", "", two, 9), job("c", "", one, 9)},
			setup: steps(place(0, -1, 1), place(0, 0, 9)), want: "c", wantAM: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pct := tt.amPct
			if pct == 0 {
				pct = 0.1
			}
			node := tt.node
			if node.IsZero() {
				node = resource.New(10, 10240)
			}
			h := schedtest.New(t, schedtest.Config{
				Nodes: []resource.Vector{node}, Queues: tt.queues,
				Policy: func(v *sched.View) (sched.Policy, error) {
					return capacity.New(v, capacity.Config{MaxAMPercent: pct}), nil
				},
			})
			var js []*sched.Job
			for _, s := range tt.jobs {
				if s.Queue == "" {
					s.Queue = "default"
				}
				js = append(js, h.Submit(s))
			}
			if tt.setup != nil {
				tt.setup(h, js)
			}
			a := h.Pick(0)
			got := ""
			if a != nil {
				got = a.Job().Key()
			}
			if got != tt.want || (a != nil && a.IsAM() != tt.wantAM) {
				t.Fatalf("picked %q (AM %v), want %q (AM %v)", got, a != nil && a.IsAM(), tt.want, tt.wantAM)
			}
		})
	}
}
