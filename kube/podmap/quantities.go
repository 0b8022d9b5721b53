package podmap

import (
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/spindle-sched/spindle/resource"
)

// maxUnits bounds every amount the core counts, in its own units (milli-CPU,
// MiB, devices): 2^40 milli-CPU is about 1.1 billion CPUs, 2^40 MiB is
// 1 EiB. Sums over thousands of nodes and requests times a million pending
// pods stay far inside int64. A request beyond it is refused with a reason,
// never converted: Kubernetes quantities are arbitrary-precision, and one
// that overflows int64 (cpu 1e16, memory 100E or 8Ei) would otherwise wrap
// to a small or negative number and be bound as if it asked for nothing.
const maxUnits = 1 << 40

// quantityLimits are maxUnits as Kubernetes quantities, by resource.
var quantityLimits = map[v1.ResourceName]apiresource.Quantity{
	v1.ResourceCPU:              *apiresource.NewMilliQuantity(maxUnits, apiresource.DecimalSI),
	v1.ResourceMemory:           *apiresource.NewQuantity(maxUnits*mib, apiresource.BinarySI),
	v1.ResourceEphemeralStorage: *apiresource.NewQuantity(maxUnits*mib, apiresource.BinarySI),
	ResourceGPU:                 *apiresource.NewQuantity(maxUnits, apiresource.DecimalSI),
}

// limitText says maxUnits in each resource's own terms, for messages.
var limitText = map[v1.ResourceName]string{
	v1.ResourceCPU:              fmt.Sprintf("%d CPUs", maxUnits/1000),
	v1.ResourceMemory:           "1Ei",
	v1.ResourceEphemeralStorage: "1Ei",
	ResourceGPU:                 fmt.Sprint(maxUnits),
}

// quantityNames lists quantityLimits' keys in a fixed order, for messages.
var quantityNames = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, ResourceGPU, v1.ResourceEphemeralStorage}

// checkQuantities reports the first amount of rl that the core cannot count:
// negative, or beyond maxUnits.
func checkQuantities(rl v1.ResourceList) error {
	for _, name := range quantityNames {
		q, ok := rl[name]
		if !ok {
			continue
		}
		limit := quantityLimits[name]
		switch {
		case q.Sign() < 0:
			return fmt.Errorf("it requests %s %s, a negative amount", name, q.String())
		case q.Cmp(limit) > 0:
			return fmt.Errorf("it requests %s %s, more than spindle counts (at most %s); no node can hold it", name, q.String(), limitText[name])
		}
	}
	return nil
}

// CheckedRequest is PodRequest for a pod whose requests the core can count,
// and an error saying which one it cannot (too large, or negative).
func CheckedRequest(p *v1.Pod) (resource.Vector, error) {
	rl := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
	if err := checkQuantities(rl); err != nil {
		return resource.Vector{}, err
	}
	return requestVector(rl), nil
}

// CheckedList is a resource list as the core counts it (a PodGroup's
// minResources), zero where it names nothing, and an error saying which
// amount it cannot count.
func CheckedList(rl v1.ResourceList) (resource.Vector, error) {
	if err := checkQuantities(rl); err != nil {
		return resource.Vector{}, err
	}
	return listVector(rl), nil
}

// capQuantity returns q, or maxUnits of its resource when q is larger, so
// that a node reporting an absurd allocatable offers no more than the core
// can count.
func capQuantity(name v1.ResourceName, q apiresource.Quantity) *apiresource.Quantity {
	if limit, ok := quantityLimits[name]; ok && q.Cmp(limit) > 0 {
		return &limit
	}
	return &q
}

// NodePods is the node's "pods" allocatable: how many pods it takes at
// once, all schedulers' together, as kube-scheduler counts it. 0 (a node
// that does not report it) means no limit.
func NodePods(n *v1.Node) int {
	q, ok := n.Status.Allocatable[v1.ResourcePods]
	if !ok || q.Sign() <= 0 {
		return 0
	}
	if q.CmpInt64(math.MaxInt32) > 0 {
		return math.MaxInt32
	}
	return int(q.Value())
}
