package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/go-logr/logr"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
)

// The scheduler maps pods through kube/podmap, the one mapping the recorder
// and the snapshot converter share; these names keep its own code short.
const (
	LabelJob       = podmap.LabelJob
	LabelSparkApp  = podmap.LabelSparkApp
	LabelRole      = podmap.LabelRole
	LabelSparkRole = podmap.LabelSparkRole
	LabelQueue     = podmap.LabelQueue

	AnnotationEstimate = podmap.AnnotationEstimate
	AnnotationDeadline = podmap.AnnotationDeadline
	AnnotationDemand   = podmap.AnnotationDemand

	AnnotationSparkInstances = podmap.AnnotationSparkInstances
	AnnotationSparkCores     = podmap.AnnotationSparkCores
	AnnotationSparkMemory    = podmap.AnnotationSparkMemory
	AnnotationSparkOverhead  = podmap.AnnotationSparkOverhead

	ResourceGPU = podmap.ResourceGPU
)

type (
	podIdentity = podmap.Identity
	jobHints    = podmap.Hints
)

func identify(p *v1.Pod) podIdentity            { return podmap.Identify(p) }
func podRequest(p *v1.Pod) resource.Vector      { return podmap.PodRequest(p) }
func nodeCapacity(n *v1.Node) resource.Vector   { return podmap.NodeCapacity(n) }
func readHints(p *v1.Pod) (jobHints, error)     { return podmap.ReadHints(p) }
func terminal(p *v1.Pod) bool                   { return podmap.Terminal(p) }
func externalRequest(p *v1.Pod) resource.Vector { return podmap.Held(p) }

// nodeSchedulable reports whether new pods may go to n: not cordoned and
// Ready.
func nodeSchedulable(n *v1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// placement is a pod's node-side constraints, evaluated with
// component-helpers exactly as kube-scheduler's NodeAffinity and
// TaintToleration filters evaluate them.
type placement struct {
	affinity    nodeaffinity.RequiredNodeAffinity
	tolerations []v1.Toleration
	class       string
}

func newPlacement(p *v1.Pod) *placement {
	pl := &placement{affinity: nodeaffinity.GetRequiredNodeAffinity(p), tolerations: p.Spec.Tolerations}
	pl.class = placementClass(p)
	return pl
}

// fits reports whether the pod may go to n by its nodeSelector, required
// node affinity and its tolerations of n's NoSchedule and NoExecute taints.
// A malformed affinity matches nothing.
func (pl *placement) fits(n *v1.Node) bool {
	ok, err := pl.affinity.Match(n)
	if err != nil || !ok {
		return false
	}
	_, untolerated := untoleratedTaint(n.Spec.Taints, pl.tolerations)
	return !untolerated
}

// untoleratedTaint returns the first of taints with effect NoSchedule or
// NoExecute that no toleration tolerates, as kube-scheduler's TaintToleration
// filter does. Numeric comparison operators (Gt, Lt) stay off, as the alpha
// TaintTolerationComparisonOperators gate is by default in Kubernetes 1.37;
// the helper's log lines (a malformed numeric value) are discarded.
func untoleratedTaint(taints []v1.Taint, tolerations []v1.Toleration) (v1.Taint, bool) {
	return corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), taints, tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, false)
}

// placementClass names a pod's placement constraints so that pods with the
// same ones (and the same request) share an ask: empty when the pod has
// none, else a digest of their canonical JSON.
func placementClass(p *v1.Pod) string {
	var req *v1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		req = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(p.Spec.NodeSelector) == 0 && req == nil && len(p.Spec.Tolerations) == 0 {
		return ""
	}
	b, err := json.Marshal(struct {
		S map[string]string `json:"s,omitempty"`
		A *v1.NodeSelector  `json:"a,omitempty"`
		T []v1.Toleration   `json:"t,omitempty"`
	}{p.Spec.NodeSelector, req, p.Spec.Tolerations})
	if err != nil { // cannot happen for these types; keep such pods apart
		return "pod:" + p.Namespace + "/" + p.Name
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
