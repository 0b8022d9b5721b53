package sjf_test

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/policy/sjf"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

func job(key string, est clock.Duration, am resource.Vector, tasks int, req resource.Vector) sched.JobSpec {
	return sched.JobSpec{Key: key, AM: am, Queue: "default", Estimate: est,
		Phases: []sched.PhaseSpec{{Tasks: tasks, Request: req, StartAfter: 1}}}
}

var (
	none = resource.Vector{}
	one  = resource.New(1, 1024)
	big  = resource.New(3, 1024)
	node = []resource.Vector{resource.New(4, 8192)}
	fill = schedtest.PlaceN(2, 0, 2) // job 2 takes 2 of the 4 vcores
	s    = clock.Second
)

func prio(j sched.JobSpec, p int32) sched.JobSpec { j.Priority = p; return j }

func TestSJFOrdering(t *testing.T) {
	tests := []struct {
		schedtest.PickCase
		strict bool
	}{
		{PickCase: schedtest.PickCase{Name: "shortest estimate first, whatever the submission order",
			Jobs: []sched.JobSpec{job("long", 100*s, none, 1, one), job("short", 10*s, none, 1, one)}, Want: "short"}},
		{PickCase: schedtest.PickCase{Name: "equal estimates: the earlier job",
			Jobs: []sched.JobSpec{job("a", 10*s, none, 1, one), job("b", 10*s, none, 1, one)}, Want: "a"}},
		{PickCase: schedtest.PickCase{Name: "a job without an estimate goes after every estimated job",
			Jobs: []sched.JobSpec{job("unknown", 0, none, 1, one), job("long", 1000*s, none, 1, one)}, Want: "long"}},
		{PickCase: schedtest.PickCase{Name: "jobs without an estimate among themselves: submission order",
			Jobs: []sched.JobSpec{job("u1", 0, none, 1, one), job("u2", 0, none, 1, one)}, Want: "u1"}},
		{PickCase: schedtest.PickCase{Name: "work-conserving: the shortest job too big for the node lets a longer one use it",
			Jobs:  []sched.JobSpec{job("short-wide", 5*s, none, 1, big), job("long", 50*s, none, 1, one), job("filler", 500*s, none, 2, one)},
			Setup: fill, Want: "long"}},
		{PickCase: schedtest.PickCase{Name: "strict: the shortest job blocks the node until it fits",
			Jobs:  []sched.JobSpec{job("short-wide", 5*s, none, 1, big), job("long", 50*s, none, 1, one), job("filler", 500*s, none, 2, one)},
			Setup: fill}, strict: true},
		{PickCase: schedtest.PickCase{Name: "strict: the shortest job's next ask when it fits",
			Jobs: []sched.JobSpec{job("long", 50*s, none, 1, one), job("short", 5*s, one, 1, one)}, Want: "short", WantAM: true}, strict: true},
		{PickCase: schedtest.PickCase{Name: "a higher priority before a shorter estimate",
			Jobs: []sched.JobSpec{job("short", 5*s, none, 1, one), prio(job("long", 50*s, none, 1, one), 1)}, Want: "long"}},
		{PickCase: schedtest.PickCase{Name: "a short job's AM before a longer job's tasks",
			Jobs: []sched.JobSpec{job("long", 50*s, none, 1, one), job("short", 5*s, one, 1, one)}, Want: "short", WantAM: true}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			tt.Nodes = node
			tt.Run(t, func(v *sched.View) (sched.Policy, error) { return sjf.New(v, sjf.Config{Strict: tt.strict}), nil })
		})
	}
}
