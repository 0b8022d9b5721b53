package sim_test

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/simtest"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// expect is a job's hand-computed outcome in seconds.
type expect struct {
	id        string
	wait, jct float64
}

// runCase parses doc, runs it under pol with invariants checked after
// every event, and returns the per-job metrics and the summary.
func runCase(t *testing.T, doc, pol string) ([]metrics.Job, *metrics.Summary) {
	t.Helper()
	o := simtest.Run(t, doc, runner.Spec{Policy: pol})
	return o.Jobs, o.Summary
}

func checkCase(t *testing.T, jobs []metrics.Job, s *metrics.Summary, want []expect, makespan float64) {
	t.Helper()
	if s.Deadlocked || s.JobsCompleted != len(want) {
		t.Fatalf("deadlocked %v, %d of %d jobs completed", s.Deadlocked, s.JobsCompleted, len(want))
	}
	for i, w := range want {
		j := jobs[i]
		if j.ID != w.id || j.Wait == nil || j.JCT == nil || math.Abs(*j.Wait-w.wait) > 1e-9 || math.Abs(*j.JCT-w.jct) > 1e-9 {
			t.Errorf("job %s: wait %v, JCT %v; want %s with wait %v, JCT %v", j.ID, deref(j.Wait), deref(j.JCT), w.id, w.wait, w.jct)
		}
	}
	if math.Abs(s.MakespanS-makespan) > 1e-9 {
		t.Errorf("makespan %v, want %v", s.MakespanS, makespan)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// FIFO on one 4-vcore node, no AMs:
//
//	A (t=0, 4×1 vcore, 10 s) takes the node for [0, 10].
//	B (t=1, 2×1 vcore, 5 s) and C (t=2, 1×2 vcores, 3 s) wait; at 10 both
//	fit: B runs [10, 15], C [10, 13].
//	A: wait 0, JCT 10.  B: wait 9, JCT 14.  C: wait 8, JCT 11.  Makespan 15.
//	Utilisation: 4 vcores busy for 13 s, 2 for 2 s: (13 + 1)/15.
const fifoCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 4, memory_mb: 4096}], ideal: true}
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: C, submit: 2s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 2048}, duration: 3s}]}
`

func TestHandComputedFIFO(t *testing.T) {
	jobs, s := runCase(t, fifoCase, "fifo")
	checkCase(t, jobs, s, []expect{{"A", 0, 10}, {"B", 9, 14}, {"C", 8, 11}}, 15)
	if math.Abs(*s.WaitAvgS-17.0/3) > 1e-9 || math.Abs(*s.JCTAvgS-35.0/3) > 1e-9 || *s.JCTMedianS != 11 {
		t.Errorf("averages: wait %v, JCT %v, median JCT %v", *s.WaitAvgS, *s.JCTAvgS, *s.JCTMedianS)
	}
	if math.Abs(s.UtilizationAvg-14.0/15) > 1e-9 {
		t.Errorf("utilisation %v, want 14/15", s.UtilizationAvg)
	}
	if math.Abs(s.ThroughputPerH-3.0/15*3600) > 1e-9 {
		t.Errorf("throughput %v jobs/h, want 720", s.ThroughputPerH)
	}
}

// FIFO with ApplicationMasters on one 3-vcore node (AM and tasks 1 vcore):
//
//	t=0: both jobs arrive; both AMs are allocated before either AM has
//	asked for a task, leaving one vcore. A's AM starts and asks for two
//	maps; the one free vcore runs map 1 [0, 10].
//	t=10: map 2 [10, 20]. t=20: the maps are done, A asks for its reduce
//	[20, 25]; B's task waits behind A all along, its AM idle.
//	t=25: A finishes and releases its AM: B's task runs [25, 29].
//	A: wait 0, JCT 25.  B: wait 25, JCT 29.  Makespan 29.
const fifoAMCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 3, memory_mb: 3072}], ideal: true}
jobs:
  - id: A
    submit: 0s
    am: {vcores: 1, memory_mb: 1024}
    phases:
      - {name: map, tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}
      - {name: reduce, tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 5s}
  - {id: B, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 4s}]}
`

func TestHandComputedFIFOWithAMs(t *testing.T) {
	jobs, s := runCase(t, fifoAMCase, "fifo")
	checkCase(t, jobs, s, []expect{{"A", 0, 25}, {"B", 25, 29}}, 29)
}

// Capacity with two queues, each guaranteed half of one 4-vcore node and
// allowed all of it:
//
//	t=0: A1 (queue a) runs 4 tasks; two end at 10, two at 30.
//	t=10: two vcores free. Queue a holds 2 of its guaranteed 2 (used
//	capacity 1.0), queue b none: B1 (queue b, t=2) runs [10, 20] although
//	A2 (queue a, t=1) came first.
//	t=20: A2 runs [20, 30].
//	A1: wait 0, JCT 30.  A2: wait 19, JCT 29.  B1: wait 8, JCT 18.
//	Makespan 30. (FIFO would run A2 at 10 and B1 at 20.)
const capacityCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 4, memory_mb: 4096}], ideal: true}
queues:
  - {name: a, capacity: 0.5, max_capacity: 1.0}
  - {name: b, capacity: 0.5, max_capacity: 1.0}
jobs:
  - {id: A1, queue: a, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: [10s, 10s, 30s, 30s]}]}
  - {id: A2, queue: a, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B1, queue: b, submit: 2s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

func TestHandComputedCapacity(t *testing.T) {
	jobs, s := runCase(t, capacityCase, "capacity")
	checkCase(t, jobs, s, []expect{{"A1", 0, 30}, {"A2", 19, 29}, {"B1", 8, 18}}, 30)
	jobs, s = runCase(t, capacityCase, "fifo")
	checkCase(t, jobs, s, []expect{{"A1", 0, 30}, {"A2", 9, 19}, {"B1", 18, 28}}, 30)
}

// Fair on one 4-vcore node:
//
//	t=0: A (8 tasks of 10 s) takes all 4 vcores. t=5: B (2 tasks) arrives
//	and waits: there is no preemption.
//	t=10: 4 vcores free and both jobs hold nothing; allocation alternates
//	from the lower usage (ties to the earlier job): A, B, A, B. B runs
//	[10, 20]; A's last two tasks run [20, 30].
//	A: wait 0, JCT 30.  B: wait 5, JCT 15.  Makespan 30.
const fairCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 4, memory_mb: 4096}], ideal: true}
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 5s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

func TestHandComputedFair(t *testing.T) {
	jobs, s := runCase(t, fairCase, "fair")
	checkCase(t, jobs, s, []expect{{"A", 0, 30}, {"B", 5, 15}}, 30)
	jobs, s = runCase(t, fairCase, "fifo")
	checkCase(t, jobs, s, []expect{{"A", 0, 20}, {"B", 15, 25}}, 30)
}

// A burst of ApplicationMasters fills the cluster: without an AM limit no
// task can ever run, and the run must stop and say so; Capacity's AM limit
// lets every job finish.
func TestAMBurstDeadlock(t *testing.T) {
	w, err := workload.Load("../examples/am-burst.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(pol string) *sim.Result {
		f, _, err := policy.Parse(pol)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.Run(w, sim.Options{Seed: 1, Policy: f, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run("fair:max_am_share=-1")
	if !r.Deadlocked || len(r.Stuck) != len(w.Jobs) {
		t.Fatalf("fair without an AM limit: deadlocked %v with %d stuck jobs, want all %d", r.Deadlocked, len(r.Stuck), len(w.Jobs))
	}
	holding := 0
	for _, s := range r.Stuck {
		if s.State == "AM running, waiting for task containers" {
			holding++
		}
	}
	if holding != 32 {
		t.Errorf("%d AMs hold the cluster, want 32 (64 vcores / 2)", holding)
	}
	for _, pol := range []string{"capacity", "drf"} {
		if r := run(pol); r.Deadlocked {
			t.Errorf("%s deadlocked: %v", pol, r.Stuck[:min(3, len(r.Stuck))])
		}
	}
}

// A deadlocked run reports the span it covered and the utilization over it,
// not a makespan of 0 and a utilization of 0. By hand, in ideal mode on one
// node of 2 vcores with no AM limit: A's AM and task hold the node over
// [0, 10]; A completes at 10 and frees it; at 20 the AMs of B and C take the
// node and no task can ever run. Nothing else can happen, so the run stops at
// 20: span 20, utilization (10 × 1 + 10 × 0) / 20 = 0.5, makespan 10 (A's).
// When every AM arrives at once (am-burst in ideal mode) the run is stuck at
// 0 with the whole cluster held: span 0, utilization 1.
func TestDeadlockedRunSpan(t *testing.T) {
	const doc = `
version: 1
cluster: {nodes: [{count: 1, vcores: 2, memory_mb: 2048}], ideal: true}
jobs:
  - {id: A, submit: 0s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 20s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: C, submit: 20s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`
	_, s := runCase(t, doc, "fair:max_am_share=-1")
	if !s.Deadlocked || s.JobsCompleted != 1 {
		t.Fatalf("deadlocked %v with %d jobs completed; want deadlocked with A completed", s.Deadlocked, s.JobsCompleted)
	}
	if s.SpanS == nil || math.Abs(*s.SpanS-20) > 1e-9 || math.Abs(s.UtilizationAvg-0.5) > 1e-9 || math.Abs(s.MakespanS-10) > 1e-9 || s.EndS != 20 {
		t.Errorf("span %v, utilization %v, makespan %v, end %v; want 20, 0.5, 10, 20", deref(s.SpanS), s.UtilizationAvg, s.MakespanS, s.EndS)
	}

	b, err := os.ReadFile("../examples/am-burst.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ideal := strings.Replace(string(b), "\ncluster:\n", "\ncluster:\n  ideal: true\n", 1)
	if ideal == string(b) {
		t.Fatal("am-burst.yaml has no cluster: line to make ideal")
	}
	_, s = runCase(t, ideal, "fair:max_am_share=-1")
	if !s.Deadlocked || s.SpanS == nil || *s.SpanS != 0 || s.UtilizationAvg != 1 {
		t.Errorf("am-burst, ideal: deadlocked %v, span %v, utilization %v; want true, 0, 1", s.Deadlocked, deref(s.SpanS), s.UtilizationAvg)
	}
	// With heartbeats and launch delays the AMs take the cluster over the
	// first seconds and the run stops a few heartbeats later: the span is
	// the whole run and the utilization counts the stuck allocation.
	_, s = runCase(t, string(b), "fair")
	if !s.Deadlocked || s.SpanS == nil || *s.SpanS != s.EndS || s.UtilizationAvg < 0.5 || s.UtilizationAvg > 1 {
		t.Errorf("am-burst under fair: deadlocked %v, span %v (end %v), utilization %v; want the span to the end and at least half the cluster",
			s.Deadlocked, deref(s.SpanS), s.EndS, s.UtilizationAvg)
	}
}

// Runs are deterministic: the same workload and seed give the same result,
// and the seed matters outside ideal mode.
func TestDeterminism(t *testing.T) {
	w, err := workload.Load("../examples/mixed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, _, _ := policy.Parse("fair")
	run := func(seed uint64) *sim.Result {
		r, err := sim.Run(w, sim.Options{Seed: seed, Policy: f})
		if err != nil {
			t.Fatal(err)
		}
		r.Policy, r.Admission = nil, nil
		return r
	}
	a, b := run(7), run(7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	if c := run(8); reflect.DeepEqual(a.Jobs, c.Jobs) {
		t.Fatal("a different seed gave identical timelines: heartbeat phases and launch jitter are not seeded")
	}
}
