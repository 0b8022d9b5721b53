// Package served says which group APIs an apiserver serves, and names the
// custom ones spindle reads (Volcano's PodGroups), so that the scheduler
// (package kube) and the recorder (kube/record/listwatch) decide alike
// whether a cluster has them. It imports client-go only.
package served

import (
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/kube/podmap"
)

// VolcanoGVR is Volcano's PodGroup resource, read through the dynamic
// client (spindle reads four fields of its spec: podmap.VolcanoPodGroup),
// so that spindle needs no Volcano Go module.
var VolcanoGVR = schema.GroupVersionResource{Group: podmap.VolcanoGroup, Version: podmap.VolcanoVersion, Resource: podmap.VolcanoResource}

// PodGroups reports whether the apiserver serves Kubernetes' PodGroups
// (scheduling.k8s.io/v1beta1 podgroups); a discovery error counts as no,
// so that a cluster without the API is read as before.
func PodGroups(c kubernetes.Interface) bool {
	return Resource(c, schedulingv1beta1.SchemeGroupVersion.String(), "podgroups")
}

// VolcanoPodGroups reports whether the apiserver serves Volcano's
// PodGroup CRD; a discovery error counts as no.
func VolcanoPodGroups(c kubernetes.Interface) bool {
	return Resource(c, VolcanoGVR.GroupVersion().String(), VolcanoGVR.Resource)
}

// Resource reports whether the apiserver serves resource in
// groupVersion; a discovery error counts as no.
func Resource(c kubernetes.Interface, groupVersion, resource string) bool {
	rl, err := c.Discovery().ServerResourcesForGroupVersion(groupVersion)
	if err != nil || rl == nil {
		return false
	}
	for _, r := range rl.APIResources {
		if r.Name == resource {
			return true
		}
	}
	return false
}
