package kwok

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/spindle-sched/spindle/resource"
)

func TestNodeCarriesCapacityAndLabels(t *testing.T) {
	n := Node("n1", map[string]string{"spindle.io/replay": "r1"}, resource.New(8, 12288), 50)
	if n.Annotations[NodeAnnotation] != "fake" || n.Labels["spindle.io/replay"] != "r1" || n.Labels["kubernetes.io/hostname"] != "n1" {
		t.Errorf("meta %+v", n.ObjectMeta)
	}
	a := n.Status.Allocatable
	if a.Cpu().MilliValue() != 8000 || a.Memory().Value() != 12288<<20 || a.Pods().Value() != 50 || !Ready(n) {
		t.Errorf("allocatable %v ready %v", a, Ready(n))
	}
}

func TestCreateReadyLiftsNotReadyTaintOnlyWhenReady(t *testing.T) {
	cs := fake.NewClientset()
	ready := Node("a", nil, resource.New(1, 1024), 10)
	ready.Spec.Taints = []corev1.Taint{{Key: notReadyTaintKey, Effect: corev1.TaintEffectNoSchedule}}
	if err := CreateReady(context.Background(), cs, []*corev1.Node{ready}, 2, time.Second); err != nil {
		t.Fatal(err)
	}
	got, _ := cs.CoreV1().Nodes().Get(context.Background(), "a", metav1.GetOptions{})
	if len(got.Spec.Taints) != 0 {
		t.Errorf("taints left: %v", got.Spec.Taints)
	}

	notReady := Node("b", nil, resource.New(1, 1024), 10)
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	notReady.Spec.Taints = []corev1.Taint{{Key: notReadyTaintKey, Effect: corev1.TaintEffectNoSchedule}}
	err := CreateReady(context.Background(), cs, []*corev1.Node{notReady}, 2, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "1 of 1 nodes not Ready") || !strings.Contains(err.Error(), "kwok") {
		t.Fatalf("err = %v", err)
	}
	got, _ = cs.CoreV1().Nodes().Get(context.Background(), "b", metav1.GetOptions{})
	if len(got.Spec.Taints) != 1 {
		t.Errorf("taint lifted from a node that is not Ready: %v", got.Spec.Taints)
	}
}

func TestParallel(t *testing.T) {
	var n atomic.Int64
	if err := Parallel(context.Background(), 100, 7, func(int) error { n.Add(1); return nil }); err != nil || n.Load() != 100 {
		t.Errorf("ran %d, err %v", n.Load(), err)
	}
	boom := errors.New("boom")
	if err := Parallel(context.Background(), 100, 4, func(i int) error {
		if i == 10 {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	if err := Parallel(context.Background(), 0, 4, func(int) error { return boom }); err != nil {
		t.Errorf("empty: %v", err)
	}
}
