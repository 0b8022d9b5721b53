package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

// The live proof of preemption: a queue batch fills the cluster with long
// executors; then prod.spark, in a queue tree where prod is guaranteed 60 %,
// submits a Spark job. prod must hold its 60 % within the delay plus 10 s,
// by evicting batch executors only (never a driver), and the batch job must
// still complete, its evicted executors re-created as Spark's driver does.
// The metrics count the preemptions per queue and the status API shows the
// tree.
func TestLivePreemptionGivesAQueueItsGuarantee(t *testing.T) {
	const (
		delay     = 3 * time.Second
		batchExec = 9 // with their driver, the whole cluster
		prodExec  = 5 // with their driver, prod's 60 % of 10 CPUs
		batchRun  = "30s"
		prodRun   = "20s"
	)
	c := kubetest.Start(t, kubetest.Options{Nodes: 2, NodeCPU: "5", NodeMemory: "20Gi", ControllerManager: true})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	for _, ns := range []string{"prod", "batch"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(`queues:
  - {name: prod, capacity: 0.6}
  - {name: prod.spark, capacity: 1}
  - {name: batch, capacity: 0.4}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	pol := fmt.Sprintf("capacity:preemption=on,preempt_interval=1s,preempt_delay=%v,preempt_per_round=1,preempt_natural=1,preempt_deadzone=0", delay)
	if _, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", pol, "--config", cfg,
		"--http-address", addr, "--log-level", "debug"); err != nil {
		t.Fatal(err)
	}
	create := func(p *v1.Pod) {
		t.Helper()
		if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pods := func(ns string) []v1.Pod {
		t.Helper()
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return l.Items
	}
	bound := func(ns string) (n int) {
		for _, p := range pods(ns) {
			if p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
				n++
			}
		}
		return n
	}
	batch := func(name string, opts ...podOpt) *v1.Pod {
		return livePod("batch", name, "1", append(opts, withLabels(LabelQueue, "batch"))...)
	}

	// batch fills the cluster: its driver, then its executors.
	create(batch("b-driver", driver("batch-app")))
	for i := range batchExec {
		create(batch(fmt.Sprintf("b-exec-%d", i), executor("batch-app"), annotations(replayDuration, batchRun)))
	}
	liveWait(t, "batch holding every CPU", func() (bool, error) { return bound("batch") == 1+batchExec, nil })

	// prod submits a Spark job: its driver, and once the driver runs, its
	// executors, as spark-submit and the driver do.
	start := time.Now()
	prod := func(name string, opts ...podOpt) *v1.Pod {
		return livePod("prod", name, "1", append(opts, withLabels(LabelQueue, "prod.spark"))...)
	}
	create(prod("p-driver", driver("prod-app")))
	liveWait(t, "prod's driver running", func() (bool, error) {
		p, err := getPod(cs, "prod", "p-driver")
		return err == nil && p.Status.Phase == v1.PodRunning, err
	})
	for i := range prodExec {
		create(prod(fmt.Sprintf("p-exec-%d", i), executor("prod-app"), annotations(replayDuration, prodRun)))
	}
	liveWait(t, "prod holding its 60 %", func() (bool, error) { return bound("prod") == 1+prodExec, nil })
	took := time.Since(start)
	t.Logf("prod held its 60 %% %v after its driver was created", took.Round(100*time.Millisecond))
	if took > delay+10*time.Second {
		t.Errorf("prod took %v to hold its guarantee, more than the delay (%v) plus 10 s", took, delay)
	}

	// Only batch executors were evicted, each with an Event naming the
	// queue it was taken for; the batch driver runs on.
	events, err := cs.CoreV1().Events("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evicted := map[string]bool{}
	for _, ev := range events.Items {
		if ev.Reason != "Preempted" || ev.Source.Component != "spindle" {
			continue
		}
		o := ev.InvolvedObject
		if o.Namespace != "batch" || !strings.HasPrefix(o.Name, "b-exec-") || !strings.Contains(ev.Message, "queue prod.spark") {
			t.Errorf("preempted %s/%s: %s", o.Namespace, o.Name, ev.Message)
		}
		evicted[o.Name] = true
	}
	if len(evicted) != prodExec+1 {
		t.Errorf("%d batch executors evicted (%v), want %d", len(evicted), evicted, prodExec+1)
	}
	if p, err := getPod(cs, "batch", "b-driver"); err != nil || p.DeletionTimestamp != nil {
		t.Fatalf("the batch driver was taken: %v", err)
	}

	// The metrics count them per queue (a parent counts its leaves').
	metricsOK := func() (bool, error) {
		body, err := httpGet("http://" + addr + "/metrics")
		if err != nil {
			return false, err
		}
		n := prodExec + 1
		for _, want := range []string{
			fmt.Sprintf(`spindle_queue_preemptions_total{direction="from",queue="batch"} %d`, n),
			fmt.Sprintf(`spindle_queue_preemptions_total{direction="for",queue="prod.spark"} %d`, n),
			fmt.Sprintf(`spindle_queue_preemptions_total{direction="for",queue="prod"} %d`, n),
		} {
			if !strings.Contains(body, want) {
				return false, nil
			}
		}
		return true, nil
	}
	liveWait(t, "the preemption metrics", metricsOK)
	// The status API shows the tree, parents first.
	body, err := httpGet("http://" + addr + "/api/v1/queues")
	if err != nil {
		t.Fatal(err)
	}
	var queues struct {
		Items []struct {
			Name   string  `json:"name"`
			Parent string  `json:"parent"`
			Depth  int     `json:"depth"`
			Leaf   bool    `json:"leaf"`
			Abs    float64 `json:"abs_capacity"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &queues); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var tree []string
	for _, q := range queues.Items {
		tree = append(tree, fmt.Sprintf("%s(%s,%d,%v,%.1f)", q.Name, q.Parent, q.Depth, q.Leaf, q.Abs))
	}
	if got, want := strings.Join(tree, " "), "prod(,1,false,0.6) prod.spark(prod,2,true,0.6) batch(,1,true,0.4)"; got != want {
		t.Errorf("queues %s, want %s", got, want)
	}

	// The batch job completes: the test, as batch's Spark driver, asks
	// again for each executor evicted, and every executor's work ends.
	for name := range evicted {
		create(batch(name+"-again", executor("batch-app"), annotations(replayDuration, batchRun)))
	}
	ctx2, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	done := regexp.MustCompile(`^b-exec-\d+(-again)?$`)
	if err := localcluster.Poll(ctx2, 500*time.Millisecond, func() (bool, error) {
		n := 0
		for _, p := range pods("batch") {
			if done.MatchString(p.Name) && p.Status.Phase == v1.PodSucceeded {
				n++
			}
		}
		return n == batchExec, nil
	}); err != nil {
		t.Fatalf("the batch job's executors did not all complete: %v", err)
	}
	if p, err := getPod(cs, "batch", "b-driver"); err != nil || p.DeletionTimestamp != nil || p.Status.Phase != v1.PodRunning {
		t.Fatalf("the batch driver did not run to the end: %v", err)
	}
	t.Logf("batch completed its %d executors, %d of them again after eviction", batchExec, len(evicted))
}

func httpGet(url string) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	res, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", url, strconv.Quote(string(b)))
	}
	return string(b), err
}
