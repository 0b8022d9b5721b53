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

	"github.com/spindle-sched/spindle/resource"
)

func rl(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
	}
	return out
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
	// A queue guaranteed nothing, and one spared from preemption with
	// the queues below it.
	spared, err := ParseConfig([]byte("queues: [{name: a, capacity: 1, disable_preemption: true}, {name: a.x, capacity: 1}, {name: spare, capacity: 0}]"))
	if err != nil {
		t.Fatal(err)
	}
	if s := spared.QueueSpecs(); !s[0].DisablePreemption || s[1].DisablePreemption || s[2].Capacity != 0 || s[2].MaxCapacity != 1 {
		t.Errorf("specs %+v", s)
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
		"queues: [{name: a, capacity: -0.5}]":                                          "queues[0].capacity",
		"queues: [{name: a, capacity: 0, disable_preemption: maybe}]":                  "line 1: cannot unmarshal !!str `maybe` into bool",
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
