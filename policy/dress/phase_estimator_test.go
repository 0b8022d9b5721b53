package dress

import (
	"math"
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

func TestPhaseEstimator(t *testing.T) {
	type pev struct {
		start    bool
		job, ph  int
		id       uint64
		at, size float64
	}
	st := func(job, ph int, id uint64, at float64) pev { return pev{true, job, ph, id, at, 10} }
	co := func(id uint64, at float64) pev { return pev{start: false, id: id, at: at} }
	tests := []struct {
		name      string
		evs       []pev
		job       int
		now, h    float64
		wantN     float64
		wantUnits float64
	}{
		{name: "nothing completed anywhere: nothing predicted",
			evs: []pev{st(0, 0, 1, 0), st(0, 0, 2, 0)}, job: 0, now: 5, h: 1, wantN: 0},
		{name: "a task ends after its phase's mean duration",
			// Task 1 ran 10 s: the mean is 10 s. Task 2 started at 3
			// ends at 13, task 3 started at 6 at 16.
			evs: []pev{st(0, 0, 1, 0), st(0, 0, 2, 3), st(0, 0, 3, 6), co(1, 10)},
			job: 0, now: 12, h: 1, wantN: 1, wantUnits: 10},
		{name: "a task outside the horizon is not counted",
			evs: []pev{st(0, 0, 1, 0), st(0, 0, 2, 3), st(0, 0, 3, 6), co(1, 10)},
			job: 0, now: 11, h: 1, wantN: 0},
		{name: "an overdue task counts h/mean",
			// Mean 10 s; task 2 started at 0 is overdue at 15: 2/10.
			evs: []pev{st(0, 0, 1, 0), st(0, 0, 2, 0), co(1, 10)},
			job: 0, now: 15, h: 2, wantN: 0.2, wantUnits: 2},
		{name: "a phase with no completion uses the job's other phases",
			// Phase 0's task ran 4 s; phase 1's task started at 10 ends at 14.
			evs: []pev{st(0, 0, 1, 0), co(1, 4), st(0, 1, 2, 10)},
			job: 0, now: 13, h: 1, wantN: 1, wantUnits: 10},
		{name: "a job with no completion uses its category's mean",
			// Job 0's task ran 6 s; job 1's started at 2 ends at 8.
			evs: []pev{st(0, 0, 1, 0), co(1, 6), st(1, 0, 2, 2)},
			job: 1, now: 7.5, h: 1, wantN: 1, wantUnits: 10},
		{name: "the phase's own mean wins over the job's",
			// Phase 0: 4 s. Phase 1: 20 s (task 3). Task 4 of phase 1
			// started at 10 ends at 30, not 14.
			evs: []pev{st(0, 0, 1, 0), co(1, 4), st(0, 1, 3, 5), co(3, 25), st(0, 1, 4, 10)},
			job: 0, now: 14, h: 1, wantN: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewPhaseEstimator()
			for _, x := range tt.evs {
				if x.start {
					e.Start(x.job, SD, x.ph, x.id, sec(x.at), int64(x.size))
				} else {
					e.Complete(x.id, sec(x.at))
				}
			}
			n, u := e.Predict(tt.job, sec(tt.now), clock.Duration(sec(tt.h)))
			if math.Abs(n-tt.wantN) > 1e-9 || math.Abs(u-tt.wantUnits) > 1e-9 {
				t.Fatalf("predicted %v containers, %v units; want %v, %v", n, u, tt.wantN, tt.wantUnits)
			}
		})
	}
}

func TestPhaseEstimatorForget(t *testing.T) {
	e := NewPhaseEstimator()
	e.Start(0, SD, 0, 1, 0, 10)
	e.Start(0, SD, 0, 2, 0, 10)
	e.Complete(1, sec(5))
	e.Forget(0)
	if n, _ := e.Predict(0, sec(4), clock.Second); n != 0 || len(e.tasks) != 0 {
		t.Fatalf("after Forget: predicted %v, %d tasks tracked", n, len(e.tasks))
	}
	e.Complete(2, sec(6)) // a completion after Forget is ignored

	// Another job's running tasks stay tracked.
	e.Start(1, SD, 0, 3, sec(7), 10)
	e.Start(2, SD, 0, 4, sec(7), 10)
	e.Start(2, SD, 1, 5, sec(7), 10)
	e.Forget(2)
	if _, ok := e.tasks[3]; !ok || len(e.tasks) != 1 {
		t.Fatalf("after forgetting job 2: %d tasks tracked, task 3 kept %v", len(e.tasks), ok)
	}
	e.Complete(3, sec(9))
	if m, ok := e.jobs[1].phases[0].value(); !ok || m != 2*clock.Second {
		t.Fatalf("job 1's phase mean %v %v, want 2s", m, ok)
	}
}

func TestApplyFloor(t *testing.T) {
	tests := []struct {
		delta, floor float64
		sd, ld       bool
		want         float64
	}{
		{0.01, 0.2, true, true, 0.2},
		{0.99, 0.2, true, true, 0.8},
		{0.5, 0.2, true, true, 0.5},
		{0.01, 0.2, false, true, 0.01}, // no small demand: no floor for it
		{0.99, 0.2, true, false, 0.99}, // no large demand: δ may take all
		{0.99, 0.2, false, false, 0.99},
	}
	for _, tt := range tests {
		if got := applyFloor(tt.delta, tt.floor, tt.sd, tt.ld); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("applyFloor(%v, %v, %v, %v) = %v, want %v", tt.delta, tt.floor, tt.sd, tt.ld, got, tt.want)
		}
	}
}
