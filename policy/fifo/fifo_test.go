package fifo_test

import (
	"testing"

	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

func job(key string, am resource.Vector, tasks int, req resource.Vector) sched.JobSpec {
	return sched.JobSpec{Key: key, AM: am, Queue: "default", Phases: []sched.PhaseSpec{{Tasks: tasks, Request: req, StartAfter: 1}}}
}

var (
	none = resource.Vector{}
	one  = resource.New(1, 1024)
	big  = resource.New(3, 1024)
	node = []resource.Vector{resource.New(4, 8192)}
	fill = schedtest.PlaceN(1, 0, 2) // job 1 takes 2 of the 4 vcores
)

func prio(j sched.JobSpec, p int32) sched.JobSpec { j.Priority = p; return j }

func TestFIFOOrdering(t *testing.T) {
	tests := []struct {
		schedtest.PickCase
		strict bool
	}{
		{PickCase: schedtest.PickCase{Name: "earliest job first", Jobs: []sched.JobSpec{job("a", none, 2, one), job("b", none, 2, one)}, Want: "a"}},
		{PickCase: schedtest.PickCase{Name: "head too big, a later job uses the node", Jobs: []sched.JobSpec{job("a", none, 1, big), job("b", none, 3, one)}, Setup: fill, Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "strict: a head too big blocks everyone", Jobs: []sched.JobSpec{job("a", none, 1, big), job("b", none, 3, one)}, Setup: fill}, strict: true},
		{PickCase: schedtest.PickCase{Name: "an earlier job's AM before a later job's tasks", Jobs: []sched.JobSpec{job("a", one, 1, one), job("b", none, 1, one)}, Want: "a", WantAM: true}},
		{PickCase: schedtest.PickCase{Name: "a later job of higher priority first", Jobs: []sched.JobSpec{job("a", none, 2, one), prio(job("b", none, 2, one), 5)}, Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "negative priorities after the default", Jobs: []sched.JobSpec{prio(job("a", none, 2, one), -1), job("b", none, 2, one)}, Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "strict: the head is the highest priority", Jobs: []sched.JobSpec{job("a", none, 2, one), prio(job("b", none, 2, big), 1)}, Setup: schedtest.PlaceN(1, 0, 1)}, strict: true},
		{PickCase: schedtest.PickCase{Name: "a job with nothing left to ask is skipped", Jobs: []sched.JobSpec{job("a", none, 1, one), job("b", none, 1, one)}, Setup: schedtest.PlaceN(0, 0, 1), Want: "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			tt.Nodes = node
			tt.Run(t, func(v *sched.View) (sched.Policy, error) { return fifo.New(v, fifo.Config{Strict: tt.strict}), nil })
		})
	}
}
