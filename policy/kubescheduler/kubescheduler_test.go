package kubescheduler_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy/kubescheduler"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/simtest"
)

func TestScore(t *testing.T) {
	cp := resource.Vector{4000, 8192}
	cases := []struct {
		name      string
		requested resource.Vector
		want      float64
	}{
		// LeastAllocated: mean of (1 − requested/capacity) × 100, floored;
		// BalancedAllocation: (1 − std of the fractions) × 100, floored.
		{"empty but the pod: 2 CPU, 1 GiB", resource.Vector{2000, 1024}, 68 + 81},  // (50+87.5)/2; std 0.1875
		{"full CPU, a quarter of memory", resource.Vector{4000, 2048}, 37 + 62},    // (0+75)/2; std 0.375
		{"balanced half", resource.Vector{2000, 4096}, 50 + 100},                   // std 0
		{"nothing (a 1m pod)", resource.Vector{1, 0}, 99 + 99},                     // (99.975+100)/2; std 0.000125
		{"over the node is clamped at full", resource.Vector{8000, 8192}, 0 + 100}, // both full
	}
	for _, c := range cases {
		if got := kubescheduler.Score(cp, c.requested); got != c.want {
			t.Errorf("%s: score %v, want %v", c.name, got, c.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	for attempts, want := range map[int]clock.Duration{1: clock.Second, 2: 2 * clock.Second, 3: 4 * clock.Second, 4: 8 * clock.Second, 5: 10 * clock.Second, 30: 10 * clock.Second} {
		if got := kubescheduler.Backoff(attempts); got != want {
			t.Errorf("backoff after %d attempts: %v, want %v", attempts, got, want)
		}
	}
}

func jct(t *testing.T, jobs []metrics.Job, id string) (wait, jct float64) {
	t.Helper()
	for _, j := range jobs {
		if j.ID == id {
			if j.Wait == nil || j.JCT == nil {
				t.Fatalf("job %s did not complete", id)
			}
			return *j.Wait, *j.JCT
		}
	}
	t.Fatalf("no job %s", id)
	return 0, 0
}

// Least-allocated spreads, where a packing policy would not (two nodes of 4
// vcores, Kubernetes timing, no launch delay):
//
//	kube-scheduler: A's two 2-vcore tasks go one to each node (each scores
//	  149 empty, 99 with the first); B's 4-vcore task arriving at 1 fits
//	  neither until A ends at 10: B waits 9, JCT 19, makespan 20.
//	fifo: the first node offered takes both of A's tasks; B runs at 1 on the
//	  other: JCT 10, makespan 11.
const spreadCase = `
version: 1
cluster:
  nodes: [{count: 2, vcores: 4, memory_mb: 8192}]
  timing: kubernetes
  launch_delay: 0s
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 4, memory_mb: 1024}, duration: 10s}]}
`

func TestSpreadsLeastAllocated(t *testing.T) {
	for _, c := range []struct {
		pol         string
		bWait, bJCT float64
		makespan    float64
	}{
		{"kube-scheduler", 9, 19, 20},
		{"fifo", 0, 10, 11},
	} {
		o := simtest.Run(t, spreadCase, runner.Spec{Policy: c.pol})
		w, j := jct(t, o.Jobs, "B")
		if w != c.bWait || j != c.bJCT || o.Summary.MakespanS != c.makespan {
			t.Errorf("%s: B waits %v, JCT %v, makespan %v; want %v, %v, %v", c.pol, w, j, o.Summary.MakespanS, c.bWait, c.bJCT, c.makespan)
		}
	}
}

// twoNodes is the cluster of the backoff and late cases: node x of 2
// vcores, node y of 1, Kubernetes timing, no launch delay.
const twoNodes = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 2, memory_mb: 8192}, {count: 1, vcores: 1, memory_mb: 8192}]
  timing: kubernetes
  launch_delay: 0s
jobs:
`

// Backoff reorders pods, as kube-scheduler's does. Node x has 2 vcores and
// node y 1; every task runs at once when placed.
//
//	0: A (2 vcores, 20 s) takes x; S's six 1-vcore tasks of 2 s run one
//	   after another on y, ending at 2, 4, ..., 12: each end frees room and
//	   sends the waiting pods to be tried again.
//	1: B (2 vcores, 10 s) arrives and finds no room; tried again at every
//	   end of an S task, its backoff grows: after 7 failures (the last at
//	   12) it backs off until 22.
//	15: C (2 vcores, 10 s) arrives, finds no room, backs off until 16 (an
//	    arrival sends nobody else to be tried).
//	20: A ends. C's backoff is over and B's is not: C goes first, on x,
//	    until 30; B then runs 30-40. B: wait 29, JCT 39; C: wait 5, JCT 15.
//
// With backoff=false the pods keep creation order: B runs 20-30 (wait 19,
// JCT 29) and C 30-40 (wait 15, JCT 25).
const backoffCase = twoNodes + `
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 20s}]}
  - {id: S, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 6, request: {vcores: 1, memory_mb: 1024}, duration: 2s}]}
  - {id: B, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
  - {id: C, submit: 15s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
`

func TestBackoffReorders(t *testing.T) {
	for _, c := range []struct {
		pol                      string
		bWait, bJCT, cWait, cJCT float64
	}{
		{"kube-scheduler", 29, 39, 5, 15},
		{"kube-scheduler:cycle=0s", 29, 39, 5, 15}, // the default, said
		{"kube-scheduler:backoff=false", 19, 29, 15, 25},
	} {
		o := simtest.Run(t, backoffCase, runner.Spec{Policy: c.pol})
		bw, bj := jct(t, o.Jobs, "B")
		cw, cj := jct(t, o.Jobs, "C")
		if bw != c.bWait || bj != c.bJCT || cw != c.cWait || cj != c.cJCT {
			t.Errorf("%s: B wait %v JCT %v, C wait %v JCT %v; want %v %v, %v %v", c.pol, bw, bj, cw, cj, c.bWait, c.bJCT, c.cWait, c.cJCT)
		}
		if sw, sj := jct(t, o.Jobs, "S"); sw != 0 || sj != 12 || o.Summary.MakespanS != 40 {
			t.Errorf("%s: S wait %v JCT %v, makespan %v; want 0, 12, 40", c.pol, sw, sj, o.Summary.MakespanS)
		}
	}
}

// The same workload and seed give the same run, on a recorded-looking
// workload with an AM per job, mixed shapes and YARN timing too.
func TestDeterministic(t *testing.T) {
	doc := `
version: 1
cluster:
  nodes: [{count: 3, vcores: 8, memory_mb: 16384}, {count: 2, vcores: 4, memory_mb: 32768}]
jobs:
  - {id: a, submit: 0s, phases: [{tasks: 20, request: {vcores: 1, memory_mb: 2048}, duration: [3s, 4s, 5s, 6s, 7s, 3s, 4s, 5s, 6s, 7s, 3s, 4s, 5s, 6s, 7s, 3s, 4s, 5s, 6s, 7s]}]}
  - {id: b, submit: 1s, phases: [{tasks: 6, request: {vcores: 2, memory_mb: 8192}, duration: 9s}, {tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 2s}]}
  - {id: c, submit: 1.5s, phases: [{tasks: 30, request: {vcores: 0.5, memory_mb: 512}, duration: 1s}]}
`
	a := simtest.Run(t, doc, runner.Spec{Policy: "kube-scheduler"})
	b := simtest.Run(t, doc, runner.Spec{Policy: "kube-scheduler"})
	a.Summary.WallS, b.Summary.WallS = 0, 0
	if !reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Summary, b.Summary) {
		t.Error("two runs differ")
	}
	if a.Summary.JobsCompleted != 3 || math.IsNaN(a.Summary.UtilizationAvg) {
		t.Errorf("%+v", a.Summary)
	}
}

// Priority orders the queue, as kube-scheduler's PrioritySort does. One
// node of 2 vcores; every pod takes it whole for 10 s.
//
//	0: A takes the node until 10.
//	1: B (priority 0) arrives and finds no room; 2: C (priority 10) too.
//	   Neither is tried again before 10: arrivals free nothing.
//	10: A ends; both are ready (their backoffs of 1 s are over), and C,
//	    the higher priority, goes first: C 10-20 (wait 8, JCT 18), B 20-30
//	    (wait 19, JCT 29).
//
// With equal priorities B keeps its place: B 10-20 (wait 9, JCT 19), C
// 20-30 (wait 18, JCT 28). backoff=false orders by priority the same way.
const priorityCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 2, memory_mb: 8192}]
  timing: kubernetes
  launch_delay: 0s
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
  - {id: C, submit: 2s, priority: PRIO, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
`

func TestPriorityOrders(t *testing.T) {
	for _, c := range []struct {
		pol, prio                string
		bWait, bJCT, cWait, cJCT float64
	}{
		{"kube-scheduler", "10", 19, 29, 8, 18},
		{"kube-scheduler:backoff=false", "10", 19, 29, 8, 18},
		{"kube-scheduler", "0", 9, 19, 18, 28},
		{"kube-scheduler:backoff=false", "0", 9, 19, 18, 28},
	} {
		o := simtest.Run(t, strings.Replace(priorityCase, "PRIO", c.prio, 1), runner.Spec{Policy: c.pol})
		bw, bj := jct(t, o.Jobs, "B")
		cw, cj := jct(t, o.Jobs, "C")
		if bw != c.bWait || bj != c.bJCT || cw != c.cWait || cj != c.cJCT {
			t.Errorf("%s, C's priority %s: B wait %v JCT %v, C wait %v JCT %v; want %v %v, %v %v", c.pol, c.prio, bw, bj, cw, cj, c.bWait, c.bJCT, c.cWait, c.cJCT)
		}
	}
}

func TestWindow(t *testing.T) {
	s := clock.Time(clock.Second)
	for _, c := range []struct{ in, want clock.Time }{
		{0, 0}, {s - 1, 0}, {s, s}, {s + s/2, s}, {10*s + 999_999, 10 * s},
	} {
		if got := kubescheduler.Window(c.in); got != c.want {
			t.Errorf("window(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// With a cycle, a busy scheduler tries only as many waiting pods as it has
// time for: on the backoff case, a cycle so long that no attempt fits
// leaves B and C untried (no backoff at all), so that at 20 B, ready and
// older, goes before C: B 20-30 (wait 19, JCT 29), C 30-40 (wait 15, JCT
// 25), as in creation order; without the cycle C went first (TestBackoffReorders).
func TestCycleBoundsRetries(t *testing.T) {
	o := simtest.Run(t, backoffCase, runner.Spec{Policy: "kube-scheduler:cycle=1h"})
	bw, bj := jct(t, o.Jobs, "B")
	cw, cj := jct(t, o.Jobs, "C")
	if bw != 19 || bj != 29 || cw != 15 || cj != 25 {
		t.Errorf("B wait %v JCT %v, C wait %v JCT %v; want 19 29, 15 25", bw, bj, cw, cj)
	}
}

// late=true: pods asked for at the instant room frees come after the pods
// already waiting, backing off or not. Node x has 2 vcores, node y 1; every
// task runs at once when placed.
//
//	0: A's first stage (2 vcores, 10 s) takes x; S's four 1-vcore tasks of
//	   2 s run one after another on y, ending at 2, 4, 6 and 8.
//	1: B (2 vcores, 10 s) arrives and finds no room; tried again at every
//	   end of an S task, it backs off after its fifth failure (at 8) until 18.
//	10: A's first stage ends and its second (one pod, 2 vcores, 10 s) is
//	    asked for. By default it is a new pod, ahead of B still backing
//	    off: A's second stage 10-20 (A: JCT 20), B 20-30 (wait 19, JCT 29).
//	    With late=true B, waiting before the end, goes first: B 10-20
//	    (wait 9, JCT 19), A's second stage 20-30 (A: JCT 30).
const lateCase = twoNodes + `
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}, {tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
  - {id: S, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 2s}]}
  - {id: B, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 10s}]}
`

func TestLatePodsAfterWaiting(t *testing.T) {
	for _, c := range []struct {
		pol               string
		aJCT, bWait, bJCT float64
	}{
		{"kube-scheduler", 20, 19, 29},
		{"kube-scheduler:late=false", 20, 19, 29},
		{"kube-scheduler:late=true", 30, 9, 19},
	} {
		o := simtest.Run(t, lateCase, runner.Spec{Policy: c.pol})
		_, aj := jct(t, o.Jobs, "A")
		bw, bj := jct(t, o.Jobs, "B")
		if aj != c.aJCT || bw != c.bWait || bj != c.bJCT || o.Summary.MakespanS != 30 {
			t.Errorf("%s: A JCT %v, B wait %v JCT %v, makespan %v; want %v, %v %v, 30", c.pol, aj, bw, bj, o.Summary.MakespanS, c.aJCT, c.bWait, c.bJCT)
		}
	}
}
