// Package bench measures a Kubernetes scheduler on kwok nodes: it creates N
// nodes and P pods in J jobs for the scheduler a name picks, and reports
// pods bound per second and the latency from each pod's creation to its
// binding, as seen on one watch. Any scheduler serves (kube-scheduler,
// spindle), so two are measured on the same cluster the same way.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/spindle-sched/spindle/kube/kwok"
	"github.com/spindle-sched/spindle/resource"
)

// RunLabel marks the benchmark's nodes and pods with its run id.
const RunLabel = "spindle.io/bench"

// Options describe one measurement.
type Options struct {
	Client        kubernetes.Interface
	Namespace     string // default "default"
	SchedulerName string // default "default-scheduler"
	Nodes         int
	NodeCapacity  resource.Vector // default 32 vcores, 256 GiB
	NodePods      int             // pods per node; default 110
	// Jobs and Pods: Pods pods split evenly into Jobs jobs; each job is one
	// driver (spark-role=driver) and its executors (spark-role=executor),
	// all created at once.
	Jobs, Pods int
	PodRequest resource.Vector // default 0.1 vcore, 128 MiB
	Workers    int             // concurrent create calls; default 32
	Timeout    time.Duration   // for every pod to be bound; default 10 min
	RunID      string
	// NodesID, when set, names nodes CreateNodes made earlier (labelled
	// RunLabel=NodesID): the pods are bound there, and Run neither creates
	// nor deletes nodes. Several runs then share one set of nodes.
	NodesID string
	// KeepPods leaves the run's pods in place (bound, and Running under
	// kwok) instead of deleting them: on a loaded apiserver deleting 5000
	// pods takes minutes, and a cluster thrown away after the runs need
	// not pay for it.
	KeepPods bool
}

// Result is one measurement. Times are when the benchmark's watch saw each
// pod appear and each pod bound.
type Result struct {
	Nodes, Jobs, Pods, Bound int
	Scheduler                string
	// Elapsed runs from the first pod seen to the last seen bound.
	Elapsed    time.Duration
	PodsPerSec float64
	// Create is how long creating the pods took (the client's own pace).
	Create             time.Duration
	P50, P99, MaxDelay time.Duration
}

func (r *Result) String() string {
	return fmt.Sprintf("%s: %d nodes, %d jobs x %d pods: %d bound in %.2fs = %.1f pods/s; creation->binding p50 %s p99 %s max %s (creating took %.2fs)",
		r.Scheduler, r.Nodes, r.Jobs, r.Pods/max(r.Jobs, 1), r.Bound, r.Elapsed.Seconds(), r.PodsPerSec,
		r.P50.Round(time.Millisecond), r.P99.Round(time.Millisecond), r.MaxDelay.Round(time.Millisecond), r.Create.Seconds())
}

// Run creates the nodes, waits for them, creates the pods and waits until
// each is bound, then deletes everything it created.
func Run(ctx context.Context, opt Options) (res *Result, err error) {
	if opt.Client == nil {
		return nil, errors.New("bench: no Kubernetes client")
	}
	if opt.Nodes <= 0 && opt.NodesID == "" || opt.Jobs <= 0 || opt.Pods < opt.Jobs {
		return nil, fmt.Errorf("bench: need nodes > 0, jobs > 0 and pods >= jobs; got %d nodes, %d jobs, %d pods", opt.Nodes, opt.Jobs, opt.Pods)
	}
	if opt.Pods%opt.Jobs != 0 {
		return nil, fmt.Errorf("bench: %d pods do not split evenly into %d jobs", opt.Pods, opt.Jobs)
	}
	if opt.Namespace == "" {
		opt.Namespace = "default"
	}
	if opt.SchedulerName == "" {
		opt.SchedulerName = "default-scheduler"
	}
	if opt.NodeCapacity.IsZero() {
		opt.NodeCapacity = resource.New(32, 256*1024)
	}
	if opt.NodePods <= 0 {
		opt.NodePods = 110
	}
	if opt.PodRequest.IsZero() {
		opt.PodRequest = resource.Vector{100, 128}
	}
	if opt.Workers <= 0 {
		opt.Workers = 32
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	if opt.RunID == "" {
		opt.RunID = fmt.Sprintf("b%05x", time.Now().UnixNano()/1e6&0xfffff)
	}
	defer func() {
		if opt.KeepPods && err == nil {
			return
		}
		if cerr := cleanup(opt); cerr != nil && err == nil {
			err = cerr
		}
	}()

	if opt.NodesID == "" {
		opt.NodesID = opt.RunID
		if err := CreateNodes(ctx, opt.Client, opt.RunID, opt.Nodes, opt.NodeCapacity, opt.NodePods, opt.Workers); err != nil {
			return nil, err
		}
	}

	w := newWatcher(opt.Pods)
	sel := labels.SelectorFromSet(labels.Set{RunLabel: opt.RunID}).String()
	factory := informers.NewSharedInformerFactoryWithOptions(opt.Client, 0, informers.WithNamespace(opt.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel }))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.see(o.(*corev1.Pod)) },
		UpdateFunc: func(_, o any) { w.see(o.(*corev1.Pod)) },
	}); err != nil {
		return nil, fmt.Errorf("watch pods: %w", err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("watch pods: %w", context.Cause(ctx))
	}

	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	perJob := opt.Pods / opt.Jobs
	pods := make([]*corev1.Pod, 0, opt.Pods)
	for j := range opt.Jobs {
		for t := range perJob {
			pods = append(pods, pod(opt, j, t))
		}
	}
	createStart := time.Now()
	api := opt.Client.CoreV1().Pods(opt.Namespace)
	if err := kwok.Parallel(ctx, len(pods), opt.Workers, func(i int) error {
		_, err := api.Create(ctx, pods[i], metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create pod %s: %w", pods[i].Name, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	created := time.Since(createStart)
	select {
	case <-w.all:
	case <-ctx.Done():
		w.mu.Lock()
		n := len(w.bound)
		w.mu.Unlock()
		return nil, fmt.Errorf("bench: %d of %d pods bound by scheduler %q before %s: %w", n, opt.Pods, opt.SchedulerName, opt.Timeout, context.Cause(ctx))
	}
	res = w.result()
	res.Nodes, res.Jobs, res.Scheduler, res.Create = opt.Nodes, opt.Jobs, opt.SchedulerName, created
	return res, nil
}

// CreateNodes creates n kwok nodes labelled RunLabel=id and waits until
// they are Ready.
func CreateNodes(ctx context.Context, client kubernetes.Interface, id string, n int, capacity resource.Vector, pods, workers int) error {
	nodes := make([]*corev1.Node, n)
	for i := range nodes {
		nodes[i] = kwok.Node(fmt.Sprintf("%s-n%05d", id, i), map[string]string{RunLabel: id}, capacity, pods)
	}
	return kwok.CreateReady(ctx, client, nodes, max(workers, 1), 5*time.Minute)
}

func pod(opt Options, j, t int) *corev1.Pod {
	// Spark's labels, as spark-submit puts them: the pods of one job are
	// seen in whatever order the concurrent creates land, and a scheduler
	// must still know the driver for the job's AM.
	role := "executor"
	if t == 0 {
		role = "driver"
	}
	zero := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-j%03d-%05d", opt.RunID, j, t),
			Namespace: opt.Namespace,
			Labels: map[string]string{
				RunLabel: opt.RunID, "spark-app-selector": fmt.Sprintf("%s-j%03d", opt.RunID, j), "spark-role": role,
			},
		},
		Spec: corev1.PodSpec{
			SchedulerName:                 opt.SchedulerName,
			RestartPolicy:                 corev1.RestartPolicyNever,
			TerminationGracePeriodSeconds: &zero,
			NodeSelector:                  map[string]string{RunLabel: opt.NodesID},
			Containers: []corev1.Container{{
				Name: role, Image: "registry.invalid/spindle/bench:fake",
				Resources: corev1.ResourceRequirements{Requests: kwok.Quantities(opt.PodRequest), Limits: kwok.Quantities(opt.PodRequest)},
			}},
		},
	}
}

// watcher records when each pod was first seen and first seen bound.
type watcher struct {
	mu    sync.Mutex
	want  int
	seen  map[string]time.Time
	bound map[string]time.Time
	all   chan struct{}
}

func newWatcher(want int) *watcher {
	return &watcher{want: want, seen: map[string]time.Time{}, bound: map[string]time.Time{}, all: make(chan struct{})}
}

func (w *watcher) see(p *corev1.Pod) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.seen[p.Name]; !ok {
		w.seen[p.Name] = now
	}
	if p.Spec.NodeName == "" {
		return
	}
	if _, ok := w.bound[p.Name]; ok {
		return
	}
	w.bound[p.Name] = now
	if len(w.bound) == w.want {
		close(w.all)
	}
}

func (w *watcher) result() *Result {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first, last time.Time
	lat := make([]time.Duration, 0, len(w.bound))
	for name, b := range w.bound {
		s := w.seen[name]
		lat = append(lat, b.Sub(s))
		if first.IsZero() || s.Before(first) {
			first = s
		}
		if b.After(last) {
			last = b
		}
	}
	for _, s := range w.seen {
		if s.Before(first) {
			first = s
		}
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	r := &Result{Pods: w.want, Bound: len(w.bound), Elapsed: last.Sub(first)}
	if r.Elapsed > 0 {
		r.PodsPerSec = float64(r.Bound) / r.Elapsed.Seconds()
	}
	r.P50, r.P99 = Quantile(lat, 0.5), Quantile(lat, 0.99)
	if len(lat) > 0 {
		r.MaxDelay = lat[len(lat)-1]
	}
	return r
}

// Quantile is the nearest-rank quantile of sorted durations (0 when empty):
// the smallest value with at least q of the values at or below it.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// cleanup deletes the run's pods (and its nodes, when it made them) and
// waits until the pods are gone, so that a next run on the same cluster
// does not pay for this one's deletions.
func cleanup(opt Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sel := labels.SelectorFromSet(labels.Set{RunLabel: opt.RunID}).String()
	if err := kwok.DeleteLabelled(ctx, opt.Client, opt.Namespace, sel); err != nil {
		return err
	}
	for {
		left, err := opt.Client.CoreV1().Pods(opt.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel, ResourceVersion: "0"})
		if err != nil {
			return fmt.Errorf("bench cleanup: %w", err)
		}
		if len(left.Items) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("bench cleanup: %d pods of run %s still there: %w", len(left.Items), opt.RunID, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
