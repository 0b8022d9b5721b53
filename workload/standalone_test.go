package workload

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

func TestStandalone(t *testing.T) {
	node := resource.New(4, 4096)
	one := resource.New(1, 1024)
	sec := func(s ...float64) []clock.Duration {
		var out []clock.Duration
		for _, x := range s {
			out = append(out, clock.Duration(x*float64(clock.Second)))
		}
		return out
	}
	tests := []struct {
		name  string
		nodes int
		job   Job
		want  float64
	}{
		{"fits at once: the longest task", 1, Job{Phases: []Phase{{Tasks: 3, Request: one, Durations: sec(5, 9, 7)}}}, 9},
		{"the AM takes a slot: 4 tasks on 3 slots", 1, Job{AM: one, Phases: []Phase{{Tasks: 4, Request: one, Durations: sec(10)}}}, 20},
		{"list scheduling in task order", 1, Job{Phases: []Phase{{Tasks: 6, Request: resource.New(2, 1024), Durations: sec(4, 1, 1, 1, 3, 2)}}}, 6},
		{"phases in sequence, across nodes", 2, Job{AM: one, Phases: []Phase{
			{Tasks: 7, Request: one, Durations: sec(10)}, {Tasks: 1, Request: resource.New(4, 1024), Durations: sec(3)}}}, 13},
	}
	for _, tt := range tests {
		nodes := make([]resource.Vector, tt.nodes)
		for i := range nodes {
			nodes[i] = node
		}
		if got := tt.job.Standalone(nodes).Seconds(); got != tt.want {
			t.Errorf("%s: %v s, want %v s", tt.name, got, tt.want)
		}
	}
}
