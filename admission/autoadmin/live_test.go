package autoadmin_test

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/internal/fakecluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
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
		if err := fc.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	for i, j := range jobs {
		if want := i < 6; (j.State() != sched.Waiting) != want {
			t.Errorf("job %d: %v, admitted want %v", i, j.State(), want)
		}
	}
	want := "AutoAdmin: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks"
	if got := fc.Core.WaitReason(jobs[6]); got != want {
		t.Errorf("WaitReason = %q, want %q", got, want)
	}
}

// TestAdoptedAMsCount: the same node after a restart with six drivers found
// running: they hold what ARC admitted before, so a seventh job waits, as
// in TestWaitReason. A waiting job that ends leaves the queue, and when an
// adopted driver exits the next job is let in.
func TestAdoptedAMsCount(t *testing.T) {
	fc, err := fakecluster.New(fakecluster.Config{Admission: "autoadmin", Nodes: []resource.Vector{resource.New(10, 65536)}, NodeNames: []string{"n1"}})
	if err != nil {
		t.Fatal(err)
	}
	am := resource.New(1, 1024)
	for i := range 6 {
		key := fmt.Sprint("old", i)
		if _, err := fc.Submit(sched.JobSpec{Key: key, Open: true, AM: am}); err != nil {
			t.Fatal(err)
		}
		if err := fc.Adopt(key, key+"-driver", "n1", am, true); err != nil {
			t.Fatal(err)
		}
	}
	var waiting []*sched.Job
	for i := range 2 {
		j, err := fc.Submit(sched.JobSpec{Key: fmt.Sprint("new", i), Open: true, AM: am})
		if err != nil {
			t.Fatal(err)
		}
		waiting = append(waiting, j)
		if err := fc.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	for _, j := range waiting {
		if j.State() != sched.Waiting {
			t.Fatalf("%s is %v with six adopted AMs on 10 vcores", j.Key(), j.State())
		}
	}
	if err := fc.Core.EndJob(fc.Now, waiting[1]); err != nil {
		t.Fatal(err)
	}
	if err := fc.End("old0-driver", sched.Completed); err != nil {
		t.Fatal(err)
	}
	if err := fc.Settle(); err != nil {
		t.Fatal(err)
	}
	if waiting[0].State() != sched.Admitted {
		t.Fatalf("new0 is %v after an adopted driver exited", waiting[0].State())
	}
	want := "AutoAdmin: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks"
	j, err := fc.Submit(sched.JobSpec{Key: "new2", Open: true, AM: am})
	if err != nil {
		t.Fatal(err)
	}
	if got := fc.Core.WaitReason(j); got != want {
		t.Errorf("WaitReason = %q, want %q", got, want)
	}
}
