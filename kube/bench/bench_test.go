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

// A /proc/PID/stat line's utime and stime (fields 14 and 15, ticks of
// 10 ms), counted from the last ')' since a command name may hold spaces
// and parentheses.
func TestParseStatCPU(t *testing.T) {
	for _, c := range []struct {
		stat string
		want time.Duration
		ok   bool
	}{
		{"4242 (spindle) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 31 0 0 20 0 12 0 100 0 0", 2810 * time.Millisecond, true},
		{"7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0", 70 * time.Millisecond, true},
		{"9 (x) S 1 9 9 0 -1 0 0 0 0 0 5", 0, false},               // cut short
		{"9 (x) S 1 9 9 0 -1 0 0 0 0 0 five 4 0", 0, false},        // not a number
		{"no parenthesis 1 2 3 4 5 6 7 8 9 10 11 12 13", 0, false}, // no command name
	} {
		got, ok := parseStatCPU(c.stat)
		if got != c.want || ok != c.ok {
			t.Errorf("parseStatCPU(%q) = %v, %v; want %v, %v", c.stat, got, ok, c.want, c.ok)
		}
	}
	if _, ok := processCPU(0); ok {
		t.Error("processCPU(0) is known; want not (the in-process binder)")
	}
}

func TestTimeoutSaysHowFarItGot(t *testing.T) {
	cs := fake.NewClientset()
	_, err := Run(context.Background(), Options{Client: cs, SchedulerName: "nobody", Nodes: 1, Jobs: 1, Pods: 2, Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), `0 of 2 pods bound by scheduler "nobody"`) {
		t.Errorf("err = %v", err)
	}
}

// The matrix report's derived figures, hand-computed: keeps pace is
// pods/s × create s ÷ pods; the summary divides medians by the binder's
// pods/s and by kube-scheduler's p99.
func TestMatrixReport(t *testing.T) {
	res := func(rate float64, p99, create time.Duration) *Result {
		return &Result{Pods: 1000, Bound: 1000, PodsPerSec: rate, P50: p99 / 2, P99: p99, Create: create}
	}
	cells := []cell{
		{"kube-scheduler", "1x1000", 1, res(50, 4*time.Second, 20*time.Second), "1.00", 3 * time.Second},
		{"kube-scheduler", "1x1000", 2, res(40, 6*time.Second, 25*time.Second), "1.00", 4 * time.Second},
		{"spindle", "1x1000", 1, res(25, 10*time.Second, 20*time.Second), "1.00", 1250 * time.Millisecond}, // half the pace
		{"spindle", "1x1000", 2, res(100, 2*time.Second, 10*time.Second), "1.00", time.Second},
		{"round-robin", "1x1000", 1, res(80, 3*time.Second, 12*time.Second), "1.00", -1}, // CPU not known
	}
	out := matrixReport(cells, []string{"kube-scheduler", "spindle", "round-robin"}, time.Now())
	for _, want := range []string{
		"| 1 | 1x1000 | spindle | 1.00 | 25.0 | 5.00 | 10.00 | 20.0 | 0.50 | 1.25 |",
		"| 2 | 1x1000 | spindle | 1.00 | 100.0 | 1.00 | 2.00 | 10.0 | 1.00 | 1.00 |",
		"| 1 | 1x1000 | round-robin | 1.00 | 80.0 | 1.50 | 3.00 | 12.0 | 0.96 | – |",
		// kube-scheduler: median pods/s 45 ÷ 80; median p99 5 s ÷ itself.
		"| 1x1000 | kube-scheduler | 2 | 40.0 / 45.0 / 50.0 | 4.00 / 5.00 / 6.00 | 0.56 | 1.00 |",
		// spindle: median 62.5 ÷ 80 = 0.78; median p99 6 s ÷ 5 s = 1.20.
		"| 1x1000 | spindle | 2 | 25.0 / 62.5 / 100.0 | 2.00 / 6.00 / 10.00 | 0.78 | 1.20 |",
		"| 1x1000 | round-robin | 1 | 80.0 / 80.0 / 80.0 | 3.00 / 3.00 / 3.00 | 1.00 | 0.60 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
