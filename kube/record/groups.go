package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/spindle-sched/spindle/kube/podmap"
)

// A job whose pods name a PodGroup (Volcano's, or Kubernetes'
// scheduling.k8s.io one) has its gang minimum, and for Volcano its queue,
// in that object, not on the pods: the recording reads the objects as the
// scheduler does (podmap's parsing) and applies them when the job is
// written, so that a PodGroup seen before or after its pods counts alike.

// podGroup is what a PodGroup object says of its job.
type podGroup struct {
	min int
	// volcano is the Volcano PodGroup's parse (its queue), nil for a
	// Kubernetes PodGroup.
	volcano *podmap.VolcanoPodGroup
	key     string // namespace/name
	used    bool   // a written job's pods named it
}

// groupJob is the job identity (podmap.Identity.Job) of the pods that
// name PodGroup ns/name of the given API group.
func groupJob(volcano bool, ns, name string) string {
	if volcano {
		return ns + "/volcano/" + name
	}
	return ns + "/podgroup/" + name
}

// podGroupFrom reads a PodGroup object's JSON: Volcano's
// (scheduling.volcano.sh) or Kubernetes' (scheduling.k8s.io), told apart
// by its apiVersion. It returns the job identity its pods map to.
func podGroupFrom(raw []byte) (string, *podGroup, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Metadata   struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			SchedulingPolicy json.RawMessage `json:"schedulingPolicy"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return "", nil, err
	}
	ns, name := head.Metadata.Namespace, head.Metadata.Name
	if name == "" || ns == "" {
		return "", nil, errors.New("a PodGroup without a name or namespace")
	}
	g := &podGroup{key: ns + "/" + name}
	group, _, _ := strings.Cut(head.APIVersion, "/")
	if head.APIVersion == "" {
		// An item of a PodGroupList as the raw API lists it carries no
		// apiVersion: its spec tells (Kubernetes' has a
		// schedulingPolicy, Volcano's a minMember).
		group = podmap.VolcanoGroup
		if len(head.Spec.SchedulingPolicy) > 0 {
			group = schedulingv1beta1.GroupName
		}
	}
	switch group {
	case podmap.VolcanoGroup:
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			return "", nil, err
		}
		vg, err := podmap.ParseVolcanoPodGroup(obj)
		if err != nil {
			return "", nil, fmt.Errorf("Volcano PodGroup %s: %w", g.key, err)
		}
		g.min, g.volcano = vg.Min(), &vg
		return groupJob(true, ns, name), g, nil
	case schedulingv1beta1.GroupName:
		var pg schedulingv1beta1.PodGroup
		if err := json.Unmarshal(raw, &pg); err != nil {
			return "", nil, fmt.Errorf("PodGroup %s: %w", g.key, err)
		}
		g.min = podmap.PodGroupMin(&pg)
		return groupJob(false, ns, name), g, nil
	}
	return "", nil, fmt.Errorf("PodGroup %s: apiVersion %q is neither %s nor %s", g.key, head.APIVersion, podmap.VolcanoGroup, schedulingv1beta1.GroupName)
}

// podGroup notes a PodGroup object read at where (file: item, or the
// watch), replacing an earlier version of it; a malformed one is counted
// and named.
func (c *core) podGroup(where string, raw []byte) {
	job, g, err := podGroupFrom(raw)
	if err != nil {
		c.malformed(where, err)
		return
	}
	if c.groups == nil {
		c.groups = map[string]*podGroup{}
	}
	if old := c.groups[job]; old != nil {
		g.used = old.used
	} else {
		c.podGroups++
	}
	c.groups[job] = g
}

// applyGroup gives j what its PodGroup says, if its pods name one that was
// read: the object's minimum wins over the pods' own (the object is the
// scheduler's source of truth), and a Volcano PodGroup's queue maps onto
// the job's unless its pods name spindle.io/queue.
func (c *core) applyGroup(j *jobRec) {
	if j.id.Kind != podmap.KindVolcano && j.id.Kind != podmap.KindPodGroup {
		return
	}
	g := c.groups[j.id.Job]
	if g == nil {
		return
	}
	g.used = true
	if g.min > 0 {
		j.minMembers = g.min
	}
	if g.volcano != nil {
		g.volcano.ApplyQueue(&j.id, g.key)
	}
}

// unusedGroups counts the PodGroups no written job's pods named.
func (c *core) unusedGroups() int {
	n := 0
	for _, g := range c.groups {
		if !g.used {
			n++
		}
	}
	return n
}
