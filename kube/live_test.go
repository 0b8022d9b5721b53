package kube

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

// The live suite: the real 'spindle kube schedule' binary against a real
// kube-apiserver and etcd, with kwok running the pods it binds. Run with
//
//	SPINDLE_LIVE=1 go test -p 1 -run '^TestLive' ./kube
//
// (docs/live-testing.md; the binaries come from hack/build-kube.sh).

func buildSpindle(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "spindle")
	cmd := exec.Command("go", "build", "-o", out, "github.com/spindle-sched/spindle/cmd/spindle")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

func livePod(ns, name, cpu string, opts ...podOpt) *v1.Pod {
	p := mkPod(ns, name, cpu, opts...)
	p.UID, p.CreationTimestamp = "", metav1.Time{}
	p.Spec.Containers[0].Image = "registry.invalid/fake:1"
	return p
}

func liveWait(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := localcluster.Poll(ctx, 100*time.Millisecond, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func getPod(c kubernetes.Interface, ns, name string) (*v1.Pod, error) {
	return c.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
}

func condition(p *v1.Pod, typ v1.PodConditionType) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func TestLiveSchedulesSparkAndSurvivesKill9(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 2, NodeCPU: "4", NodeMemory: "8Gi"})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	for _, ns := range []string{"spark", "batch"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create := func(p *v1.Pod) {
		t.Helper()
		if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Another scheduler's pod holds 3 of kwok-node-0's 4 CPUs.
	create(livePod("batch", "other", "3", scheduler("default-scheduler"), boundTo("kwok-node-0", v1.PodPending)))

	args := []string{"kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fifo", "--http-address", "off", "--log-level", "debug"}
	first, err := c.Run("spindle-1", bin, args...)
	if err != nil {
		t.Fatal(err)
	}

	// A Spark application: executors bind only once the driver is bound,
	// and kwok completes them after their replay duration.
	create(livePod("spark", "pi-driver", "1", driver("spark-pi")))
	for i := range 2 {
		create(livePod("spark", fmt.Sprintf("pi-exec-%d", i), "1", executor("spark-pi"), annotations(replayDuration, "2s")))
	}
	liveWait(t, "executors succeeded", func() (bool, error) {
		for i := range 2 {
			p, err := getPod(cs, "spark", fmt.Sprintf("pi-exec-%d", i))
			if err != nil || p.Status.Phase != v1.PodSucceeded {
				return false, err
			}
		}
		return true, nil
	})
	drv, err := getPod(cs, "spark", "pi-driver")
	if err != nil {
		t.Fatal(err)
	}
	if drv.Status.Phase != v1.PodRunning || drv.Status.StartTime == nil {
		t.Fatalf("driver %s, want Running", drv.Status.Phase)
	}
	// Condition times have a resolution of one second: "before" is a whole
	// second earlier.
	dsc := condition(drv, v1.PodScheduled)
	for i := range 2 {
		p, _ := getPod(cs, "spark", fmt.Sprintf("pi-exec-%d", i))
		sc := condition(p, v1.PodScheduled)
		if sc == nil || dsc == nil || sc.LastTransitionTime.Before(&dsc.LastTransitionTime) {
			t.Errorf("%s scheduled at %v, before its driver was at %v", p.Name, sc, dsc)
		}
	}

	// Three pods that run until deleted: with the driver's 1 CPU and the
	// other scheduler's 3, 4 of the 8 CPUs are left, 1 after these.
	for i := range 3 {
		create(livePod("batch", fmt.Sprintf("a-%d", i), "1"))
	}
	// Events are written asynchronously; wait for the three Scheduled ones
	// too, so that the kill below cannot lose one still queued (the count
	// of Scheduled events at the end is how the test sees a double bind).
	liveWait(t, "a-0..2 running and their Scheduled events written", func() (bool, error) {
		for i := range 3 {
			p, err := getPod(cs, "batch", fmt.Sprintf("a-%d", i))
			if err != nil || p.Status.Phase != v1.PodRunning {
				return false, err
			}
		}
		events, err := cs.CoreV1().Events("batch").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := 0
		for _, ev := range events.Items {
			if ev.Reason == "Scheduled" && ev.Source.Component == "spindle" && strings.HasPrefix(ev.InvolvedObject.Name, "a-") {
				n++
			}
		}
		return n == 3, nil
	})

	// kill -9, more pods while no scheduler runs, and a new scheduler.
	first.Kill()
	create(livePod("batch", "b-0", "1"))
	create(livePod("batch", "b-1", "1"))
	second, err := c.Run("spindle-2", bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	var bound, waiting *v1.Pod
	liveWait(t, "one of b-0, b-1 bound and the other marked unschedulable", func() (bool, error) {
		bound, waiting = nil, nil
		for _, name := range []string{"b-0", "b-1"} {
			p, err := getPod(cs, "batch", name)
			if err != nil {
				return false, err
			}
			if p.Spec.NodeName != "" {
				if bound != nil {
					return false, fmt.Errorf("both b-0 and b-1 bound: the restarted scheduler did not count the adopted pods")
				}
				bound = p
			} else if sc := condition(p, v1.PodScheduled); sc != nil && sc.Status == v1.ConditionFalse {
				waiting = p
			}
		}
		return bound != nil && waiting != nil, nil
	})
	t.Logf("%s bound to %s; %s waits: %s", bound.Name, bound.Spec.NodeName, waiting.Name, condition(waiting, v1.PodScheduled).Message)
	time.Sleep(2 * time.Second)
	if p, _ := getPod(cs, "batch", waiting.Name); p.Spec.NodeName != "" {
		t.Fatalf("%s bound to %s: nodes overcommitted", p.Name, p.Spec.NodeName)
	}

	// No node holds more than it offers, and every pod was bound once.
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]int64{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			used[p.Spec.NodeName] += podRequest(&p)[0]
		}
	}
	for node, milli := range used {
		if milli > 4000 {
			t.Errorf("%s holds %dm of CPU, more than its 4000m", node, milli)
		}
	}
	events, err := cs.CoreV1().Events("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scheduled := map[string]int32{}
	for _, ev := range events.Items {
		if ev.Reason == "Scheduled" && ev.Source.Component == "spindle" {
			scheduled[ev.InvolvedObject.Namespace+"/"+ev.InvolvedObject.Name] += max(ev.Count, 1)
		}
	}
	for _, key := range []string{"spark/pi-driver", "spark/pi-exec-0", "spark/pi-exec-1", "batch/a-0", "batch/a-1", "batch/a-2", "batch/" + bound.Name} {
		if scheduled[key] != 1 {
			t.Errorf("%s has %d Scheduled events from spindle, want 1", key, scheduled[key])
		}
	}
	if err := second.Exited(); err != nil {
		t.Errorf("the second scheduler stopped: %v", err)
	}
}

func TestLiveTwoReplicasWithLeaderElection(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 1, NodeCPU: "4", NodeMemory: "8Gi"})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	args := []string{"kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fair", "--http-address", "off",
		"--leader-elect", "--lease-namespace", "default"}
	r1, err := c.Run("spindle-r1", bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	var holder string
	liveWait(t, "a replica holding the lease", func() (bool, error) {
		l, err := cs.CoordinationV1().Leases("default").Get(ctx, "spindle", metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return false, nil
		}
		holder = *l.Spec.HolderIdentity
		return holder != "", nil
	})
	r2, err := c.Run("spindle-r2", bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	create := func(name string) {
		t.Helper()
		if _, err := cs.CoreV1().Pods("default").Create(ctx, livePod("default", name, "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	bound := func(names ...string) func() (bool, error) {
		return func() (bool, error) {
			for _, n := range names {
				p, err := getPod(cs, "default", n)
				if err != nil || p.Spec.NodeName == "" {
					return false, err
				}
			}
			return true, nil
		}
	}
	create("p0")
	create("p1")
	liveWait(t, "p0, p1 bound by the leader", bound("p0", "p1"))
	// The leader dies without releasing the lease: the standby takes over
	// once it expires, adopts p0 and p1, and schedules what came since.
	r1.Kill()
	create("p2")
	create("p3")
	create("p4") // 5 CPUs asked of 4: one of p2..p4 must wait
	unbound := func() []string {
		var out []string
		for _, n := range []string{"p2", "p3", "p4"} {
			if p, err := getPod(cs, "default", n); err == nil && p.Spec.NodeName == "" {
				out = append(out, n)
			}
		}
		return out
	}
	liveWait(t, "two of p2..p4 bound by the new leader", func() (bool, error) { return len(unbound()) == 1, nil })
	l, err := cs.CoordinationV1().Leases("default").Get(ctx, "spindle", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == holder {
		t.Fatalf("lease %+v: the standby did not take it over from %s", l.Spec, holder)
	}
	time.Sleep(2 * time.Second)
	if w := unbound(); len(w) != 1 {
		t.Fatalf("unbound after the takeover: %v, want exactly one: the new leader overcommitted the node", w)
	}
	t.Logf("lease passed from %s to %s; %s waits", holder, *l.Spec.HolderIdentity, unbound()[0])
	if err := r2.Exited(); err != nil {
		t.Fatal(err)
	}
}
