package kube

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/spindle-sched/spindle/kube/forecast"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/kube/served"
)

// Stepper runs a Scheduler's event loop by hand, on the caller's goroutine:
// no informers, no worker goroutines, no timers. Settle reads what changed
// in the apiserver since the last step, as a watch would deliver it, and
// runs the loop's work (syncing nodes and pods into the core, the core's
// decisions, the bindings and status writes through the client, their
// results) until nothing is left. Advance moves the scheduler's clock and
// runs what fell due: the core's periodic tick, expired binding backoffs,
// the status refresh. Hold keeps a pod's binding in flight across steps
// until Release.
//
// It is the same loop Run drives with informers, workers and the wall
// clock, made deterministic: tests and the scripted scenarios of
// kube/kubescript state what the scheduler does after each event, with no
// sleeping and no polling. It is not safe for concurrent use.
type Stepper struct {
	s      *Scheduler
	ctx    context.Context
	pods   cache.Indexer
	nodes  cache.Indexer
	groups cache.Indexer
	// volcano and priorityClasses hold Volcano PodGroups and
	// PriorityClasses when Options.Dynamic is set (the stepped apiserver
	// then serves the CRD).
	volcano, priorityClasses cache.Indexer
	now                      time.Time
	lastStatus               time.Time
	held                     map[string]bool
	parked                   []apiTask
}

// NewStepper builds a scheduler stepped by hand from the options, its clock
// starting at start (Options.Now is replaced by the stepper's clock), and
// takes the apiserver's current state as its first step. A nil Recorder
// drops Events.
func NewStepper(o Options, start time.Time) (*Stepper, error) {
	st := &Stepper{ctx: context.Background(), now: start, lastStatus: start, held: map[string]bool{}}
	o.Now = func() time.Time { return st.now }
	if o.Recorder == nil {
		o.Recorder = &record.FakeRecorder{}
	}
	s, err := New(o)
	if err != nil {
		return nil, err
	}
	st.s = s
	st.pods = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	st.nodes = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	s.podLister, s.nodeLister = corelisters.NewPodLister(st.pods), corelisters.NewNodeLister(st.nodes)
	// The stepped apiserver (a fake clientset) serves PodGroups.
	st.groups = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	s.groupLister = schedulinglisters.NewPodGroupLister(st.groups)
	if o.Dynamic != nil {
		st.volcano = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		st.priorityClasses = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		s.volcanoGroups, s.priorityClasses = st.volcano, schedulingv1listers.NewPriorityClassLister(st.priorityClasses)
	}
	return st, st.Settle()
}

// Scheduler returns the scheduler being stepped. Between steps the caller
// is its event loop and may read its core.
func (st *Stepper) Scheduler() *Scheduler { return st.s }

// Now is the scheduler's clock.
func (st *Stepper) Now() time.Time { return st.now }

// Hold keeps the bindings of pod (namespace/name) in flight: the scheduler
// has decided and assumed them, and their answer has not come back.
func (st *Stepper) Hold(pod string) { st.held[pod] = true }

// Release lets pod's held bindings complete at the next step.
func (st *Stepper) Release(pod string) {
	delete(st.held, pod)
	keep := st.parked[:0]
	for _, t := range st.parked {
		if t.pod == pod {
			st.s.outbox = append(st.s.outbox, t)
		} else {
			keep = append(keep, t)
		}
	}
	st.parked = keep
}

// Advance settles what is pending, moves the clock by d and settles what
// fell due.
func (st *Stepper) Advance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("advance by %v: the clock never goes back", d)
	}
	// What happened before now is handled before what falls due later,
	// as the loop would have handled it already.
	if err := st.Settle(); err != nil {
		return err
	}
	st.now = st.now.Add(d)
	s := st.s
	if s.core != nil {
		s.clockNow() // runs a due tick
		s.retryBackoff()
		if every := s.o.StatusEvery; !st.now.Before(st.lastStatus.Add(every)) {
			st.lastStatus = st.now
			s.refreshStatus()
			s.publish()
		}
		s.maybeForecast()
	}
	return st.Settle()
}

// AwaitForecast waits for the forecast that Advance started (it runs on a
// goroutine of its own, as under Run) and applies its outcome, as the loop
// does when it hears of it. It fails when none is running.
func (st *Stepper) AwaitForecast() error {
	f := st.s.fc
	if f == nil || !f.running {
		return errors.New("no forecast is running")
	}
	f.finish(<-f.done)
	return nil
}

// WhatIf is the scheduler's /api/v1/forecast?policy=P, with the state
// taken on the caller's goroutine (the stepped loop's).
func (st *Stepper) WhatIf(names ...string) ([]observe.Forecast, error) {
	if st.s.fc == nil {
		return nil, errors.New("the scheduler does not forecast")
	}
	return st.s.fc.whatIf(st.ctx, names, func(context.Context) (*forecast.Snapshot, error) { return st.s.forecastSnapshot() })
}

// Settle steps until nothing is left to do: the apiserver's changes are
// synced, the core's requests met, and every binding and status write not
// held has been made and its result applied. It returns an error when the
// core reports one or an invariant breaks (Options.Check).
func (st *Stepper) Settle() error {
	s := st.s
	for range 10000 {
		changed, err := st.watch()
		if err != nil {
			return err
		}
		if s.core == nil {
			if len(st.nodes.ListKeys()) == 0 {
				s.queue.drain() // nothing to schedule on until a node joins
				return nil
			}
			if err := st.startCore(); err != nil {
				return err
			}
		}
		s.processQueue()
		s.settle()
		worked := false
		for len(s.outbox) > 0 {
			t := s.outbox[0]
			s.outbox[0] = apiTask{}
			s.outbox = s.outbox[1:]
			if st.held[t.pod] {
				st.parked = append(st.parked, t)
				continue
			}
			s.handleResult(s.call(st.ctx, t))
			worked = true
		}
		for {
			t, ok := s.nextStatus()
			if !ok {
				break
			}
			s.statusBox[0] = statusWrite{}
			s.statusBox = s.statusBox[1:]
			s.handleResult(s.call(st.ctx, t))
			worked = true
		}
		if err := s.core.Err(); err != nil {
			return fmt.Errorf("scheduling core: %w", err)
		}
		if s.o.Check {
			if err := s.core.Check(); err != nil {
				return fmt.Errorf("invariant broken: %w", err)
			}
		}
		if !changed && !worked && len(s.wakeAMs) == 0 && !s.dirty {
			return nil
		}
	}
	return errors.New("the scheduler did not settle in 10000 steps")
}

// startCore does what Run does once the informers have synced and a node
// exists.
func (st *Stepper) startCore() error {
	s := st.s
	if err := s.start(); err != nil {
		return err
	}
	if s.o.Observe != nil {
		s.settle()
		s.publish()
		s.o.Observe.SetSynced(true)
	}
	return nil
}

// watch brings the stepper's store up to date with the apiserver and
// queues every node and pod that was added, changed or deleted since the
// last step, as the informers' handlers do: nodes first, pods in creation
// order, so that a step is deterministic.
func (st *Stepper) watch() (bool, error) {
	nodes, err := st.s.o.Client.CoreV1().Nodes().List(st.ctx, metav1.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("list nodes: %w", err)
	}
	pods, err := st.s.o.Client.CoreV1().Pods("").List(st.ctx, metav1.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("list pods: %w", err)
	}
	ns := make([]metav1.Object, len(nodes.Items))
	for i := range nodes.Items {
		ns[i] = &nodes.Items[i]
	}
	sort.Slice(ns, func(a, b int) bool { return ns[a].GetName() < ns[b].GetName() })
	ps := make([]metav1.Object, len(pods.Items))
	for i := range pods.Items {
		ps[i] = &pods.Items[i]
	}
	sort.Slice(ps, func(a, b int) bool { return podBefore(ps[a].(*v1.Pod), ps[b].(*v1.Pod)) })
	groups, err := st.s.o.Client.SchedulingV1beta1().PodGroups("").List(st.ctx, metav1.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("list podgroups: %w", err)
	}
	gs := make([]metav1.Object, len(groups.Items))
	for i := range groups.Items {
		gs[i] = &groups.Items[i]
	}
	sort.Slice(gs, func(a, b int) bool {
		return gs[a].GetNamespace()+"/"+gs[a].GetName() < gs[b].GetNamespace()+"/"+gs[b].GetName()
	})
	changedNodes := st.deliver(st.nodes, kindNode, ns)
	if st.volcano != nil {
		pcs, err := st.s.o.Client.SchedulingV1().PriorityClasses().List(st.ctx, metav1.ListOptions{})
		if err != nil {
			return false, fmt.Errorf("list priorityclasses: %w", err)
		}
		cs := make([]metav1.Object, len(pcs.Items))
		for i := range pcs.Items {
			cs[i] = &pcs.Items[i]
		}
		st.deliver(st.priorityClasses, kindPriorityClass, cs)
		vl, err := st.s.o.Dynamic.Resource(served.VolcanoGVR).Namespace("").List(st.ctx, metav1.ListOptions{})
		if err != nil {
			return false, fmt.Errorf("list volcano podgroups: %w", err)
		}
		vs := make([]metav1.Object, len(vl.Items))
		for i := range vl.Items {
			vs[i] = &vl.Items[i]
		}
		sort.Slice(vs, func(a, b int) bool {
			return vs[a].GetNamespace()+"/"+vs[a].GetName() < vs[b].GetNamespace()+"/"+vs[b].GetName()
		})
		if st.deliver(st.volcano, kindVolcanoGroup, vs) {
			changedNodes = true
		}
	}
	changedGroups := st.deliver(st.groups, kindGroup, gs)
	changedPods := st.deliver(st.pods, kindPod, ps)
	return changedNodes || changedGroups || changedPods, nil
}

// deliver makes store hold exactly objs and queues the key of every object
// added, changed or deleted.
func (st *Stepper) deliver(store cache.Indexer, kind itemKind, objs []metav1.Object) bool {
	changed := false
	seen := map[string]bool{}
	for _, o := range objs {
		key, _ := cache.MetaNamespaceKeyFunc(o)
		seen[key] = true
		if old, ok, _ := store.GetByKey(key); !ok || !reflect.DeepEqual(old, o) {
			_ = store.Update(o)
			st.s.queue.add(item{kind, key})
			changed = true
		}
	}
	for _, key := range store.ListKeys() {
		if seen[key] {
			continue
		}
		if old, ok, _ := store.GetByKey(key); ok {
			_ = store.Delete(old)
		}
		st.s.queue.add(item{kind, key})
		changed = true
	}
	return changed
}
