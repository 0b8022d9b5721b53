package kube

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
)

// Observe mode live (preemption=observe, YARN's observe_only): batch fills
// the cluster, prod (guaranteed 60 %) submits a Spark driver that has no
// room. The monitor picks a batch executor for it and, once the delay has
// passed, writes a PreemptionObserved Event on that pod and counts it in
// spindle_queue_preemptions_observed_total, once, however many rounds pick
// it again. Nothing is evicted: every batch pod runs on, and prod's driver
// stays pending.
func TestLivePreemptionObserveEvictsNothing(t *testing.T) {
	const (
		delay     = 2 * time.Second
		batchExec = 9 // with their driver, the whole cluster
	)
	c := kubetest.Start(t, kubetest.Options{Nodes: 2, NodeCPU: "5", NodeMemory: "20Gi"})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	for _, ns := range []string{"prod", "batch"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("queues:\n  - {name: prod, capacity: 0.6}\n  - {name: batch, capacity: 0.4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	pol := fmt.Sprintf("capacity:preemption=observe,preempt_interval=1s,preempt_delay=%v,preempt_per_round=1,preempt_natural=1,preempt_deadzone=0", delay)
	if _, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", pol, "--config", cfg,
		"--http-address", addr); err != nil {
		t.Fatal(err)
	}
	create := func(p *v1.Pod) {
		t.Helper()
		if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	running := func(ns string) (n int) {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Items {
			if p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Status.Phase == v1.PodRunning {
				n++
			}
		}
		return n
	}
	create(livePod("batch", "b-driver", "1", driver("batch-app"), withLabels(LabelQueue, "batch")))
	for i := range batchExec {
		create(livePod("batch", fmt.Sprintf("b-exec-%d", i), "1", executor("batch-app"), withLabels(LabelQueue, "batch"),
			annotations(replayDuration, "10m")))
	}
	liveWait(t, "batch running on every CPU", func() (bool, error) { return running("batch") == 1+batchExec, nil })
	create(livePod("prod", "p-driver", "1", driver("prod-app"), withLabels(LabelQueue, "prod")))

	observed := func() (map[string]string, error) {
		events, err := cs.CoreV1().Events("batch").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		got := map[string]string{}
		for _, ev := range events.Items {
			if ev.Source.Component == "spindle" && (ev.Reason == "PreemptionObserved" || ev.Reason == "Preempted") {
				got[ev.InvolvedObject.Name] = ev.Reason + ": " + ev.Message
			}
		}
		return got, nil
	}
	liveWait(t, "a PreemptionObserved Event", func() (bool, error) {
		got, err := observed()
		return len(got) > 0, err
	})
	metric := func(body, dir, queue string) string {
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, fmt.Sprintf(`spindle_queue_preemptions_observed_total{direction=%q,queue=%q} `, dir, queue)) {
				return line[strings.LastIndexByte(line, ' ')+1:]
			}
		}
		return ""
	}
	liveWait(t, "the observed-preemption metric", func() (bool, error) {
		body, err := httpGet("http://" + addr + "/metrics")
		return err == nil && metric(body, "from", "batch") == "1" && metric(body, "for", "prod") == "1", nil
	})
	// Several rounds and delays later: still one, and nothing taken.
	time.Sleep(3*delay + 2*time.Second)
	got, err := observed()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Errorf("events on %d pods, want 1 (the driver needs one CPU): %v", len(got), got)
	}
	for name, msg := range got {
		if !strings.HasPrefix(name, "b-exec-") || !strings.HasPrefix(msg, "PreemptionObserved: ") || !strings.Contains(msg, "queue prod") {
			t.Errorf("%s: %s", name, msg)
		}
	}
	body, err := httpGet("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if f, p := metric(body, "from", "batch"), metric(body, "for", "prod"); f != "1" || p != "1" {
		t.Errorf("observed from batch %q, for prod %q after more rounds, want 1 each", f, p)
	}
	if !strings.Contains(body, `spindle_queue_preemptions_total{direction="from",queue="batch"} 0`) {
		t.Errorf("the preemption metric counts evictions in observe mode:\n%s", body)
	}
	if n := running("batch"); n != 1+batchExec {
		t.Errorf("%d batch pods running, want all %d: observe mode evicted", n, 1+batchExec)
	}
	if p, err := getPod(cs, "prod", "p-driver"); err != nil || p.Spec.NodeName != "" {
		t.Errorf("prod's driver placed (node %q, %v) though nothing was taken for it", p.Spec.NodeName, err)
	}
}
