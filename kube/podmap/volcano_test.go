package podmap

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/resource"
)

// A Volcano PodGroup as the dynamic client gives it: each field read, and
// each bad one named.
func TestParseVolcanoPodGroup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    map[string]any
		want    VolcanoPodGroup
		wantErr string
	}{
		{name: "empty", spec: map[string]any{}},
		{name: "spark-operator's", spec: map[string]any{"minMember": int64(1), "minResources": map[string]any{"cpu": "3", "memory": "3712Mi"}, "queue": "root.etl", "priorityClassName": "high"},
			want: VolcanoPodGroup{MinMember: 1, MinResources: resource.New(3, 3712), Queue: "root.etl", PriorityClassName: "high"}},
		{name: "gang of 4", spec: map[string]any{"minMember": int64(4), "queue": "default"}, want: VolcanoPodGroup{MinMember: 4, Queue: "default"}},
		{name: "negative minMember", spec: map[string]any{"minMember": int64(-1)}, wantErr: "spec.minMember: -1 is not a count"},
		{name: "minMember not a number", spec: map[string]any{"minMember": "four"}, wantErr: "spec:"},
		{name: "bad quantity", spec: map[string]any{"minResources": map[string]any{"cpu": "lots"}}, wantErr: "spec:"},
		{name: "negative minResources", spec: map[string]any{"minResources": map[string]any{"cpu": "-1"}}, wantErr: "spec.minResources: it requests cpu -1, a negative amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseVolcanoPodGroup(map[string]any{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "spec": tc.spec})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// YuniKorn's annotations: the task groups' minimum, their minimum
// resources (minMember × minResource summed) and the placeholder timeout.
func TestPodGang(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ann     map[string]string
		want    Gang
		wantErr string
	}{
		{name: "none"},
		{name: "task groups", ann: map[string]string{
			AnnotationYuniKornTaskGroups: `[{"name":"driver","minMember":1,"minResource":{"cpu":"1","memory":"2Gi"}},{"name":"exec","minMember":3,"minResource":{"cpu":"2","memory":"4Gi"}}]`,
			AnnotationYuniKornParams:     "placeholderTimeoutInSeconds=30 gangSchedulingStyle=Hard"},
			want: Gang{MinMembers: 4, From: "annotation " + AnnotationYuniKornTaskGroups, MinResources: resource.New(7, 14336), Timeout: 30_000_000}},
		{name: "spindle's minimum wins", ann: map[string]string{AnnotationMinMembers: "2", AnnotationYuniKornTaskGroups: `[{"name":"a","minMember":3}]`},
			want: Gang{MinMembers: 2, From: "annotation " + AnnotationMinMembers}},
		{name: "bad timeout", ann: map[string]string{AnnotationYuniKornParams: "placeholderTimeoutInSeconds=soon"}, wantErr: `placeholderTimeoutInSeconds "soon" is not a count of seconds`},
		{name: "bad minResource", ann: map[string]string{AnnotationYuniKornTaskGroups: `[{"name":"a","minMember":1,"minResource":{"cpu":"x"}}]`}, wantErr: `task group 0 ("a"): minResource cpu: "x" is not a quantity`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Annotations: tc.ann}}
			got, err := PodGang(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
