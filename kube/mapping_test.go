package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

func TestIdentify(t *testing.T) {
	cases := []struct {
		name   string
		ns     string
		labels map[string]string
		want   podIdentity
	}{
		{"lone pod, queue from namespace", "team-a", nil, podIdentity{Job: "pod:team-a/p", Lone: true, Queue: "team-a"}},
		{"spindle job task", "ns", map[string]string{LabelJob: "j1"}, podIdentity{Job: "ns/j1", Queue: "ns"}},
		{"spindle job AM with queue", "ns", map[string]string{LabelJob: "j1", LabelRole: "am", LabelQueue: "gold"}, podIdentity{Job: "ns/j1", AM: true, Queue: "gold"}},
		{"spark driver", "ns", map[string]string{LabelSparkApp: "spark-123", LabelSparkRole: "driver"}, podIdentity{Job: "ns/spark-123", AM: true, Queue: "ns"}},
		{"spark executor", "ns", map[string]string{LabelSparkApp: "spark-123", LabelSparkRole: "executor"}, podIdentity{Job: "ns/spark-123", Queue: "ns"}},
		{"spindle.io/job wins over spark", "ns", map[string]string{LabelJob: "mine", LabelSparkApp: "spark-123"}, podIdentity{Job: "ns/mine", Queue: "ns"}},
		{"role without a job is a lone pod", "ns", map[string]string{LabelSparkRole: "driver"}, podIdentity{Job: "pod:ns/p", Lone: true, Queue: "ns"}},
	}
	for _, c := range cases {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: c.ns, Labels: c.labels}}
		if got := identify(p); got != c.want {
			t.Errorf("%s: identify = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func rl(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
	}
	return out
}

func podWith(containers ...v1.ResourceList) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	for _, r := range containers {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "c", Resources: v1.ResourceRequirements{Requests: r}})
	}
	return p
}

func TestPodRequest(t *testing.T) {
	withInit := podWith(rl("cpu", "250m", "memory", "100Mi"))
	withInit.Spec.InitContainers = []v1.Container{{Name: "i", Resources: v1.ResourceRequirements{Requests: rl("cpu", "2", "memory", "10Mi")}}}
	withOverhead := podWith(rl("cpu", "1"))
	withOverhead.Spec.Overhead = rl("cpu", "100m", "memory", "64Mi")
	cases := []struct {
		name string
		pod  *v1.Pod
		want resource.Vector
	}{
		{"fractional CPU exact", podWith(rl("cpu", "500m", "memory", "1Gi")), resource.Vector{500, 1024, 0, 0}},
		{"decimal memory rounds up", podWith(rl("cpu", "1", "memory", "1G")), resource.Vector{1000, 954, 0, 0}}, // 1e9 B = 953.67 MiB
		{"one byte over a MiB rounds up", podWith(rl("memory", "1048577")), resource.Vector{0, 2, 0, 0}},
		{"containers add up", podWith(rl("cpu", "100m"), rl("cpu", "150m", "memory", "1Mi")), resource.Vector{250, 1, 0, 0}},
		{"init container max", withInit, resource.Vector{2000, 100, 0, 0}},
		{"overhead counts", withOverhead, resource.Vector{1100, 64, 0, 0}},
		{"gpu and storage", podWith(rl("cpu", "1", "nvidia.com/gpu", "2", "ephemeral-storage", "1Gi")), resource.Vector{1000, 0, 2, 1024}},
		{"nothing requested is 1m", podWith(nil), resource.Vector{1, 0, 0, 0}},
	}
	for _, c := range cases {
		if got := podRequest(c.pod); got != c.want {
			t.Errorf("%s: podRequest = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNodeCapacityRoundsDown(t *testing.T) {
	n := &v1.Node{Status: v1.NodeStatus{Allocatable: rl("cpu", "3500m", "memory", "1000000Ki", "nvidia.com/gpu", "1", "ephemeral-storage", "1G", "pods", "110")}}
	// 1000000 KiB = 976.5625 MiB; 1e9 B = 953.67 MiB.
	want := resource.Vector{3500, 976, 1, 953}
	if got := nodeCapacity(n); got != want {
		t.Fatalf("nodeCapacity = %v, want %v", got, want)
	}
	// The same quantity asked and offered: the request is never smaller
	// than what the node offers, so nothing is overcommitted.
	q := apiresource.MustParse("1000000Ki")
	if mibUp(q) < mibDown(q) || mibUp(q)-mibDown(q) != 1 {
		t.Fatalf("rounding: up %d, down %d", mibUp(q), mibDown(q))
	}
}

func TestNodeSchedulable(t *testing.T) {
	ready := v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionTrue}
	notReady := v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionFalse}
	cases := []struct {
		name string
		n    v1.Node
		want bool
	}{
		{"ready", v1.Node{Status: v1.NodeStatus{Conditions: []v1.NodeCondition{ready}}}, true},
		{"not ready", v1.Node{Status: v1.NodeStatus{Conditions: []v1.NodeCondition{notReady}}}, false},
		{"no condition yet", v1.Node{}, false},
		{"cordoned", v1.Node{Spec: v1.NodeSpec{Unschedulable: true}, Status: v1.NodeStatus{Conditions: []v1.NodeCondition{ready}}}, false},
	}
	for _, c := range cases {
		if got := nodeSchedulable(&c.n); got != c.want {
			t.Errorf("%s: nodeSchedulable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPlacement(t *testing.T) {
	node := func(labels map[string]string, taints ...v1.Taint) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}, Spec: v1.NodeSpec{Taints: taints}}
	}
	gpuTaint := v1.Taint{Key: "gpu", Value: "yes", Effect: v1.TaintEffectNoSchedule}
	soft := v1.Taint{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule}
	evict := v1.Taint{Key: "evict", Effect: v1.TaintEffectNoExecute}
	affinity := func(op v1.NodeSelectorOperator, vals ...string) *v1.Affinity {
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: op, Values: vals}}}}}}}
	}
	cases := []struct {
		name string
		spec v1.PodSpec
		node *v1.Node
		want bool
	}{
		{"no constraints", v1.PodSpec{}, node(nil), true},
		{"nodeSelector matches", v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}}, node(map[string]string{"disk": "ssd"}), true},
		{"nodeSelector misses", v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}}, node(map[string]string{"disk": "hdd"}), false},
		{"affinity In", v1.PodSpec{Affinity: affinity(v1.NodeSelectorOpIn, "a", "b")}, node(map[string]string{"zone": "b"}), true},
		{"affinity In misses", v1.PodSpec{Affinity: affinity(v1.NodeSelectorOpIn, "a")}, node(map[string]string{"zone": "b"}), false},
		{"affinity NotIn", v1.PodSpec{Affinity: affinity(v1.NodeSelectorOpNotIn, "a")}, node(map[string]string{"zone": "a"}), false},
		{"untolerated NoSchedule", v1.PodSpec{}, node(nil, gpuTaint), false},
		{"tolerated NoSchedule", v1.PodSpec{Tolerations: []v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpEqual, Value: "yes", Effect: v1.TaintEffectNoSchedule}}}, node(nil, gpuTaint), true},
		{"toleration of another value", v1.PodSpec{Tolerations: []v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpEqual, Value: "no"}}}, node(nil, gpuTaint), false},
		{"PreferNoSchedule does not filter", v1.PodSpec{}, node(nil, soft), true},
		{"untolerated NoExecute", v1.PodSpec{}, node(nil, evict), false},
		{"Exists tolerates all", v1.PodSpec{Tolerations: []v1.Toleration{{Operator: v1.TolerationOpExists}}}, node(nil, gpuTaint, evict), true},
	}
	for _, c := range cases {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: c.spec}
		if got := newPlacement(p).fits(c.node); got != c.want {
			t.Errorf("%s: fits = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPlacementClass(t *testing.T) {
	mk := func(sel map[string]string, tol ...v1.Toleration) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: v1.PodSpec{NodeSelector: sel, Tolerations: tol}}
	}
	if c := placementClass(mk(nil)); c != "" {
		t.Errorf("unconstrained pod has class %q, want empty", c)
	}
	a, b := placementClass(mk(map[string]string{"x": "1", "y": "2"})), placementClass(mk(map[string]string{"y": "2", "x": "1"}))
	if a == "" || a != b {
		t.Errorf("same selector gives classes %q and %q", a, b)
	}
	if c := placementClass(mk(map[string]string{"x": "2", "y": "2"})); c == a {
		t.Errorf("different selectors share class %q", c)
	}
	if c := placementClass(mk(map[string]string{"x": "1", "y": "2"}, v1.Toleration{Key: "k", Operator: v1.TolerationOpExists})); c == a {
		t.Errorf("a toleration does not change the class %q", c)
	}
}

func TestReadHints(t *testing.T) {
	cases := []struct {
		name    string
		ann     map[string]string
		want    jobHints
		wantErr string
	}{
		{"none", nil, jobHints{}, ""},
		{"estimate and deadline", map[string]string{AnnotationEstimate: "2m", AnnotationDeadline: "600"}, jobHints{Estimate: 2 * clock.Minute, Deadline: 600 * clock.Second}, ""},
		{"demand", map[string]string{AnnotationDemand: "cpu=8,memory=16Gi"}, jobHints{Demand: resource.Vector{8000, 16384, 0, 0}}, ""},
		{"demand times", map[string]string{AnnotationDemand: "4*cpu=500m,memory=1G"}, jobHints{Demand: resource.Vector{2000, 4 * 954, 0, 0}}, ""},
		{"spark executors", map[string]string{AnnotationSparkInstances: "10", AnnotationSparkCores: "2", AnnotationSparkMemory: "4g"},
			jobHints{Demand: resource.Vector{20000, 10 * (4096 + 409), 0, 0}}, ""},
		{"spark small executors get 384m overhead", map[string]string{AnnotationSparkInstances: "2", AnnotationSparkMemory: "512m"},
			jobHints{Demand: resource.Vector{2000, 2 * (512 + 384), 0, 0}}, ""},
		{"spark explicit overhead", map[string]string{AnnotationSparkInstances: "1", AnnotationSparkMemory: "1g", AnnotationSparkOverhead: "100m"},
			jobHints{Demand: resource.Vector{1000, 1124, 0, 0}}, ""},
		{"demand annotation wins over spark", map[string]string{AnnotationDemand: "cpu=1", AnnotationSparkInstances: "10"}, jobHints{Demand: resource.Vector{1000, 0, 0, 0}}, ""},
		{"bad estimate", map[string]string{AnnotationEstimate: "soon"}, jobHints{}, AnnotationEstimate},
		{"negative deadline", map[string]string{AnnotationDeadline: "-5s"}, jobHints{}, AnnotationDeadline},
		{"bad demand resource", map[string]string{AnnotationDemand: "cpus=1"}, jobHints{}, `unknown resource "cpus"`},
		{"bad demand quantity", map[string]string{AnnotationDemand: "cpu=lots"}, jobHints{}, AnnotationDemand},
		{"bad demand count", map[string]string{AnnotationDemand: "x*cpu=1"}, jobHints{}, "count before"},
		{"bad spark instances", map[string]string{AnnotationSparkInstances: "many"}, jobHints{}, AnnotationSparkInstances},
		{"bad spark memory", map[string]string{AnnotationSparkInstances: "1", AnnotationSparkMemory: "4x"}, jobHints{}, AnnotationSparkMemory},
	}
	for _, c := range cases {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Annotations: c.ann}}
		got, err := readHints(p)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: readHints = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte("queues:\n  - {name: spark, capacity: 0.7}\n  - {name: batch, capacity: 0.3, max_capacity: 0.5}\ndefault_queue: batch\n"))
	if err != nil {
		t.Fatal(err)
	}
	qs := c.QueueSpecs()
	if len(qs) != 2 || qs[0].Name != "spark" || qs[0].MaxCapacity != 1 || qs[1].MaxCapacity != 0.5 {
		t.Fatalf("queues = %+v", qs)
	}
	for name, want := range map[string]string{"spark": "spark", "batch": "batch", "team-x": "batch"} {
		if got := c.resolveQueue(name); got != want {
			t.Errorf("resolveQueue(%q) = %q, want %q", name, got, want)
		}
	}
	noDefault, err := ParseConfig([]byte("queues: [{name: a, capacity: 1}]"))
	if err != nil {
		t.Fatal(err)
	}
	if got := noDefault.resolveQueue("b"); got != "" {
		t.Errorf("unlisted queue without default_queue resolved to %q", got)
	}
	tree, err := ParseConfig([]byte("queues: [{name: prod, capacity: 0.6}, {name: prod.etl, capacity: 1, weight: 3}, {name: batch, capacity: 0.4}]\ndefault_queue: root.batch"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"prod.etl": "prod.etl", "root.prod.etl": "prod.etl", "prod": "prod", "x": "root.batch"} {
		if got := tree.resolveQueue(name); got != want {
			t.Errorf("tree: resolveQueue(%q) = %q, want %q", name, got, want)
		}
	}
	if s := tree.QueueSpecs(); s[1].Weight != 3 || s[1].MaxCapacity != 1 || s[0].Weight != 0 {
		t.Errorf("tree specs %+v", s)
	}
	empty, err := ParseConfig(nil)
	if err != nil || empty.resolveQueue("anything") != "default" || empty.Calculator() != resource.MemoryCalculator {
		t.Fatalf("empty config: %v, %+v", err, empty)
	}
	for _, doc := range []string{"resource_calculator: dominant", "queues: [{name: a, capacity: 1}]\nresource_calculator: dominant"} {
		if dom, err := ParseConfig([]byte(doc)); err != nil || dom.Calculator() != resource.DominantCalculator {
			t.Errorf("%q: %v, calculator %v", doc, err, dom.Calculator())
		}
	}
	bad := map[string]string{
		"queues: [{name: a, capacity: 0}]":                                             "queues[0].capacity",
		"queues: [{name: a, capacity: 0.5, max_capacity: 0.2}]":                        "queues[0].max_capacity",
		"queues: [{capacity: 0.5}]":                                                    "queues[0].name",
		"queues: [{name: a, capacity: 1}, {name: a, capacity: 1}]":                     "queues[1].name",
		"queues: [{name: a, capacity: 1}]\ndefault_queue: b":                           "default_queue",
		"queues: [{name: a, capacity: 1, wieght: 2}]":                                  "wieght",
		"queues: [{name: a, capacity: 1, weight: -2}]":                                 "queues[0].weight",
		"queues: [{name: a.b, capacity: 1}]":                                           `parent queue "a" is not defined`,
		"queues: [{name: a, capacity: 1}, {name: a.b, capacity: 1}]\ndefault_queue: a": "default_queue: \"a\" is a parent queue",
		"queues: [{name: a, capacity: 0.7}, {name: b, capacity: 0.7}]":                 "sum to 1.4",
		"resource_calculator: drf":                                                     "resource_calculator",
		"default_queue: x":                                                             "default_queue",
	}
	for in, want := range bad {
		if _, err := ParseConfig([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConfig(%q) = %v, want an error naming %s", in, err, want)
		}
	}
}

// The ConfigMap in deploy/ carries a file this scheduler accepts.
func TestDeployConfigParses(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "deploy", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig([]byte(cm.Data["config.yaml"]))
	if err != nil {
		t.Fatalf("deploy/config.yaml: %v", err)
	}
	if got := c.resolveQueue("etl"); got != "etl" {
		t.Errorf("queue etl resolves to %q", got)
	}
}

// The Spark example's declared demand reads as four 1-CPU executors.
func TestSparkExampleDemand(t *testing.T) {
	d, err := parseDemand("4*cpu=1,memory=2432Mi")
	if err != nil || d != (resource.Vector{4000, 4 * 2432, 0, 0}) {
		t.Fatalf("demand = %v, %v", d, err)
	}
	s, err := sparkDemand(map[string]string{AnnotationSparkInstances: "4", AnnotationSparkCores: "1", AnnotationSparkMemory: "2g"})
	if err != nil || s != d {
		t.Fatalf("spark demand = %v, %v; want %v", s, err, d)
	}
}
