package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
var nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// env is a fake apiserver (client-go's fake clientset, with bindings that
// set spec.nodeName as the real pods/binding does) and a scheduler on it,
// stepped by hand (Stepper): each helper settles the scheduler and then
// checks, so a test states what is true after each event, with no sleeping
// and no polling of the wall clock.
type env struct {
	t      *testing.T
	client *fake.Clientset
	rec    *record.FakeRecorder
	st     *Stepper

	mu        sync.Mutex
	binds     map[string]int // binding calls per pod
	decisions []Decision
	events    []string
	// failBind, when set, may fail the n-th binding of a pod (before the
	// fake applies it).
	failBind func(key string, n int) error
}

func newEnv(t *testing.T, objs ...runtime.Object) *env {
	t.Helper()
	e := &env{t: t, client: fake.NewClientset(objs...), binds: map[string]int{}}
	e.client.PrependReactor("create", "pods", e.bindReactor)
	return e
}

func (e *env) bindReactor(a k8stesting.Action) (bool, runtime.Object, error) {
	ca, ok := a.(k8stesting.CreateAction)
	if !ok || ca.GetSubresource() != "binding" {
		return false, nil, nil
	}
	b := ca.GetObject().(*v1.Binding)
	key := b.Namespace + "/" + b.Name
	e.mu.Lock()
	e.binds[key]++
	n, fail := e.binds[key], e.failBind
	e.mu.Unlock()
	if fail != nil {
		if err := fail(key, n); err != nil {
			return true, nil, err
		}
	}
	obj, err := e.client.Tracker().Get(podsGVR, b.Namespace, b.Name)
	if err != nil {
		return true, nil, err
	}
	p := obj.(*v1.Pod).DeepCopy()
	if b.UID != "" && b.UID != p.UID {
		return true, nil, apierrors.NewConflict(podsGVR.GroupResource(), b.Name, errors.New("UID precondition failed"))
	}
	if p.Spec.NodeName != "" {
		return true, nil, apierrors.NewConflict(podsGVR.GroupResource(), b.Name, fmt.Errorf("pod %s is already assigned to node %q", b.Name, p.Spec.NodeName))
	}
	p.Spec.NodeName = b.Target.Name
	return true, nil, e.client.Tracker().Update(podsGVR, p, b.Namespace)
}

func (e *env) options(pol, adm string) Options {
	e.t.Helper()
	pf, _, err := policy.Parse(pol)
	if err != nil {
		e.t.Fatal(err)
	}
	af, err := admission.Parse(adm)
	if err != nil {
		e.t.Fatal(err)
	}
	e.rec = record.NewFakeRecorder(1000)
	return Options{
		Client: e.client, Policy: pf, PolicyName: pol, Admission: af, Recorder: e.rec,
		BackoffInitial: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond, StatusEvery: 20 * time.Millisecond,
		Check: true,
		Log:   slog.New(slog.NewTextHandler(testWriter{e.t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OnDecision: func(d Decision) {
			e.mu.Lock()
			e.decisions = append(e.decisions, d)
			e.mu.Unlock()
		},
	}
}

// start builds a scheduler on the fake apiserver, stepped by hand, and
// settles it; its clock starts an hour after the pods' creation epoch.
// stop discards it, as a scheduler that dies: a later start is a restart.
func (e *env) start(o Options) (s *Scheduler, stop func()) {
	e.t.Helper()
	st, err := NewStepper(o, epoch.Add(time.Hour))
	if err != nil {
		e.t.Fatal(err)
	}
	e.st = st
	return st.Scheduler(), func() {
		if e.st == st {
			e.st = nil
		}
	}
}

// settle steps the scheduler until it has nothing left to do.
func (e *env) settle() {
	e.t.Helper()
	if e.st == nil {
		e.t.Fatal("no scheduler running")
	}
	if err := e.st.Settle(); err != nil {
		e.t.Fatal(err)
	}
}

// advance moves the scheduler's clock and settles what fell due.
func (e *env) advance(d time.Duration) {
	e.t.Helper()
	if err := e.st.Advance(d); err != nil {
		e.t.Fatal(err)
	}
}

// onLoop settles the scheduler and runs f as its event loop, with the core
// and the driver's state quiescent.
func (e *env) onLoop(_ *Scheduler, f func()) {
	e.t.Helper()
	e.settle()
	f()
}

// statusTick advances the clock past the quiet period and one status
// refresh: the scheduler then says on every pod that has waited since
// before the tick why it waits (an Event, and a PodScheduled=False
// condition).
func (e *env) statusTick() {
	e.t.Helper()
	o := e.st.Scheduler().o
	e.advance(o.StatusAfter + o.StatusEvery)
}

// waitFor settles the scheduler and fails unless cond then holds.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	e.settle()
	if !cond() {
		e.t.Fatalf("settled, and not %s", what)
	}
}

func (e *env) pod(key string) *v1.Pod {
	ns, name := splitKey(key)
	obj, err := e.client.Tracker().Get(podsGVR, ns, name)
	if err != nil {
		return nil
	}
	return obj.(*v1.Pod)
}

func (e *env) nodeOf(key string) string {
	if p := e.pod(key); p != nil {
		return p.Spec.NodeName
	}
	return ""
}

func (e *env) waitBound(key, node string) {
	e.t.Helper()
	e.waitFor(key+" bound to "+node, func() bool { return e.nodeOf(key) == node })
}

// staysUnbound settles the scheduler and checks that the pod is not bound.
func (e *env) staysUnbound(key string) {
	e.t.Helper()
	e.settle()
	if n := e.nodeOf(key); n != "" {
		e.t.Fatalf("%s bound to %s, want it unbound", key, n)
	}
}

func (e *env) setPhase(key string, ph v1.PodPhase) {
	e.t.Helper()
	p := e.pod(key).DeepCopy()
	p.Status.Phase = ph
	if err := e.client.Tracker().Update(podsGVR, p, p.Namespace); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) add(obj runtime.Object) {
	e.t.Helper()
	var err error
	switch o := obj.(type) {
	case *v1.Pod:
		err = e.client.Tracker().Create(podsGVR, o, o.Namespace)
	case *v1.Node:
		err = e.client.Tracker().Create(nodesGVR, o, "")
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

// drainEvents collects what the recorder has seen so far.
func (e *env) drainEvents() []string {
	for {
		select {
		case ev := <-e.rec.Events:
			e.events = append(e.events, ev)
		default:
			return e.events
		}
	}
}

func (e *env) waitEvent(substr ...string) string {
	e.t.Helper()
	var got string
	e.waitFor(fmt.Sprintf("an event with %q", substr), func() bool {
		for _, ev := range e.drainEvents() {
			ok := true
			for _, s := range substr {
				ok = ok && strings.Contains(ev, s)
			}
			if ok {
				got = ev
				return true
			}
		}
		return false
	})
	return got
}

func (e *env) bindCalls(key string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.binds[key]
}

// Objects.

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func readyNode(name, cpu, mem string, labels map[string]string, taints ...v1.Taint) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{
			Allocatable: rl("cpu", cpu, "memory", mem, "pods", "110"),
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

type podOpt func(*v1.Pod)

var podSeq int

func mkPod(ns, name, cpu string, opts ...podOpt) *v1.Pod {
	podSeq++
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name),
			CreationTimestamp: metav1.NewTime(epoch.Add(time.Duration(podSeq) * time.Second)), Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec:   v1.PodSpec{SchedulerName: "spindle", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: rl("cpu", cpu, "memory", "256Mi")}}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withLabels(kv ...string) podOpt {
	return func(p *v1.Pod) {
		for i := 0; i < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func annotations(kv ...string) podOpt {
	return func(p *v1.Pod) {
		for i := 0; i < len(kv); i += 2 {
			p.Annotations[kv[i]] = kv[i+1]
		}
	}
}

func boundTo(node string, phase v1.PodPhase) podOpt {
	return func(p *v1.Pod) { p.Spec.NodeName, p.Status.Phase = node, phase }
}

func scheduler(name string) podOpt { return func(p *v1.Pod) { p.Spec.SchedulerName = name } }

func driver(app string) podOpt {
	return withLabels(LabelSparkApp, app, LabelSparkRole, "driver")
}

func executor(app string) podOpt {
	return withLabels(LabelSparkApp, app, LabelSparkRole, "executor")
}

// Tests.

func TestPlacesAroundOtherSchedulersAndConstraints(t *testing.T) {
	taint := v1.Taint{Key: "dedicated", Value: "big", Effect: v1.TaintEffectNoSchedule}
	e := newEnv(t,
		readyNode("a", "4", "8Gi", map[string]string{"disk": "ssd"}),
		readyNode("b", "4", "8Gi", nil),
		readyNode("c", "16", "32Gi", nil, taint),
		// 3 of a's 4 CPUs go to a pod of another scheduler.
		mkPod("ns", "other", "3", scheduler("default-scheduler"), boundTo("a", v1.PodRunning)),
	)
	s, _ := e.start(e.options("drf", "none"))
	e.add(mkPod("ns", "p1", "2"))
	e.waitBound("ns/p1", "b") // a has 1 CPU left for spindle
	e.add(mkPod("ns", "p2", "1", func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }))
	e.waitBound("ns/p2", "a")
	e.add(mkPod("ns", "big", "8"))
	e.add(mkPod("ns", "big-tolerant", "8", func(p *v1.Pod) {
		p.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "big", Effect: v1.TaintEffectNoSchedule}}
	}))
	e.waitBound("ns/big-tolerant", "c")
	e.staysUnbound("ns/big")
	e.statusTick()
	e.waitEvent("Normal Scheduled", "ns/p1 to b")
	// Bigger than a and b, and c's taint is not tolerated: kube-scheduler's
	// words, counted per node.
	e.waitEvent("Warning FailedScheduling", "it fits no node: 0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: big}, 2 Insufficient cpu.")
	e.onLoop(s, func() {
		a := s.core.Cluster().Node(s.nodes["a"].id)
		if got := a.External()[0]; got != 3000 {
			t.Errorf("node a external CPU = %d milli, want 3000", got)
		}
		if got := a.Free()[0]; got != 0 {
			t.Errorf("node a free CPU = %d milli, want 0", got)
		}
	})
	// The other scheduler's pod ends: its CPU comes back to spindle.
	e.setPhase("ns/other", v1.PodSucceeded)
	e.add(mkPod("ns", "p3", "3"))
	e.waitBound("ns/p3", "a")
}

// Executors are placed once their driver is bound, not before, and not
// only once it runs: here the driver waits for room that another
// scheduler's pod holds, and its executors, which would fit, wait with it.
func TestExecutorsWaitForTheirDriver(t *testing.T) {
	e := newEnv(t, readyNode("a", "8", "16Gi", nil),
		mkPod("ns", "other", "7500m", scheduler("default-scheduler"), boundTo("a", v1.PodRunning)))
	s, _ := e.start(e.options("fifo", "none"))
	e.add(mkPod("spark", "drv", "1", driver("app-1")))
	e.add(mkPod("spark", "exec-1", "250m", executor("app-1")))
	e.add(mkPod("spark", "exec-2", "250m", executor("app-1")))
	e.staysUnbound("spark/drv")
	e.staysUnbound("spark/exec-1")
	e.staysUnbound("spark/exec-2")
	e.statusTick()
	e.waitEvent("FailedScheduling", "waiting for driver pod spark/drv to be bound")
	e.waitFor("PodScheduled=False on exec-1", func() bool {
		for _, c := range e.pod("spark/exec-1").Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && strings.Contains(c.Message, "driver pod spark/drv") {
				return true
			}
		}
		return false
	})
	// The other scheduler's pod ends: the driver is bound, and its
	// executors with it, while the driver is still Pending.
	e.setPhase("ns/other", v1.PodSucceeded)
	e.waitBound("spark/drv", "a")
	e.waitBound("spark/exec-1", "a")
	e.waitBound("spark/exec-2", "a")
	if ph := e.pod("spark/drv").Status.Phase; ph != v1.PodPending {
		t.Fatalf("driver %s, want still Pending", ph)
	}
	e.setPhase("spark/drv", v1.PodRunning)
	e.onLoop(s, func() {
		j := s.core.JobByKey("spark/app-1")
		if j == nil || j.State() != sched.Active || j.LiveContainers() != 3 {
			t.Errorf("job = %v, want active with 3 containers", j)
		}
	})
	// The driver ends: the job ends; its executors' ends are still counted.
	e.setPhase("spark/exec-1", v1.PodRunning)
	e.setPhase("spark/exec-1", v1.PodSucceeded)
	e.setPhase("spark/drv", v1.PodSucceeded)
	e.waitFor("job finished", func() bool {
		done := false
		e.onLoop(s, func() { done = s.core.JobByKey("spark/app-1").State() == sched.Finished })
		return done
	})
}

func TestAdmissionHoldsDriverWithConditionAndEvent(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	// static:4 keeps all 4 vcores for tasks: no AM is ever admitted.
	s, _ := e.start(e.options("fair", "static:4"))
	e.add(mkPod("batch", "lone", "1")) // no AM: nothing to hold
	e.waitBound("batch/lone", "a")
	e.add(mkPod("spark", "drv", "1", driver("app-1")))
	e.add(mkPod("spark", "exec-1", "1", executor("app-1")))
	e.staysUnbound("spark/drv")
	e.staysUnbound("spark/exec-1")
	e.statusTick()
	ev := e.waitEvent("Warning FailedScheduling", "job spark/app-1 waits for admission, number 1 in queue default: static reservation: 4 of 4 vcores kept for tasks")
	t.Logf("event: %s", ev)
	e.waitFor("PodScheduled=False on the driver", func() bool {
		for _, c := range e.pod("spark/drv").Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable && strings.Contains(c.Message, "waits for admission") {
				return true
			}
		}
		return false
	})
	e.onLoop(s, func() {
		if got := s.core.WaitingJobs(); got != 1 {
			t.Errorf("waiting jobs = %d, want 1", got)
		}
	})
}

func TestFailedBindingIsRefusedAndRetried(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	e.failBind = func(key string, n int) error {
		if key == "ns/p1" && n == 1 {
			return apierrors.NewInternalError(errors.New("etcd hiccup"))
		}
		return nil
	}
	o := e.options("fifo", "none")
	s, _ := e.start(o)
	e.add(mkPod("ns", "p1", "1"))
	e.waitEvent("FailedScheduling", "binding to a failed", "etcd hiccup", "retrying in")
	// Until the backoff expires the pod is not asked for again.
	e.advance(o.BackoffInitial - time.Millisecond)
	e.staysUnbound("ns/p1")
	e.advance(time.Millisecond)
	e.waitBound("ns/p1", "a")
	if n := e.bindCalls("ns/p1"); n != 2 {
		t.Errorf("binding calls = %d, want 2", n)
	}
	e.onLoop(s, func() {
		c := s.core.Counts()
		if c.Refused != 1 {
			t.Errorf("refused = %d, want 1", c.Refused)
		}
		ct := s.core.ContainerByKey("ns/p1")
		if ct == nil || s.NodeName(ct.Node().ID()) != "a" {
			t.Errorf("container for p1 = %v, want one on a", ct)
		}
		if got := s.core.Cluster().Allocated()[0]; got != 1000 {
			t.Errorf("allocated CPU = %d, want 1000 (the refused attempt released)", got)
		}
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.decisions) != 2 || e.decisions[0].Err == nil || e.decisions[1].Err != nil {
		t.Errorf("decisions = %+v, want a failure then a success", e.decisions)
	}
}

func TestConflictingBindingAdoptsWhereThePodWent(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil), readyNode("b", "4", "8Gi", nil))
	// Another replica binds p1 to b just before our binding to a lands.
	e.failBind = func(key string, n int) error {
		obj, _ := e.client.Tracker().Get(podsGVR, "ns", "p1")
		p := obj.(*v1.Pod).DeepCopy()
		p.Spec.NodeName = "b"
		if err := e.client.Tracker().Update(podsGVR, p, "ns"); err != nil {
			return err
		}
		return apierrors.NewConflict(podsGVR.GroupResource(), "p1", errors.New("already assigned"))
	}
	s, _ := e.start(e.options("fifo", "none"))
	e.add(mkPod("ns", "p1", "1"))
	e.waitBound("ns/p1", "b")
	e.waitFor("p1 adopted on b", func() bool {
		ok := false
		e.onLoop(s, func() {
			ct := s.core.ContainerByKey("ns/p1")
			ok = ct != nil && s.NodeName(ct.Node().ID()) == "b" && s.core.Cluster().Allocated()[0] == 1000
		})
		return ok
	})
	// Past any backoff, nothing was retried.
	e.advance(2 * e.st.Scheduler().o.BackoffMax)
	if n := e.bindCalls("ns/p1"); n != 1 {
		t.Errorf("binding calls = %d, want 1 (no retry after the conflict)", n)
	}
}

func TestPodDeletedWhileAssumed(t *testing.T) {
	e := newEnv(t, readyNode("a", "2", "8Gi", nil))
	s, _ := e.start(e.options("fifo", "none"))
	e.st.Hold("ns/p1") // the binding stays in flight
	e.add(mkPod("ns", "p1", "2"))
	e.onLoop(s, func() {
		if ct := s.core.ContainerByKey("ns/p1"); ct == nil || s.core.Cluster().Allocated()[0] != 2000 {
			t.Errorf("p1 not assumed: container %v", ct)
		}
	})
	if err := e.client.Tracker().Delete(podsGVR, "ns", "p1"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("p1 forgotten and its CPU freed", func() bool {
		ok := false
		e.onLoop(s, func() {
			ok = s.pods["ns/p1"] == nil && s.core.AskedBy("ns/p1") == nil &&
				s.core.Cluster().Allocated().IsZero()
		})
		return ok
	})
	e.st.Release("ns/p1") // the binding now lands, and fails: the pod is gone
	e.add(mkPod("ns", "p2", "2"))
	e.waitBound("ns/p2", "a")
	if n := e.bindCalls("ns/p1"); n != 1 {
		t.Errorf("p1's binding calls = %d, want the one that was in flight", n)
	}
	if d := e.decisionsCopy(); len(d) != 2 || d[0].Pod != "ns/p1" || d[0].Err == nil || d[1].Pod != "ns/p2" || d[1].Err != nil {
		t.Errorf("decisions = %+v, want p1's failed binding, then p2's", d)
	}
}

func TestNodeDeleted(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil), readyNode("b", "4", "8Gi", nil))
	s, _ := e.start(e.options("fifo", "none"))
	e.add(mkPod("ns", "p1", "3"))
	e.waitFor("p1 bound", func() bool { return e.nodeOf("ns/p1") != "" })
	first := e.nodeOf("ns/p1")
	e.setPhase("ns/p1", v1.PodRunning)
	if err := e.client.Tracker().Delete(nodesGVR, "", first); err != nil {
		t.Fatal(err)
	}
	e.waitFor("p1's container lost", func() bool {
		ok := false
		e.onLoop(s, func() { ok = s.core.Counts().Lost == 1 })
		return ok
	})
	e.add(mkPod("ns", "p2", "3"))
	other := map[string]string{"a": "b", "b": "a"}[first]
	e.waitBound("ns/p2", other)
	e.onLoop(s, func() {
		if s.core.Cluster().Capacity()[0] != 4000 {
			t.Errorf("cluster CPU = %d, want 4000 after the node left", s.core.Cluster().Capacity()[0])
		}
	})
}

func TestNotReadyAndCordonedNodesTakeNothing(t *testing.T) {
	notReady := readyNode("a", "8", "8Gi", nil)
	notReady.Status.Conditions[0].Status = v1.ConditionFalse
	cordoned := readyNode("b", "8", "8Gi", nil)
	cordoned.Spec.Unschedulable = true
	// A NotReady node as the node lifecycle controller leaves it.
	tainted := readyNode("c", "8", "8Gi", nil)
	tainted.Status.Conditions[0].Status = v1.ConditionFalse
	tainted.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}}
	e := newEnv(t, notReady, cordoned, tainted)
	e.start(e.options("fifo", "none"))
	e.add(mkPod("ns", "p1", "1"))
	e.staysUnbound("ns/p1")
	// Each node in kube-scheduler's words; the one it would take (NotReady,
	// not tainted yet) as kube-scheduler words it where it has the filter.
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were not ready, 1 node(s) were unschedulable."
	if msg := e.waitCondition("ns/p1", "nodes are available"); msg != want {
		t.Errorf("p1 says %q, want %q", msg, want)
	}
	// The node becomes Ready: the pod goes there.
	n := notReady.DeepCopy()
	n.Status.Conditions[0].Status = v1.ConditionTrue
	if err := e.client.Tracker().Update(nodesGVR, n, ""); err != nil {
		t.Fatal(err)
	}
	e.waitBound("ns/p1", "a")
}

func TestRestartAdoptsAndBindsNothingTwice(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil), readyNode("b", "4", "8Gi", nil))
	_, stop := e.start(e.options("fifo", "none"))
	e.add(mkPod("spark", "drv", "1", driver("app")))
	e.waitFor("driver bound", func() bool { return e.nodeOf("spark/drv") != "" })
	e.setPhase("spark/drv", v1.PodRunning)
	for i := 1; i <= 4; i++ {
		e.add(mkPod("spark", fmt.Sprintf("exec-%d", i), "1", executor("app")))
	}
	for i := 1; i <= 4; i++ {
		key := fmt.Sprintf("spark/exec-%d", i)
		e.waitFor(key+" bound", func() bool { return e.nodeOf(key) != "" })
	}
	stop() // the first scheduler dies

	e.add(mkPod("spark", "exec-5", "2", executor("app")))
	e.add(mkPod("ns", "lone", "1"))
	s2, _ := e.start(e.options("fifo", "none"))
	// 5 of 8 CPUs are adopted: exec-5 (2) and lone (1) fill the rest.
	e.waitFor("exec-5 and lone bound", func() bool { return e.nodeOf("spark/exec-5") != "" && e.nodeOf("ns/lone") != "" })
	e.onLoop(s2, func() {
		if got := s2.core.Cluster().Allocated()[0]; got != 8000 {
			t.Errorf("allocated after restart = %d milli-CPU, want 8000", got)
		}
		j := s2.core.JobByKey("spark/app")
		if j == nil || j.State() != sched.Active || j.LiveContainers() != 6 {
			t.Errorf("job after restart = %+v, want active with 6 containers", j)
		}
	})
	for _, key := range []string{"spark/drv", "spark/exec-1", "spark/exec-2", "spark/exec-3", "spark/exec-4", "spark/exec-5", "ns/lone"} {
		if n := e.bindCalls(key); n != 1 {
			t.Errorf("%s bound %d times, want once", key, n)
		}
	}
}

func TestUnknownQueueIsHeldWithAReason(t *testing.T) {
	cfg, err := ParseConfig([]byte("queues: [{name: gold, capacity: 1}]"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	o := e.options("fifo", "none")
	o.Config = cfg
	e.start(o)
	e.add(mkPod("team", "p1", "1"))
	e.add(mkPod("team", "p2", "1", withLabels(LabelQueue, "gold")))
	e.waitBound("team/p2", "a")
	e.staysUnbound("team/p1")
	e.waitEvent("FailedScheduling", `queue "team" is not configured`)
}

// replayDuration is the annotation through which the replayer tells kwok
// how long a task runs. The scheduler must never read it; it is named here
// only, in a test.
const replayDuration = "spindle.io/replay-duration"

func TestReplayDurationIsNeverRead(t *testing.T) {
	// The same workload twice, the durations scrambled the second time:
	// every decision must be the same. SJF is the policy most tempted by a
	// duration; it sees only the declared estimates.
	run := func(durations []string) []string {
		podSeq = 0
		objs := []runtime.Object{readyNode("a", "4", "8Gi", nil), readyNode("b", "2", "4Gi", nil)}
		k := 0
		for j := range 6 {
			app := fmt.Sprintf("app-%d", j)
			objs = append(objs, mkPod("ns", app+"-drv", "500m", driver(app), annotations(AnnotationEstimate, fmt.Sprintf("%ds", 60-j*7), replayDuration, durations[k])))
			k++
			for x := range 3 {
				objs = append(objs, mkPod("ns", fmt.Sprintf("%s-exec-%d", app, x), "1", executor(app), annotations(replayDuration, durations[k])))
				k++
			}
		}
		for i := range 4 {
			objs = append(objs, mkPod("ns", fmt.Sprintf("lone-%d", i), "1500m", annotations(replayDuration, durations[k])))
			k++
		}
		e := newEnv(t, objs...)
		o := e.options("sjf", "none")
		o.BindWorkers = 1 // results in decision order
		s, stop := e.start(o)
		e.waitFor("the first wave placed", func() bool { return len(e.decisionsCopy()) > 0 && e.quiet(s) })
		stop()
		var out []string
		for _, d := range e.decisionsCopy() {
			out = append(out, d.Pod+"→"+d.Node)
		}
		return out
	}
	var durs, scrambled []string
	for i := range 28 {
		durs = append(durs, fmt.Sprintf("%ds", 5+i*13%97))
		scrambled = append(scrambled, fmt.Sprintf("%ds", 1000-i*31%89))
	}
	first, second := run(durs), run(scrambled)
	if len(first) == 0 {
		t.Fatal("nothing was placed")
	}
	if strings.Join(first, ",") != strings.Join(second, ",") {
		t.Fatalf("decisions differ with scrambled durations:\n%v\n%v", first, second)
	}
	t.Logf("%d identical decisions: %v", len(first), first)
}

func (e *env) decisionsCopy() []Decision {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Decision(nil), e.decisions...)
}

// quiet reports whether no binding is in flight or queued.
func (e *env) quiet(s *Scheduler) bool { return s.inflight == 0 && len(s.outbox) == 0 }

func TestSourceNeverNamesTheReplayDuration(t *testing.T) {
	// A static proof beside the behavioural one: no scheduler source file
	// mentions the annotation.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if strings.Contains(string(b), "replay-duration") {
			t.Errorf("%s mentions replay-duration", f)
		}
	}
	if checked < 4 {
		t.Fatalf("checked %d files, want the package's sources", checked)
	}
}

func TestPublishesSnapshots(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil),
		mkPod("kube-system", "daemon", "500m", scheduler("default-scheduler"), boundTo("a", v1.PodRunning)))
	o := e.options("fair", "static:3")
	rec := observe.NewRecorder(observe.Options{})
	o.Observe, o.AdmissionName = rec, "static:3"
	s, _ := e.start(o)
	e.add(mkPod("spark", "drv", "1", driver("app")))
	e.add(mkPod("spark", "drv2", "1", driver("app2")))
	e.waitBound("spark/drv", "a")
	e.statusTick()
	e.waitFor("a snapshot with both jobs", func() bool {
		e.onLoop(s, s.publish)
		snap := rec.Latest()
		return snap != nil && len(snap.Jobs) == 2 && snap.Jobs[1].AM == observe.AMWaiting && snap.Jobs[1].AMReason != ""
	})
	snap := rec.Latest()
	if len(snap.Nodes) != 1 {
		t.Fatalf("nodes = %+v", snap.Nodes)
	}
	n := snap.Nodes[0]
	if n.Name != "a" || n.Capacity.MilliCPU != 4000 || n.External.MilliCPU != 500 || n.Allocated.MilliCPU != 1000 || !n.Schedulable {
		t.Errorf("node = %+v, want a: 4000m, 500m external, 1000m allocated", n)
	}
	if j := snap.Jobs[0]; j.Name != "spark/app" || j.Namespace != "spark" || j.AM != observe.AMAdmitted || j.Usage.MilliCPU != 1000 {
		t.Errorf("job 0 = %+v", j)
	}
	if q := snap.Queues[0]; q.Name != "default" || q.AMsAdmitted != 1 || q.AMsWaiting != 1 || q.PendingPods != 1 {
		t.Errorf("queue = %+v", q)
	}
	if !rec.Synced() {
		t.Error("recorder not told the scheduler synced")
	}
	if len(snap.Decisions) != 1 || snap.Decisions[0].Pod != "spark/drv" || snap.Decisions[0].Node != "a" || !snap.Decisions[0].AM {
		t.Errorf("decisions = %+v", snap.Decisions)
	}
}

func TestTickingPolicyRunsOnTheTimer(t *testing.T) {
	e := newEnv(t, readyNode("a", "8", "16Gi", nil))
	o := e.options("dress:interval=200ms", "none")
	rec := observe.NewRecorder(observe.Options{})
	o.Observe = rec
	s, _ := e.start(o)
	e.add(mkPod("spark", "drv", "1", driver("app")))
	e.waitBound("spark/drv", "a")
	e.setPhase("spark/drv", v1.PodRunning)
	e.add(mkPod("spark", "exec-0", "1", executor("app")))
	e.waitBound("spark/exec-0", "a")
	// No event arrives now; only the timer moves the core's clock past its
	// ticks (armTimer sets it for them: TestNextWake).
	e.advance(700 * time.Millisecond)
	e.onLoop(s, func() {
		if s.nextTick <= clock.Time(600*clock.Millisecond) || s.nextTick == clock.Never {
			t.Errorf("next tick at %v: the 200ms ticks did not run on their own", s.nextTick)
		}
		s.publish()
	})
	if _, ok := rec.Latest().Gauges["dress_delta"]; !ok {
		t.Errorf("gauges = %v, want dress_delta", rec.Latest().Gauges)
	}
}

func TestAutoAdminExplainsWaitingDriver(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	s, _ := e.start(e.options("fair", "autoadmin"))
	for i := range 4 {
		e.add(mkPod("spark", fmt.Sprintf("drv-%d", i), "1", driver(fmt.Sprintf("app-%d", i))))
	}
	e.statusTick()
	ev := e.waitEvent("FailedScheduling", "waits for admission, number 1 in queue default: AutoAdmin: vcores", "reserve R_R")
	t.Logf("event: %s", ev)
	e.onLoop(s, func() {
		if s.core.WaitingJobs() == 0 {
			t.Error("no job waits for admission")
		}
		// AutoAdmin's point: AMs never take what it reserves for tasks.
		held := s.core.Cluster().AMAllocated()[0]
		if held > 3000 {
			t.Errorf("AMs hold %dm of 4000m", held)
		}
	})
}

// testWriter puts the scheduler's warnings and errors in the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func TestFractionalRequestsPlacedExactly(t *testing.T) {
	// 1500m of CPU takes exactly three 500m pods; memory in MiB rounds the
	// requests up and the node down, so 3 × 300Mi fits in 900Mi + 1023 bytes
	// and nothing more does.
	node := readyNode("a", "1500m", "943719423", nil) // 900 MiB + 1023 bytes
	e := newEnv(t, node)
	s, _ := e.start(e.options("fifo", "none"))
	for i := range 3 {
		p := mkPod("ns", fmt.Sprintf("p%d", i), "500m")
		p.Spec.Containers[0].Resources.Requests = rl("cpu", "500m", "memory", "300Mi")
		e.add(p)
	}
	for i := range 3 {
		e.waitBound(fmt.Sprintf("ns/p%d", i), "a")
	}
	extra := mkPod("ns", "extra", "1m")
	extra.Spec.Containers[0].Resources.Requests = rl("cpu", "1m")
	e.add(extra)
	e.staysUnbound("ns/extra")
	e.onLoop(s, func() {
		n := s.core.Cluster().Node(0)
		if want := (resource.Vector{1500, 900, 0, 0}); n.Capacity() != want || n.Allocated() != want {
			t.Errorf("node capacity %v, allocated %v; want 1500m/900MiB both", n.Capacity(), n.Allocated())
		}
	})
}

// Conditions on waiting pods go through the status client, never the
// client the bindings use.
func TestStatusWritesUseTheStatusClient(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	status := fake.NewClientset()
	var mu sync.Mutex
	patched := map[string]string{}
	status.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pa := a.(k8stesting.PatchAction)
		mu.Lock()
		patched[pa.GetNamespace()+"/"+pa.GetName()+"/"+pa.GetSubresource()] = string(pa.GetPatch())
		mu.Unlock()
		return true, &v1.Pod{}, nil
	})
	o := e.options("fair", "static:4")
	o.StatusClient = status
	e.start(o)
	e.add(mkPod("spark", "drv", "1", driver("app-1")))
	e.staysUnbound("spark/drv")
	e.statusTick()
	e.waitFor("PodScheduled=False on the driver, through the status client", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(patched["spark/drv/status"], "waits for admission")
	})
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "patch" {
			t.Errorf("the main client patched %s/%s", a.GetResource().Resource, a.GetSubresource())
		}
	}
}

// A queued condition is written only if the pod still waits for the same
// reason when a status worker takes it, and against the pod's latest
// version.
func TestNextStatusDropsWritesForPodsNoLongerWaiting(t *testing.T) {
	pod := func(rv, node string) *v1.Pod {
		p := mkPod("ns", "p", "1")
		p.ResourceVersion, p.Spec.NodeName = rv, node
		return p
	}
	for _, tc := range []struct {
		name     string
		ps       *podState // nil: the pod is gone
		write    statusWrite
		want     bool
		wantCond string // ps.cond afterwards
	}{
		{"still waiting", &podState{key: "ns/p", uid: "u1", phase: podAsked, cond: "m", pod: pod("7", "")}, statusWrite{"ns/p", "u1", "m"}, true, "m"},
		{"held", &podState{key: "ns/p", uid: "u1", phase: podHeld, cond: "m", pod: pod("7", "")}, statusWrite{"ns/p", "u1", "m"}, true, "m"},
		{"in backoff", &podState{key: "ns/p", uid: "u1", phase: podBackoff, cond: "m", pod: pod("7", "")}, statusWrite{"ns/p", "u1", "m"}, true, "m"},
		{"placed since", &podState{key: "ns/p", uid: "u1", phase: podAssumed, cond: "m", pod: pod("7", "")}, statusWrite{"ns/p", "u1", "m"}, false, ""},
		{"bound since", &podState{key: "ns/p", uid: "u1", phase: podAsked, cond: "m", pod: pod("8", "a")}, statusWrite{"ns/p", "u1", "m"}, false, ""},
		{"waits for something else", &podState{key: "ns/p", uid: "u1", phase: podAsked, cond: "n", pod: pod("7", "")}, statusWrite{"ns/p", "u1", "m"}, false, "n"},
		{"replaced by a pod of the same name", &podState{key: "ns/p", uid: "u2", phase: podAsked, cond: "m", pod: pod("7", "")}, statusWrite{"ns/p", "u1", "m"}, false, "m"},
		{"gone", nil, statusWrite{"ns/p", "u1", "m"}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Scheduler{pods: map[string]*podState{}, statusBox: []statusWrite{tc.write}}
			if tc.ps != nil {
				s.pods["ns/p"] = tc.ps
			}
			task, ok := s.nextStatus()
			if ok != tc.want {
				t.Fatalf("nextStatus() ok = %v, want %v", ok, tc.want)
			}
			if ok {
				if task.kind != taskStatus || task.pod != "ns/p" || task.uid != "u1" || task.message != "m" || task.rv != tc.ps.pod.ResourceVersion {
					t.Errorf("task = %+v", task)
				}
				if len(s.statusBox) != 1 {
					t.Errorf("the write was taken off the queue before a worker took it")
				}
			} else if len(s.statusBox) != 0 {
				t.Errorf("stale write left on the queue: %v", s.statusBox)
			}
			if tc.ps != nil && tc.ps.cond != tc.wantCond {
				t.Errorf("cond = %q, want %q", tc.ps.cond, tc.wantCond)
			}
		})
	}
}

// The loop's timer, which Run arms and a Stepper replaces with Advance,
// wakes it for the earliest of the core's next tick and the backoffs, and
// at once for one already due.
func TestNextWake(t *testing.T) {
	at := func(d time.Duration) *podState { return &podState{retryAt: epoch.Add(d)} }
	for _, c := range []struct {
		name     string
		now      time.Duration // since the epoch
		nextTick clock.Time
		backoff  []*podState
		want     time.Duration
	}{
		{"nothing due: an hour", 0, clock.Never, nil, time.Hour},
		{"the next tick", 100 * time.Millisecond, clock.Time(300 * clock.Millisecond), nil, 200 * time.Millisecond},
		{"a backoff before the tick", 0, clock.Time(300 * clock.Millisecond), []*podState{at(time.Second), at(50 * time.Millisecond)}, 50 * time.Millisecond},
		{"the tick before the backoffs", 0, clock.Time(30 * clock.Millisecond), []*podState{at(50 * time.Millisecond)}, 30 * time.Millisecond},
		{"a backoff already due", time.Second, clock.Never, []*podState{at(500 * time.Millisecond)}, 0},
		{"a tick already due", time.Second, clock.Time(400 * clock.Millisecond), nil, 0},
	} {
		now := epoch.Add(c.now)
		s := &Scheduler{o: Options{Now: func() time.Time { return now }}, epoch: epoch, nextTick: c.nextTick, backoff: c.backoff}
		if got := s.nextWake(); got != c.want {
			t.Errorf("%s: wake in %v, want %v", c.name, got, c.want)
		}
	}
}

// Run is the loop the Stepper steps, fed by informers, bind workers and the
// wall clock. A pod listed at start (so that the fake clientset's race
// between list and watch cannot lose it) is bound through them; the test
// blocks on the decision rather than polling for it.
func TestRunBindsThroughInformersAndWorkers(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil), mkPod("ns", "p1", "1"))
	o := e.options("fifo", "none")
	decided := make(chan Decision, 1)
	o.OnDecision = func(d Decision) { decided <- d }
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()
	select {
	case d := <-decided:
		if d.Pod != "ns/p1" || d.Node != "a" || d.Err != nil {
			t.Errorf("decision %+v, want ns/p1 bound to a", d)
		}
	case err := <-errc:
		t.Fatalf("Run returned before deciding: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no decision within a minute")
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := e.nodeOf("ns/p1"); n != "a" {
		t.Errorf("p1 on %q, want a", n)
	}
}
