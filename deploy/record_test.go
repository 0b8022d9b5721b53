package deploy

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// What 'spindle kube record' calls, and nothing else: list and watch of
// pods, nodes and PodGroups (kube/record/listwatch.Watch).
func TestRecorderRoleGrantsExactlyListAndWatch(t *testing.T) {
	m := load(t)
	cr := m.get(t, "ClusterRole", "", "spindle-recorder").(*rbacv1.ClusterRole)
	want := []string{"nodes list", "nodes watch", "pods list", "pods watch", "scheduling.k8s.io podgroups list", "scheduling.k8s.io podgroups watch", "scheduling.volcano.sh podgroups list", "scheduling.volcano.sh podgroups watch"}
	if got := grants(cr.Rules); !slices.Equal(got, want) {
		t.Errorf("ClusterRole spindle-recorder grants\n  %s\nwant exactly\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	sa := m.get(t, "ServiceAccount", "spindle-system", "spindle-recorder").(*corev1.ServiceAccount)
	crb := m.get(t, "ClusterRoleBinding", "", "spindle-recorder").(*rbacv1.ClusterRoleBinding)
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}
	if crb.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "spindle-recorder"}) ||
		!slices.Equal(crb.Subjects, []rbacv1.Subject{subject}) {
		t.Errorf("ClusterRoleBinding spindle-recorder = %+v %+v", crb.RoleRef, crb.Subjects)
	}
}
