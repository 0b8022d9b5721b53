package dress_test

import (
	"math"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/simtest"
)

// One node of 20 one-vcore containers, ideal mode, no AMs. L (t=0) has 40
// tasks of 10 s: large. S (t=2) has 2 tasks of 5 s: 10 % of the cluster,
// small.
const reservationCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 20, memory_mb: 20480}], ideal: true}
jobs:
  - {id: L, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 40, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: S, submit: 2s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
`

type outcome struct {
	id        string
	wait, jct float64
}

func runCase(t *testing.T, doc, pol string) ([]metrics.Job, *metrics.Summary) {
	t.Helper()
	o := simtest.Run(t, doc, runner.Spec{Policy: pol})
	return o.Jobs, o.Summary
}

func TestReservationLetsSmallJobStartEarlier(t *testing.T) {
	tests := []struct {
		name     string
		policy   string
		want     []outcome
		makespan float64
	}{
		{
			// FIFO in one queue: L runs 20 tasks over [0, 10] and 20 over
			// [10, 20]; S waits behind it and runs [20, 25].
			name: "capacity", policy: "capacity",
			want: []outcome{{"L", 0, 20}, {"S", 18, 23}}, makespan: 25,
		},
		{
			// δ stays 0.1 (no adjustment before t=100): 2 containers are
			// reserved for small jobs, 18 for large. L runs 18 tasks over
			// [0, 10]; S starts at once in the reserved pool, [2, 7]. The
			// pool then idles: no preemption, and L may not grow into it.
			// L runs 18 over [10, 20] and its last 4 over [20, 30].
			name: "static reservation", policy: "dress:estimator=off,interval=100s",
			want: []outcome{{"L", 0, 30}, {"S", 0, 5}}, makespan: 30,
		},
		{
			// Algorithm 3 every second, estimator off (F = 0):
			//  t=0  L gets the large pool's 18.
			//  t=1  no small job: δ = 0.1 − 2/20 → 0.01 (the clamp); the
			//       large pool is 19.8 containers, L takes a 19th [1, 11].
			//  t=2  S arrives. Small pool 0.2 free, S wants 2; large pool
			//       0.8 free, L wants 21: packing moves nothing (0.2 + 0.8
			//       < 2). Until 9 the same.
			//  t=10 18 tasks end: large pool 18.8 free, L wants 21, still
			//       short; the leftover 0.2 + 18.8 fits S, which takes 1.8
			//       from large jobs: δ = 0.01 + 1.8/20 = 0.1. S runs
			//       [10, 15]; L takes 17 [10, 20].
			//  t=11 the 19th ends; L takes one [11, 21].
			//  t=15 S is done: δ → 0.01 again; L takes one [15, 25].
			//  t=20 17 end; L's last 2 run [20, 30].
			// S waits 8 instead of 18.
			name: "dynamic reservation", policy: "dress:estimator=off",
			want: []outcome{{"L", 0, 30}, {"S", 8, 13}}, makespan: 30,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, s := runCase(t, reservationCase, tt.policy)
			if s.Deadlocked || s.JobsCompleted != len(tt.want) {
				t.Fatalf("deadlocked %v, %d of %d jobs completed", s.Deadlocked, s.JobsCompleted, len(tt.want))
			}
			for i, w := range tt.want {
				j := jobs[i]
				if j.ID != w.id || j.Wait == nil || j.JCT == nil || math.Abs(*j.Wait-w.wait) > 1e-9 || math.Abs(*j.JCT-w.jct) > 1e-9 {
					t.Errorf("job %s: wait %v, JCT %v; want %s: wait %v, JCT %v", j.ID, val(j.Wait), val(j.JCT), w.id, w.wait, w.jct)
				}
			}
			if math.Abs(s.MakespanS-tt.makespan) > 1e-9 {
				t.Errorf("makespan %v, want %v", s.MakespanS, tt.makespan)
			}
		})
	}
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
