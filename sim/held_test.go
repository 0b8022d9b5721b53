package sim_test

import (
	"math"
	"testing"
)

// Kubernetes timing (no heartbeats, a 2 s pod start latency) on one
// 2-vcore node, FIFO:
//
//	t=0: A's AM is placed at once and starts at 2.
//	t=2: the AM asks for its 2 tasks; 1 vcore is free: task 1 is placed and
//	     starts at 4, ends at 14.
//	t=14: task 2 takes the freed vcore, starts at 16, ends at 26.
//	A: wait 4 (submit to first task running), JCT 26.
//
// Under YARN timing the same job waits for heartbeats as well, so the two
// must differ.
const kubeTimingCase = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 2, memory_mb: 4096}]
  timing: kubernetes
  launch_delay: 2s
  launch_jitter: 0
jobs:
  - {id: A, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

// Per-group held steps on one 4-vcore node under Kubernetes timing with no
// launch delay, FIFO, one job of 4 one-vcore tasks of 10 s:
//
//	t=0: others hold 3 vcores: task 1 runs [0, 10].
//	t=5: others hold all 4: task 1 keeps running, 1 vcore over what is
//	     left until 10: 5 vcore-s and 5120 MB-s unmet.
//	t=20: others hold nothing: tasks 2-4 run [20, 30].
//	A: wait 0, JCT 30. Utilisation: 1 of 4 vcores over [0, 10] and 3 over
//	[20, 30], 40 vcore-s of 120.
const heldCase = `
version: 1
cluster:
  nodes:
    - {count: 1, vcores: 4, memory_mb: 4096, external: [{at: 0s, vcores: 3, memory_mb: 1024}, {at: 5s, vcores: 4, memory_mb: 4096}, {at: 20s}]}
  timing: kubernetes
  launch_delay: 0s
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`

func TestHandComputedKubernetesTiming(t *testing.T) {
	jobs, s := runCase(t, kubeTimingCase, "fifo")
	checkCase(t, jobs, s, []expect{{"A", 4, 26}}, 26)
	yarn := `
version: 1
cluster:
  nodes: [{count: 1, vcores: 2, memory_mb: 4096}]
  launch_delay: 2s
  launch_jitter: 0
jobs:
  - {id: A, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`
	_, ys := runCase(t, yarn, "fifo")
	if ys.MakespanS <= 26 {
		t.Errorf("YARN timing makespan %v, want more than Kubernetes timing's 26 (heartbeats add delay)", ys.MakespanS)
	}
}

func TestHandComputedHeldSteps(t *testing.T) {
	jobs, s := runCase(t, heldCase, "fifo")
	checkCase(t, jobs, s, []expect{{"A", 0, 30}}, 30)
	if math.Abs(s.UtilizationAvg-40.0/120) > 1e-9 {
		t.Errorf("utilisation %v, want %v", s.UtilizationAvg, 40.0/120)
	}
	if s.ExternalUnmet == nil || math.Abs(s.ExternalUnmet.VCoreS-5) > 1e-9 || math.Abs(s.ExternalUnmet.MemoryMBS-5120) > 1e-6 {
		t.Errorf("external unmet %+v, want 5 vcore-s and 5120 MB-s", s.ExternalUnmet)
	}
}

// Steps that never leave room end the run as deadlocked once every step
// has been applied, not before.
func TestHeldStepsStall(t *testing.T) {
	doc := `
version: 1
cluster:
  nodes:
    - {count: 1, vcores: 4, memory_mb: 4096, external: [{at: 0s, vcores: 4}, {at: 300s, vcores: 3.5}]}
  timing: kubernetes
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`
	_, s := runCase(t, doc, "fifo")
	if !s.Deadlocked || s.EndS < 300 {
		t.Errorf("deadlocked %v at %v s; want deadlocked, after the last step at 300 s", s.Deadlocked, s.EndS)
	}
}
