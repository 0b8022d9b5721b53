package replay

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

// faultJobs: six jobs on 24 vcores whose tasks run 10 s and 5 s, so a
// fault a few seconds in lands while most of the work is still to do. At
// time scale 1 it takes about 40 s of wall time.
const faultJobs = `
version: 1
cluster:
  nodes: [{count: 3, vcores: 8, memory_mb: 16384}]
jobs:
  - {id: j1, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{name: map, tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}, {name: reduce, tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: j2, submit: 2s, am: {vcores: 1, memory_mb: 1024}, phases: [{name: map, tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}, {name: reduce, tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: j3, submit: 4s, am: {vcores: 1, memory_mb: 1024}, phases: [{name: map, tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}, {name: reduce, tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: j4, submit: 6s, am: {vcores: 1, memory_mb: 1024}, phases: [{name: map, tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}, {name: reduce, tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: j5, submit: 8s, am: {vcores: 1, memory_mb: 1024}, phases: [{name: map, tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}, {name: reduce, tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: j6, submit: 10s, am: {vcores: 1, memory_mb: 1024}, phases: [{name: map, tasks: 8, request: {vcores: 1, memory_mb: 1024}, duration: 10s}, {name: reduce, tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
`

// bindings watches a replay's pods and records every binding transition,
// independently of the replayer: when each pod (by UID) was first seen
// bound and to which node, and any update that moved a bound pod.
type bindings struct {
	mu     sync.Mutex
	node   map[string]string    // uid -> node it was first seen bound to
	at     map[string]time.Time // uid -> when that was seen
	name   map[string]string    // uid -> pod name
	phase  map[string]corev1.PodPhase
	role   map[string]string
	moved  []string // "pod: node A -> node B"
	cancel context.CancelFunc
}

func watchBindings(t *testing.T, c *kubetest.Cluster, run string) *bindings {
	t.Helper()
	b := &bindings{node: map[string]string{}, at: map[string]time.Time{}, name: map[string]string{},
		phase: map[string]corev1.PodPhase{}, role: map[string]string{}}
	f := informers.NewSharedInformerFactoryWithOptions(c.Client, 0, informers.WithNamespace("default"),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = RunLabel + "=" + run }))
	inf := f.Core().V1().Pods().Informer()
	see := func(o any) {
		p, ok := o.(*corev1.Pod)
		if !ok {
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		uid := string(p.UID)
		b.name[uid], b.phase[uid], b.role[uid] = p.Name, p.Status.Phase, p.Labels[RoleLabel]
		if p.Spec.NodeName == "" {
			if n, ok := b.node[uid]; ok {
				b.moved = append(b.moved, fmt.Sprintf("%s: %s -> unbound", p.Name, n))
			}
			return
		}
		if n, ok := b.node[uid]; !ok {
			b.node[uid], b.at[uid] = p.Spec.NodeName, time.Now()
		} else if n != p.Spec.NodeName {
			b.moved = append(b.moved, fmt.Sprintf("%s: %s -> %s", p.Name, n, p.Spec.NodeName))
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: see, UpdateFunc: func(_, o any) { see(o) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	t.Cleanup(cancel)
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("pod watch did not sync")
	}
	return b
}

// boundBetween counts the pods first seen bound in [from, to).
func (b *bindings) boundBetween(from, to time.Time) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, at := range b.at {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// onNode returns the pods bound to node and not yet Succeeded.
func (b *bindings) onNode(node string) (names []string, running int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for uid, n := range b.node {
		if n == node && b.phase[uid] != corev1.PodSucceeded {
			names = append(names, b.name[uid])
			if b.phase[uid] == corev1.PodRunning {
				running++
			}
		}
	}
	return names, running
}

// waitFor polls cond every 100 ms for up to d.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := localcluster.Poll(ctx, 100*time.Millisecond, func() (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

type played struct {
	res *Result
	err error
}

func playAsync(r *Replayer) <-chan played {
	ch := make(chan played, 1)
	go func() {
		res, err := r.Play(context.Background())
		ch <- played{res, err}
	}()
	return ch
}

// kill -9 of 'spindle kube schedule' in the middle of a replay, and a new
// one started 3 s later: every job completes, and no pod is bound twice —
// no bound pod's spec.nodeName ever changes, and no pod gets two Scheduled
// events from spindle.
func TestLiveReplaySurvivesSchedulerKill9(t *testing.T) {
	kubetest.RequireBinaries(t)
	bin := buildSpindle(t)
	c := kubetest.Start(t, kubetest.Options{Kwok: true})
	const run = "kill9"
	b := watchBindings(t, c, run)
	first := startSpindle(t, c, bin, "spindle-1", "-p", "fair")
	w := parse(t, faultJobs)
	r, err := New(Options{Workload: w, WorkloadName: "fault-jobs", Client: c.Client, SchedulerName: "spindle",
		RunID: run, StallTimeout: 60 * time.Second, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := playAsync(r)

	// Kill once a dozen pods are bound: drivers and tasks of the first
	// jobs, with later jobs not yet submitted.
	waitFor(t, "12 pods bound", 60*time.Second, func() bool { return b.boundBetween(start, time.Now()) >= 12 })
	if err := first.Exited(); err != nil {
		t.Fatal(err)
	}
	first.Kill()
	killed := time.Now()
	time.Sleep(3 * time.Second)
	restarted := time.Now()
	startSpindle(t, c, bin, "spindle-2", "-p", "fair")

	p := <-done
	if p.err != nil {
		t.Fatal(p.err)
	}
	s := p.res.Summary
	// A binding the apiserver had received when the first scheduler died
	// may still reach the watch just after the kill: allow it a second.
	before, during, after := b.boundBetween(start, killed), b.boundBetween(killed.Add(time.Second), restarted), b.boundBetween(restarted, time.Now())
	t.Logf("completed %d of %d, makespan %.1fs, wall %s; pods bound: %d before the kill, %d while no scheduler ran, %d after the restart",
		s.JobsCompleted, len(w.Jobs), s.MakespanS, p.res.Wall.Round(time.Second), before, during, after)
	if s.Deadlocked || s.JobsCompleted != len(w.Jobs) {
		t.Errorf("deadlocked %v, completed %d of %d; stuck %+v", s.Deadlocked, s.JobsCompleted, len(w.Jobs), s.StuckJobs)
	}
	if before == 0 || after == 0 {
		t.Errorf("bound %d before the kill and %d after the restart: the kill was not mid-replay", before, after)
	}
	if during != 0 {
		t.Errorf("%d pods bound while no spindle ran (another scheduler?)", during)
	}
	b.mu.Lock()
	moved, total := append([]string(nil), b.moved...), len(b.node)
	b.mu.Unlock()
	if len(moved) > 0 {
		t.Errorf("bound pods moved: %v", moved)
	}
	if total != p.res.PodsCreated {
		t.Errorf("%d pods seen bound, %d created: every pod of a completed replay was bound once", total, p.res.PodsCreated)
	}

	// Scheduled events are posted asynchronously; give the second
	// scheduler's a moment to arrive. The first scheduler's last ones may
	// have died with it, so only "at most one" is required of each pod,
	// and at least the pods bound after the restart must have one.
	var perPod map[string]int
	waitFor(t, "Scheduled events of the pods bound after the restart", 30*time.Second, func() bool {
		evs, err := c.Client.CoreV1().Events("default").List(context.Background(),
			metav1.ListOptions{FieldSelector: "reason=Scheduled,source=spindle"})
		if err != nil {
			return false
		}
		perPod = map[string]int{}
		for _, e := range evs.Items {
			if e.InvolvedObject.Kind == "Pod" {
				// An aggregated event counts its repeats.
				perPod[string(e.InvolvedObject.UID)] += max(1, int(e.Count))
			}
		}
		return len(perPod) >= after
	})
	for uid, n := range perPod {
		if n > 1 {
			b.mu.Lock()
			t.Errorf("pod %s has %d Scheduled events from spindle", b.name[uid], n)
			b.mu.Unlock()
		}
	}
	t.Logf("%d pods with a Scheduled event from spindle, none with two", len(perPod))
	leftovers(t, c, run)
}

// A node deleted in the middle of a replay: the pods on it are lost, the
// replayer asks again for their tasks (and for a lost driver), spindle
// places them on the nodes left, and every job completes.
//
// kwok keeps playing the stages of a deleted node's pods, and pod GC removes
// them only 40 s after the node is gone (its quarantine), by which time
// these 10 s tasks have succeeded; so the test deletes the node's pods
// itself, at once, as pod GC would: force-deleted, each only if it has not
// changed since the test read it (a task that just succeeded is not lost).
func TestLiveReplaySurvivesNodeDeletion(t *testing.T) {
	kubetest.RequireBinaries(t)
	bin := buildSpindle(t)
	c := kubetest.Start(t, kubetest.Options{Kwok: true})
	const run = "nodeloss"
	b := watchBindings(t, c, run)
	startSpindle(t, c, bin, "spindle", "-p", "fair")
	w := parse(t, faultJobs)
	r, err := New(Options{Workload: w, WorkloadName: "fault-jobs", Client: c.Client, SchedulerName: "spindle",
		RunID: run, StallTimeout: 60 * time.Second, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	done := playAsync(r)

	// The first node the replay creates, once it runs at least 4 pods.
	ctx := context.Background()
	victim := run + "-n0000"
	waitFor(t, "4 pods running on "+victim, 60*time.Second, func() bool { _, n := b.onNode(victim); return n >= 4 })
	if err := c.Client.CoreV1().Nodes().Delete(ctx, victim, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	pods, err := c.Client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{
		LabelSelector: RunLabel + "=" + run, FieldSelector: "spec.nodeName=" + victim})
	if err != nil {
		t.Fatal(err)
	}
	var lost []string
	lostDrivers := 0
	zero := int64(0)
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.DeletionTimestamp != nil {
			continue
		}
		rv := p.ResourceVersion
		err := c.Client.CoreV1().Pods("default").Delete(ctx, p.Name, metav1.DeleteOptions{
			GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
		switch {
		case err == nil:
			lost = append(lost, p.Name)
			if p.Labels[RoleLabel] == RoleAM {
				lostDrivers++
			}
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
			// It changed (most likely succeeded) since the list: not lost.
		default:
			t.Fatal(err)
		}
	}
	t.Logf("deleted %s and its %d unfinished pods (%d drivers): %v", victim, len(lost), lostDrivers, lost)
	if len(lost) == 0 {
		t.Fatal("no pod was lost with the node: the test proves nothing")
	}

	p := <-done
	if p.err != nil {
		t.Fatal(p.err)
	}
	s := p.res.Summary
	t.Logf("completed %d of %d, makespan %.1fs, wall %s, %d pods created, %d task retries",
		s.JobsCompleted, len(w.Jobs), s.MakespanS, p.res.Wall.Round(time.Second), p.res.PodsCreated, p.res.TaskRetries)
	if s.Deadlocked || s.JobsCompleted != len(w.Jobs) {
		t.Errorf("deadlocked %v, completed %d of %d; stuck %+v", s.Deadlocked, s.JobsCompleted, len(w.Jobs), s.StuckJobs)
	}
	tasks := 0
	for _, j := range w.Jobs {
		for _, ph := range j.Phases {
			tasks += ph.Tasks
		}
	}
	// Every lost pod is created again: a lost task as a new attempt, a
	// lost driver as the job's second AM attempt.
	if want := len(w.Jobs) + tasks + len(lost); p.res.PodsCreated < want {
		t.Errorf("%d pods created, want at least %d (%d drivers, %d tasks, %d lost)", p.res.PodsCreated, want, len(w.Jobs), tasks, len(lost))
	}
	if p.res.TaskRetries < len(lost)-lostDrivers {
		t.Errorf("%d task pods created again, want at least the %d lost", p.res.TaskRetries, len(lost)-lostDrivers)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for uid, n := range b.node {
		if n == victim && b.at[uid].After(deleted) {
			t.Errorf("pod %s bound to %s after the node was deleted", b.name[uid], victim)
		}
	}
	if len(b.moved) > 0 {
		t.Errorf("bound pods moved: %v", b.moved)
	}
	leftovers(t, c, run)
}
