package sim_test

import (
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// A MapReduce AM whose map queue preemption takes must see that map as
// asked for again, not as still assigned: else Hadoop 2.2's allocator
// counts the map's memory in the job's limit (and 2.8's believes a map
// runs), never kills a reduce for the maps left, and the job's reduces hold
// the room its last maps need for ever. One job of 26 maps <1, 3 GB> and 19
// reduces <1, 1 GB> at slow-start 0.06 on two nodes of 5 GB, in a leaf of
// 0.303 of the cluster; a queue of 0.394 asks for 1 GB containers later,
// and preemption takes the job's containers for it. (Found by
// TestPreemptionPropertiesMapReduce, seed 9381 of -preemption-runs 1000.)
func TestPreemptedMapReducesKilled(t *testing.T) {
	const doc = `version: 1
cluster:
  nodes:
    - {count: 2, vcores: 16, memory_mb: 5120}
  ideal: true
  mapreduce_am: {model: hadoop-2.2}
queues:
  - {name: q0, capacity: 0.606}
  - {name: q0.c0, capacity: 0.5}
  - {name: q0.c1, capacity: 0.5}
  - {name: q1, capacity: 0.394}
jobs:
  - id: mr0
    submit: 5s
    queue: q0.c1
    phases:
      - {tasks: 26, request: {vcores: 1, memory_mb: 3072}, duration: 25s}
      - {tasks: 19, request: {vcores: 1, memory_mb: 1024}, duration: 24s, start_after: 0.05927136320997328}
  - {id: o1, submit: 192s, queue: q1, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 45s}]}
  - {id: o2, submit: 201s, queue: q1, phases: [{tasks: 13, request: {vcores: 1, memory_mb: 1024}, duration: 19s}]}
  - {id: o0, submit: 255s, queue: q1, phases: [{tasks: 9, request: {vcores: 1, memory_mb: 1024}, duration: 16s}]}
`
	w, err := workload.Parse([]byte(doc), "mr-preempted.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := policy.Parse("capacity:preemption=on,preempt_interval=3s,preempt_delay=9s,preempt_per_round=1,preempt_natural=1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(w, sim.Options{Seed: 9381, Check: true, MaxEvents: 2_000_000, Policy: f})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("deadlocked %v, %d preempted, %d reduces their AM killed, %d kills", res.Deadlocked, res.Preemption.Preempted, res.ReducesPreempted, res.TasksKilled)
	if res.Deadlocked {
		t.Fatal("deadlocked: the AM thought a preempted map still ran")
	}
	if res.Preemption.Preempted == 0 || res.ReducesPreempted == 0 {
		t.Errorf("the case lost its point: %d preempted, %d reduces killed by their AM", res.Preemption.Preempted, res.ReducesPreempted)
	}
	if res.ReducesPreempted+res.Preemption.Preempted != res.TasksKilled {
		t.Errorf("%d + %d kills counted, %d made", res.ReducesPreempted, res.Preemption.Preempted, res.TasksKilled)
	}
}
