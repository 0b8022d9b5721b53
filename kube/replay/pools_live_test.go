package replay

import (
	"context"
	"testing"
	"time"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
)

// pinnedBurst is the AM burst: 8 jobs, each a 1-vcore driver with
// two 1-vcore tasks, all on the replay's one node of 8 vcores (the replay
// pins its pods to its own nodes with a node selector), on a cluster that
// also has three 32-CPU nodes they may not use.
const pinnedBurst = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 8, memory_mb: 65536}]
jobs:
  - {id: p0, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: p1, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: p2, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: p3, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: p4, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: p5, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: p6, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: p7, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

// TestLivePinnedBurstFinishes: hack/local-cluster.sh's default nodes plus
// the replay's own 8-vcore node, and spindle kube replay of the pinned
// burst under -p fair -a autoadmin. Counted on the whole cluster (104
// vcores) AutoAdmin admitted all 8 drivers onto the small node and the
// replay ended deadlocked; counted on the nodes the pods may use, 4 are
// admitted at once and every job finishes.
func TestLivePinnedBurstFinishes(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 3, NodeCPU: "32", NodeMemory: "128Gi"})
	bin := buildSpindle(t)
	sched := startSpindle(t, c, bin, "spindle", "-p", "fair", "-a", "autoadmin")
	w := parse(t, pinnedBurst)
	r, err := New(Options{Workload: w, WorkloadName: "pinned-burst", Client: c.Client, SchedulerName: "spindle",
		TimeScale: 0.25, RunID: "pinned", StallTimeout: 30 * time.Second, Timeout: 4 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("completed %d of 8, deadlocked %v, makespan %.1fs (workload time), wall %s", s.JobsCompleted, s.Deadlocked, s.MakespanS, res.Wall)
	if s.Deadlocked || s.JobsCompleted != 8 {
		t.Fatalf("deadlocked %v, completed %d of 8; stuck %+v", s.Deadlocked, s.JobsCompleted, s.StuckJobs)
	}
	if err := sched.Exited(); err != nil {
		t.Fatal(err)
	}
	leftovers(t, c, "pinned")
}
