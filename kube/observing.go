package kube

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/sched"
)

// This file feeds the observe.Recorder: attempts and decisions as they
// happen, bind outcomes from the workers, and a snapshot of the core after
// each status period. Nothing here decides anything.

func (s *Scheduler) observeDecision(ps *podState, node string, took time.Duration) {
	r := s.o.Observe
	if r == nil {
		return
	}
	r.Attempt(observe.ResultScheduled, took)
	d := observe.Decision{Time: s.o.Now(), Pod: ps.key, Node: node, AM: ps.am, Policy: s.o.PolicyName, Resources: observe.FromVector(ps.req)}
	if ps.job != nil {
		d.Job, d.Queue = ps.job.key, ps.job.j.Queue().Name()
	}
	r.Decide(d)
}

// observeWaiting counts an attempt that left the pod pending, each time
// the reason it waits changes.
func (s *Scheduler) observeWaiting(ps *podState) {
	r := s.o.Observe
	if r == nil {
		return
	}
	res := observe.ResultUnschedulable
	switch {
	case ps.phase == podHeld:
		res = observe.ResultError
	case ps.job != nil && (ps.job.j.State() == sched.Waiting || !ps.am && ps.job.j.HasAM() && ps.job.j.State() != sched.Active):
		res = observe.ResultWaitingAdmission
	}
	r.Attempt(res, 0)
}

func (s *Scheduler) observeBind(t apiTask, err error) {
	r := s.o.Observe
	if r == nil {
		return
	}
	res := observe.BindOK
	switch {
	case err == nil:
	case isConflict(err):
		res = observe.BindConflict
	default:
		res = observe.BindError
	}
	r.Bind(res, s.o.Now().Sub(t.start))
}

// publish builds a snapshot of the core and the pods and hands it to the
// recorder.
func (s *Scheduler) publish() {
	r := s.o.Observe
	if r == nil || s.core == nil {
		return
	}
	snap := &observe.Snapshot{Time: s.o.Now(), Policy: s.o.PolicyName, Admission: s.o.AdmissionName,
		Gauges: observe.PolicyGauges(s.core.Policy(), s.core.Admission()), Forecast: s.fc.info(s.o.Now())}
	cl := s.core.Cluster()
	type qcount struct{ pending, running, waiting int }
	byQueue := map[string]*qcount{}
	for _, q := range s.core.View().Queues() {
		byQueue[q.Name()] = &qcount{}
	}
	positions := s.queuePositions()
	defer func() { s.positions = nil }()
	for _, js := range s.sortedJobs() {
		j := js.j
		st := observe.JobStatus{Name: js.key, Namespace: jobNamespace(js), Queue: j.Queue().Name(), State: j.State().String(),
			Submitted: s.epoch.Add(time.Duration(j.Submitted()) * time.Microsecond), Usage: observe.FromVector(j.Usage()), AM: observe.AMNone,
			QueuePosition: positions[j]}
		if s.fc != nil {
			s.fc.forecastFields(&st)
		}
		qc := byQueue[st.Queue]
		for _, ps := range js.pods {
			switch ps.phase {
			case podAsked, podBackoff, podHeld:
				st.PodsPending++
				qc.pending++
			case podAssumed, podBound, podRunning:
				st.PodsRunning++
				qc.running++
			default:
				st.PodsDone++
			}
		}
		if am := js.am; am != nil {
			switch {
			case j.State() == sched.Waiting:
				st.AM, st.AMReason = observe.AMWaiting, am.why
				qc.waiting++
			case am.phase == podRunning && am.pod.Status.Phase == v1.PodRunning:
				st.AM = observe.AMRunning
			case am.phase == podDone:
				st.AM = observe.AMDone
			default:
				st.AM = observe.AMAdmitted
			}
		}
		snap.Jobs = append(snap.Jobs, st)
	}
	snap.Pods = s.pendingPods(positions)
	usable := cl.Usable()
	// A parent counts its leaves' pods.
	for _, q := range s.core.View().Queues() {
		if !q.Leaf() {
			continue
		}
		qc := byQueue[q.Name()]
		for p := q.Parent(); p.Parent() != nil; p = p.Parent() {
			pc := byQueue[p.Name()]
			pc.pending, pc.running, pc.waiting = pc.pending+qc.pending, pc.running+qc.running, pc.waiting+qc.waiting
		}
	}
	var preempted map[string]sched.QueuePreemption
	if st := s.core.PreemptionStats(); st != nil {
		preempted = st.ByQueue
	}
	for _, q := range treeOrder(s.core.View().RootQueue(), nil) {
		qc := byQueue[q.Name()]
		qs := observe.QueueStatus{Name: q.Name(), Weight: q.Weight(), Capacity: q.Capacity(),
			Usage: observe.FromVector(q.Usage()), Share: q.Usage().DominantShare(usable),
			PendingPods: qc.pending, RunningPods: qc.running, Jobs: q.ActiveJobs(), AMsAdmitted: q.AMContainers(), AMsWaiting: qc.waiting,
			Depth: q.Depth(), Leaf: q.Leaf(), AbsCapacity: q.AbsCapacity(), AbsMaxCapacity: q.AbsMaxCapacity(),
			PreemptedFrom: preempted[q.Name()].TakenFrom, PreemptedFor: preempted[q.Name()].TakenFor,
			WouldPreemptFrom: preempted[q.Name()].WouldTakeFrom, WouldPreemptFor: preempted[q.Name()].WouldTakeFor,
			PreemptionDisabled: q.PreemptionDisabled()}
		if p := q.Parent(); p.Parent() != nil {
			qs.Parent = p.Name()
		}
		snap.Queues = append(snap.Queues, qs)
	}
	for _, ns := range s.nodeByID {
		if ns == nil || ns.cn == nil {
			continue
		}
		n := ns.cn
		st := observe.NodeStatus{Name: ns.name, Capacity: observe.FromVector(n.Capacity()), External: observe.FromVector(n.External()),
			Allocated: observe.FromVector(n.Allocated()), Schedulable: ns.schedu, Pods: n.AMContainers() + n.TaskContainers()}
		if !ns.schedu {
			st.Reason = "not ready"
			if ns.node != nil && ns.node.Spec.Unschedulable {
				st.Reason = "cordoned"
			}
		}
		snap.Nodes = append(snap.Nodes, st)
	}
	if err := r.Publish(snap); err != nil {
		s.o.Log.Error("publish status", "err", err)
	}
}

// treeOrder lists the queues below root depth first, each parent before
// its children, children in configuration order: the order the status page
// draws the tree in.
func treeOrder(root *sched.Queue, out []*sched.Queue) []*sched.Queue {
	for _, q := range root.Children() {
		out = append(out, q)
		out = treeOrder(q, out)
	}
	return out
}

func jobNamespace(js *jobState) string {
	for _, ps := range js.pods {
		return ps.pod.Namespace
	}
	return ""
}

// pendingPods lists the pods spindle has not placed, with their queue,
// their job's place in it while it waits for admission, and why they wait:
// by queue, then place (jobs admitted last: their pods wait for room), then
// age.
func (s *Scheduler) pendingPods(positions map[*sched.Job]int) []observe.PodStatus {
	var out []observe.PodStatus
	for _, ps := range s.pods {
		if ps.phase != podAsked && ps.phase != podBackoff && ps.phase != podHeld {
			continue
		}
		st := observe.PodStatus{Pod: ps.key, AM: ps.am, Reason: ps.why, Since: ps.pod.CreationTimestamp.Time}
		if st.Reason == "" {
			st.Reason = ps.held
		}
		if js := ps.job; js != nil {
			st.Job, st.Queue, st.QueuePosition = js.key, js.j.Queue().Name(), positions[js.j]
		}
		out = append(out, st)
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		switch {
		case x.Queue != y.Queue:
			return x.Queue < y.Queue
		case x.QueuePosition != y.QueuePosition:
			return x.QueuePosition != 0 && (y.QueuePosition == 0 || x.QueuePosition < y.QueuePosition)
		case !x.Since.Equal(y.Since):
			return x.Since.Before(y.Since)
		}
		return x.Pod < y.Pod
	})
	return out
}
