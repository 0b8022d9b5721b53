package listwatch

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/spindle-sched/spindle/kube/served"
)

// The PodGroups a cluster serves reach the recorder with their apiVersion
// (which tells the two APIs apart); those it does not serve, or the
// recorder may not list, are not read, and the latter is said.
func TestPodGroupsRead(t *testing.T) {
	tests := []struct {
		name           string
		serveK8s       bool
		serveVolcano   bool
		forbidK8s      bool
		want           []string // apiVersion namespace/name of each object delivered
		progressSaying string
	}{
		{"neither served", false, false, false, nil, ""},
		{"both served", true, true, false, []string{"scheduling.k8s.io/v1beta1 ml/pg-k", "scheduling.volcano.sh/v1beta1 ml/pg-v"}, ""},
		{"volcano only", false, true, false, []string{"scheduling.volcano.sh/v1beta1 ml/pg-v"}, ""},
		{"kubernetes forbidden", true, true, true, []string{"scheduling.volcano.sh/v1beta1 ml/pg-v"}, "scheduling.k8s.io podgroups not read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset(&schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "pg-k"}})
			var lists []*metav1.APIResourceList
			if tc.serveK8s {
				lists = append(lists, &metav1.APIResourceList{GroupVersion: "scheduling.k8s.io/v1beta1", APIResources: []metav1.APIResource{{Name: "podgroups"}}})
			}
			if tc.serveVolcano {
				lists = append(lists, &metav1.APIResourceList{GroupVersion: "scheduling.volcano.sh/v1beta1", APIResources: []metav1.APIResource{{Name: "podgroups"}}})
			}
			cs.Discovery().(*fakediscovery.FakeDiscovery).Resources = lists
			if tc.forbidK8s {
				cs.PrependReactor("list", "podgroups", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "podgroups"}, "", nil)
				})
			}
			vg := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
				"metadata": map[string]any{"namespace": "ml", "name": "pg-v"}, "spec": map[string]any{"minMember": int64(3)}}}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{served.VolcanoGVR: "PodGroupList"}, vg)
			var progress bytes.Buffer
			w := &watcher{cs: cs, opt: Options{Dynamic: dyn, Progress: &progress}}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ch, stop := w.podGroups(ctx)
			defer stop()
			var got []string
			for len(got) < len(tc.want) {
				select {
				case raw := <-ch:
					var head struct {
						APIVersion string `json:"apiVersion"`
						Metadata   struct{ Namespace, Name string }
					}
					if err := json.Unmarshal(raw, &head); err != nil {
						t.Fatal(err)
					}
					got = append(got, head.APIVersion+" "+head.Metadata.Namespace+"/"+head.Metadata.Name)
				case <-ctx.Done():
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if len(tc.want) == 0 && ch != nil {
				t.Error("a channel of PodGroups when none is read")
			}
			if p := progress.String(); tc.progressSaying == "" && p != "" || !strings.Contains(p, tc.progressSaying) {
				t.Errorf("progress %q, want %q", p, tc.progressSaying)
			}
		})
	}
}
