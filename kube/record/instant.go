package record

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
)

// Instant is the workload at one instant rather than over a recording:
// each job the pods form, with what each of its pods is doing, and what
// pods outside the workload hold on each node. It is what a forecast
// (package kube/forecast) starts its simulation from. The pods are sorted
// into jobs and outside load by the same rules a recording uses (classify,
// podmap.Identify, podmap.CheckedRequest), so that a job is the same job in
// a recording, in the live scheduler and in a forecast.
type Instant struct {
	Jobs []InstantJob // sorted by Key, then by first creation
	// Outside is, by node name, what pods outside the workload (other
	// schedulers', daemonsets', services') hold there now.
	Outside map[string]resource.Vector
	// Refused counts workload pods whose requests the scheduler refuses
	// (they are in no job); Unnamed pods without a name or creation time.
	Refused, Unnamed int
}

// InstantJob is one job of an Instant.
type InstantJob struct {
	// Key is the job's name as the live scheduler keys it
	// (podmap.Identity's Job). Two jobs may share it when a name was reused
	// (a Job deleted and created again): UID tells them apart.
	Key string
	UID string
	ID  podmap.Identity
	// Name is the job's type, for estimates learned from history (Spark's
	// application name, a Job's name without a CronJob's serial, ...), as
	// a recording writes it; "" for a lone pod.
	Name       string
	Hints      podmap.Hints
	Priority   int32
	MinMembers int
	Pods       []InstantPod // in creation order, then by name
}

// InstantPod is one pod of an InstantJob.
type InstantPod struct {
	Name    string // namespace/name
	AM      bool
	Request resource.Vector // as the scheduler counts it
	Node    string          // "" while unbound
	// Created, Started and Ended are the pod's stamps; Started and Ended
	// zero while it has not started or not ended.
	Created, Started, Ended time.Time
	Failed                  bool
	// EndUnknown marks a pod that ended without a finish time (Ended is
	// then its last known stamp): its duration is not known.
	EndUnknown bool
	// NodeSelector and Tolerations are the pod's own (shared with the pod
	// object: read only).
	NodeSelector map[string]string
	Tolerations  []v1.Toleration
}

// Running reports whether the pod holds its node: bound and not ended.
func (p *InstantPod) Running() bool { return p.Node != "" && p.Ended.IsZero() }

// Pending reports whether the pod waits for a node.
func (p *InstantPod) Pending() bool { return p.Node == "" && p.Ended.IsZero() }

// AtInstant sorts pods, as they stand at one instant, into the workload's
// jobs and the load from outside it, by opt's Schedulers and Selector (the
// other options do not apply to an instant). A pod that ended holds
// nothing, whoever owns it.
func AtInstant(pods []*v1.Pod, opt Options) (*Instant, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	out := &Instant{Outside: map[string]resource.Vector{}}
	type key struct{ job, uid string }
	byKey := map[key]int{}
	amSeen := map[int]bool{} // by job: its hints are its AM's
	for _, p := range pods {
		if p == nil || p.Name == "" {
			out.Unnamed++
			continue
		}
		st := readStamps(p)
		cl := classify(p, &opt)
		if cl == inWorkload && longRunning(p, &st) {
			cl = loneService
		}
		if cl != inWorkload {
			if st.node != "" && !st.terminal {
				if h := podmap.Held(p); !h.IsZero() {
					out.Outside[st.node] = out.Outside[st.node].Add(h)
				}
			}
			continue
		}
		if st.created.IsZero() {
			out.Unnamed++
			continue
		}
		req, err := podmap.CheckedRequest(p)
		if err != nil {
			out.Refused++
			continue
		}
		id := podmap.Identify(p)
		k := key{id.Job, id.UID}
		i, ok := byKey[k]
		if !ok {
			i = len(out.Jobs)
			byKey[k] = i
			out.Jobs = append(out.Jobs, InstantJob{Key: id.Job, UID: id.UID, ID: id, Name: jobName(p, id)})
		}
		if j := &out.Jobs[i]; !ok || id.AM && !amSeen[i] {
			// What the submitter declares is on the job's first pod, as a
			// recording reads it, or on its AM (a driver pod carries the
			// estimate, its executors none), whichever order the pods come
			// in. Bad hints or a bad gang minimum are ignored, as a
			// recording ignores them (it counts them among its problems).
			amSeen[i] = id.AM
			j.Priority, j.Hints, j.MinMembers = podmap.Priority(p), podmap.Hints{}, 0
			if h, err := podmap.ReadHints(p); err == nil {
				j.Hints = h
			}
			if n, _, err := podmap.MinMembers(p); err == nil {
				j.MinMembers = n
			}
		}
		ip := InstantPod{Name: p.Namespace + "/" + p.Name, AM: id.AM, Request: req, Node: st.node,
			Created: st.created, Started: st.started, Failed: st.failed,
			NodeSelector: p.Spec.NodeSelector, Tolerations: p.Spec.Tolerations}
		if st.terminal {
			ip.Ended = st.finished
			if ip.Ended.IsZero() {
				// Ended without a container finish time: when is not
				// known, only that it holds nothing now.
				ip.Ended, ip.EndUnknown = st.created, true
				if st.started.After(st.created) {
					ip.Ended = st.started
				}
			}
		}
		out.Jobs[i].Pods = append(out.Jobs[i].Pods, ip)
	}
	for i := range out.Jobs {
		ps := out.Jobs[i].Pods
		sort.SliceStable(ps, func(a, b int) bool {
			if !ps[a].Created.Equal(ps[b].Created) {
				return ps[a].Created.Before(ps[b].Created)
			}
			return ps[a].Name < ps[b].Name
		})
	}
	sort.SliceStable(out.Jobs, func(a, b int) bool {
		x, y := &out.Jobs[a], &out.Jobs[b]
		if x.Key != y.Key {
			return x.Key < y.Key
		}
		return x.Pods[0].Created.Before(y.Pods[0].Created)
	})
	return out, nil
}
