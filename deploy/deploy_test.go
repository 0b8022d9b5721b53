package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// manifests holds every object in deploy/ by kind and name.
type manifests struct {
	objs  map[string]runtime.Object // "Kind/namespace/name"
	spark []*unstructured.Unstructured
}

func (m manifests) get(t *testing.T, kind, ns, name string) runtime.Object {
	t.Helper()
	o, ok := m.objs[kind+"/"+ns+"/"+name]
	if !ok {
		t.Fatalf("no %s %s/%s in deploy/", kind, ns, name)
	}
	return o
}

// load decodes every YAML document under deploy/ strictly (unknown or
// duplicate fields are errors) into the typed objects client-go knows.
// Custom resources (SparkApplication) are decoded as unstructured.
func load(t *testing.T) manifests {
	t.Helper()
	strict := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
	m := manifests{objs: map[string]runtime.Object{}}
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for doc := 1; ; doc++ {
			raw, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s document %d: %v", f, doc, err)
			}
			if len(bytes.TrimSpace(stripComments(raw))) == 0 {
				continue
			}
			obj, gvk, err := strict.Decode(raw, nil, nil)
			if runtime.IsNotRegisteredError(err) {
				u := &unstructured.Unstructured{}
				if err := utilyaml.Unmarshal(raw, &u.Object); err != nil {
					t.Fatalf("%s document %d: %v", f, doc, err)
				}
				if u.GetKind() != "SparkApplication" {
					t.Fatalf("%s document %d: unexpected custom kind %q", f, doc, u.GetKind())
				}
				m.spark = append(m.spark, u)
				continue
			}
			if err != nil {
				t.Fatalf("%s document %d: %v", f, doc, err)
			}
			meta, err := runtimeMeta(obj)
			if err != nil {
				t.Fatalf("%s document %d: %v", f, doc, err)
			}
			key := gvk.Kind + "/" + meta
			if _, dup := m.objs[key]; dup {
				t.Fatalf("%s document %d: %s defined twice", f, doc, key)
			}
			m.objs[key] = obj
		}
	}
	return m
}

func stripComments(b []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(append(out, line...), '\n')
		}
	}
	return out
}

func runtimeMeta(obj runtime.Object) (string, error) {
	type named interface {
		GetNamespace() string
		GetName() string
	}
	n, ok := obj.(named)
	if !ok {
		return "", fmt.Errorf("%T has no metadata", obj)
	}
	return n.GetNamespace() + "/" + n.GetName(), nil
}

// grants flattens rules into "group resource verb [name]" lines, one per
// permission, so that two rule sets compare as sets.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					for _, n := range names {
						out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", g, res, v, n)))
					}
				}
			}
		}
		if len(r.NonResourceURLs) > 0 {
			out = append(out, "nonResourceURLs "+strings.Join(r.NonResourceURLs, ","))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// What the scheduler calls, and nothing else: informers on pods and nodes
// (and on Kubernetes PodGroups where the cluster serves them),
// pods/binding, pods/eviction (preemption), the PodScheduled condition on
// pods/status, Events through the core and events.k8s.io APIs (whichever
// recorder the driver uses), and its one Lease. No delete on pods: a
// preempted pod is evicted, so that PodDisruptionBudgets hold.
func TestClusterRoleGrantsExactlyWhatTheSchedulerUses(t *testing.T) {
	m := load(t)
	cr := m.get(t, "ClusterRole", "", "spindle-scheduler").(*rbacv1.ClusterRole)
	want := []string{
		" events create", " events patch",
		" nodes get", " nodes list", " nodes watch",
		" pods get", " pods list", " pods watch",
		" pods/binding create",
		" pods/eviction create",
		" pods/status patch", " pods/status update",
		"authentication.k8s.io tokenreviews create",
		"authorization.k8s.io subjectaccessreviews create",
		"events.k8s.io events create", "events.k8s.io events patch",
		"scheduling.k8s.io podgroups get", "scheduling.k8s.io podgroups list", "scheduling.k8s.io podgroups watch",
		"scheduling.k8s.io priorityclasses get", "scheduling.k8s.io priorityclasses list", "scheduling.k8s.io priorityclasses watch",
		"scheduling.volcano.sh podgroups get", "scheduling.volcano.sh podgroups list", "scheduling.volcano.sh podgroups watch",
	}
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	sort.Strings(want)
	if got := grants(cr.Rules); !slices.Equal(got, want) {
		t.Errorf("ClusterRole grants\n  %s\nwant exactly\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	role := m.get(t, "Role", "spindle-system", "spindle-leader-election").(*rbacv1.Role)
	wantLease := []string{
		"coordination.k8s.io leases create",
		"coordination.k8s.io leases get spindle",
		"coordination.k8s.io leases update spindle",
	}
	if got := grants(role.Rules); !slices.Equal(got, wantLease) {
		t.Errorf("leader-election Role grants %v, want exactly %v", got, wantLease)
	}
}

// No role anywhere in deploy/ may use a wildcard, reach secrets or
// configmaps (the config arrives as a mounted volume), or escalate.
func TestNoRoleGrantsWildcardsOrSecrets(t *testing.T) {
	m := load(t)
	var all []rbacv1.PolicyRule
	for key, o := range m.objs {
		switch r := o.(type) {
		case *rbacv1.ClusterRole:
			all = append(all, r.Rules...)
			if r.AggregationRule != nil {
				t.Errorf("%s aggregates other roles", key)
			}
		case *rbacv1.Role:
			all = append(all, r.Rules...)
		}
	}
	if len(all) == 0 {
		t.Fatal("no RBAC rules found")
	}
	for _, r := range all {
		for _, s := range slices.Concat(r.APIGroups, r.Resources, r.Verbs, r.ResourceNames) {
			if strings.Contains(s, "*") {
				t.Errorf("rule %+v uses a wildcard", r)
			}
		}
		// A non-resource URL may end in "/*" (every path under a prefix
		// of spindle's own server); nothing else is a wildcard.
		for _, u := range r.NonResourceURLs {
			if strings.Contains(strings.TrimSuffix(u, "/*"), "*") || u == "/*" {
				t.Errorf("rule %+v uses a wildcard beyond a path prefix", r)
			}
		}
		for _, res := range r.Resources {
			if res == "secrets" || res == "configmaps" || strings.HasPrefix(res, "serviceaccounts") ||
				strings.HasPrefix(res, "roles") || strings.HasPrefix(res, "clusterroles") {
				t.Errorf("rule %+v reaches %s", r, res)
			}
		}
		for _, v := range r.Verbs {
			if v == "escalate" || v == "bind" || v == "impersonate" || v == "delete" || v == "deletecollection" {
				t.Errorf("rule %+v grants %s", r, v)
			}
		}
	}
}

func TestBindingsTieTheServiceAccountToTheRoles(t *testing.T) {
	m := load(t)
	sa := m.get(t, "ServiceAccount", "spindle-system", "spindle").(*corev1.ServiceAccount)
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}
	crb := m.get(t, "ClusterRoleBinding", "", "spindle-scheduler").(*rbacv1.ClusterRoleBinding)
	if crb.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "spindle-scheduler"}) ||
		!slices.Equal(crb.Subjects, []rbacv1.Subject{subject}) {
		t.Errorf("ClusterRoleBinding = %+v %+v", crb.RoleRef, crb.Subjects)
	}
	rb := m.get(t, "RoleBinding", "spindle-system", "spindle-leader-election").(*rbacv1.RoleBinding)
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "spindle-leader-election"}) ||
		!slices.Equal(rb.Subjects, []rbacv1.Subject{subject}) {
		t.Errorf("RoleBinding = %+v %+v", rb.RoleRef, rb.Subjects)
	}
	m.get(t, "Namespace", "", sa.Namespace)
}

func TestDeploymentRunsTheLeaderElectedScheduler(t *testing.T) {
	m := load(t)
	d := m.get(t, "Deployment", "spindle-system", "spindle").(*appsv1.Deployment)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != "spindle" {
		t.Errorf("serviceAccountName = %q", pod.ServiceAccountName)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"kube schedule ", " --leader-elect ", " --config /etc/spindle/config.yaml", " --http-address=0.0.0.0:10261",
		" --http-auth=kubernetes ", " --probe-address=0.0.0.0:10262 "} {
		if !strings.Contains(" "+args+" ", want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	// The Lease the scheduler takes is the one the leader-election Role
	// grants: in the pod's namespace, named after the scheduler (spindle).
	for _, a := range c.Args {
		if a == "--lease-name" || strings.HasPrefix(a, "--lease-name=") || a == "--scheduler-name" || strings.HasPrefix(a, "--scheduler-name=") {
			t.Errorf("arg %q renames the Lease away from spindle, which rbac.yaml grants", a)
		}
	}
	if !slices.Contains(c.Args, "--lease-namespace=$(POD_NAMESPACE)") {
		t.Errorf("args %q: the Lease must be in $(POD_NAMESPACE), where rbac.yaml grants it", args)
	}
	var nsFromPod bool
	for _, e := range c.Env {
		if e.Name == "POD_NAMESPACE" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace" {
			nsFromPod = true
		}
	}
	if !nsFromPod || d.Namespace != "spindle-system" {
		t.Errorf("POD_NAMESPACE not from the downward API (%v) or Deployment not in spindle-system (%s)", nsFromPod, d.Namespace)
	}
	if len(c.Ports) != 2 || c.Ports[0].Name != "https" || c.Ports[0].ContainerPort != 10261 ||
		c.Ports[1].Name != "probes" || c.Ports[1].ContainerPort != 10262 {
		t.Errorf("ports = %+v, want https 10261 and probes 10262 to match --http-address and --probe-address", c.Ports)
	}
	// The kubelet sends no credentials: the probes go to the probe port,
	// over HTTP.
	for probe, path := range map[*corev1.Probe]string{c.LivenessProbe: "/livez", c.ReadinessProbe: "/readyz"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.String() != "probes" ||
			(probe.HTTPGet.Scheme != "" && probe.HTTPGet.Scheme != corev1.URISchemeHTTP) {
			t.Errorf("probe %+v, want GET %s on port probes", probe, path)
		}
	}
	// The image hack/image builds (its DefaultTag), never a floating
	// :latest placeholder.
	if c.Image != "spindle:dev" || strings.HasSuffix(c.Image, ":latest") || !strings.Contains(c.Image, ":") {
		t.Errorf("image %q, want spindle:dev, the tag go run ./hack/image writes", c.Image)
	}
	sc := c.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container securityContext %+v is not locked down", sc)
	}
	if ps := pod.SecurityContext; ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot {
		t.Errorf("pod may run as root: %+v", ps)
	}
	// The --config file comes from the ConfigMap in deploy/.
	var cm string
	for _, v := range pod.Volumes {
		for _, vm := range c.VolumeMounts {
			if vm.Name == v.Name && vm.MountPath == "/etc/spindle" && v.ConfigMap != nil {
				cm = v.ConfigMap.Name
			}
		}
	}
	cfg := m.get(t, "ConfigMap", "spindle-system", cm).(*corev1.ConfigMap)
	if _, ok := cfg.Data["config.yaml"]; !ok {
		t.Errorf("ConfigMap %s has no config.yaml", cm)
	}
}

// The example config is the scheduler's file format: queues with capacity
// in (0, 1], max_capacity in [capacity, 1], and a default_queue among them.
func TestConfigMapHoldsAValidSchedulerConfig(t *testing.T) {
	m := load(t)
	cfg := m.get(t, "ConfigMap", "spindle-system", "spindle-config").(*corev1.ConfigMap)
	var c struct {
		Queues []struct {
			Name        string  `yaml:"name"`
			Capacity    float64 `yaml:"capacity"`
			MaxCapacity float64 `yaml:"max_capacity"`
		} `yaml:"queues"`
		DefaultQueue string `yaml:"default_queue"`
	}
	dec := yaml.NewDecoder(strings.NewReader(cfg.Data["config.yaml"]))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	names := map[string]bool{}
	sum := 0.0
	for i, q := range c.Queues {
		if q.Name == "" || names[q.Name] {
			t.Errorf("queues[%d].name %q empty or repeated", i, q.Name)
		}
		names[q.Name] = true
		if !(q.Capacity > 0 && q.Capacity <= 1) || q.MaxCapacity != 0 && (q.MaxCapacity < q.Capacity || q.MaxCapacity > 1) {
			t.Errorf("queues[%d] %+v: capacity or max_capacity out of range", i, q)
		}
		sum += q.Capacity
	}
	if len(c.Queues) < 2 || sum > 1+1e-9 {
		t.Errorf("%d queues with capacities summing to %v, want at least 2 summing to at most 1", len(c.Queues), sum)
	}
	if !names[c.DefaultQueue] {
		t.Errorf("default_queue %q is not a queue", c.DefaultQueue)
	}
	// The Spark examples use a queue that exists.
	if !names["etl"] {
		t.Error("the Spark examples' queue etl is not configured")
	}
}

func TestSparkApplicationUsesSpindle(t *testing.T) {
	m := load(t)
	if len(m.spark) != 1 {
		t.Fatalf("%d SparkApplications, want 1", len(m.spark))
	}
	app := m.spark[0]
	if app.GetAPIVersion() != "sparkoperator.k8s.io/v1beta2" {
		t.Errorf("apiVersion %s", app.GetAPIVersion())
	}
	for _, role := range []string{"driver", "executor"} {
		name, _, err := unstructured.NestedString(app.Object, "spec", role, "schedulerName")
		if err != nil || name != "spindle" {
			t.Errorf("spec.%s.schedulerName = %q (%v), want spindle", role, name, err)
		}
		labels, _, err := unstructured.NestedStringMap(app.Object, "spec", role, "labels")
		if err != nil || labels["spindle.io/job"] != app.GetName() || labels["spindle.io/queue"] != "etl" {
			t.Errorf("spec.%s.labels = %v (%v), want spindle.io/job=%s and spindle.io/queue=etl", role, labels, err, app.GetName())
		}
	}
}

func TestSparkSubmitConfUsesSpindle(t *testing.T) {
	b, err := os.ReadFile("examples/spark-submit.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("spark-submit.conf:%d: %q is not 'key value'", i+1, line)
		}
		if _, dup := conf[k]; dup {
			t.Fatalf("spark-submit.conf:%d: %s set twice", i+1, k)
		}
		conf[k] = strings.TrimSpace(v)
	}
	for k, want := range map[string]string{
		"spark.kubernetes.scheduler.name":                  "spindle",
		"spark.kubernetes.driver.label.spindle.io/job":     "spark-pi",
		"spark.kubernetes.executor.label.spindle.io/job":   "spark-pi",
		"spark.kubernetes.driver.label.spindle.io/queue":   "etl",
		"spark.kubernetes.executor.label.spindle.io/queue": "etl",
	} {
		if conf[k] != want {
			t.Errorf("%s = %q, want %q", k, conf[k], want)
		}
	}
}

// TestDeploymentKeepsAdmissionControl: the admission controller the
// Deployment runs (-a, else the command's default, autoadmin) must be one
// that keeps a burst of drivers from filling the cluster: never none.
func TestDeploymentKeepsAdmissionControl(t *testing.T) {
	m := load(t)
	d := m.get(t, "Deployment", "spindle-system", "spindle").(*appsv1.Deployment)
	args := d.Spec.Template.Spec.Containers[0].Args
	adm := "autoadmin" // kube schedule's default
	for i, a := range args {
		switch {
		case (a == "-a" || a == "--admission") && i+1 < len(args):
			adm = args[i+1]
		case strings.HasPrefix(a, "--admission="):
			adm = strings.TrimPrefix(a, "--admission=")
		}
	}
	if !strings.HasPrefix(adm, "autoadmin") {
		t.Errorf("the Deployment runs admission %q; a burst of Spark drivers can then deadlock the cluster (docs/kube.md)", adm)
	}
}

// A drain evicts at most one replica at a time: the PodDisruptionBudget
// selects the Deployment's pods and keeps one of its two.
func TestPodDisruptionBudgetKeepsOneReplica(t *testing.T) {
	m := load(t)
	d := m.get(t, "Deployment", "spindle-system", "spindle").(*appsv1.Deployment)
	pdb := m.get(t, "PodDisruptionBudget", "spindle-system", "spindle").(*policyv1.PodDisruptionBudget)
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 1 || pdb.Spec.MaxUnavailable != nil {
		t.Errorf("PDB minAvailable %v maxUnavailable %v, want minAvailable 1", pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable)
	}
	if d.Spec.Replicas == nil || int(*d.Spec.Replicas) <= pdb.Spec.MinAvailable.IntValue() {
		t.Errorf("replicas %v leave no pod a drain may evict", d.Spec.Replicas)
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("PDB selector %v does not select the Deployment's pods %v", sel, d.Spec.Template.Labels)
	}
}

// The reader role grants only gets on spindle's own paths, and each path
// the HTTP side serves is among them.
func TestStatusReaderRoleGrantsTheServedPaths(t *testing.T) {
	m := load(t)
	cr := m.get(t, "ClusterRole", "", "spindle-status-reader").(*rbacv1.ClusterRole)
	if len(cr.Rules) != 1 || !slices.Equal(cr.Rules[0].Verbs, []string{"get"}) || len(cr.Rules[0].Resources) != 0 || len(cr.Rules[0].APIGroups) != 0 {
		t.Fatalf("rules %+v, want one rule: get on non-resource URLs", cr.Rules)
	}
	urls := cr.Rules[0].NonResourceURLs
	covered := func(path string) bool {
		for _, u := range urls {
			if u == path || strings.HasSuffix(u, "/*") && strings.HasPrefix(path, strings.TrimSuffix(u, "*")) {
				return true
			}
		}
		return false
	}
	// The JSON API is authorized under /spindle (webauth.APIPath).
	for _, p := range []string{"/", "/metrics", "/ui/app.js", "/spindle/api/v1/status", "/spindle/api/v1/jobs", "/spindle/api/v1/queues",
		"/spindle/api/v1/nodes", "/spindle/api/v1/pods", "/spindle/api/v1/decisions", "/spindle/api/v1/utilization"} {
		if !covered(p) {
			t.Errorf("spindle-status-reader does not grant %s", p)
		}
	}
	for _, p := range []string{"/healthz", "/debug/pprof/", "/apis/", "/api/v1/jobs"} {
		if covered(p) {
			t.Errorf("spindle-status-reader grants %s, which it should not", p)
		}
	}
}
