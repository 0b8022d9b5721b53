package kube

import "sync"

// itemKind says what changed.
type itemKind uint8

const (
	kindNode itemKind = iota
	kindPod
	kindGroup         // a Kubernetes PodGroup (scheduling.k8s.io/v1beta1)
	kindVolcanoGroup  // a Volcano PodGroup (scheduling.volcano.sh/v1beta1)
	kindPriorityClass // a PriorityClass: read when asked for, nothing to sync
)

type item struct {
	kind itemKind
	key  string // node name, or namespace/name
}

// workQueue carries keys from the informers' goroutines to the event loop.
// It never blocks an informer: keys wait in an ordered set (a key changed
// twice before the loop looks is synced once, against the latest object),
// and a one-slot channel wakes the loop.
type workQueue struct {
	mu     sync.Mutex
	items  []item
	queued map[item]bool
	wake   chan struct{}
}

func newWorkQueue() *workQueue {
	return &workQueue{queued: map[item]bool{}, wake: make(chan struct{}, 1)}
}

func (q *workQueue) add(it item) {
	q.mu.Lock()
	if !q.queued[it] {
		q.queued[it] = true
		q.items = append(q.items, it)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// drain takes every queued key, in arrival order.
func (q *workQueue) drain() []item {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.items
	q.items = nil
	clear(q.queued)
	return out
}
