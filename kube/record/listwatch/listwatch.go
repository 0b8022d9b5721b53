// Package listwatch feeds a kube/record Recorder from a cluster: it lists
// nodes and pods, then watches both, with list and watch only. It is apart
// from kube/record so that what reads snapshots (package trace) does not
// link a Kubernetes client.
package listwatch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/kube/record"
)

// Options configure Watch.
type Options struct {
	// Namespace limits the recording to one namespace; "" is every one.
	Namespace string
	// Duration stops the recording after this long; 0 runs until ctx ends.
	Duration time.Duration
	// Progress receives a line every ProgressEvery (default 10 s).
	Progress      io.Writer
	ProgressEvery time.Duration
	// PageSize is how many objects each list request asks for (default
	// 500), so that the first list never holds every pod at once.
	PageSize int64
	// Dynamic, when set, reads Volcano's PodGroups where the cluster
	// serves the CRD; nil: only Kubernetes' PodGroups are read.
	Dynamic dynamic.Interface
}

// Watch feeds r from the cluster: it lists the nodes and pods (the first
// list), calls Begin, then follows both with watches until ctx ends or
// opt.Duration has passed. It reads nodes and pods, and the PodGroups the
// cluster serves (podgroups.go), with list and watch only. When a watch expires (the apiserver compacted past it) the pods
// are listed again and those no longer there count as deleted then. The
// caller closes r.
func Watch(ctx context.Context, cs kubernetes.Interface, r *record.Recorder, opt Options) error {
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 10 * time.Second
	}
	if opt.PageSize <= 0 {
		opt.PageSize = 500
	}
	if opt.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Duration)
		defer cancel()
	}
	w := &watcher{cs: cs, r: r, opt: opt}
	groups, stopGroups := w.podGroups(ctx)
	defer stopGroups()
	w.groups = groups
	nodeRV, err := w.listNodes(ctx)
	if err != nil {
		return err
	}
	podRV, _, err := w.listPods(ctx)
	if err != nil {
		return err
	}
	if err := r.Begin(time.Now()); err != nil {
		return err
	}
	return w.loop(ctx, nodeRV, podRV)
}

type watcher struct {
	cs  kubernetes.Interface
	r   *record.Recorder
	opt Options
	// groups brings the PodGroup objects (podgroups.go); nil when none
	// are read.
	groups <-chan []byte
}

func (w *watcher) listNodes(ctx context.Context) (string, error) {
	var rv, cont string
	for {
		l, err := w.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: w.opt.PageSize, Continue: cont})
		if err != nil {
			return "", fmt.Errorf("list nodes: %w", err)
		}
		for i := range l.Items {
			w.r.Node(&l.Items[i])
		}
		rv, cont = l.ResourceVersion, l.Continue
		if cont == "" {
			return rv, nil
		}
	}
}

// listPods lists the pods page by page, reporting each, and returns the
// list's resource version and the pods seen.
func (w *watcher) listPods(ctx context.Context) (string, map[types.UID]bool, error) {
	seen := map[types.UID]bool{}
	var rv, cont string
	for {
		l, err := w.cs.CoreV1().Pods(w.opt.Namespace).List(ctx, metav1.ListOptions{Limit: w.opt.PageSize, Continue: cont})
		if err != nil {
			return "", nil, fmt.Errorf("list pods: %w", err)
		}
		now := time.Now()
		for i := range l.Items {
			p := &l.Items[i]
			seen[p.UID] = true
			if err := w.r.Pod(now, p); err != nil {
				return "", nil, err
			}
		}
		rv, cont = l.ResourceVersion, l.Continue
		if cont == "" {
			return rv, seen, nil
		}
	}
}

func (w *watcher) loop(ctx context.Context, nodeRV, podRV string) error {
	nodes, err := w.watchNodes(ctx, nodeRV)
	if err != nil {
		return err
	}
	pods, err := w.watchPods(ctx, podRV)
	if err != nil {
		nodes.Stop()
		return err
	}
	defer func() { nodes.Stop(); pods.Stop() }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	nextProgress := time.Now().Add(w.opt.ProgressEvery)
	for {
		select {
		case <-ctx.Done():
			return nil
		case raw := <-w.groups:
			w.r.PodGroup(raw)
		case now := <-tick.C:
			if err := w.r.Tick(now); err != nil {
				return err
			}
			if w.opt.Progress != nil && !now.Before(nextProgress) {
				fmt.Fprintln(w.opt.Progress, w.r.Progress(now))
				nextProgress = now.Add(w.opt.ProgressEvery)
			}
		case ev, ok := <-nodes.ResultChan():
			if ok && ev.Type != watch.Error {
				nodeRV = w.node(ev, nodeRV)
				continue
			}
			nodes.Stop()
			if expired(ok, ev) {
				if nodeRV, err = w.listNodes(ctx); err != nil {
					return w.quiet(ctx, err)
				}
			}
			if nodes, err = w.watchNodes(ctx, nodeRV); err != nil {
				return w.quiet(ctx, err)
			}
		case ev, ok := <-pods.ResultChan():
			if ok && ev.Type != watch.Error {
				if podRV, err = w.pod(ev, podRV); err != nil {
					return err
				}
				continue
			}
			pods.Stop()
			if expired(ok, ev) {
				if podRV, err = w.relist(ctx); err != nil {
					return w.quiet(ctx, err)
				}
			}
			if pods, err = w.watchPods(ctx, podRV); err != nil {
				return w.quiet(ctx, err)
			}
		}
	}
}

// quiet turns an error caused by the recording's own end into none.
func (w *watcher) quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// expired reports whether a watch ended because its resource version is
// too old: the stream must start again from a new list.
func expired(ok bool, ev watch.Event) bool {
	if !ok || ev.Type != watch.Error {
		return false
	}
	st, isStatus := ev.Object.(*metav1.Status)
	return isStatus && (st.Code == http.StatusGone || st.Reason == metav1.StatusReasonExpired || st.Reason == metav1.StatusReasonGone)
}

func (w *watcher) watchNodes(ctx context.Context, rv string) (watch.Interface, error) {
	return retry(ctx, func() (watch.Interface, error) {
		return w.cs.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	})
}

func (w *watcher) watchPods(ctx context.Context, rv string) (watch.Interface, error) {
	return retry(ctx, func() (watch.Interface, error) {
		return w.cs.CoreV1().Pods(w.opt.Namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	})
}

// retry starts a watch, trying again for a minute while the apiserver does
// not answer.
func retry(ctx context.Context, start func() (watch.Interface, error)) (watch.Interface, error) {
	deadline := time.Now().Add(time.Minute)
	wait := 100 * time.Millisecond
	for {
		wi, err := start()
		if err == nil {
			return wi, nil
		}
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

func (w *watcher) node(ev watch.Event, rv string) string {
	n, ok := ev.Object.(*v1.Node)
	if !ok {
		return rv
	}
	switch ev.Type {
	case watch.Added, watch.Modified:
		w.r.Node(n)
	case watch.Deleted:
		w.r.NodeDeleted(n)
	}
	return n.ResourceVersion
}

func (w *watcher) pod(ev watch.Event, rv string) (string, error) {
	p, ok := ev.Object.(*v1.Pod)
	if !ok {
		return rv, nil
	}
	var err error
	switch ev.Type {
	case watch.Added, watch.Modified:
		err = w.r.Pod(time.Now(), p)
	case watch.Deleted:
		err = w.r.PodDeleted(time.Now(), p)
	}
	return p.ResourceVersion, err
}

// relist lists the pods again after an expired watch; the pods the
// recorder follows that the list lacks were deleted meanwhile.
func (w *watcher) relist(ctx context.Context) (string, error) {
	rv, seen, err := w.listPods(ctx)
	if err != nil {
		return "", err
	}
	if err := w.r.Gone(time.Now(), seen); err != nil {
		return "", err
	}
	return rv, nil
}
