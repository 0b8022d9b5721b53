package kubetest

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

func fakePod(ns, name, node, duration string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			NodeName:   node,
			Containers: []corev1.Container{{Name: "task", Image: "fake"}},
		},
	}
	if duration != "" {
		p.Annotations = map[string]string{ReplayDurationAnnotation: duration}
	}
	return p
}

func createNamespace(t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// phaseTimes polls the pods every 50 ms until each reached phase Succeeded
// or the deadline, and returns when each was first seen Running and
// Succeeded. (Status timestamps have only second resolution, too coarse to
// check a 3 s delay.)
func phaseTimes(t *testing.T, client kubernetes.Interface, ns string, names []string, deadline time.Duration) (running, succeeded map[string]time.Time) {
	t.Helper()
	running, succeeded = map[string]time.Time{}, map[string]time.Time{}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	_ = localcluster.Poll(ctx, 50*time.Millisecond, func() (bool, error) {
		now := time.Now()
		for _, name := range names {
			p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			if _, seen := running[name]; !seen && (p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodSucceeded) {
				running[name] = now
			}
			if _, seen := succeeded[name]; !seen && p.Status.Phase == corev1.PodSucceeded {
				succeeded[name] = now
			}
		}
		return len(succeeded) == len(names), nil
	})
	return running, succeeded
}

// A pod bound to a kwok node runs at once and succeeds after the duration
// its annotation gives; a pod without the annotation keeps running.
func TestLiveStageCompletesPodAfterReplayDuration(t *testing.T) {
	c := Start(t, Options{Nodes: 1, NodeCPU: "4", NodeMemory: "8Gi"})
	ctx := context.Background()
	createNamespace(t, c.Client, "replay")

	durations := map[string]time.Duration{"short": 2 * time.Second, "long": 5 * time.Second}
	for name, d := range durations {
		if _, err := c.Client.CoreV1().Pods("replay").Create(ctx, fakePod("replay", name, "kwok-node-0", d.String()), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Client.CoreV1().Pods("replay").Create(ctx, fakePod("replay", "service", "kwok-node-0", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	running, succeeded := phaseTimes(t, c.Client, "replay", []string{"short", "long"}, 60*time.Second)
	for name, d := range durations {
		r, okR := running[name]
		s, okS := succeeded[name]
		if !okR || !okS {
			t.Fatalf("pod %s: seen running %v, succeeded %v within 60 s", name, okR, okS)
		}
		// Polling may see Running up to one poll late, and Succeeded up to
		// one poll late plus the apiserver's round trip.
		got := s.Sub(r)
		t.Logf("pod %s annotated %v: Running to Succeeded in %v", name, d, got.Round(10*time.Millisecond))
		if got < d-200*time.Millisecond || got > d+1500*time.Millisecond {
			t.Errorf("pod %s ran %v, want %v (annotation %s)", name, got.Round(10*time.Millisecond), d, d)
		}
	}

	svc, err := c.Client.CoreV1().Pods("replay").Get(ctx, "service", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Status.Phase != corev1.PodRunning {
		t.Errorf("pod without %s: phase %s after the others finished, want Running", ReplayDurationAnnotation, svc.Status.Phase)
	}
	done, err := c.Client.CoreV1().Pods("replay").Get(ctx, "short", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cs := done.Status.ContainerStatuses; len(cs) != 1 || cs[0].State.Terminated == nil || cs[0].State.Terminated.ExitCode != 0 {
		t.Errorf("succeeded pod's container statuses = %+v, want one terminated with exit code 0", cs)
	}

	// Deleting a running pod removes it (kwok's pod-delete stage).
	if err := c.Client.CoreV1().Pods("replay").Delete(ctx, "service", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := localcluster.Poll(wctx, 100*time.Millisecond, func() (bool, error) {
		_, err := c.Client.CoreV1().Pods("replay").Get(wctx, "service", metav1.GetOptions{})
		return err != nil, nil
	}); err != nil {
		t.Errorf("deleted pod still present: %v", err)
	}
}

// The whole stack: kube-controller-manager clears the new nodes' not-ready
// taint, kube-scheduler binds a pod, kwok runs and completes it. Then Stop
// leaves no process and no listening port behind.
func TestLiveFullClusterAndCleanStop(t *testing.T) {
	c := Start(t, Options{Nodes: 2, ControllerManager: true, Scheduler: true})
	ctx := context.Background()
	createNamespace(t, c.Client, "work")

	pod := fakePod("work", "task", "", "1s")
	if _, err := c.Client.CoreV1().Pods("work").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, succeeded := phaseTimes(t, c.Client, "work", []string{"task"}, 60*time.Second)
	if _, ok := succeeded["task"]; !ok {
		p, _ := c.Client.CoreV1().Pods("work").Get(ctx, "task", metav1.GetOptions{})
		t.Fatalf("pod did not succeed within 60 s: node %q, status %+v", p.Spec.NodeName, p.Status)
	}
	p, err := c.Client.CoreV1().Pods("work").Get(ctx, "task", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "kwok-node-0" && p.Spec.NodeName != "kwok-node-1" {
		t.Errorf("pod bound to %q, want a kwok node", p.Spec.NodeName)
	}

	var pids []int
	for _, pr := range c.Procs {
		pids = append(pids, pr.PID)
	}
	if len(pids) != 5 {
		t.Errorf("started %d processes, want 5 (etcd, apiserver, controller-manager, scheduler, kwok)", len(pids))
	}
	host := c.Config.Host[len("https://"):]
	c.Stop()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
			t.Errorf("process %d still exists after Stop (kill -0: %v)", pid, err)
		}
		if err := syscall.Kill(-pid, 0); err != syscall.ESRCH {
			t.Errorf("process group %d still exists after Stop (kill -0: %v)", pid, err)
		}
	}
	if conn, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		conn.Close()
		t.Errorf("apiserver port %s still accepts connections after Stop", host)
	}
}

// ExtraArgs reach the component; a process the test adds with Run is
// logged, can be killed -9, and is stopped with the cluster.
func TestLiveExtraArgsRunKillAndStop(t *testing.T) {
	c := Start(t, Options{ExtraArgs: map[string][]string{"kube-apiserver": {"--max-requests-inflight=123"}}})
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.Procs[1].PID))
	if err != nil {
		t.Fatal(err)
	}
	if c.Procs[1].Name != "kube-apiserver" || !strings.Contains(string(cmdline), "--max-requests-inflight=123") {
		t.Errorf("%s runs %q, want --max-requests-inflight=123 among its flags", c.Procs[1].Name, strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	sleeper, err := c.Run("sleeper", "/bin/sh", "-c", "echo started; exec sleep 300")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run("sleeper", "/bin/true"); err == nil {
		t.Error("Run accepted a second process named sleeper")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := localcluster.Poll(ctx, 50*time.Millisecond, func() (bool, error) {
		return localcluster.Tail(sleeper.Log, 1) == "started", nil
	}); err != nil {
		t.Fatalf("sleeper's log never said started: %v", err)
	}
	if err := sleeper.Exited(); err != nil {
		t.Fatalf("sleeper exited at once: %v", err)
	}
	sleeper.Kill()
	if err := sleeper.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("killed process ended with %v, want a SIGKILL", err)
	}
	if alive(sleeper.PID) {
		t.Errorf("pid %d runs after Kill", sleeper.PID)
	}
	again, err := c.Run("sleeper2", "/bin/sh", "-c", "exec sleep 300")
	if err != nil {
		t.Fatal(err)
	}
	c.Stop()
	if alive(again.PID) {
		t.Errorf("pid %d runs after Stop", again.PID)
	}
}
