package fifo_test

import (
	"testing"

	"github.com/spindle-sched/spindle/internal/schedtest"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

func job(key string, am resource.Vector, tasks int, req resource.Vector) sched.JobSpec {
	return sched.JobSpec{Key: key, AM: am, Phases: []sched.PhaseSpec{{Tasks: tasks, Request: req, StartAfter: 1}}}
}

var (
	none = resource.Vector{}
	one  = resource.New(1, 1024)
	big  = resource.New(3, 1024)
)

func TestFIFOOrdering(t *testing.T) {
	tests := []struct {
		name   string
		strict bool
		jobs   []sched.JobSpec
		setup  func(h *schedtest.Harness, js []*sched.Job)
		want   string // job key picked, "" for nothing
		wantAM bool
	}{
		{name: "earliest job first", jobs: []sched.JobSpec{job("a", none, 2, one), job("b", none, 2, one)}, want: "a"},
		{name: "head too big, later job fits", jobs: []sched.JobSpec{job("a", none, 1, big), job("b", none, 3, one)},
			setup: func(h *schedtest.Harness, js []*sched.Job) { h.Place(js[1], 0, 0); h.Place(js[1], 0, 0) }, want: "b"},
		{name: "strict: head too big blocks everyone", strict: true, jobs: []sched.JobSpec{job("a", none, 1, big), job("b", none, 3, one)},
			setup: func(h *schedtest.Harness, js []*sched.Job) { h.Place(js[1], 0, 0); h.Place(js[1], 0, 0) }, want: ""},
		{name: "an earlier job's AM before a later job's tasks", jobs: []sched.JobSpec{job("a", one, 1, one), job("b", none, 1, one)}, want: "a", wantAM: true},
		{name: "a job with nothing left to ask is skipped", jobs: []sched.JobSpec{job("a", none, 1, one), job("b", none, 1, one)},
			setup: func(h *schedtest.Harness, js []*sched.Job) { h.Place(js[0], 0, 0) }, want: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := schedtest.New(t, schedtest.Config{
				Nodes:  []resource.Vector{resource.New(4, 8192)},
				Policy: func(v *sched.View) (sched.Policy, error) { return fifo.New(v, fifo.Config{Strict: tt.strict}), nil },
			})
			var js []*sched.Job
			for _, s := range tt.jobs {
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
