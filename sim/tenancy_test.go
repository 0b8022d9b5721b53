package sim_test

import (
	"testing"

	"github.com/spindle-sched/spindle/sched"
)

// Priorities under FIFO, one 2-vcore node, no AMs:
//
//	A (t=0, 4×1 vcore, 10 s) takes the node for [0, 10].
//	B (t=1, priority 5, 2×1 vcore, 5 s) and C (t=2, 1×1 vcore, 3 s) wait.
//	At 10 B goes first, though A and C are older: B [10, 15], then A's
//	last two [15, 25], then C [25, 28].
//	A: wait 0, JCT 25.  B: wait 9, JCT 14.  C: wait 23, JCT 26.
//
// Without B's priority A's last two would run [10, 20] and B [20, 25].
// Fair and DRF also put B first at 10, then share between A and C (both
// holding nothing at 15): A one task [15, 25], C [15, 18], A's last [18,
// 28]. A: JCT 28.  C: wait 13, JCT 16.
const priorityCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 2, memory_mb: 2048}], ideal: true}
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 1s, priority: 5, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: C, submit: 2s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 3s}]}
`

func TestHandComputedPriority(t *testing.T) {
	for _, pol := range []string{"fifo", "capacity", "fair", "drf"} {
		t.Run(pol, func(t *testing.T) {
			jobs, s := runCase(t, priorityCase, pol)
			want := []expect{{"A", 0, 25}, {"B", 9, 14}, {"C", 23, 26}}
			if pol == "fair" || pol == "drf" {
				want = []expect{{"A", 0, 28}, {"B", 9, 14}, {"C", 13, 16}}
			}
			checkCase(t, jobs, s, want, 28)
		})
	}
}

// A queue tree under Capacity, one 10-vcore node, no AMs: prod (60 %) has
// two children, etl and adhoc (half of prod each); batch has 40 %.
//
//	B (batch, t=0, 20×1 vcore, 10 s) takes the whole node for [0, 10].
//	E (prod.etl, t=1, 12×1 vcore, 10 s) waits. At 10 the root offers the
//	freed vcores to prod and batch by used capacity (used share over
//	guarantee), ties to prod, listed first: prod 0, batch 0, prod 1/6,
//	batch 1/4, ... until prod holds 6 and batch 4. adhoc asks for
//	nothing, so its half of prod goes to etl, its sibling: E runs 6
//	tasks [10, 20] and 6 [20, 30]; B runs 4 [10, 20], 4 [20, 30] and its
//	last 2 [30, 40].
//	E: wait 9, JCT 29.  B: wait 0, JCT 40.
//
// With the same three queues flat (etl 30 %, adhoc 30 %, batch 40 %), etl
// would get 3 of every 7 vcores, not 6 of 10.
const treeCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 10, memory_mb: 10240}], ideal: true}
queues:
  - {name: prod, capacity: 0.6}
  - {name: prod.etl, capacity: 0.5}
  - {name: prod.adhoc, capacity: 0.5}
  - {name: batch, capacity: 0.4}
jobs:
  - {id: B, queue: batch, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 20, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: E, queue: root.prod.etl, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 12, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

func TestHandComputedQueueTree(t *testing.T) {
	jobs, s := runCase(t, treeCase, "capacity")
	checkCase(t, jobs, s, []expect{{"B", 0, 40}, {"E", 9, 29}}, 40)
}

// Preemption under Capacity, one 10-vcore node, no AMs: prod is guaranteed
// 60 %, batch 40 %; rounds every 3 s, victims killed 6 s after they are
// marked, no cap per round, the whole excess taken at once.
//
//	B (batch, t=0, 10×1 vcore, 100 s) takes the whole node.
//	P (prod, t=1, 6×1 vcore, 10 s) waits: prod holds 0 of its 0.6.
//	The round at 3 divides the cluster: prod 0.6, batch 0.4. It marks
//	B's six newest containers (tasks 9 down to 4), one for each of P's
//	tasks. The round at 6 marks the same six; at 9 they have been marked
//	6 s and are killed, and the room is held for P: P runs [9, 19].
//	B's six tasks are asked for again and run from the start [19, 119];
//	its other four end at 100.
//	P: wait 8, JCT 18.  B: wait 0, JCT 119.  Work lost: 6 × 9 s = 54 s.
const preemptCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 10, memory_mb: 10240}], ideal: true}
queues:
  - {name: prod, capacity: 0.6}
  - {name: batch, capacity: 0.4}
jobs:
  - {id: B, queue: batch, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 10, request: {vcores: 1, memory_mb: 1024}, duration: 100s}]}
  - {id: P, queue: prod, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 6, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

const preemptPolicy = "capacity:preemption=on,preempt_interval=3s,preempt_delay=6s,preempt_per_round=1,preempt_natural=1,preempt_deadzone=0"

func TestHandComputedPreemption(t *testing.T) {
	jobs, s := runCase(t, preemptCase, preemptPolicy)
	checkCase(t, jobs, s, []expect{{"B", 0, 119}, {"P", 8, 18}}, 119)
	rep, ok := s.Reports["queue_preemption"].(*sched.PreemptionSummary)
	if !ok {
		t.Fatalf("no queue_preemption section: %v", s.Reports)
	}
	if rep.Containers != 6 || rep.WorkLostS != 54 || rep.Served != 6 || rep.Expired != 0 || rep.Killed != 6 || rep.Marked != 6 {
		t.Errorf("queue_preemption %+v", rep)
	}
	byQ := rep.ByQueue
	if byQ["batch"] != (sched.QueuePreemption{TakenFrom: 6}) || byQ["prod"] != (sched.QueuePreemption{TakenFor: 6}) {
		t.Errorf("by queue %v", byQ)
	}
	// Off, the default: P waits for B's containers to end at 100.
	jobs, s = runCase(t, preemptCase, "capacity")
	checkCase(t, jobs, s, []expect{{"B", 0, 100}, {"P", 99, 109}}, 110)
	if _, ok := s.Reports["queue_preemption"]; ok {
		t.Errorf("a run without preemption reports it: %v", s.Reports)
	}
}
