package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/simtest"
	"github.com/spindle-sched/spindle/workload"
)

// FIFO on one 4-vcore node, no AMs; B is a gang of 3 (min_members: 3):
//
//	t=0: A (2 tasks, 10 s) runs [0, 10]; 2 vcores free.
//	t=1: B needs 3 vcores together; 2 are free, so it waits and holds
//	     nobody back (without the gang, 2 of its tasks would run now).
//	t=2: C (1 task, 5 s) is admitted past B and runs [2, 7].
//	t=10: A ends; 4 free: B's 3 tasks run together [10, 15].
//	A: wait 0, JCT 10.  B: wait 9, JCT 14.  C: wait 0, JCT 5.  Makespan 15.
//
// Without min_members: B's first 2 tasks run [1, 6], its third and C's
// task [6, 11] (FIFO serves B first): B wait 0, JCT 10; C wait 4, JCT 9;
// makespan 11.
const gangWaitsCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 4096}]
  ideal: true
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 512}, duration: 10s}]}
  - {id: B, submit: 1s, MIN am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 3, request: {vcores: 1, memory_mb: 512}, duration: 5s}]}
  - {id: C, submit: 2s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 512}, duration: 5s}]}
`

// A burst of four gangs of 3 on one 4-vcore node: all or nothing, one runs
// at a time, each for 10 s: gang k waits 10k s, JCT 10k+10, makespan 40.
// Without min_members the second gang starts one task beside the first
// (G1 runs one task [0, 10], two [10, 20]; G2 [10, 30]; G3 [20, 30]):
// the partial placement that deadlocks gangs whose members wait for each
// other.
const gangBurstCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 4096}]
  ideal: true
jobs:
  - {id: G0, submit: 0s, MIN am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 3, request: {vcores: 1, memory_mb: 512}, duration: 10s}]}
  - {id: G1, submit: 0s, MIN am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 3, request: {vcores: 1, memory_mb: 512}, duration: 10s}]}
  - {id: G2, submit: 0s, MIN am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 3, request: {vcores: 1, memory_mb: 512}, duration: 10s}]}
  - {id: G3, submit: 0s, MIN am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 3, request: {vcores: 1, memory_mb: 512}, duration: 10s}]}
`

// With an AM: a gang of 2 is its AM (2 vcores) and one task (2 vcores). On
// one 4-vcore node A (a 3-vcore task, 10 s, no AM) runs [0, 10]; G arrives
// at 1 and needs 4 together: it waits until 10, its AM and then its 2 tasks
// (one after the other beside the AM) run: AM at 10, task 1 [10, 15],
// task 2 [15, 20]; G: wait 9, JCT 19.
const gangAMCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 4096}]
  ideal: true
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 3, memory_mb: 512}, duration: 10s}]}
  - {id: G, submit: 1s, MIN am: {vcores: 2, memory_mb: 512}, phases: [{tasks: 2, request: {vcores: 2, memory_mb: 512}, duration: 5s}]}
`

func gangDoc(doc string, min int) string {
	if min == 0 {
		return strings.ReplaceAll(doc, "MIN ", "")
	}
	return strings.ReplaceAll(doc, "MIN ", "min_members: "+string(rune('0'+min))+", ")
}

func TestHandComputedGangs(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		min      int
		want     []expect
		makespan float64
	}{
		{"gang waits, holds nobody back", gangWaitsCase, 3, []expect{{"A", 0, 10}, {"B", 9, 14}, {"C", 0, 5}}, 15},
		{"same without min_members", gangWaitsCase, 0, []expect{{"A", 0, 10}, {"B", 0, 10}, {"C", 4, 9}}, 11},
		{"burst of gangs, one at a time", gangBurstCase, 3, []expect{{"G0", 0, 10}, {"G1", 10, 20}, {"G2", 20, 30}, {"G3", 30, 40}}, 40},
		{"burst without min_members", gangBurstCase, 0, []expect{{"G0", 0, 10}, {"G1", 0, 20}, {"G2", 10, 30}, {"G3", 20, 30}}, 30},
		{"gang of AM and a task", gangAMCase, 2, []expect{{"A", 0, 10}, {"G", 9, 19}}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, s := runCase(t, gangDoc(tt.doc, tt.min), "fifo")
			checkCase(t, jobs, s, tt.want, tt.makespan)
		})
	}
}

func TestGangBadInput(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"more than the AM and first phase", gangDoc(gangWaitsCase, 4), "jobs[1].min_members: must be in [1, 3] (the AM and the first phase's tasks)"},
		{"zero", gangDoc(gangWaitsCase, 0) + "  - {id: Z, min_members: 0, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1}, duration: 1s}]}\n", "min_members: must be > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workload.Parse([]byte(tt.doc), "gang.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Gangs under AutoAdmin run to the end: the paper's controller counts each
// gang's minimum (its AM and first tasks) as held from admission and
// returns it when the gang ends, so that a burst of gangs of AMs and
// tasks neither deadlocks nor leaves admission stuck: every job completes.
func TestGangsUnderAutoAdmin(t *testing.T) {
	doc := `
version: 1
cluster:
  nodes: [{count: 2, vcores: 8, memory_mb: 8192}]
  ideal: true
jobs:
`
	for i := range 12 {
		doc += fmt.Sprintf("  - {id: G%d, submit: 0s, min_members: 3, am: {vcores: 1, memory_mb: 512}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 512}, duration: 10s}]}\n", i)
	}
	o := simtest.Run(t, doc, runner.Spec{Policy: "fifo", Admission: "autoadmin"})
	if o.Summary.Deadlocked || o.Summary.JobsCompleted != 12 {
		t.Fatalf("deadlocked %v, %d of 12 completed", o.Summary.Deadlocked, o.Summary.JobsCompleted)
	}
}
