package kube

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Why a pod waits, in kube-scheduler's words: "0/4 nodes are available:
// 4 Insufficient cpu." The reasons are kube-scheduler's own (NodeUnschedulable,
// TaintToleration, NodeAffinity, NodeResourcesFit, checked per node in
// that order, the first that fails counting), each with the number of
// nodes it rules out, sorted as kube-scheduler sorts them.

const (
	reasonUnschedulable = "node(s) were unschedulable"
	reasonNotReady      = "node(s) were not ready"
	reasonAffinity      = "node(s) didn't match Pod's node affinity/selector"
	reasonTooManyPods   = "Too many pods"
)

// dimReason names each resource as kube-scheduler's NodeResourcesFit does.
var dimReason = [resource.NumDims]string{
	resource.VCores: "Insufficient cpu",
	resource.Memory: "Insufficient memory",
	resource.GPU:    "Insufficient " + string(ResourceGPU),
	resource.Disk:   "Insufficient " + string(v1.ResourceEphemeralStorage),
}

// nodeVerdict is how many nodes could take a pod, with the message.
type nodeVerdict struct {
	available, total int
	msg              string // "0/4 nodes are available: 4 Insufficient cpu."
}

// explainKey groups pods that get the same verdict: the same request and
// placement constraints, against the nodes as they are now or as they are
// at most (their allocatable).
type explainKey struct {
	req   resource.Vector
	class string
	now   bool
}

// nodeVerdict checks pod ps against every node as kube-scheduler's filters
// would: now (what is free, and the node's pods allocatable) or, with now
// false, against what the node offers at most (its allocatable), which
// says why a request fits no node at all. Verdicts are cached per status
// refresh for pods of the same request and constraints.
func (s *Scheduler) nodeVerdict(ps *podState, now bool) nodeVerdict {
	key := explainKey{ps.req, ps.place.class, now}
	if v, ok := s.verdicts[key]; ok {
		return v
	}
	counts := map[string]int{}
	var v nodeVerdict
	for _, ns := range s.nodeByID {
		if ns == nil || ns.cn == nil || ns.node == nil {
			continue
		}
		v.total++
		if why := s.whyNotOn(ps, ns, now); len(why) > 0 {
			for _, w := range why {
				counts[w]++
			}
			continue
		}
		v.available++
	}
	reasons := make([]string, 0, len(counts))
	for r, n := range counts {
		reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(reasons)
	v.msg = fmt.Sprintf("%d/%d nodes are available", v.available, v.total)
	if len(reasons) > 0 {
		v.msg += ": " + strings.Join(reasons, ", ")
	}
	v.msg += "."
	if s.verdicts == nil {
		s.verdicts = map[explainKey]nodeVerdict{}
	}
	s.verdicts[key] = v
	return v
}

// whyNotOn returns why node ns cannot take pod ps (nothing when it can),
// filter by filter, stopping at the first that fails, as kube-scheduler
// does; the resource filter gives every resource that is short.
func (s *Scheduler) whyNotOn(ps *podState, ns *nodeState, now bool) []string {
	n := ns.node
	if n.Spec.Unschedulable {
		return []string{reasonUnschedulable}
	}
	// kube-scheduler has no Ready filter: the node lifecycle controller
	// taints a NotReady node node.kubernetes.io/not-ready, and the taint
	// filter gives the reason. spindle keeps off a NotReady node whether
	// or not the taint is there yet (a cluster without that controller
	// never gets it), and words it as kube-scheduler does when it is.
	if t, bad := untoleratedTaint(n.Spec.Taints, ps.place.tolerations); bad {
		return []string{fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)}
	}
	if !ns.schedu {
		return []string{reasonNotReady}
	}
	if ok, err := ps.place.affinity.Match(n); err != nil || !ok {
		return []string{reasonAffinity}
	}
	var why []string
	room := ns.cn.Capacity()
	if now {
		room = ns.cn.Free()
		if ns.cn.Full() {
			why = append(why, reasonTooManyPods)
		}
	}
	for d := range ps.req {
		if ps.req[d] > room[d] {
			why = append(why, dimReason[d])
		}
	}
	return why
}

// askOf returns the core's ask that pod ps's request joined, or nil.
func askOf(ps *podState) *sched.Ask {
	if ps.job == nil {
		return nil
	}
	asks := ps.job.j.Asks()
	for i := range asks {
		a := &asks[i]
		if a.IsAM() == ps.am && a.Request == ps.req && a.Class() == ps.place.class {
			return a
		}
	}
	return nil
}

// formatRequest writes a request as Kubernetes quantities, in the units
// the core counts them: "cpu=1500m, memory=1408Mi".
func formatRequest(v resource.Vector) string {
	parts := []string{"cpu=" + formatMilli(v[resource.VCores]), fmt.Sprintf("memory=%dMi", v[resource.Memory])}
	if v[resource.GPU] != 0 {
		parts = append(parts, fmt.Sprintf("%s=%d", ResourceGPU, v[resource.GPU]))
	}
	if v[resource.Disk] != 0 {
		parts = append(parts, fmt.Sprintf("ephemeral-storage=%dMi", v[resource.Disk]))
	}
	return strings.Join(parts, ", ")
}

func formatMilli(m int64) string {
	if m%1000 == 0 {
		return fmt.Sprint(m / 1000)
	}
	return fmt.Sprintf("%dm", m)
}

// queuePositions returns, for each job waiting for admission, its place
// (from 1) among the waiting jobs of its queue, in the order admission
// control takes them; cached per status refresh.
func (s *Scheduler) queuePositions() map[*sched.Job]int {
	if s.positions != nil {
		return s.positions
	}
	s.positions = map[*sched.Job]int{}
	v := s.core.View()
	for _, q := range v.Queues() {
		for i, j := range v.QueueWaiting(q) {
			s.positions[j] = i + 1
		}
	}
	return s.positions
}
