package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/kube/served"
)

// installVolcanoCRD makes the apiserver serve Volcano's PodGroup
// (scheduling.volcano.sh/v1beta1), as installing Volcano does; the schema
// keeps every field, as spindle reads only four of them. It returns once
// discovery lists the resource.
func installVolcanoCRD(t *testing.T, c *kubetest.Cluster) dynamic.Interface {
	t.Helper()
	dyn := kubetest.InstallCRD(t, c, podmap.VolcanoGroup, podmap.VolcanoVersion, "PodGroup", podmap.VolcanoResource)
	liveWait(t, "the Volcano PodGroup CRD served", func() (bool, error) {
		return served.VolcanoPodGroups(c.Client), nil
	})
	return dyn
}

func createVolcanoGroup(t *testing.T, dyn dynamic.Interface, ns, name string, spec map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": podmap.VolcanoGroup + "/" + podmap.VolcanoVersion, "kind": "PodGroup",
		"metadata": map[string]any{"namespace": ns, "name": name}, "spec": spec}}
	if _, err := dyn.Resource(served.VolcanoGVR).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Volcano PodGroup %s/%s: %v", ns, name, err)
	}
}

// volcanoPod is a pod as a Volcano user writes it: its PodGroup named by
// the scheduling.k8s.io/group-name annotation, schedulerName changed.
func volcanoPod(ns, name, group, cpu string) *v1.Pod {
	p := kubectlPod(ns, name, cpu, "256Mi")
	p.Spec.RestartPolicy = v1.RestartPolicyNever
	p.Annotations = map[string]string{podmap.AnnotationVolcanoGroup: group}
	return p
}

// Volcano's PodGroup objects on a real control plane serving the CRD, one
// 8-CPU node, a configuration with queues default and etl:
//   - a gang (minMember 3, queue root.etl): its first two pods are not
//     bound while the third does not exist; then all three are, in queue
//     etl, as one job;
//   - a PodGroup naming a queue the configuration lacks: its pod waits with
//     that reason, as an Event and its condition, and a pod created after
//     it is bound;
//   - a PodGroup whose minResources (100 CPUs) exceed the cluster: its pod
//     says so without waiting its turn.
func TestLiveVolcanoPodGroups(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 1, NodeCPU: "8", NodeMemory: "32Gi"})
	l := &liveEnv{t: t, c: c, cs: c.Client, ctx: context.Background()}
	dyn := installVolcanoCRD(t, c)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("queues:\n  - {name: default, capacity: 0.5}\n  - {name: etl, capacity: 0.5}\ndefault_queue: default\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildSpindle(t)
	addr := freeAddr(t)
	sp, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fifo", "-a", "none", "--config", cfg, "--http-address", addr)
	if err != nil {
		t.Fatal(err)
	}
	l.namespace("vc")
	liveWait(t, "spindle reading Volcano PodGroups", func() (bool, error) {
		return strings.Contains(localcluster.Tail(c.Dir+"/spindle.log", 50), "reading Volcano PodGroups"), nil
	})

	createVolcanoGroup(t, dyn, "vc", "gang", map[string]any{"minMember": int64(3), "queue": "root.etl"})
	l.create(volcanoPod("vc", "w-0", "gang", "1"))
	l.create(volcanoPod("vc", "w-1", "gang", "1"))
	time.Sleep(2 * time.Second)
	for _, name := range []string{"w-0", "w-1"} {
		if p := l.get("vc", name); p.Spec.NodeName != "" {
			t.Fatalf("vc/%s bound to %s with 2 of its gang's 3 members created", name, p.Spec.NodeName)
		}
	}
	l.create(volcanoPod("vc", "w-2", "gang", "1"))
	for _, name := range []string{"w-0", "w-1", "w-2"} {
		l.waitPhase("vc", name, v1.PodRunning, 30*time.Second)
	}
	var gang observe.JobStatus
	liveWait(t, "the gang's job in spindle's API", func() (bool, error) {
		jobs, err := apiJobs(addr)
		if err != nil {
			return false, nil
		}
		for _, j := range jobs {
			if strings.Contains(j.Name, "volcano/gang") {
				gang = j
				return j.PodsRunning == 3, nil
			}
		}
		return false, nil
	})
	if gang.Namespace != "vc" || gang.Queue != "etl" {
		t.Errorf("the gang's job %s/%s is in queue %q, want vc's, in etl", gang.Namespace, gang.Name, gang.Queue)
	}
	t.Logf("the gang's job: %s/%s in queue %s, %d pods running", gang.Namespace, gang.Name, gang.Queue, gang.PodsRunning)

	createVolcanoGroup(t, dyn, "vc", "noqueue", map[string]any{"minMember": int64(1), "queue": "missing"})
	createVolcanoGroup(t, dyn, "vc", "huge", map[string]any{"minMember": int64(1), "minResources": map[string]any{"cpu": "100"}})
	l.create(volcanoPod("vc", "q", "noqueue", "1"))
	start := time.Now()
	l.create(volcanoPod("vc", "h", "huge", "1"))
	l.create(volcanoPod("vc", "after", "", "1"))
	wantQ := `queue "missing" (Volcano PodGroup vc/noqueue spec.queue) is not configured; list it in the configuration's queues`
	if msg := l.waitCondition("vc", "q", "is not configured"); msg != wantQ {
		t.Errorf("vc/q says %q, want %q", msg, wantQ)
	}
	msg := l.waitCondition("vc", "h", "exceed what all nodes hold together")
	t.Logf("vc/h said why %v after it was created: %s", time.Since(start).Round(time.Millisecond), msg)
	l.waitPhase("vc", "after", v1.PodRunning, 30*time.Second)
	liveWait(t, "the FailedScheduling Event of vc/q", func() (bool, error) {
		evs, err := c.Client.CoreV1().Events("vc").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == "q" && e.Reason == "FailedScheduling" && e.Message == wantQ {
				return true, nil
			}
		}
		return false, nil
	})
	for _, name := range []string{"q", "h"} {
		if p := l.get("vc", name); p.Spec.NodeName != "" {
			t.Errorf("vc/%s bound to %s", name, p.Spec.NodeName)
		}
	}
	if log := localcluster.Tail(c.Dir+"/spindle.log", 200); strings.Contains(log, "level=ERROR") {
		t.Errorf("the scheduler logged errors:\n%s", log)
	}
	if err := sp.Exited(); err != nil {
		t.Fatal(err)
	}
}

// operatorLabels are what the Spark operator (kubeflow/spark-operator)
// puts on the driver and executor pods of SparkApplication app, on top of
// Spark's own: the application's name, that the operator launched them,
// the run's submission id, and, with `batchScheduler: spindle` and spindle
// among the operator's --kube-scheduler-names, the scheduler-plugins
// PodGroup label of the PodGroup it creates, <app>-pg.
func operatorLabels(p *v1.Pod, app string) {
	p.Labels["sparkoperator.k8s.io/app-name"] = app
	p.Labels["sparkoperator.k8s.io/launched-by-spark-operator"] = "true"
	p.Labels["sparkoperator.k8s.io/submission-id"] = "6f1c0a52-3d0e-4bb5-9d54-" + fmt.Sprintf("%012d", len(app))
	p.Labels["sparkoperator.k8s.io/mutated-by-spark-operator"] = "true"
	p.Labels["scheduling.x-k8s.io/pod-group"] = app + "-pg"
}

// Spark applications as the Spark operator runs them with
// `batchScheduler: spindle` (the webhook sets schedulerName: spindle on
// the driver and the executors): three applications of 2 executors each on
// one 4-CPU node under fair with AutoAdmin. Each driver is its job's AM,
// the job is named by spark-app-selector, the operator's labels change
// nothing, and all three run to the end.
func TestLiveSparkOperatorPods(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 1, NodeCPU: "4", NodeMemory: "16Gi"})
	l := &liveEnv{t: t, c: c, cs: c.Client, ctx: context.Background(), execShape: func(p *v1.Pod) { operatorLabels(p, p.Labels["spark-app-name"]) }}
	bin := buildSpindle(t)
	addr := freeAddr(t)
	sp, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fair", "-a", "autoadmin", "--http-address", addr)
	if err != nil {
		t.Fatal(err)
	}
	l.namespace("spark-apps")
	apps := []string{"pi", "wordcount", "etl"}
	var drivers []*v1.Pod
	for _, app := range apps {
		d := sparkDriverPod("spark-apps", app, "1", "1408Mi")
		operatorLabels(d, app)
		drivers = append(drivers, l.create(d))
	}
	// The drivers are the AMs of jobs named by spark-app-selector.
	liveWait(t, "the applications' jobs in spindle's API, each with its driver as AM", func() (bool, error) {
		jobs, err := apiJobs(addr)
		if err != nil {
			return false, nil
		}
		seen := 0
		for _, j := range jobs {
			for _, app := range apps {
				if j.Namespace == "spark-apps" && strings.HasSuffix(j.Name, "spark-"+app) {
					if j.AM == observe.AMNone {
						return false, fmt.Errorf("job %s has no AM; its driver should be", j.Name)
					}
					seen++
				}
			}
		}
		return seen == len(apps), nil
	})
	start := time.Now()
	errs := make(chan error, len(drivers))
	for _, d := range drivers {
		go func() { errs <- l.runSpark(d, 2, "2s", 90*time.Second) }()
	}
	for range drivers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("3 operator-shaped Spark applications ran to the end in %v", time.Since(start).Round(time.Millisecond))
	if err := sp.Exited(); err != nil {
		t.Fatal(err)
	}
}
