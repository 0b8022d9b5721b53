package sim_test

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/sched"
)

// The floating-point tie of issue 35, end to end under Capacity with
// Hadoop's test settings (whole excess per round, 3 s rounds, 10 s before
// a kill), one node of 100 vcores, no AMs:
//
//	A (queue a, 50 %, t=0, 100×1 vcore, 2000 s) takes the whole node.
//	B (queue b, 50 %, t=1, 50×1 vcore, 1000 s) waits: b holds 0 of 50.
//	The round at 3 marks 50 of A's containers, one for each of B's tasks
//	(the 50th leaves a and b level at 50 each: a move the scheduler
//	keeps); at 15 they have been marked 12 s and are killed, and B runs
//	[15, 1015]. A's 50 lost tasks run again [1015, 3015].
//	A: wait 0, JCT 3015.  B: wait 14, JCT 1014.  Work lost 50 × 15 s.
//
// Before the fix the 50th was refused by rounding: B ran 49 tasks from 15
// and its last one only when A's first tasks ended, at 2000.
const tieCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 100, memory_mb: 102400}], ideal: true}
queues:
  - {name: a, capacity: 0.5}
  - {name: b, capacity: 0.5}
jobs:
  - {id: A, queue: a, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 100, request: {vcores: 1, memory_mb: 1024}, duration: 2000s}]}
  - {id: B, queue: b, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 50, request: {vcores: 1, memory_mb: 1024}, duration: 1000s}]}
`

const hadoopPolicy = "capacity:preemption=on,preempt_interval=3s,preempt_delay=10s,preempt_per_round=1,preempt_natural=1"

func TestHandComputedPreemptionTie(t *testing.T) {
	jobs, s := runCase(t, tieCase, hadoopPolicy)
	checkCase(t, jobs, s, []expect{{"A", 0, 3015}, {"B", 14, 1014}}, 3015)
	rep := s.Reports[sched.PreemptionSection].(*sched.PreemptionSummary)
	if rep.Containers != 50 || rep.WorkLostS != 750 || rep.ByQueue["a"].TakenFrom != 50 {
		t.Errorf("queue_preemption %+v", rep)
	}
}

// A queue guaranteed nothing, one node of 10 vcores, no AMs; rounds every
// 3 s, 6 s before a kill, the whole excess at once, no dead zone:
//
//	S (queue spare, capacity 0, t=0, 10×1 vcore, 100 s) takes the idle
//	node. P (queue prod, capacity 1, t=1, 4×1 vcore, 10 s) is owed all
//	of it: the round at 3 marks S's four newest, at 9 they are killed and
//	P runs [9, 19]; S's four run again [19, 119].
//	S: wait 0, JCT 119.  P: wait 8, JCT 18.
//
// With disable_preemption on spare, nothing is taken: P waits for S to
// end at 100 and runs [100, 110]; observe mode counts the four it would
// have taken and takes nothing either.
const zeroGuaranteeCase = `
version: 1
cluster: {nodes: [{count: 1, vcores: 10, memory_mb: 10240}], ideal: true}
queues:
  - {name: prod, capacity: 1}
  - {name: spare, capacity: 0, DISABLE}
jobs:
  - {id: S, queue: spare, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 10, request: {vcores: 1, memory_mb: 1024}, duration: 100s}]}
  - {id: P, queue: prod, submit: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

func TestHandComputedZeroGuarantee(t *testing.T) {
	doc := func(disable bool) string {
		v := "disable_preemption: false"
		if disable {
			v = "disable_preemption: true"
		}
		return strings.Replace(zeroGuaranteeCase, "DISABLE", v, 1)
	}
	jobs, s := runCase(t, doc(false), preemptPolicy)
	checkCase(t, jobs, s, []expect{{"S", 0, 119}, {"P", 8, 18}}, 119)
	if rep := s.Reports[sched.PreemptionSection].(*sched.PreemptionSummary); rep.ByQueue["spare"].TakenFrom != 4 {
		t.Errorf("queue_preemption %+v", rep)
	}
	jobs, s = runCase(t, doc(true), preemptPolicy)
	checkCase(t, jobs, s, []expect{{"S", 0, 100}, {"P", 99, 109}}, 110)
	if rep := s.Reports[sched.PreemptionSection].(*sched.PreemptionSummary); rep.Marked != 0 || rep.Killed != 0 {
		t.Errorf("took from a queue with preemption disabled: %+v", rep)
	}
	observe := "capacity:preemption=observe,preempt_interval=3s,preempt_delay=6s,preempt_per_round=1,preempt_natural=1,preempt_deadzone=0"
	jobs, s = runCase(t, doc(false), observe)
	checkCase(t, jobs, s, []expect{{"S", 0, 100}, {"P", 99, 109}}, 110)
	rep := s.Reports[sched.PreemptionSection].(*sched.PreemptionSummary)
	if rep.Mode != "observe" || rep.WouldPreempt != 4 || rep.Killed != 0 || rep.Containers != 0 ||
		rep.ByQueue["spare"].WouldTakeFrom != 4 || rep.ByQueue["prod"].WouldTakeFor != 4 {
		t.Errorf("observe mode: %+v", rep)
	}
}
