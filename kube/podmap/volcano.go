package podmap

import (
	"encoding/json"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/spindle-sched/spindle/resource"
)

// Volcano's PodGroup API, read where the cluster serves the CRD: the pods
// annotated scheduling.k8s.io/group-name=<name> belong to the PodGroup of
// that name in their namespace.
const (
	VolcanoGroup    = "scheduling.volcano.sh"
	VolcanoVersion  = "v1beta1"
	VolcanoResource = "podgroups"
)

// VolcanoPodGroup is what spindle reads of a Volcano PodGroup's spec.
type VolcanoPodGroup struct {
	// MinMember makes the job a gang of that many pods (0: none).
	MinMember int
	// MinResources is the room the minimum needs in all (zero: not given).
	MinResources resource.Vector
	// Queue is the Volcano queue, mapped onto spindle's dotted queue
	// paths as it is ("root." or not); "" when not given.
	Queue string
	// PriorityClassName names the PriorityClass whose value orders the
	// job; "" when not given.
	PriorityClassName string
}

// ParseVolcanoPodGroup reads a Volcano PodGroup from its unstructured
// object (the dynamic client's). Errors name the field.
func ParseVolcanoPodGroup(obj map[string]any) (VolcanoPodGroup, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return VolcanoPodGroup{}, fmt.Errorf("not an object: %v", err)
	}
	var pg struct {
		Spec struct {
			MinMember         *int64          `json:"minMember"`
			MinResources      v1.ResourceList `json:"minResources"`
			Queue             string          `json:"queue"`
			PriorityClassName string          `json:"priorityClassName"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &pg); err != nil {
		return VolcanoPodGroup{}, fmt.Errorf("spec: %v", err)
	}
	var out VolcanoPodGroup
	if m := pg.Spec.MinMember; m != nil {
		if *m < 0 || *m > maxMinMembers {
			return VolcanoPodGroup{}, fmt.Errorf("spec.minMember: %d is not a count in [0, %d]", *m, maxMinMembers)
		}
		out.MinMember = int(*m)
	}
	if len(pg.Spec.MinResources) > 0 {
		v, err := CheckedList(pg.Spec.MinResources)
		if err != nil {
			return VolcanoPodGroup{}, fmt.Errorf("spec.minResources: %v", err)
		}
		out.MinResources = v
	}
	out.Queue, out.PriorityClassName = pg.Spec.Queue, pg.Spec.PriorityClassName
	return out, nil
}

// Min is the gang minimum the PodGroup sets: MinMember, else 1 when
// MinResources alone gate the job (the room must be there before any pod
// is placed), else 0.
func (g VolcanoPodGroup) Min() int {
	if g.MinMember == 0 && !g.MinResources.IsZero() {
		return 1
	}
	return g.MinMember
}

// ApplyQueue gives id the PodGroup's queue (key, namespace/name, names it
// in QueueFrom) unless the pod names spindle.io/queue, spindle's own word,
// which wins.
func (g VolcanoPodGroup) ApplyQueue(id *Identity, key string) {
	if g.Queue != "" && !strings.HasPrefix(id.QueueFrom, "label "+LabelQueue) {
		id.Queue, id.QueueFrom = g.Queue, "Volcano PodGroup "+key+" spec.queue"
	}
}

// PodGroupMin is the gang minimum of a Kubernetes PodGroup
// (scheduling.k8s.io/v1beta1): its gang policy's minCount, 0 without one.
func PodGroupMin(g *schedulingv1beta1.PodGroup) int {
	if gang := g.Spec.SchedulingPolicy.Gang; gang != nil && gang.MinCount > 0 {
		return int(gang.MinCount)
	}
	return 0
}
