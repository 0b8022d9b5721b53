package sim_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
)

// Adaptive misses a goal because the external load rises; Reverse-Adaptive,
// which reads the forecast, meets both. One 4-vcore node (tasks of 1 vcore,
// 10 s), ideal mode, control cycle 10 s. The other workload takes the whole
// node from 21 s (ramping up over [20, 21]) until 59 s (ramping down to
// nothing at 60). C (12 tasks, goal 100 s) is submitted just before A (8
// tasks, goal 60 s); their estimates imply the true 10 s task length.
//
// Adaptive (s_req = ⌈work / time left⌉, ignoring the load):
//
//	t=0:  s_req A = ⌈80/60⌉ = 2, C = ⌈120/100⌉ = 2: the lowest utility
//	      gets the next container (ties to the earlier goal): A, C, A, C.
//	t=10: A ⌈60/50⌉ = 2, C ⌈100/90⌉ = 2: again A 2, C 2.
//	t=20: A ⌈40/40⌉ = 1, C ⌈80/80⌉ = 1: A, C, A (tie at 0), C: 4 tasks
//	      start, and the load takes the node at 21 while they run to 30:
//	      4 vcores × 9 s = 36 vcore-s (and 36864 MB-s) unmet.
//	t=60: A (2 left) is late: it needs all it can use, 2; C ⌈60/40⌉ = 2:
//	      A 2, C 2. A completes at 70, 10 s late. C's last 4 run [70, 80].
//
// Reverse-Adaptive (s_fit from the reverse placement, placing within the
// forecast's peak over each cycle):
//
//	t=0:  periods cut at the goals and the forecast's knots. C's 120 task-s
//	      fit in (60, 100] (160 task-s); A's 80 go back through (59, 60]
//	      (2), (21, 59] (0), (20, 21] (2) to (0, 20]: 76 there, a rate of
//	      3.8: s_fit A = 4, C = 0. A takes all 4.
//	t=10: A's 40 left: 2 + 2 behind, 36 in (10, 20]: s_fit 4. A completes
//	      at 20.
//	t=20..50: the forecast peaks at the whole node within each cycle:
//	      nothing is placed, nothing unmet.
//	t=60: C alone: [60, 70], [70, 80], [80, 90]: completes at 90.
//
// FIFO runs C at once ([0, 30], its last wave into the load: 36 vcore-s
// unmet) and A from 60: A completes at 80, 20 s late.
const adaptiveLoadCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 4096}]
  ideal: true
  external_load: {points: [[0s, 0], [20s, 0], [21s, 1], [59s, 1], [60s, 0]]}
jobs:
  - {id: C, submit: 0s, am: {vcores: 0, memory_mb: 0}, deadline: 100s, estimate: 30s, phases: [{tasks: 12, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, deadline: 60s, estimate: 20s, phases: [{tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

func TestHandComputedAdaptiveUnderLoad(t *testing.T) {
	tests := []struct {
		policy   string
		want     []expect
		makespan float64
		met      float64
		lateAvg  float64
		unmet    [2]float64
	}{
		{"fifo", []expect{{"C", 0, 30}, {"A", 60, 80}}, 80, 0.5, 10, [2]float64{36, 36864}},
		{"adaptive:cycle=10s", []expect{{"C", 0, 80}, {"A", 0, 70}}, 80, 0.5, 5, [2]float64{36, 36864}},
		{"reverse-adaptive:cycle=10s", []expect{{"C", 60, 90}, {"A", 0, 20}}, 90, 1, 0, [2]float64{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			jobs, s := runCase(t, adaptiveLoadCase, tt.policy)
			checkCase(t, jobs, s, tt.want, tt.makespan)
			if s.DeadlineMetFrac == nil || *s.DeadlineMetFrac != tt.met {
				t.Errorf("deadlines met %v, want %v", deref(s.DeadlineMetFrac), tt.met)
			}
			if s.LatenessAvgS == nil || math.Abs(*s.LatenessAvgS-tt.lateAvg) > 1e-9 {
				t.Errorf("lateness avg %v, want %v", deref(s.LatenessAvgS), tt.lateAvg)
			}
			if s.ExternalUnmet == nil || math.Abs(s.ExternalUnmet.VCoreS-tt.unmet[0]) > 1e-9 || math.Abs(s.ExternalUnmet.MemoryMBS-tt.unmet[1]) > 1e-6 {
				t.Errorf("external unmet %+v, want %v", s.ExternalUnmet, tt.unmet)
			}
		})
	}
}

// Runs under external load are deterministic: the same workload and seed
// give the same timelines and unmet demand for the goal-driven policies
// too, and the goal-driven schemes finish every job.
func TestAdaptiveDeterminism(t *testing.T) {
	a := scenario.DefaultAdaptiveShared
	a.Exp, a.Jobs, a.Seed = 3, 30, 2
	w, err := a.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{"adaptive", "reverse-adaptive", "adaptive+"} {
		f, _, err := policy.Parse(pol)
		if err != nil {
			t.Fatal(err)
		}
		var rs [2]*sim.Result
		for i := range rs {
			if rs[i], err = sim.Run(w, sim.Options{Seed: 5, Policy: f, Check: true}); err != nil {
				t.Fatal(err)
			}
		}
		if rs[0].Deadlocked || !reflect.DeepEqual(rs[0].Jobs, rs[1].Jobs) || rs[0].ExternalUnmet != rs[1].ExternalUnmet {
			t.Fatalf("%s: deadlocked %v, or two runs differ", pol, rs[0].Deadlocked)
		}
	}
}
