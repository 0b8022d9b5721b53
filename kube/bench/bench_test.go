package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func TestQuantile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		xs   []time.Duration
		q    float64
		want time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.99, 4 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.9, 9 * time.Millisecond},
	} {
		if got := Quantile(c.xs, c.q); got != c.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.xs, c.q, got, c.want)
		}
	}
}

// A fake binder on a fake clientset: binds every pod of the benchmark's
// scheduler 5 ms after it sees it, so the benchmark's counting and its
// latency floor can be checked.
func TestRunCountsBindingsAndCleansUp(t *testing.T) {
	cs := fake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := informers.NewSharedInformerFactory(cs, 0)
	inf := f.Core().V1().Pods().Informer()
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(o any) {
		p := o.(*corev1.Pod).DeepCopy()
		if p.Spec.SchedulerName != "fake-sched" {
			return
		}
		time.AfterFunc(5*time.Millisecond, func() {
			p.Spec.NodeName = "somewhere"
			cs.CoreV1().Pods(p.Namespace).Update(ctx, p, metav1.UpdateOptions{})
		})
	}})
	f.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)

	res, err := Run(ctx, Options{Client: cs, SchedulerName: "fake-sched", Nodes: 3, Jobs: 4, Pods: 40, RunID: "bt", Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bound != 40 || res.Pods != 40 || res.Jobs != 4 || res.PodsPerSec <= 0 {
		t.Errorf("result %+v", res)
	}
	if res.P50 < 5*time.Millisecond || res.P99 < res.P50 || res.MaxDelay < res.P99 {
		t.Errorf("latencies p50 %v p99 %v max %v: the binder waits 5 ms", res.P50, res.P99, res.MaxDelay)
	}
	if !strings.Contains(res.String(), "fake-sched: 3 nodes, 4 jobs x 10 pods: 40 bound") {
		t.Errorf("String() = %s", res)
	}
	pods, _ := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	nodes, _ := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if len(pods.Items) != 0 || len(nodes.Items) != 0 {
		t.Errorf("left %d pods and %d nodes", len(pods.Items), len(nodes.Items))
	}
}

func TestRunRejectsBadShapes(t *testing.T) {
	cs := fake.NewClientset()
	for _, o := range []Options{
		{Client: cs, Nodes: 0, Jobs: 1, Pods: 1},
		{Client: cs, Nodes: 1, Jobs: 3, Pods: 10},
		{Client: cs, Nodes: 1, Jobs: 5, Pods: 2},
		{Nodes: 1, Jobs: 1, Pods: 1},
	} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestTimeoutSaysHowFarItGot(t *testing.T) {
	cs := fake.NewClientset()
	_, err := Run(context.Background(), Options{Client: cs, SchedulerName: "nobody", Nodes: 1, Jobs: 1, Pods: 2, Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), `0 of 2 pods bound by scheduler "nobody"`) {
		t.Errorf("err = %v", err)
	}
}
