// Package kwok creates fake nodes that kwok manages, for replays and
// benchmarks on a real apiserver, and waits until a scheduler may use them.
package kwok

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/resource"
)

// NodeAnnotation marks a Node as one kwok manages.
const NodeAnnotation = "kwok.x-k8s.io/node"

const notReadyTaintKey = "node.kubernetes.io/not-ready"

// Quantities converts a spindle resource vector (milli-vcores, MiB) to
// Kubernetes cpu and memory quantities.
func Quantities(v resource.Vector) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *apiresource.NewMilliQuantity(v[resource.VCores], apiresource.DecimalSI),
		corev1.ResourceMemory: *apiresource.NewQuantity(v[resource.Memory]*1024*1024, apiresource.BinarySI),
	}
}

// Node is a kwok node with the given labels and capacity (also its
// allocatable), reported Ready; kwok keeps it so once it runs.
func Node(name string, labels map[string]string, capacity resource.Vector, maxPods int) *corev1.Node {
	res := Quantities(capacity)
	res[corev1.ResourcePods] = *apiresource.NewQuantity(int64(maxPods), apiresource.DecimalSI)
	now := metav1.Now()
	l := map[string]string{
		"kubernetes.io/hostname": name,
		"kubernetes.io/os":       "linux",
		"type":                   "kwok",
	}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      l,
			Annotations: map[string]string{NodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		Status: corev1.NodeStatus{
			Capacity:    res,
			Allocatable: res.DeepCopy(),
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: now, LastTransitionTime: now,
			}},
		},
	}
}

// CreateReady creates the nodes (workers at a time) and waits until every
// one is Ready and free of NoSchedule taints. The not-ready taint the
// apiserver puts on a new node is lifted by the node-lifecycle controller;
// where none runs, CreateReady lifts it from these nodes (they are the
// caller's) once kwok reports them Ready.
func CreateReady(ctx context.Context, client kubernetes.Interface, nodes []*corev1.Node, workers int, timeout time.Duration) error {
	api := client.CoreV1().Nodes()
	if err := Parallel(ctx, len(nodes), workers, func(i int) error {
		if _, err := api.Create(ctx, nodes[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create node %s: %w", nodes[i].Name, err)
		}
		return nil
	}); err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	pending := nodes
	for {
		var mu sync.Mutex
		var still []*corev1.Node
		err := Parallel(ctx, len(pending), workers, func(i int) error {
			n, err := api.Get(ctx, pending[i].Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("read node %s: %w", pending[i].Name, err)
			}
			ok, err := makeSchedulable(ctx, client, n)
			if err != nil {
				return err
			}
			if !ok {
				mu.Lock()
				still = append(still, pending[i])
				mu.Unlock()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(still) == 0 {
			return nil
		}
		pending = still
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d nodes not Ready and schedulable after %s (e.g. %s): is kwok running against this apiserver?",
				len(still), len(nodes), timeout, still[0].Name)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for nodes: %w", context.Cause(ctx))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// makeSchedulable reports whether n is Ready and free of NoSchedule taints,
// lifting the not-ready taint from a node kwok reports Ready.
func makeSchedulable(ctx context.Context, client kubernetes.Interface, n *corev1.Node) (bool, error) {
	if !Ready(n) {
		return false, nil
	}
	var keep []corev1.Taint
	for _, t := range n.Spec.Taints {
		if t.Key != notReadyTaintKey {
			keep = append(keep, t)
		}
	}
	if len(keep) != len(n.Spec.Taints) {
		n.Spec.Taints = keep
		if _, err := client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				return false, nil
			}
			return false, fmt.Errorf("lift the not-ready taint of node %s: %w", n.Name, err)
		}
	}
	for _, t := range keep {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return false, nil
		}
	}
	return true, nil
}

// Ready reports whether the node's Ready condition is true.
func Ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Parallel runs fn(0..n-1), typically one API call each, on workers
// goroutines, and returns the first error (stopping the rest).
func Parallel(ctx context.Context, n, workers int, fn func(i int) error) error {
	workers = max(1, min(workers, n))
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for i := range n {
		select {
		case next <- i:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = context.Cause(ctx)
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

// DeleteLabelled deletes the pods in namespace and the nodes that match the
// label selector: in one call each where the apiserver allows it, then
// whatever is left one by one.
func DeleteLabelled(ctx context.Context, client kubernetes.Interface, namespace, selector string) error {
	sel := metav1.ListOptions{LabelSelector: selector}
	zero := int64(0)
	now := metav1.DeleteOptions{GracePeriodSeconds: &zero}
	pods := client.CoreV1().Pods(namespace)
	nodes := client.CoreV1().Nodes()
	_ = pods.DeleteCollection(ctx, now, sel)
	_ = nodes.DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
	var errs []error
	if list, err := pods.List(ctx, sel); err != nil {
		errs = append(errs, fmt.Errorf("list pods %s: %w", selector, err))
	} else {
		for _, p := range list.Items {
			if err := pods.Delete(ctx, p.Name, now); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete pod %s/%s: %w", p.Namespace, p.Name, err))
			}
		}
	}
	if list, err := nodes.List(ctx, sel); err != nil {
		errs = append(errs, fmt.Errorf("list nodes %s: %w", selector, err))
	} else {
		for _, n := range list.Items {
			if err := nodes.Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete node %s: %w", n.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}
