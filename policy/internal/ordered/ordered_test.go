package ordered_test

import (
	"testing"

	"github.com/spindle-sched/spindle/policy/internal/ordered"
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
)

func prio(j sched.JobSpec, p int32) sched.JobSpec { j.Priority = p; return j }

// byID and reverse are two orders; the policy must follow whichever it is
// given, in both modes.
func byID(a, b *sched.Job) bool    { return a.ID() < b.ID() }
func reverse(a, b *sched.Job) bool { return a.ID() > b.ID() }

func TestPickFollowsLess(t *testing.T) {
	three := []sched.JobSpec{job("a", none, 1, one), job("b", none, 1, big), job("c", none, 2, one)}
	fill := schedtest.PlaceN(2, 0, 1) // c takes 1 of the 4 vcores, leaving 3
	fillMore := schedtest.PlaceN(0, 0, 1)
	tests := []struct {
		schedtest.PickCase
		less   ordered.Less
		strict bool
	}{
		{PickCase: schedtest.PickCase{Name: "by ID: the first job", Jobs: three, Want: "a"}, less: byID},
		{PickCase: schedtest.PickCase{Name: "reversed: the last job", Jobs: three, Want: "c"}, less: reverse},
		{PickCase: schedtest.PickCase{Name: "a job with nothing left to ask is passed over", Jobs: three, Setup: fillMore, Want: "b"}, less: byID},
		{PickCase: schedtest.PickCase{Name: "work-conserving: a first job too big lets the next use the node",
			Jobs: three, Setup: schedtest.Steps(fill, schedtest.PlaceN(0, 0, 1)), Want: "c"}, less: byID},
		{PickCase: schedtest.PickCase{Name: "strict: a first job too big blocks the node",
			Jobs: three, Setup: schedtest.Steps(fill, schedtest.PlaceN(0, 0, 1))}, less: byID, strict: true},
		{PickCase: schedtest.PickCase{Name: "strict: the first job's next ask when it fits", Jobs: three, Setup: fill, Want: "a"}, less: byID, strict: true},
		{PickCase: schedtest.PickCase{Name: "strict, reversed: the last job", Jobs: three, Want: "c"}, less: reverse, strict: true},
		{PickCase: schedtest.PickCase{Name: "a higher priority before the order", Jobs: []sched.JobSpec{job("a", none, 1, one), prio(job("b", none, 1, one), 1), job("c", none, 1, one)}, Want: "b"}, less: byID},
		{PickCase: schedtest.PickCase{Name: "reversed: a higher priority before the order", Jobs: []sched.JobSpec{prio(job("a", none, 1, one), 1), job("b", none, 1, one), job("c", none, 1, one)}, Want: "a"}, less: reverse},
		{PickCase: schedtest.PickCase{Name: "equal priorities: the order", Jobs: []sched.JobSpec{prio(job("a", none, 1, one), 2), prio(job("b", none, 1, one), 2), job("c", none, 1, one)}, Want: "b"}, less: reverse},
		{PickCase: schedtest.PickCase{Name: "strict: the highest priority blocks the order",
			Jobs: []sched.JobSpec{job("a", none, 3, one), prio(job("b", none, 1, big), 1)}, Setup: schedtest.PlaceN(0, 0, 2)}, less: byID, strict: true},
		{PickCase: schedtest.PickCase{Name: "work-conserving: past a higher priority too big",
			Jobs: []sched.JobSpec{job("a", none, 3, one), prio(job("b", none, 1, big), 1)}, Setup: schedtest.PlaceN(0, 0, 2), Want: "a"}, less: byID},
		{PickCase: schedtest.PickCase{Name: "an AM is asked for like any other request",
			Jobs: []sched.JobSpec{job("a", one, 1, one), job("b", none, 1, one)}, Want: "a", WantAM: true}, less: byID},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			tt.Nodes = node
			tt.Run(t, func(*sched.View) (sched.Policy, error) { return ordered.New(tt.less, tt.strict), nil })
		})
	}
}

// A job ended by its driver while it still asks for containers (a Spark
// driver pod that exits with executors pending) leaves the set through
// AsksChanged alone: the core withdraws its asks before it finishes the job,
// so the policy needs no FinishObserver. In strict mode a finished head left
// behind would block every later job, so both modes are checked.
func TestEndedJobLeavesTheSet(t *testing.T) {
	for _, strict := range []bool{false, true} {
		h := schedtest.New(t, schedtest.Config{Nodes: node,
			Policy: func(*sched.View) (sched.Policy, error) { return ordered.New(byID, strict), nil }})
		open := h.Submit(sched.JobSpec{Key: "spark", AM: one, Open: true})
		h.Submit(job("batch", none, 1, one))
		if _, err := h.Core.Ask(h.Now, open, sched.Request{Key: "driver", Resource: one, AM: true}); err != nil {
			t.Fatal(err)
		}
		if a := h.Pick(0); a == nil || a.Job() != open || !a.IsAM() {
			t.Fatalf("strict=%v: before the end, picked %v, want spark's driver", strict, a)
		}
		if err := h.Core.EndJob(h.Now, open); err != nil {
			t.Fatal(err)
		}
		if err := h.Core.Check(); err != nil {
			t.Fatal(err)
		}
		if a := h.Pick(0); a == nil || a.Job().Key() != "batch" {
			t.Errorf("strict=%v: after spark ended, picked %v, want batch's task", strict, a)
		}
	}
}
