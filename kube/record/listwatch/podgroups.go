package listwatch

import (
	"context"
	"encoding/json"
	"fmt"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/spindle-sched/spindle/kube/served"
)

// podGroups starts informers on the PodGroups the cluster serves
// (Kubernetes' scheduling.k8s.io ones, and Volcano's when a dynamic client
// is given), as the scheduler decides it (package served), and returns the
// channel their objects arrive on as JSON, and a function that stops them.
// A gang's minimum and queue live in these objects, not on its pods.
// Groups the recorder may not list (RBAC) are said on Progress and
// skipped: pods and nodes are still recorded. An informer relists on its
// own when its watch expires.
func (w *watcher) podGroups(parent context.Context) (<-chan []byte, func()) {
	// Its own context, ended before the informers are shut down: a
	// handler blocked on a send once the loop is gone returns.
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan []byte, 64)
	send := func(raw []byte, err error) {
		if err != nil {
			return // an object the informer decoded always marshals
		}
		select {
		case ch <- raw:
		case <-ctx.Done():
		}
	}
	var stops []func()
	ns := w.opt.Namespace
	if served.PodGroups(w.cs) && w.canList(ctx, "scheduling.k8s.io podgroups", func() error {
		_, err := w.cs.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{Limit: 1})
		return err
	}) {
		f := informers.NewSharedInformerFactoryWithOptions(w.cs, 0, informers.WithNamespace(ns))
		inf := f.Scheduling().V1beta1().PodGroups().Informer()
		typed := func(obj any) {
			g, ok := obj.(*schedulingv1beta1.PodGroup)
			if !ok {
				return
			}
			// An informer's objects carry no apiVersion, which tells
			// the two PodGroup APIs apart.
			g = g.DeepCopy()
			g.APIVersion, g.Kind = schedulingv1beta1.SchemeGroupVersion.String(), "PodGroup"
			send(json.Marshal(g))
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: typed, UpdateFunc: func(_, n any) { typed(n) }}); err == nil {
			f.Start(ctx.Done())
			stops = append(stops, f.Shutdown)
		}
	}
	if w.opt.Dynamic != nil && served.VolcanoPodGroups(w.cs) && w.canList(ctx, "Volcano podgroups", func() error {
		_, err := w.opt.Dynamic.Resource(served.VolcanoGVR).Namespace(ns).List(ctx, metav1.ListOptions{Limit: 1})
		return err
	}) {
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(w.opt.Dynamic, 0, ns, nil)
		inf := f.ForResource(served.VolcanoGVR).Informer()
		unstructured := func(obj any) {
			if u, ok := obj.(interface{ MarshalJSON() ([]byte, error) }); ok {
				send(u.MarshalJSON())
			}
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: unstructured, UpdateFunc: func(_, n any) { unstructured(n) }}); err == nil {
			f.Start(ctx.Done())
			stops = append(stops, f.Shutdown)
		}
	}
	if len(stops) == 0 {
		cancel()
		return nil, func() {}
	}
	return ch, func() {
		cancel()
		for _, s := range stops {
			s()
		}
	}
}

// canList reports whether the recorder may list what; when not, it says
// so on Progress.
func (w *watcher) canList(ctx context.Context, what string, list func() error) bool {
	err := list()
	if err != nil && w.opt.Progress != nil {
		fmt.Fprintf(w.opt.Progress, "%s not read (gangs keep the minimums their pods declare): %v\n", what, err)
	}
	return err == nil
}
