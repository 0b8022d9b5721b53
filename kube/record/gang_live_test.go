package record_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/kube/served"
)

// kube record on a control plane serving Volcano's PodGroup CRD, as the
// recorder's ServiceAccount: a gang of three pods whose minimum (3) and
// queue (root.etl) are only in its PodGroup is recorded with both.
func TestLiveRecordsVolcanoGang(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 1, NodeCPU: "8", NodeMemory: "32Gi", Scheduler: true})
	bin := buildSpindle(t)
	ctx := context.Background()
	dyn := kubetest.InstallCRD(t, c, podmap.VolcanoGroup, podmap.VolcanoVersion, "PodGroup", podmap.VolcanoResource)
	waitLive(t, "the CRD served", func() (bool, error) { return served.VolcanoPodGroups(c.Client), nil })
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ml"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pg := &unstructured.Unstructured{Object: map[string]any{"apiVersion": podmap.VolcanoGroup + "/" + podmap.VolcanoVersion, "kind": "PodGroup",
		"metadata": map[string]any{"namespace": "ml", "name": "train"}, "spec": map[string]any{"minMember": int64(3), "queue": "root.etl"}}}
	if _, err := dyn.Resource(served.VolcanoGVR).Namespace("ml").Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := applyRecorderRBAC(t, c)
	out := filepath.Join(t.TempDir(), "recorded.yaml")
	p, err := c.Run("recorder", bin, "kube", "record", "--kubeconfig", kubeconfig, "-A", "-o", out, "--job-idle", "3s", "--load-step", "2s")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	zero := int64(0)
	names := []string{"w-0", "w-1", "w-2"}
	for _, n := range names {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n, Annotations: map[string]string{podmap.AnnotationVolcanoGroup: "train", kubetest.ReplayDurationAnnotation: "3s"}},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: &zero,
				Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/fake:1", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse("1"), corev1.ResourceMemory: apiresource.MustParse("1Gi")}}}}}}
		if _, err := c.Client.CoreV1().Pods("ml").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitLive(t, "the gang done", func() (bool, error) {
		for _, n := range names {
			p, err := c.Client.CoreV1().Pods("ml").Get(ctx, n, metav1.GetOptions{})
			if err != nil || p.Status.Phase != corev1.PodSucceeded {
				return false, nil
			}
		}
		return true, nil
	})
	time.Sleep(6 * time.Second) // the job's idle time
	if err := p.Exited(); err != nil {
		t.Fatal(err)
	}
	if err := sigint(p); err != nil {
		t.Fatalf("the recorder: %v\n%s", err, localcluster.Tail(p.Log, 40))
	}
	summary := localcluster.Tail(p.Log, 30)
	w := loadWorkload(t, out)
	var found bool
	for _, j := range w.Jobs {
		if j.ID != "ml/volcano/train" {
			continue
		}
		found = true
		if j.MinMembers != 3 || j.Queue != "root.etl" || j.Tasks() != 3 {
			t.Errorf("job %s: min_members %d, queue %q, %d tasks; want 3, root.etl, 3\n%s", j.ID, j.MinMembers, j.Queue, j.Tasks(), summary)
		}
	}
	if !found {
		t.Fatalf("no job ml/volcano/train in the recording\n%s", summary)
	}
}

// waitLive polls cond until it holds, for at most 90 s, else fails t
// naming what it waited for.
func waitLive(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := localcluster.Poll(ctx, 200*time.Millisecond, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
