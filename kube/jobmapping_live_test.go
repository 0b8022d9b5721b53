package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
	"github.com/spindle-sched/spindle/kube/podmap"
)

// Issue 26 item 4 on a real control plane: kube-controller-manager's Job
// controller creates a batch/v1 Job's 31 pods, and the test creates a Spark
// application's driver and 31 executors as spark-submit's driver does
// (spark-app-selector, spark-role, spark-exec-id, an ownerReference to the
// driver). Both wait, in one namespace (one queue), while another pod holds
// the 31 CPUs the driver leaves; that pod is deleted and 31 CPUs free at
// once. Under -p fair the Job, one job, and the application share them.
func TestLiveBatchJobSharesWithSpark(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 1, NodeCPU: "32", NodeMemory: "64Gi", ControllerManager: true})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	const ns = "team"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fair", "--http-address", "off"); err != nil {
		t.Fatal(err)
	}
	req := v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("1"), v1.ResourceMemory: apiresource.MustParse("1Gi")}
	spec := func() v1.PodSpec {
		zero := int64(0)
		return v1.PodSpec{SchedulerName: "spindle", RestartPolicy: v1.RestartPolicyNever, TerminationGracePeriodSeconds: &zero,
			Containers: []v1.Container{{Name: "c", Image: "registry.invalid/fake:1", Resources: v1.ResourceRequirements{Requests: req}}}}
	}
	create := func(p *v1.Pod) *v1.Pod {
		t.Helper()
		out, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	running := func(name string) func() (bool, error) {
		return func() (bool, error) {
			p, err := getPod(cs, ns, name)
			return err == nil && p.Status.Phase == v1.PodRunning, err
		}
	}
	blocker := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "blocker"}, Spec: spec()}
	blocker.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("31"), v1.ResourceMemory: apiresource.MustParse("1Gi")}
	create(blocker)
	liveWait(t, "blocker running", running("blocker"))

	app := "spark-4f1c0a"
	drv := create(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pi-driver", Labels: map[string]string{
		podmap.LabelSparkApp: app, "spark-app-name": "pi", podmap.LabelSparkRole: "driver"}}, Spec: spec()})
	liveWait(t, "driver running", running("pi-driver"))

	parallelism := int32(31)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "etl"}, Spec: batchv1.JobSpec{
		Parallelism: &parallelism, Completions: &parallelism,
		Template: v1.PodTemplateSpec{Spec: spec()}}}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	for i := 1; i <= 31; i++ {
		create(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pi-exec-%d", i),
			Labels: map[string]string{podmap.LabelSparkApp: app, "spark-app-name": "pi", podmap.LabelSparkRole: "executor",
				"spark-exec-id": fmt.Sprint(i), "spark-exec-resourceprofile-id": "0"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: drv.Name, UID: drv.UID, Controller: &yes}}},
			Spec: spec()})
	}
	count := func() (etl, exec, pending int, err error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, 0, 0, err
		}
		for _, p := range pods.Items {
			isJob := p.Labels[podmap.LabelBatchJobName] == "etl"
			isExec := p.Labels[podmap.LabelSparkRole] == "executor"
			switch {
			case !isJob && !isExec:
			case p.Spec.NodeName == "":
				pending++
			case isJob:
				etl++
			default:
				exec++
			}
		}
		return etl, exec, pending, nil
	}
	liveWait(t, "the Job's 31 pods and the 31 executors, all pending", func() (bool, error) {
		a, b, p, err := count()
		return a+b == 0 && p == 62, err
	})
	// Let the scheduler see every one before room appears.
	time.Sleep(2 * time.Second)
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "blocker", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	liveWait(t, "31 of the 62 bound", func() (bool, error) {
		a, b, _, err := count()
		return a+b == 31, err
	})
	// Nothing more can fit; wait a moment to be sure nothing else binds.
	time.Sleep(2 * time.Second)
	etl, exec, pending, err := count()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the Job got %d CPUs, the Spark application %d executors (+ its driver); %d pods pending", etl, exec, pending)
	if etl+exec != 31 || etl < 14 || exec < 14 {
		t.Errorf("Job %d, executors %d: want the 31 CPUs shared (each at least 14)", etl, exec)
	}
	if log := localcluster.Tail(c.Dir+"/spindle.log", 200); strings.Contains(log, "level=ERROR") {
		t.Errorf("the scheduler logged errors:\n%s", log)
	}
}
