package record

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// volcanoGangPods runs a Volcano gang of three pods (annotation
// scheduling.k8s.io/group-name=pg-1, no minimum on the pods) on the fake
// and returns their final objects, as a snapshot lists them.
func volcanoGangPods(t *testing.T) []any {
	f, _ := newFake(t, Options{}, node("a", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	vol := withAnnotations("scheduling.k8s.io/group-name", "pg-1")
	var out []any
	names := []string{"w-0", "w-1", "w-2"}
	for _, n := range names {
		f.create(at(1), "ml", n, "1", "1Gi", vol)
	}
	for _, n := range names {
		f.life("ml/"+n, "a", 1.5, 2, 10)
		out = append(out, f.pod["ml/"+n])
	}
	return out
}

// PodGroup objects in a dump give the jobs whose pods name them their
// minimum and queue; one naming no pod is counted; a bad one is named by
// file and item.
func TestSnapshotPodGroups(t *testing.T) {
	tests := []struct {
		name   string
		groups string // a kubectl get podgroups -A -o yaml file
		min    int
		queue  string
		unused int
		bad    string // a malformed object's message, "" for none
	}{
		{"no podgroup: the pods' namespace, no minimum", "", 0, "ml", 0, ""},
		{"volcano gang keeps minMember and queue", `apiVersion: v1
kind: List
items:
- apiVersion: scheduling.volcano.sh/v1beta1
  kind: PodGroup
  metadata: {namespace: ml, name: pg-1}
  spec: {minMember: 3, queue: root.ml}
`, 3, "root.ml", 0, ""},
		{"a podgroup with no pods is counted", `apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroupList
items:
- metadata: {namespace: ml, name: pg-1}
  spec: {minMember: 2}
- metadata: {namespace: ml, name: pg-idle}
  spec: {minMember: 4, queue: idle}
`, 2, "ml", 1, ""},
		{"a bad podgroup is named file:item", `apiVersion: v1
kind: List
items:
- apiVersion: scheduling.volcano.sh/v1beta1
  kind: PodGroup
  metadata: {namespace: ml, name: pg-1}
  spec: {minMember: -1}
`, 0, "ml", 0, "groups.yaml: items[0]: Volcano PodGroup ml/pg-1: spec.minMember: -1 is not a count"},
		{"an unknown apiVersion is named", `apiVersion: v1
kind: List
items:
- apiVersion: example.com/v1
  kind: PodGroup
  metadata: {namespace: ml, name: pg-1}
`, 0, "ml", 0, `groups.yaml: items[0]: PodGroup ml/pg-1: apiVersion "example.com/v1" is neither`},
	}
	pods := volcanoGangPods(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []Input{
				input("pods.json", list(t, "Pod", pods...)),
				input("nodes.json", list(t, "Node", node("a", "8", "16Gi"))),
			}
			if tc.groups != "" {
				in = append(in, input("groups.yaml", []byte(tc.groups)))
			}
			w, s, err := Snapshot(in, SnapshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			j := job(t, w, "ml/volcano/pg-1")
			if j.MinMembers != tc.min || j.Queue != tc.queue || j.Tasks() != 3 {
				t.Errorf("job: min_members %d, queue %q, %d tasks; want %d, %q, 3", j.MinMembers, j.Queue, j.Tasks(), tc.min, tc.queue)
			}
			if s.PodGroupsUnused != tc.unused {
				t.Errorf("%d podgroups naming no pod, want %d", s.PodGroupsUnused, tc.unused)
			}
			got := strings.Join(s.Malformed, "\n")
			if tc.bad == "" && got != "" || !strings.Contains(got, tc.bad) {
				t.Errorf("malformed: %q, want %q", got, tc.bad)
			}
		})
	}
}

// A Kubernetes PodGroup's gang minCount is the job's minimum, read from
// the same dump as the pods (one file, two kinds).
func TestSnapshotKubernetesPodGroup(t *testing.T) {
	f, _ := newFake(t, Options{}, node("a", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	group := "pg-k"
	var pods []any
	for _, n := range []string{"k-0", "k-1"} {
		f.create(at(1), "ml", n, "1", "1Gi", func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group} })
		f.life("ml/"+n, "a", 1.5, 2, 10)
		pods = append(pods, f.pod["ml/"+n])
	}
	groups := `{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"namespace": "ml", "name": "pg-k"},
 "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}`
	w, s, err := Snapshot([]Input{
		input("pods.json", list(t, "Pod", pods...)),
		input("groups.json", []byte(groups)),
		input("nodes.json", list(t, "Node", node("a", "8", "16Gi"))),
	}, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if j := job(t, w, "ml/podgroup/pg-k"); j.MinMembers != 2 {
		t.Errorf("min_members %d, want 2", j.MinMembers)
	}
	if s.PodGroups != 1 || s.PodGroupsUnused != 0 {
		t.Errorf("podgroups %d read, %d unused; want 1, 0", s.PodGroups, s.PodGroupsUnused)
	}
	if text := strings.Join(s.Notes(), "\n"); !strings.Contains(text, "podgroups: 1 read") {
		t.Errorf("notes: %s", text)
	}
}
