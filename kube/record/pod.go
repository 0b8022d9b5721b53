package record

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
)

// podRec is what the recording keeps of one pod of the workload: compact,
// so that many can be held.
type podRec struct {
	name    string // namespace/name, for messages and a stable order
	am      bool
	noReq   bool // requested nothing: counted as 1m of CPU
	failed  bool // ended Failed
	deleted bool // deleted before it ended on its own
	req     resource.Vector
	// created, bound, started and ended are when the pod was created,
	// bound to a node, its first container started, and it ended; zero
	// while unknown.
	created, bound, started, ended time.Time
	// createdSeq and endedSeq order the creation and the end among what a
	// watch reported (0: not seen live, as in a list or a snapshot). A
	// watch reports a cluster's changes in the order they happened, which
	// one-second stamps cannot tell within a second.
	createdSeq, endedSeq uint64
}

// before reports whether the pod ended before q was created: by the
// watch's order when both were seen live, else by their times.
func (p *podRec) endedBefore(q *podRec) bool {
	if !p.over() {
		return false
	}
	if p.endedSeq > 0 && q.createdSeq > 0 {
		return p.endedSeq < q.createdSeq
	}
	// By the seconds their stamps name: a pod created in the second
	// another ended counts as created after it, as what an end causes
	// (the next executor, the Job's next pod) usually is.
	return !p.ended.Truncate(time.Second).After(q.created.Truncate(time.Second))
}

// createdBefore orders pods by creation: those from a list or a snapshot
// by their times, then those seen live in the order the watch saw them.
func (p *podRec) createdBefore(q *podRec) (less, equal bool) {
	if p.createdSeq != q.createdSeq {
		return p.createdSeq < q.createdSeq, false
	}
	if !p.created.Equal(q.created) {
		return p.created.Before(q.created), false
	}
	return false, true
}

// ran reports whether the pod ran at all.
func (p *podRec) ran() bool { return !p.started.IsZero() }

// over reports whether the pod has ended (or will never run).
func (p *podRec) over() bool { return !p.ended.IsZero() }

// stamps are the times a pod object states, at the apiserver's one-second
// resolution (container times at the kubelet's).
type stamps struct {
	created, scheduled, started, finished time.Time
	node                                  string
	terminal, failed, deleting            bool
	// restarts counts the containers' restarts; lost is the time from
	// the pod's first start to its latest (the runs restarted).
	restarts int64
	lost     time.Duration
	// approxStart is set when the first start is the pod's startTime: a
	// container restarted more than once, so its first run's start is no
	// longer in its status.
	approxStart bool
}

func readStamps(p *v1.Pod) stamps {
	s := stamps{created: p.CreationTimestamp.Time, node: p.Spec.NodeName, deleting: p.DeletionTimestamp != nil}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionTrue {
			s.scheduled = c.LastTransitionTime.Time
		}
	}
	s.terminal = podmap.Terminal(p)
	s.failed = p.Status.Phase == v1.PodFailed
	allDone := true
	var latest time.Time
	for _, list := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, c := range list {
			var st, fin time.Time
			switch {
			case c.State.Running != nil:
				st = c.State.Running.StartedAt.Time
				allDone = false
			case c.State.Terminated != nil:
				st, fin = c.State.Terminated.StartedAt.Time, c.State.Terminated.FinishedAt.Time
			default:
				allDone = false
			}
			if st.After(latest) {
				latest = st
			}
			// A restarted container's current state is its latest run;
			// its last termination holds the run before, and the pod
			// started with its first.
			if c.RestartCount > 0 {
				s.restarts += int64(c.RestartCount)
				if prev := c.LastTerminationState.Terminated; prev != nil && !prev.StartedAt.IsZero() {
					st = earliest(st, prev.StartedAt.Time)
				}
				if c.RestartCount > 1 && p.Status.StartTime != nil {
					st, s.approxStart = earliest(st, p.Status.StartTime.Time), true
				}
			}
			if !st.IsZero() && (s.started.IsZero() || st.Before(s.started)) {
				s.started = st
			}
			if !fin.IsZero() && fin.After(s.finished) {
				s.finished = fin
			}
		}
	}
	if s.restarts > 0 && !s.started.IsZero() && latest.After(s.started) {
		s.lost = latest.Sub(s.started)
	}
	if s.started.IsZero() && (p.Status.Phase == v1.PodRunning || s.terminal) && p.Status.StartTime != nil {
		// Running or ended without container times: the kubelet's start
		// of the pod is the nearest we have.
		s.started = p.Status.StartTime.Time
	}
	if !s.terminal || !allDone {
		s.finished = time.Time{}
	}
	return s
}

// earliest is the earlier of two times, a zero one not counting.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// refine picks a transition's time from the object's stamp (the second it
// happened in: stamps are truncated) and when the recorder saw it: the
// observation, when it falls inside the stamp's second (a watch sees a
// change a few milliseconds after it), else the middle of the stamp's
// second, the best guess that a stamp alone allows and one that keeps
// durations between two stamps unbiased. An observation outside the second
// means the recorder saw it late (the first list) or the clocks disagree;
// the latter is reported as skew by the caller.
func refine(stamp, seen time.Time, live bool) time.Time {
	if stamp.IsZero() {
		return seen
	}
	if live && !seen.Before(stamp) && seen.Before(stamp.Add(time.Second)) {
		return seen
	}
	return mid(stamp)
}

// mid is the middle of a one-second stamp's second.
func mid(stamp time.Time) time.Time {
	if stamp.IsZero() {
		return stamp
	}
	return stamp.Add(time.Second / 2)
}

// skewed reports whether an observation contradicts a stamp by more than
// the stamp's resolution and the watch's delay allow: seen before the
// stamp's second began.
func skewed(stamp, seen time.Time) bool {
	return !stamp.IsZero() && seen.Before(stamp.Add(-skewSlack))
}

// skewSlack is how far an observation may precede a stamp before the two
// clocks are said to disagree.
const skewSlack = time.Second

// class says whether a pod belongs to the workload and, if not, why.
type class uint8

const (
	inWorkload class = iota
	daemonSet
	staticPod
	otherScheduler
	unselected
	service
	loneService
)

func (c class) reason() string {
	return [...]string{"", "daemonset pods", "static pods", "pods of other schedulers", "pods outside --selector",
		"pods of Deployments, StatefulSets and ReplicaSets (services, not batch work)",
		"lone pods still running with restartPolicy Always (services, not batch work)"}[c]
}

// serviceOwners are the controllers whose pods run until they are
// replaced: services, not batch work. What they hold is load from outside
// the workload.
var serviceOwners = []string{"ReplicaSet", "StatefulSet", "ReplicationController", "Deployment"}

func classify(p *v1.Pod, o *Options) class {
	for _, ref := range p.OwnerReferences {
		if ref.Controller == nil || !*ref.Controller {
			continue
		}
		if ref.Kind == "DaemonSet" {
			return daemonSet
		}
	}
	if _, ok := p.Annotations[v1.MirrorPodAnnotationKey]; ok {
		return staticPod
	}
	// The kubelet's own view of a static pod (its /pods endpoint) has no
	// mirror annotation, only the source it came from.
	if src := p.Annotations["kubernetes.io/config.source"]; src == "file" || src == "http" {
		return staticPod
	}
	for _, ref := range p.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && slices.Contains(serviceOwners, ref.Kind) {
			return service
		}
	}
	if len(o.Schedulers) > 0 && !slices.Contains(o.Schedulers, p.Spec.SchedulerName) {
		return otherScheduler
	}
	if o.Selector != nil && !o.Selector.Matches(labels.Set(p.Labels)) {
		return unselected
	}
	return inWorkload
}

// longRunning reports whether a pod of no controller that a snapshot
// shows still running is a service rather than a task: it restarts
// whatever happens (restartPolicy Always, the default), so it is not meant
// to end. Batch pods (Jobs, Spark) run with Never or OnFailure.
func longRunning(p *v1.Pod, st *stamps) bool {
	if !podmap.Identify(p).Lone || st.terminal || st.node == "" || st.started.IsZero() {
		return false
	}
	return p.Spec.RestartPolicy == "" || p.Spec.RestartPolicy == v1.RestartPolicyAlways
}

// span is where a step's time is known to lie: [lo, hi] (hi exclusive for
// a stamp's second); a zero lo is a step not (yet) taken.
type span struct{ lo, hi time.Time }

func stampSpan(t time.Time) span {
	if t.IsZero() {
		return span{}
	}
	return span{t, t.Add(time.Second)}
}

func exactSpan(t time.Time) span { return span{t, t} }

// settle estimates the times of steps that happened in order (a pod's
// creation, binding, start, end), each known to lie in its span: each span
// is narrowed by the steps before it (it cannot begin earlier than they do)
// and after it (nor end later), and the step is put in the middle of what
// is left. A span left empty is clock skew: its stamp's whole second
// precedes a step before it; it is put at that step, and skew is true.
func settle(sp []span) (out []time.Time, skew bool) {
	out = make([]time.Time, len(sp))
	var lo time.Time
	for i := range sp {
		if sp[i].lo.IsZero() {
			continue
		}
		if sp[i].lo.Before(lo) {
			sp[i].lo = lo
		}
		lo = sp[i].lo
	}
	var hi time.Time
	for i := len(sp) - 1; i >= 0; i-- {
		if sp[i].lo.IsZero() {
			continue
		}
		if !hi.IsZero() && sp[i].hi.After(hi) {
			sp[i].hi = hi
		}
		hi = sp[i].hi
	}
	var prev time.Time
	for i, s := range sp {
		if s.lo.IsZero() {
			continue
		}
		t := s.lo.Add(s.hi.Sub(s.lo) / 2)
		if s.hi.Before(s.lo) {
			skew, t = true, s.lo
		}
		if t.Before(prev) {
			t = prev
		}
		out[i], prev = t, t
	}
	return out, skew
}
