package replay

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/spindle-sched/spindle/resource"
)

// fakeCluster stands in for a scheduler plus kwok on a fake clientset: it
// binds each pending pod to the first of the run's nodes with room (so
// capacity is real), starts it after startDelay, and ends a pod with a
// duration annotation that long after it started. It logs what it did, in
// order, so tests can check what the replayer did before and after.
type fakeCluster struct {
	t          *testing.T
	cs         *fake.Clientset
	startDelay time.Duration
	// fail names pods that end Failed instead of Succeeded; lose names
	// pods that are deleted (lost) once running.
	fail, lose map[string]bool

	mu     sync.Mutex
	log    []logEntry
	used   map[string]resource.Vector // node -> bound requests
	placed map[string]string          // pod -> node
	ended  map[string]bool
	seen   map[string]bool
	pend   []string

	ch chan func()
}

type logEntry struct {
	kind string // "created", "running", "succeeded", "failed", "lost", "deleted"
	pod  *corev1.Pod
}

func newFakeCluster(t *testing.T) *fakeCluster {
	return &fakeCluster{
		t: t, cs: fake.NewClientset(), startDelay: 30 * time.Millisecond,
		fail: map[string]bool{}, lose: map[string]bool{},
		used: map[string]resource.Vector{}, placed: map[string]string{}, ended: map[string]bool{}, seen: map[string]bool{},
		ch: make(chan func(), 1<<12),
	}
}

func (f *fakeCluster) record(kind string, p *corev1.Pod) {
	f.mu.Lock()
	f.log = append(f.log, logEntry{kind, p.DeepCopy()})
	f.mu.Unlock()
}

func (f *fakeCluster) entries() []logEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]logEntry(nil), f.log...)
}

// start runs the fake until the test ends.
func (f *fakeCluster) start() {
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(f.cs, 0)
	inf := factory.Core().V1().Pods().Informer()
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			p := o.(*corev1.Pod)
			f.ch <- func() { f.added(ctx, p) }
		},
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			p := o.(*corev1.Pod)
			f.ch <- func() { f.deleted(ctx, p) }
		},
	})
	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case fn := <-f.ch:
				fn()
			}
		}
	}()
	f.t.Cleanup(func() {
		cancel()
		<-done
		factory.Shutdown()
	})
}

func (f *fakeCluster) after(d time.Duration, fn func()) {
	time.AfterFunc(d, func() { f.ch <- fn })
}

func (f *fakeCluster) added(ctx context.Context, p *corev1.Pod) {
	if f.seen[p.Name] {
		return
	}
	f.seen[p.Name] = true
	f.record("created", p)
	f.pend = append(f.pend, p.Name)
	f.schedule(ctx)
}

// schedule binds pending pods, in creation order, first fit.
func (f *fakeCluster) schedule(ctx context.Context) {
	nodes, err := f.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	var keep []string
	for _, name := range f.pend {
		p, err := f.cs.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		req := podRequest(p)
		node := ""
		for _, n := range nodes.Items {
			capa := nodeCapacity(&n)
			if n.Labels[RunLabel] == p.Spec.NodeSelector[RunLabel] && f.used[n.Name].Add(req).Fits(capa) {
				node = n.Name
				break
			}
		}
		if node == "" {
			keep = append(keep, name)
			continue
		}
		f.used[node] = f.used[node].Add(req)
		f.placed[name] = node
		p.Spec.NodeName = node
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
		if _, err := f.cs.CoreV1().Pods(p.Namespace).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			f.t.Errorf("fake bind %s: %v", name, err)
			continue
		}
		f.after(f.startDelay, func() { f.run(ctx, name) })
	}
	f.pend = keep
}

func (f *fakeCluster) run(ctx context.Context, name string) {
	p, err := f.cs.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
	if err != nil || f.ended[name] {
		return
	}
	p.Status.Phase = corev1.PodRunning
	if _, err := f.cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return
	}
	f.record("running", p)
	if f.lose[name] {
		f.after(5*time.Millisecond, func() {
			f.record("lost", p)
			_ = f.cs.CoreV1().Pods(p.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
		})
		return
	}
	ds, ok := p.Annotations[DurationAnnot]
	if !ok {
		return
	}
	d, err := time.ParseDuration(ds)
	if err != nil {
		f.t.Errorf("pod %s: duration annotation %q: %v", name, ds, err)
		return
	}
	f.after(d, func() { f.finish(ctx, name) })
}

func (f *fakeCluster) finish(ctx context.Context, name string) {
	p, err := f.cs.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
	if err != nil || f.ended[name] {
		return
	}
	kind := "succeeded"
	p.Status.Phase = corev1.PodSucceeded
	if f.fail[name] {
		kind, p.Status.Phase = "failed", corev1.PodFailed
	}
	if _, err := f.cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return
	}
	f.record(kind, p)
	f.release(ctx, name, podRequest(p))
}

func (f *fakeCluster) deleted(ctx context.Context, p *corev1.Pod) {
	f.record("deleted", p)
	f.release(ctx, p.Name, podRequest(p))
}

func (f *fakeCluster) release(ctx context.Context, name string, req resource.Vector) {
	if f.ended[name] {
		return
	}
	f.ended[name] = true
	if n, ok := f.placed[name]; ok {
		f.used[n] = f.used[n].Sub(req)
	}
	f.schedule(ctx)
}

func podRequest(p *corev1.Pod) resource.Vector {
	r := p.Spec.Containers[0].Resources.Requests
	return resource.Vector{r.Cpu().MilliValue(), r.Memory().Value() / (1024 * 1024)}
}

func nodeCapacity(n *corev1.Node) resource.Vector {
	a := n.Status.Allocatable
	return resource.Vector{a.Cpu().MilliValue(), a.Memory().Value() / (1024 * 1024)}
}

func phaseOf(p *corev1.Pod) int {
	k, err := strconv.Atoi(p.Annotations[PhaseAnnotation])
	if err != nil {
		return -1
	}
	return k
}
