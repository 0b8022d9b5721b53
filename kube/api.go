package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/sched"
)

type taskKind uint8

const (
	taskBind   taskKind = iota // create pods/binding
	taskStatus                 // patch PodScheduled=False on pods/status
	taskEvict                  // evict a pod preemption took (evict.go)
)

// apiTask is one call for the worker pool. Tasks carry copies of what they
// need: workers never read the event loop's state.
type apiTask struct {
	kind    taskKind
	pod     string // namespace/name
	uid     string
	rv      string  // the pod's resourceVersion the status patch is conditional on
	obj     *v1.Pod // for Events; informer objects are read-only
	node    string
	gen     uint64
	am      bool
	start   time.Time
	message string
}

type apiResult struct {
	apiTask
	err error
}

// worker runs API calls until the loop closes its task channel.
func (s *Scheduler) worker(ctx context.Context, tasks <-chan apiTask) {
	for t := range tasks {
		r := s.call(ctx, t)
		select {
		case s.results <- r:
		case <-ctx.Done():
		}
	}
}

// call makes one API call. It reads only the task and the options, never
// the event loop's state, so workers run it beside the loop (and a Stepper
// on it).
func (s *Scheduler) call(ctx context.Context, t apiTask) apiResult {
	r := apiResult{apiTask: t}
	switch t.kind {
	case taskBind:
		r.err = s.bind(ctx, t)
		s.observeBind(t, r.err)
		if r.err == nil {
			s.o.Recorder.Eventf(t.obj, v1.EventTypeNormal, "Scheduled", "Successfully assigned %s to %s", t.pod, t.node)
		}
	case taskStatus:
		r.err = s.patchUnschedulable(ctx, t)
	case taskEvict:
		r.err = s.evict(ctx, t)
	}
	return r
}

func (s *Scheduler) bind(ctx context.Context, t apiTask) error {
	ns, name := splitKey(t.pod)
	b := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(t.uid)},
		Target:     v1.ObjectReference{Kind: "Node", Name: t.node},
	}
	return s.o.Client.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{})
}

// patchUnschedulable sets the pod's PodScheduled condition to False with
// the reason it waits, as kube-scheduler does for a pod it cannot place.
func (s *Scheduler) patchUnschedulable(ctx context.Context, t apiTask) error {
	ns, name := splitKey(t.pod)
	patch, err := json.Marshal(map[string]any{
		// The patch applies only to the version of the pod the loop saw: a
		// pod bound since (PodScheduled=True) must not be marked False.
		"metadata": map[string]any{"uid": t.uid, "resourceVersion": t.rv},
		"status": map[string]any{"conditions": []map[string]any{{
			"type": string(v1.PodScheduled), "status": string(v1.ConditionFalse),
			"reason": v1.PodReasonUnschedulable, "message": t.message,
			"lastTransitionTime": metav1.NewTime(s.o.Now()).UTC().Format(time.RFC3339),
		}}},
	})
	if err != nil {
		return err
	}
	_, err = s.o.StatusClient.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}

func isConflict(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
}

func splitKey(key string) (ns, name string) {
	for i := range len(key) {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

// handleResult applies a worker's answer on the event loop.
func (s *Scheduler) handleResult(r apiResult) {
	if r.kind == taskEvict {
		s.evicted(r)
		return
	}
	if r.kind == taskStatus {
		if r.err == nil || apierrors.IsNotFound(r.err) {
			return
		}
		if !apierrors.IsConflict(r.err) {
			s.o.Log.Warn("status patch", "pod", r.pod, "err", r.err)
		}
		// The pod changed under the patch: write it again, against the
		// new version, if the pod still waits.
		if ps := s.pods[r.pod]; ps != nil && ps.uid == r.uid && ps.cond == r.message {
			ps.cond = ""
		}
		return
	}
	s.inflight--
	if s.o.OnDecision != nil {
		s.o.OnDecision(Decision{Pod: r.pod, Node: r.node, AM: r.am, Err: r.err})
	}
	ps := s.pods[r.pod]
	if ps == nil || ps.gen != r.gen || ps.phase != podAssumed {
		return // the pod left, or the watch settled it first
	}
	now := s.clockNow()
	if ps.ct == nil {
		// Its node left while the binding was in flight: the core ended
		// the container LOST. Bound there, the pod holds nothing; not
		// bound, it is asked for again.
		if r.err == nil {
			s.ended(now, ps)
		} else {
			s.ask(now, ps)
		}
		return
	}
	if r.err == nil {
		ps.attempts = 0
		ps.phase = podBound
		ps.why = ""
		s.advance(now, ps)
		return
	}
	node := ps.node
	s.refuse(now, ps, "binding failed: "+r.err.Error())
	switch {
	case apierrors.IsNotFound(r.err):
		// The pod is gone; its deletion is on its way from the watch.
		s.withdraw(now, ps)
	case apierrors.IsConflict(r.err) || apierrors.IsAlreadyExists(r.err):
		// Bound already (another replica, or an earlier binding of ours);
		// the watch shows where, and the pod is adopted there.
		s.withdraw(now, ps)
		if p := ps.pod; p.Spec.NodeName != "" {
			s.adopt(now, ps, p.Spec.NodeName)
		}
	default:
		s.withdraw(now, ps)
		ps.attempts++
		d := s.o.BackoffInitial << min(ps.attempts-1, 16)
		d = min(d, s.o.BackoffMax)
		ps.retryAt = s.o.Now().Add(d)
		ps.phase = podBackoff
		s.backoff = append(s.backoff, ps)
		s.setWhy(ps, fmt.Sprintf("binding to %s failed: %v; retrying in %v", node, r.err, d))
	}
}

// setWhy says on the pod why it is not bound: a PodScheduled=False
// condition and a FailedScheduling Event, each only when the words change.
func (s *Scheduler) setWhy(ps *podState, msg string) {
	if msg != ps.why {
		ps.why = msg
		s.observeWaiting(ps)
		s.o.Recorder.Event(ps.pod, v1.EventTypeWarning, "FailedScheduling", msg)
	}
	if msg != ps.cond && ps.pod.Spec.NodeName == "" {
		ps.cond = msg
		s.statusBox = append(s.statusBox, statusWrite{pod: ps.key, uid: ps.uid, message: msg})
	}
}

// statusWrite is a PodScheduled=False condition waiting for a status
// worker.
type statusWrite struct {
	pod, uid, message string
}

// nextStatus returns the first queued condition that is still worth
// writing, as a task against the pod's latest version, and drops those
// ahead of it that are not: the pod left, was placed or bound since, or
// waits for something else now (a newer write is queued for it).
func (s *Scheduler) nextStatus() (apiTask, bool) {
	for len(s.statusBox) > 0 {
		w := s.statusBox[0]
		ps := s.pods[w.pod]
		if ps != nil && ps.uid == w.uid && ps.cond == w.message && ps.pod.Spec.NodeName == "" &&
			(ps.phase == podAsked || ps.phase == podBackoff || ps.phase == podHeld) {
			return apiTask{kind: taskStatus, pod: ps.key, uid: ps.uid, rv: ps.pod.ResourceVersion, obj: ps.pod, message: w.message}, true
		}
		if ps != nil && ps.uid == w.uid && ps.cond == w.message {
			// Not written: should the pod wait again for the same
			// reason, say so then.
			ps.cond = ""
		}
		s.statusBox[0] = statusWrite{}
		s.statusBox = s.statusBox[1:]
	}
	return apiTask{}, false
}

// refreshStatus says on every waiting pod what it waits for.
func (s *Scheduler) refreshStatus() {
	s.verdicts, s.positions = nil, nil
	for _, ps := range s.pods {
		switch ps.phase {
		case podAsked:
			if s.waitedLongEnough(ps) {
				why := s.waitReason(ps)
				// The forecast's words are rounded (AboutIn), so that
				// the message, and the condition written with it,
				// changes seldom.
				if e := s.fc.expectation(ps.job, s.o.Now()); e != "" {
					why += "; " + e
				}
				s.setWhy(ps, why)
			}
		case podHeld, podBackoff:
			if ps.awaits != "" && s.waitedLongEnough(ps) {
				s.setWhy(ps, ps.held)
			} else if ps.why != "" {
				s.setWhy(ps, ps.why)
			}
		}
	}
	s.verdicts, s.positions = nil, nil
}

// waitReason explains a pending pod as kube-scheduler would where it can:
// a job held by admission (its place in its queue, and why: it fits no
// node, it waits behind an earlier job, or the controller's own words), an
// executor waiting for its driver, a pod no node can take now or ever
// ("0/4 nodes are available: 4 Insufficient cpu."), or one the policy has
// not placed yet although some node could take it.
func (s *Scheduler) waitReason(ps *podState) string {
	j := ps.job.j
	q := j.Queue().Name()
	switch {
	case j.State() == sched.Waiting:
		pos := s.queuePositions()[j]
		var why string
		if a := &j.Asks()[0]; ps.am && a.Unfit() {
			why = "its driver fits no node: " + s.nodeVerdict(ps, false).msg
		} else {
			why = s.core.WaitReason(j)
		}
		return fmt.Sprintf("job %s waits for admission, number %d in queue %s: %s", ps.job.key, pos, q, why)
	case s.core.GangReleasedReason(j) != "":
		return fmt.Sprintf("job %s: %s", ps.job.key, s.core.GangReleasedReason(j))
	case !ps.am && j.HasAM() && j.State() != sched.Active:
		am := "its driver"
		if ps.job.am != nil {
			am = "driver pod " + ps.job.am.key
		}
		return fmt.Sprintf("waiting for %s to be bound: executors are placed only once their driver is", am)
	}
	if a := askOf(ps); a != nil && a.Unfit() {
		return "it fits no node: " + s.nodeVerdict(ps, false).msg
	}
	v := s.nodeVerdict(ps, true)
	if v.available == 0 {
		return v.msg
	}
	return fmt.Sprintf("%s policy %s has not placed it yet (queue %s; it requests %s)", v.msg, s.o.PolicyName, q, formatRequest(ps.req))
}
