package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
	"github.com/spindle-sched/spindle/kube/observe"
)

// Pods as the real tools create them (docs/live-testing.md): Spark 3.5 on
// Kubernetes labels every pod of an application spark-app-selector and
// spark-app-name, the driver spark-role=driver, each executor
// spark-role=executor, spark-exec-id and spark-exec-resourceprofile-id=0,
// with the driver pod as its controller; both request 1 CPU and 1408Mi by
// default (1 GiB + 384 MiB overhead). kubectl run labels a bare pod
// run=<name>.

func quantities(cpu, mem string) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
}

func sparkDriverPod(ns, app, cpu, mem string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app + "-driver", Labels: map[string]string{
			"spark-app-selector": "spark-" + app, "spark-app-name": app, "spark-role": "driver", "spark-version": "3.5.1"}},
		Spec: v1.PodSpec{SchedulerName: "spindle", RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{
			Name: "spark-kubernetes-driver", Image: "registry.invalid/spark:3.5.1",
			Args:      []string{"driver", "--class", "org.apache.spark.examples.SparkPi"},
			Resources: v1.ResourceRequirements{Requests: quantities(cpu, mem), Limits: v1.ResourceList{v1.ResourceMemory: resource.MustParse(mem)}}}}},
	}
}

func sparkExecutorPod(drv *v1.Pod, id int, annotations map[string]string) *v1.Pod {
	app := drv.Labels["spark-app-name"]
	yes := true
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: drv.Namespace, Name: fmt.Sprintf("%s-exec-%d", app, id), Annotations: annotations,
			Labels: map[string]string{"spark-app-selector": drv.Labels["spark-app-selector"], "spark-app-name": app, "spark-role": "executor",
				"spark-exec-id": fmt.Sprint(id), "spark-exec-resourceprofile-id": "0", "spark-version": "3.5.1"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: drv.Name, UID: drv.UID, Controller: &yes}}},
		Spec: v1.PodSpec{SchedulerName: "spindle", RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{
			Name: "spark-kubernetes-executor", Image: "registry.invalid/spark:3.5.1", Args: []string{"executor"},
			Resources: v1.ResourceRequirements{Requests: quantities("1", "1408Mi"), Limits: v1.ResourceList{v1.ResourceMemory: resource.MustParse("1408Mi")}}}}},
	}
}

// kubectlPod is what `kubectl run NAME --image=... --requests=...` (and a
// scheduler name override) creates.
func kubectlPod(ns, name, cpu, mem string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"run": name}},
		Spec: v1.PodSpec{SchedulerName: "spindle", RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{
			Name: name, Image: "registry.invalid/busybox:1",
			Resources: v1.ResourceRequirements{Requests: quantities(cpu, mem)}}}},
	}
}

// liveEnv is a control plane and a client for one live test.
type liveEnv struct {
	t   *testing.T
	c   *kubetest.Cluster
	cs  kubernetes.Interface
	ctx context.Context
	// execShape, when set, shapes each executor runSpark creates further
	// (the labels a tool that launches Spark adds).
	execShape func(*v1.Pod)
}

func (l *liveEnv) namespace(names ...string) {
	l.t.Helper()
	for _, ns := range names {
		if _, err := l.cs.CoreV1().Namespaces().Create(l.ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			l.t.Fatal(err)
		}
	}
}

func (l *liveEnv) create(p *v1.Pod) *v1.Pod {
	l.t.Helper()
	got, err := l.cs.CoreV1().Pods(p.Namespace).Create(l.ctx, p, metav1.CreateOptions{})
	if err != nil {
		l.t.Fatalf("create %s/%s: %v", p.Namespace, p.Name, err)
	}
	return got
}

func (l *liveEnv) get(ns, name string) *v1.Pod {
	l.t.Helper()
	p, err := getPod(l.cs, ns, name)
	if err != nil {
		l.t.Fatal(err)
	}
	return p
}

// waitPhase waits until the pod is in phase ph (Running means bound and run
// by kwok).
func (l *liveEnv) waitPhase(ns, name string, ph v1.PodPhase, within time.Duration) *v1.Pod {
	l.t.Helper()
	var p *v1.Pod
	ctx, cancel := context.WithTimeout(l.ctx, within)
	defer cancel()
	err := localcluster.Poll(ctx, 100*time.Millisecond, func() (bool, error) {
		var err error
		p, err = getPod(l.cs, ns, name)
		return err == nil && p.Status.Phase == ph, nil
	})
	if err != nil {
		l.t.Fatalf("%s/%s not %s within %v: %v (node %q, conditions %+v)", ns, name, ph, within, err, p.Spec.NodeName, p.Status.Conditions)
	}
	return p
}

// waitCondition waits until the pod's PodScheduled=False message contains
// want, and returns the message.
// waitCondition waits for the pod's PodScheduled=False message to contain
// want and returns it without the forecast's closing clause ("; expected to
// start in about 4 min"), which comes and goes with the forecasts: the
// tests here check what the message says of why the pod waits, and
// forecasting_test.go checks the clause.
func (l *liveEnv) waitCondition(ns, name, want string) string {
	l.t.Helper()
	var msg string
	liveWait(l.t, fmt.Sprintf("%s/%s to say %q", ns, name, want), func() (bool, error) {
		p, err := getPod(l.cs, ns, name)
		if err != nil {
			return false, err
		}
		if c := condition(p, v1.PodScheduled); c != nil && c.Status == v1.ConditionFalse {
			msg = c.Message
			return strings.Contains(msg, want), nil
		}
		return false, nil
	})
	return withoutForecast(msg)
}

// withoutForecast cuts the forecast's clause off a condition message.
func withoutForecast(msg string) string {
	for _, clause := range []string{"; expected to start ", "; not expected to start "} {
		if i := strings.LastIndex(msg, clause); i >= 0 {
			return msg[:i]
		}
	}
	return msg
}

// runSpark plays a Spark application as its driver does: once the driver
// pod runs, it creates the executors (kwok ends each after dur), and once
// they all succeeded, the driver exits (its pod is deleted).
func (l *liveEnv) runSpark(drv *v1.Pod, executors int, dur string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(l.ctx, within)
	defer cancel()
	var err error
	poll := func(cond func() (bool, error)) error { return localcluster.Poll(ctx, 200*time.Millisecond, cond) }
	if err = poll(func() (bool, error) {
		p, err := getPod(l.cs, drv.Namespace, drv.Name)
		if err == nil {
			drv = p
		}
		return err == nil && p.Status.Phase == v1.PodRunning, nil
	}); err != nil {
		return fmt.Errorf("driver %s never ran: %w", drv.Name, err)
	}
	for i := range executors {
		e := sparkExecutorPod(drv, i+1, map[string]string{kubetest.ReplayDurationAnnotation: dur})
		if l.execShape != nil {
			l.execShape(e)
		}
		if _, err := l.cs.CoreV1().Pods(drv.Namespace).Create(ctx, e, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	if err = poll(func() (bool, error) {
		for i := range executors {
			p, err := getPod(l.cs, drv.Namespace, fmt.Sprintf("%s-exec-%d", drv.Labels["spark-app-name"], i+1))
			if err != nil || p.Status.Phase != v1.PodSucceeded {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return fmt.Errorf("executors of %s did not all succeed: %w", drv.Name, err)
	}
	zero := int64(0)
	return l.cs.CoreV1().Pods(drv.Namespace).Delete(l.ctx, drv.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// apiPods reads spindle's /api/v1/pods.
func apiPods(addr string) ([]observe.PodStatus, error) {
	return apiItems[observe.PodStatus](addr, "/api/v1/pods")
}

// apiJobs reads spindle's /api/v1/jobs.
func apiJobs(addr string) ([]observe.JobStatus, error) {
	return apiItems[observe.JobStatus](addr, "/api/v1/jobs")
}

// apiItems reads the items of one of spindle's JSON lists.
func apiItems[T any](addr, path string) ([]T, error) {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var env struct {
		Items []T `json:"items"`
	}
	return env.Items, json.Unmarshal(b, &env)
}
