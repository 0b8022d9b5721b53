package kube

import (
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/spindle-sched/spindle/sched"
)

// evictions records the Eviction API calls the fake apiserver gets and
// answers them: by deleting the pod, or with refuse's error (a
// PodDisruptionBudget's 429).
type evictions struct {
	e      *env
	mu     sync.Mutex
	calls  []string
	uids   []string
	refuse error
}

func (ev *evictions) react(a k8stesting.Action) (bool, runtime.Object, error) {
	if a.GetSubresource() != "eviction" {
		return false, nil, nil
	}
	evict := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
	key := evict.Namespace + "/" + evict.Name
	ev.mu.Lock()
	ev.calls = append(ev.calls, key)
	if evict.DeleteOptions != nil && evict.DeleteOptions.Preconditions != nil && evict.DeleteOptions.Preconditions.UID != nil {
		ev.uids = append(ev.uids, string(*evict.DeleteOptions.Preconditions.UID))
	}
	refuse := ev.refuse
	ev.mu.Unlock()
	if refuse != nil {
		return true, nil, refuse
	}
	return true, nil, ev.e.client.Tracker().Delete(podsGVR, evict.Namespace, evict.Name)
}

func (ev *evictions) list() []string {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return append([]string(nil), ev.calls...)
}

// preemptInterval is the monitor's interval in preemptionEnv: the tests
// step the scheduler's clock by it to run one round.
const preemptInterval = 100 * time.Millisecond

// preemptionEnv: one 4-CPU node that a batch Spark job (driver and three
// executors) fills; queues prod (60 %) and batch (40 %).
func preemptionEnv(t *testing.T, refuse error) (*env, *evictions, *Scheduler) {
	e := newEnv(t, readyNode("n1", "4", "8Gi", nil))
	ev := &evictions{e: e, refuse: refuse}
	e.client.PrependReactor("create", "pods", ev.react)
	o := e.options("capacity:preemption=on,preempt_interval=100ms,preempt_delay=0,preempt_per_round=1,preempt_natural=1,preempt_deadzone=0", "none")
	cfg, err := ParseConfig([]byte("queues: [{name: prod, capacity: 0.6}, {name: batch, capacity: 0.4}]"))
	if err != nil {
		t.Fatal(err)
	}
	o.Config = cfg
	s, _ := e.start(o)
	e.add(mkPod("batch", "b-driver", "1", driver("b"), withLabels(LabelQueue, "batch")))
	e.waitBound("batch/b-driver", "n1")
	e.setPhase("batch/b-driver", v1.PodRunning)
	for _, name := range []string{"b-exec-1", "b-exec-2", "b-exec-3"} {
		e.add(mkPod("batch", name, "1", executor("b"), withLabels(LabelQueue, "batch")))
		e.waitBound("batch/"+name, "n1")
		e.setPhase("batch/"+name, v1.PodRunning)
	}
	return e, ev, s
}

// A queue below its share gets it back by eviction of the newest executor
// of a queue above its own; the driver is never evicted; an Event names
// the queue it was taken for; the core counts it PREEMPTED.
func TestPreemptionEvictsForAQueueBelowItsShare(t *testing.T) {
	e, ev, s := preemptionEnv(t, nil)
	e.add(mkPod("prod", "p-driver", "1", driver("p"), withLabels(LabelQueue, "prod")))
	// Nothing is taken before the monitor's next round.
	e.staysUnbound("prod/p-driver")
	if calls := ev.list(); len(calls) != 0 {
		t.Fatalf("evictions %v before a preemption round", calls)
	}
	e.advance(preemptInterval)
	e.waitBound("prod/p-driver", "n1")
	if calls := ev.list(); len(calls) != 1 || calls[0] != "batch/b-exec-3" {
		t.Fatalf("evictions %v, want the newest executor, batch/b-exec-3", calls)
	}
	if ev.uids[0] != "uid-batch-b-exec-3" {
		t.Errorf("eviction not conditional on the pod's UID: %v", ev.uids)
	}
	e.waitEvent("Preempted", "queue prod")
	var st *sched.PreemptionStats
	e.onLoop(s, func() { st = s.Core().PreemptionStats() })
	if st.Preempted != 1 || st.ByQueue["batch"].TakenFrom != 1 || st.ByQueue["prod"].TakenFor != 1 {
		t.Errorf("stats %+v", st)
	}
	for _, p := range []string{"batch/b-driver", "batch/b-exec-1", "batch/b-exec-2"} {
		if e.pod(p) == nil {
			t.Errorf("%s was removed", p)
		}
	}
}

// A PodDisruptionBudget that refuses the eviction leaves the pod running,
// says so in a Warning Event, and nothing is deleted behind its back.
func TestPreemptionRespectsADisruptionBudget(t *testing.T) {
	pdb := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
	e, ev, _ := preemptionEnv(t, pdb)
	e.add(mkPod("prod", "p-driver", "1", driver("p"), withLabels(LabelQueue, "prod")))
	e.advance(preemptInterval)
	got := e.waitEvent("PreemptionBlocked", "queue prod")
	if !strings.Contains(got, "PodDisruptionBudget") {
		t.Errorf("event %q does not say why", got)
	}
	if len(ev.list()) == 0 {
		t.Fatal("no eviction was tried")
	}
	e.staysUnbound("prod/p-driver")
	for _, p := range []string{"batch/b-exec-1", "batch/b-exec-2", "batch/b-exec-3"} {
		if e.pod(p) == nil {
			t.Errorf("%s was removed although its eviction was refused", p)
		}
	}
}
