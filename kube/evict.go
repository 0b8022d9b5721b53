package kube

import (
	"context"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/sched"
)

// Preemption, live. The core's monitor (sched/preempt.go) decides which
// executor pods to take back for a queue below its share; the scheduler
// carries it out through the Eviction API (policy/v1), as kubectl drain and
// kube-scheduler's own preemption do:
//
//   - a PodDisruptionBudget that the eviction would break refuses it (429):
//     the pod keeps running, a Warning Event says so, and the room the core
//     held for it is given back after a while;
//   - the pod's own terminationGracePeriodSeconds is honoured (the eviction
//     sets no grace period of its own): it holds its node until it is gone,
//     and only then does the core count its resources free;
//   - an Event on the pod names the queue it was taken for.
//
// The core never picks an ApplicationMaster (a Spark driver), so a driver is
// never evicted. When the evicted pod is gone it is reported PREEMPTED, so
// that the core counts it, per queue, apart from pods that failed or were
// deleted.
//
// In observe mode (preemption=observe) nothing is evicted: wouldPreempt
// writes what would have been.

// preempt records that the core takes ct back for queue q and queues its
// eviction; it runs inside a core call, so it only records.
func (s *Scheduler) preempt(ct *sched.Container, q *sched.Queue) {
	ps := s.pods[ct.Key()]
	if ps == nil || ps.ct != ct || (ps.phase != podRunning && ps.phase != podBound) {
		return // gone or changing already: the core's held room expires
	}
	if _, dup := s.evicting[ps.key]; dup {
		return
	}
	s.evicting[ps.key] = q.Name()
	s.outbox = append(s.outbox, apiTask{kind: taskEvict, pod: ps.key, uid: ps.uid, obj: ps.pod, node: ps.node, message: q.Name(), start: s.o.Now()})
}

// wouldPreempt reports, in observe mode (preemption=observe, YARN's
// observe_only), a pod the core would have taken back for queue q: an
// Event on the pod and a log line say so, the metric
// spindle_queue_preemptions_observed_total counts it (from the core's
// stats), and the pod runs on. The core reports each pod once while it
// stays picked. It runs inside a core call, so the Event is written after.
func (s *Scheduler) wouldPreempt(ct *sched.Container, q *sched.Queue) {
	ps := s.pods[ct.Key()]
	if ps == nil || ps.ct != ct {
		return
	}
	pod, key, node, queue := ps.pod, ps.key, ps.node, q.Name()
	s.afterCore(func(clock.Time) {
		s.o.Recorder.Eventf(pod, v1.EventTypeNormal, "PreemptionObserved",
			"spindle would evict this pod for queue %s, below its share of the cluster while this pod's queue is above its own; "+
				"preemption=observe: nothing is evicted", queue)
		s.o.Log.Info("would evict", "pod", key, "node", node, "for queue", queue)
	})
}

// evict asks the apiserver to evict the pod, conditional on its UID so that
// a pod re-created under the same name is never evicted in its place.
func (s *Scheduler) evict(ctx context.Context, t apiTask) error {
	ns, name := splitKey(t.pod)
	uid := types.UID(t.uid)
	return s.o.Client.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Namespace: ns, Name: name},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}},
	})
}

// evicted applies the answer to an eviction on the event loop.
func (s *Scheduler) evicted(r apiResult) {
	if r.err == nil {
		s.o.Recorder.Eventf(r.obj, v1.EventTypeNormal, "Preempted",
			"Evicted by spindle for queue %s, below its share of the cluster while this pod's queue is above its own", r.message)
		s.o.Log.Info("evicted", "pod", r.pod, "node", r.node, "for queue", r.message)
		return
	}
	// Not evicted: the pod runs on. It stays known to the core as taken
	// (it is not picked again), and the room held for it is given back
	// once it expires.
	delete(s.evicting, r.pod)
	if apierrors.IsNotFound(r.err) || apierrors.IsConflict(r.err) {
		return // gone, or replaced: the watch says what became of it
	}
	reason := r.err.Error()
	if apierrors.IsTooManyRequests(r.err) {
		reason = "a PodDisruptionBudget does not allow it now"
	}
	s.o.Recorder.Eventf(r.obj, v1.EventTypeWarning, "PreemptionBlocked", "spindle could not evict this pod for queue %s: %s", r.message, reason)
	s.o.Log.Warn("eviction refused", "pod", r.pod, "for queue", r.message, "err", r.err)
}

// endState is how a pod of ours that ended is reported to the core:
// PREEMPTED when spindle evicted it, else what its object says.
func (s *Scheduler) endState(ps *podState, otherwise sched.ContainerState) sched.ContainerState {
	if _, ok := s.evicting[ps.key]; ok {
		delete(s.evicting, ps.key)
		return sched.Preempted
	}
	return otherwise
}
