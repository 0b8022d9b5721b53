package sim_test

import "testing"

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
