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
