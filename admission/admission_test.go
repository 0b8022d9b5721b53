package admission_test

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

func TestParse(t *testing.T) {
	for spec, ok := range map[string]bool{"": true, "none": true, "static:32": true, "static:0.5": true,
		"static": false, "static:-1": false, "static:x": false, "none:1": false, "autoadmission": false} {
		_, err := admission.Parse(spec)
		if (err == nil) != ok {
			t.Errorf("Parse(%q): %v", spec, err)
		}
	}
}

// static:R admits a job only if the vcores AMs hold, with its AM, still
// leave R: on 16 vcores with R = 10, three 2-vcore AMs fit (6 + 10 <= 16),
// a fourth does not; when an AM ends, the next waiting job is admitted.
func TestStaticReservation(t *testing.T) {
	f, err := admission.Parse("static:10")
	if err != nil {
		t.Fatal(err)
	}
	h := schedtest.New(t, schedtest.Config{
		Nodes:     []resource.Vector{resource.New(16, 65536)},
		Policy:    func(v *sched.View) (sched.Policy, error) { return fifo.New(v, fifo.Config{}), nil },
		Admission: f,
	})
	var jobs []*sched.Job
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		jobs = append(jobs, h.Submit(sched.JobSpec{Key: k, AM: resource.New(2, 1024), Phases: []sched.PhaseSpec{{Tasks: 1, Request: resource.New(1, 1024), StartAfter: 1}}}))
	}
	states := func() []sched.JobState {
		var s []sched.JobState
		for _, j := range jobs {
			s = append(s, j.State())
		}
		return s
	}
	want := []sched.JobState{sched.Admitted, sched.Admitted, sched.Admitted, sched.Waiting, sched.Waiting}
	for i, s := range states() {
		if s != want[i] {
			t.Fatalf("states %v, want %v", states(), want)
		}
	}
	// The waiting job is told the numbers: 16 − 6 held − 2 < 10.
	if got, want := h.Core.WaitReason(jobs[3]), "static reservation: 10 of 16 vcores kept for tasks; admitted AMs hold 6, this AM needs 2"; !strings.HasPrefix(got, want) {
		t.Fatalf("wait reason %q, want it to start %q", got, want)
	}
	am := h.Place(jobs[0], sched.AMPhase, 0)
	task := h.Place(jobs[0], 0, 0)
	h.Complete(task)
	h.Complete(am) // job a has finished; its AM's vcores return
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if jobs[3].State() == sched.Waiting || jobs[4].State() != sched.Waiting {
		t.Fatalf("after one AM ends: %v", states())
	}
}
