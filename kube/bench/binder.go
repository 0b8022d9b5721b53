package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// BinderName is the spec.schedulerName the round-robin binder serves.
const BinderName = "bench-round-robin"

// Binder is the apiserver's ceiling for a scheduler: it binds every
// pending pod named for it to the next node in turn, as fast as its client
// lets it, with no model of resources, jobs or queues (it honours only the
// pod's nodeSelector, so that it binds the benchmark's pods to the
// benchmark's nodes). Whatever it
// reaches on a cluster, no scheduler that binds one pod per API call can
// beat; BENCHMARKS.md reports each scheduler as a fraction of it.
type Binder struct {
	Client kubernetes.Interface
	// Name is the schedulerName served (BinderName when empty).
	Name string
	// Workers bound the bindings in flight (default 256, spindle's).
	Workers int

	bound, failed atomic.Int64
}

// Bound and Failed count the binder's answered bindings (a failed one is
// tried again).
func (b *Binder) Bound() int64  { return b.bound.Load() }
func (b *Binder) Failed() int64 { return b.failed.Load() }

// Run binds until ctx ends.
func (b *Binder) Run(ctx context.Context) error {
	if b.Client == nil {
		return fmt.Errorf("bench binder: no client")
	}
	name := b.Name
	if name == "" {
		name = BinderName
	}
	workers := b.Workers
	if workers <= 0 {
		workers = 256
	}
	f := informers.NewSharedInformerFactory(b.Client, 0)
	nodes := f.Core().V1().Nodes()
	pods := f.Core().V1().Pods()
	todo := make(chan *corev1.Pod, 1<<16)
	var mu sync.Mutex
	seen := map[types.UID]bool{}
	offer := func(o any) {
		p, ok := o.(*corev1.Pod)
		if !ok || p.Spec.SchedulerName != name || p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			return
		}
		mu.Lock()
		dup := seen[p.UID]
		seen[p.UID] = true
		mu.Unlock()
		if !dup {
			select {
			case todo <- p:
			case <-ctx.Done():
			}
		}
	}
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: offer, UpdateFunc: func(_, o any) { offer(o) },
	}); err != nil {
		return fmt.Errorf("bench binder: %w", err)
	}
	nodeInf := nodes.Informer()
	// A binding that fails (no node seen yet, a conflict, a timeout) is
	// tried again a moment later against the pod's latest version.
	retry := func(p *corev1.Pod) {
		time.AfterFunc(100*time.Millisecond, func() {
			mu.Lock()
			delete(seen, p.UID)
			mu.Unlock()
			if latest, err := pods.Lister().Pods(p.Namespace).Get(p.Name); err == nil && latest.UID == p.UID {
				offer(latest)
			}
		})
	}
	f.Start(ctx.Done())
	defer f.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), nodeInf.HasSynced, pods.Informer().HasSynced) {
		return nil
	}
	// The nodes a selector picks are listed again whenever the node list
	// changed, so nodes created after the binder started are used.
	var next atomic.Uint64
	var cached struct {
		sync.Mutex
		rv    string
		names map[string][]string // by selector
	}
	nodeNames := func(sel map[string]string) []string {
		key := selectorKey(sel)
		cached.Lock()
		defer cached.Unlock()
		rv := nodeInf.LastSyncResourceVersion()
		if rv != cached.rv {
			cached.names, cached.rv = map[string][]string{}, rv
		}
		names, ok := cached.names[key]
		if !ok {
			for _, o := range nodeInf.GetStore().List() {
				n := o.(*corev1.Node)
				if matches(n.Labels, sel) {
					names = append(names, n.Name)
				}
			}
			sort.Strings(names)
			cached.names[key] = names
		}
		return names
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case p := <-todo:
					names := nodeNames(p.Spec.NodeSelector)
					if len(names) == 0 {
						b.failed.Add(1)
						retry(p)
						continue
					}
					node := names[next.Add(1)%uint64(len(names))]
					err := b.Client.CoreV1().Pods(p.Namespace).Bind(ctx, &corev1.Binding{
						ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: p.UID},
						Target:     corev1.ObjectReference{Kind: "Node", Name: node},
					}, metav1.CreateOptions{})
					if err != nil {
						b.failed.Add(1)
						if ctx.Err() == nil {
							retry(p)
						}
						continue
					}
					b.bound.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return nil
}

func matches(labels, sel map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func selectorKey(sel map[string]string) string {
	keys := make([]string, 0, len(sel))
	for k, v := range sel {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}
