package autoadmin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestWaitReason: on one 10-vcore node with nothing running yet, R_R is the
// idle 40 % = 4 vcores, so ARC admits AMs of 1 vcore while 10 − held − 1 ≥ 4:
// six of them. The seventh waits, and says so with ARC's numbers.
func TestWaitReason(t *testing.T) {
	fc, err := fakecluster.New(fakecluster.Config{Admission: "autoadmin", Nodes: []resource.Vector{resource.New(10, 65536)}, NodeNames: []string{"n1"}})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []*sched.Job
	for i := range 7 {
		j, err := fc.Submit(sched.JobSpec{Key: fmt.Sprint("j", i), Open: true, AM: resource.New(1, 1024)})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
		if err := fc.Ask(j.Key(), sched.Request{Key: j.Key() + "-driver", Resource: j.Spec().AM, AM: true}); err != nil {
			t.Fatal(err)
		}
		if err := fc.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	for i, j := range jobs {
		if want := i < 6; (j.State() != sched.Waiting) != want {
			t.Errorf("job %d: %v, admitted want %v", i, j.State(), want)
		}
	}
	// The reason names every resource, vcores (the one that blocks) first.
	want := "AutoAdmin: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks"
	if got := fc.Core.WaitReason(jobs[6]); !strings.HasPrefix(got, want) {
		t.Errorf("WaitReason = %q, want %q", got, want)
	}
}

// TestAdoptedAMsCount: after a restart, eight drivers are found running on
// the 10-vcore node of TestWaitReason, more than ARC would admit (six: 10 −
// held − 1 ≥ R_R = 4). Their jobs are adopted past ARC, not asked about
// (their drivers run already), and must count all the same: a new job sees
// 2 vcores left, and is let in only once three drivers have exited (10 − 5 −
// 1 ≥ 4), not after two.
func TestAdoptedAMsCount(t *testing.T) {
	fc, err := fakecluster.New(fakecluster.Config{Admission: "autoadmin", Nodes: []resource.Vector{resource.New(10, 65536)}, NodeNames: []string{"n1"}})
	if err != nil {
		t.Fatal(err)
	}
	am := resource.New(1, 1024)
	var old []*sched.Job
	for i := range 8 {
		j, err := fc.Submit(sched.JobSpec{Key: fmt.Sprint("old", i), Open: true, AM: am})
		if err != nil {
			t.Fatal(err)
		}
		old = append(old, j)
	}
	for _, j := range old {
		if err := fc.Adopt(j.Key(), j.Key()+"-driver", "n1", am, true); err != nil {
			t.Fatal(err)
		}
	}
	j, err := fc.Submit(sched.JobSpec{Key: "new", Open: true, AM: am})
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.Ask("new", sched.Request{Key: "new-driver", Resource: am, AM: true}); err != nil {
		t.Fatal(err)
	}
	// The reason names every resource; vcores, first, is the one that
	// shows the adopted AMs counted.
	want := "AutoAdmin: vcores 2 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks"
	if got := fc.Core.WaitReason(j); !strings.HasPrefix(got, want) {
		t.Errorf("WaitReason = %q, want %q", got, want)
	}
	for i, admitted := range []bool{false, false, true} {
		if err := fc.End(old[i].Key()+"-driver", sched.Completed); err != nil {
			t.Fatal(err)
		}
		if err := fc.Settle(); err != nil {
			t.Fatal(err)
		}
		if (j.State() != sched.Waiting) != admitted {
			t.Errorf("after %d drivers exited the new job is %v", i+1, j.State())
		}
	}
}
