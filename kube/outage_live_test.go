package kube

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

// TestLiveRecoversFromAPIServerOutage: kube-apiserver is killed with
// kill -9 while 80 pods of each scheduler are in flight, and restarted 20 s
// later on the same port and etcd. spindle and kube-scheduler run side by
// side; once the apiserver answers, 20 more pods per scheduler are created.
// spindle must bind all of its pods within a few seconds of the apiserver
// answering, no slower than kube-scheduler, and log the outage and the
// recovery.
func TestLiveRecoversFromAPIServerOutage(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 4, NodeCPU: "32", NodeMemory: "64Gi", Scheduler: true})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	for _, ns := range []string{"spindle", "kube"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sp, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fifo", "-a", "none", "--http-address", "off")
	if err != nil {
		t.Fatal(err)
	}
	// A client that gives up fast, for creating pods in a burst.
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 500, 500
	fast, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	create := func(ns, prefix string, n int, sched string) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := livePod(ns, fmt.Sprintf("%s-%d", prefix, i), "100m", scheduler(sched))
				_, err := fast.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	unbound := func(ns string) (int, error) {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return -1, err
		}
		n := 0
		for _, p := range l.Items {
			if p.Spec.NodeName == "" {
				n++
			}
		}
		return n, nil
	}
	// Both schedulers are up and binding.
	create("spindle", "warm", 1, "spindle")
	create("kube", "warm", 1, "default-scheduler")
	liveWait(t, "warm-up pods bound", func() (bool, error) {
		a, err := unbound("spindle")
		if err != nil {
			return false, err
		}
		b, err := unbound("kube")
		return a == 0 && b == 0, err
	})

	// 80 pods each, and the apiserver dies under them.
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); create("spindle", "before", 80, "spindle") }()
	go func() { defer wg.Done(); create("kube", "before", 80, "default-scheduler") }()
	wg.Wait()
	api := c.Process("kube-apiserver")
	api.Kill()
	killed := time.Now()
	time.Sleep(20 * time.Second)
	if _, err := c.Restart(ctx, api); err != nil {
		t.Fatal(err)
	}
	ready := time.Now()
	t.Logf("apiserver down for %v", ready.Sub(killed).Round(time.Millisecond))
	create("spindle", "after", 20, "spindle")
	create("kube", "after", 20, "default-scheduler")

	// Time until every pod of each scheduler is bound, from the moment the
	// apiserver answered.
	took := map[string]time.Duration{}
	deadline := time.Now().Add(90 * time.Second)
	for len(took) < 2 && time.Now().Before(deadline) {
		for _, ns := range []string{"spindle", "kube"} {
			if _, done := took[ns]; done {
				continue
			}
			if n, err := unbound(ns); err == nil && n == 0 {
				took[ns] = time.Since(ready)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("all pods bound after the apiserver answered: spindle %v, kube-scheduler %v", took["spindle"], took["kube"])
	sT, sOK := took["spindle"]
	kT, kOK := took["kube"]
	if !sOK {
		n, _ := unbound("spindle")
		t.Fatalf("spindle left %d pods unbound 90 s after the apiserver answered (kube-scheduler: %v, done %v)", n, kT, kOK)
	}
	if sT > 5*time.Second {
		t.Errorf("spindle took %v to bind every pod after the apiserver answered, want at most 5 s", sT)
	}
	if kOK && sT > kT+time.Second {
		t.Errorf("spindle took %v, kube-scheduler %v: spindle must be no slower", sT, kT)
	}
	log, err := os.ReadFile(sp.Log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiserver unreachable", "apiserver reachable again"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("spindle's log does not say %q:\n%s", want, localcluster.Tail(sp.Log, 30))
		}
	}
	if err := sp.Exited(); err != nil {
		t.Fatal(err)
	}
}
