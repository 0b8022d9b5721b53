package sim_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// FIFO on one 4-vcore, 4 GB node whose other workload rises to half of it
// at 5 s (sampled at the knots 4 s and 5 s; ideal mode samples a slope every
// second):
//
//	t=0: A's 4 tasks take the node for [0, 10].
//	t=1: B (4 tasks) arrives and waits.
//	t=5: the load takes 2 vcores and 2 GB. A's tasks keep running: the
//	     other workload is short of 2 vcores and 2048 MB until 10, that
//	     is 10 vcore-s and 10240 MB-s unmet.
//	t=10: only 2 vcores are usable: B runs 2 tasks [10, 20], 2 [20, 30].
//	A: wait 0, JCT 10.  B: wait 9, JCT 29.  Makespan 30.
//	Utilisation (YARN's allocation over capacity): (10×1 + 20×0.5)/30.
const externalRiseCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 4096}]
  ideal: true
  external_load: {points: [[0s, 0], [4s, 0], [5s, 0.5]]}
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

// The same node under a periodic load: all of it until 20 s, falling to
// nothing at 21 s, and back to all of it at 30 s (the period), and so on:
//
//	t=0: A (2 tasks of 5 s) waits: nothing is usable.
//	t=21: the load has fallen: A runs [21, 26].
//	t=25: B (4 tasks of 10 s) arrives: 2 vcores are free, 2 tasks run
//	      [25, 35]; at 26 A ends and the other 2 run [26, 36].
//	t=30: the load takes the whole node again; B's 4 tasks hold 4 vcores
//	      it wants until 35, 2 until 36: 4×5 + 2×1 = 22 vcore-s and
//	      22528 MB-s unmet.
//	A: wait 21, JCT 26.  B: wait 0, JCT 11.  Makespan 36.
//	Utilisation: 2 of 4 vcores over [21, 25], 4 over [25, 35], 2 over
//	[35, 36]: (4×0.5 + 10 + 0.5)/36.
const externalPeriodicCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 4096}]
  ideal: true
  external_load: {points: [[0s, 1], [20s, 1], [21s, 0]], period: 30s}
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: B, submit: 25s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

func TestHandComputedExternalLoad(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []expect
		makespan  float64
		util      float64
		unmet     [2]float64
	}{
		{"rise", externalRiseCase, []expect{{"A", 0, 10}, {"B", 9, 29}}, 30, 20.0 / 30, [2]float64{10, 10240}},
		{"periodic", externalPeriodicCase, []expect{{"A", 21, 26}, {"B", 0, 11}}, 36, (4*0.5 + 1 + 9 + 0.5) / 36, [2]float64{22, 22528}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, s := runCase(t, tt.doc, "fifo")
			checkCase(t, jobs, s, tt.want, tt.makespan)
			if math.Abs(s.UtilizationAvg-tt.util) > 1e-9 {
				t.Errorf("utilisation %v, want %v", s.UtilizationAvg, tt.util)
			}
			if s.ExternalUnmet == nil || math.Abs(s.ExternalUnmet.VCoreS-tt.unmet[0]) > 1e-9 || math.Abs(s.ExternalUnmet.MemoryMBS-tt.unmet[1]) > 1e-6 {
				t.Errorf("external unmet %+v, want %v vcore-s and %v MB-s", s.ExternalUnmet, tt.unmet[0], tt.unmet[1])
			}
		})
	}
}

// A load that never leaves room stops the run as deadlocked once its curve
// has gone a whole period without change, rather than spinning on samples
// for ever; a load that leaves room for good after its last knot lets the
// job finish however late.
func TestExternalLoadStall(t *testing.T) {
	tests := []struct {
		name, load string
		deadlock   bool
	}{
		{"always full, periodic", "{points: [[0s, 1], [10s, 0.9], [20s, 1]], period: 30s}", true},
		{"full, then free for good", "{points: [[0s, 1], [500s, 1], [501s, 0]]}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 4096}]
  external_load: ` + tt.load + `
jobs:
  - {id: A, submit: 0s, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
`
			w, err := workload.Parse([]byte(doc), "stall.yaml")
			if err != nil {
				t.Fatal(err)
			}
			for _, pol := range []string{"fifo", "reverse-adaptive"} {
				f, _, err := policy.Parse(pol)
				if err != nil {
					t.Fatal(err)
				}
				for _, every := range []bool{false, true} {
					r, err := sim.Run(w, sim.Options{Seed: 1, Policy: f, Check: true, EveryHeartbeat: every})
					if err != nil {
						t.Fatal(err)
					}
					if r.Deadlocked != tt.deadlock {
						t.Errorf("%s (every heartbeat %v): deadlocked %v, want %v (stuck %v, ended at %v)", pol, every, r.Deadlocked, tt.deadlock, r.Stuck, r.End)
					}
				}
			}
		})
	}
}

// A noisy forecast changes what policies are told, never the load applied.
func TestForecastErrorKeepsTheLoad(t *testing.T) {
	w, err := workload.Parse([]byte(externalRiseCase), "case.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, _, _ := policy.Parse("fifo")
	a, err := sim.Run(w, sim.Options{Seed: 3, Policy: f, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.Run(w, sim.Options{Seed: 3, Policy: f, Check: true, ForecastError: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if a.ExternalUnmet != b.ExternalUnmet || a.Jobs[1] != b.Jobs[1] {
		t.Fatalf("FIFO ignores forecasts, yet the runs differ: %v vs %v", a.Jobs, b.Jobs)
	}
	if _, err := sim.Run(w, sim.Options{Policy: f, ForecastError: 2}); err == nil {
		t.Fatal("forecast error 2 accepted")
	}
}

// A cycle written with its closing point (t = period, the value at t = 0) is
// accepted and runs exactly as the same cycle without it.
func TestExternalLoadClosingPoint(t *testing.T) {
	base := `
version: 1
cluster:
  nodes: [{count: 2, vcores: 4, memory_mb: 4096}]
  external_load: {points: [[0s, 0.5], [10s, 0.1]%s], period: 20s}
jobs:
  - {id: A, submit: 0s, phases: [{tasks: 6, request: {vcores: 1, memory_mb: 1024}, duration: 7s}]}
  - {id: B, submit: 3s, phases: [{tasks: 3, request: {vcores: 2, memory_mb: 1024}, duration: 5s}]}
`
	f, _, err := policy.Parse("fifo")
	if err != nil {
		t.Fatal(err)
	}
	var ends []sim.Result
	for _, closing := range []string{"", ", [20s, 0.5]"} {
		w, err := workload.Parse([]byte(fmt.Sprintf(base, closing)), "closing.yaml")
		if err != nil {
			t.Fatalf("closing %q: %v", closing, err)
		}
		r, err := sim.Run(w, sim.Options{Seed: 1, Policy: f, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		r.Policy, r.Admission = nil, nil
		ends = append(ends, *r)
	}
	if !reflect.DeepEqual(ends[0], ends[1]) {
		t.Errorf("a closing point changed the run: %+v vs %+v", ends[0].Jobs, ends[1].Jobs)
	}
	if ends[0].Deadlocked {
		t.Error("the case deadlocked: it tests nothing")
	}
}
