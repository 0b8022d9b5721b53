package kube

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/sched"
)

// requests replaces a pod's requests.
func requests(kv ...string) podOpt {
	return func(p *v1.Pod) { p.Spec.Containers[0].Resources.Requests = rl(kv...) }
}

// waitCondition lets the pod wait out the quiet period and one status
// refresh, then requires its PodScheduled=False condition to say want,
// and returns the message.
func (e *env) waitCondition(key, want string) string {
	e.t.Helper()
	e.statusTick()
	var msg string
	e.waitFor(fmt.Sprintf("%s's condition to say %q", key, want), func() bool {
		p := e.pod(key)
		if p == nil {
			return false
		}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
				msg = c.Message
				return strings.Contains(c.Message, want)
			}
		}
		return false
	})
	return msg
}

func podsNode(name, cpu, mem, pods string, labels map[string]string) *v1.Node {
	n := readyNode(name, cpu, mem, labels)
	n.Status.Allocatable = rl("cpu", cpu, "memory", mem, "pods", pods)
	return n
}

// TestDriverThatFitsNoNodeHoldsNobodyBack is the case on a fake
// apiserver: on four 8-CPU nodes a driver asks for 100 CPU and 1 Ti. Under
// autoadmin it used to be let in (nothing else was admitted), hold 100 CPU
// of ARC's budget for ever, and freeze admission for every namespace. It
// must wait with kube-scheduler's reason, while a Spark application in
// another namespace and a bare pod run.
func TestDriverThatFitsNoNodeHoldsNobodyBack(t *testing.T) {
	var nodes []*v1.Node
	e := newEnv(t)
	for i := range 4 {
		nodes = append(nodes, readyNode(fmt.Sprintf("n%d", i), "8", "32Gi", nil))
	}
	for _, n := range nodes {
		e.add(n)
	}
	s, _ := e.start(e.options("fair", "autoadmin"))
	e.add(mkPod("bad", "big", "100", requests("cpu", "100", "memory", "1Ti"), withLabels(LabelJob, "big", LabelRole, "am")))
	e.add(mkPod("spark", "pi-driver", "1", requests("cpu", "1", "memory", "1408Mi"), driver("spark-pi")))
	e.add(mkPod("batch", "bare", "100m"))
	e.waitFor("the Spark driver and the bare pod bound", func() bool {
		return e.nodeOf("spark/pi-driver") != "" && e.nodeOf("batch/bare") != ""
	})
	msg := e.waitCondition("bad/big", "its driver fits no node")
	want := "job bad/big waits for admission, number 1 in queue default: its driver fits no node: 0/4 nodes are available: 4 Insufficient cpu, 4 Insufficient memory."
	if msg != want {
		t.Errorf("condition:\n  %s\nwant\n  %s", msg, want)
	}
	e.setPhase("spark/pi-driver", v1.PodRunning)
	for i := range 2 {
		e.add(mkPod("spark", fmt.Sprintf("pi-exec-%d", i), "1", requests("cpu", "1", "memory", "1408Mi"), executor("spark-pi")))
	}
	e.waitFor("the executors bound", func() bool { return e.nodeOf("spark/pi-exec-0") != "" && e.nodeOf("spark/pi-exec-1") != "" })
	if n := e.nodeOf("bad/big"); n != "" {
		t.Fatalf("the driver that fits no node was bound to %s", n)
	}
	e.onLoop(s, func() {
		// ARC counts nothing for it: the admitted AMs are the Spark driver.
		if held := s.core.Cluster().AMAllocated(); held[0] != 1000 {
			t.Errorf("AMs hold %v", held)
		}
	})
}

// TestPodsAllocatableCounts: a node that takes 3 pods, one of which is
// another scheduler's, takes two of spindle's, whatever CPU it has free;
// the third waits with kube-scheduler's reason until a slot frees.
func TestPodsAllocatableCounts(t *testing.T) {
	e := newEnv(t, podsNode("a", "32", "64Gi", "3", nil),
		mkPod("kube-system", "daemon", "100m", scheduler("default-scheduler"), boundTo("a", v1.PodRunning)))
	e.start(e.options("fifo", "none"))
	for i := range 3 {
		e.add(mkPod("batch", fmt.Sprintf("p%d", i), "100m"))
	}
	e.waitBound("batch/p0", "a")
	e.waitBound("batch/p1", "a")
	if msg := e.waitCondition("batch/p2", "Too many pods"); msg != "0/1 nodes are available: 1 Too many pods." {
		t.Errorf("p2 says %q", msg)
	}
	if n := e.nodeOf("batch/p2"); n != "" {
		t.Fatalf("p2 bound to %s beyond the node's 3 pods", n)
	}
	e.setPhase("kube-system/daemon", v1.PodSucceeded)
	e.waitBound("batch/p2", "a")
}

// TestOverflowingRequestsAreRefused: requests no int64 count can hold (cpu
// 1e16 is 1e19 milli-CPU; 100E and 8Ei bytes) are refused with a reason,
// never bound as if they asked for nothing, and break nothing else.
func TestOverflowingRequestsAreRefused(t *testing.T) {
	e := newEnv(t, readyNode("a", "8", "32Gi", nil))
	e.start(e.options("fair", "autoadmin"))
	cases := []struct{ name, cpu, mem, want string }{
		{"cpu", "1e16", "1Gi", "refused: it requests cpu 10e15, more than spindle counts (at most 1099511627 CPUs); no node can hold it"},
		{"mem-100e", "1", "100E", "refused: it requests memory 100E, more than spindle counts"},
		// Kubernetes itself reads 8Ei as the largest int64, 9223372036854775807 bytes.
		{"mem-8ei", "1", "8Ei", "refused: it requests memory 9223372036854775807, more than spindle counts (at most 1Ei)"},
	}
	for _, c := range cases {
		e.add(mkPod("big", c.name, "1", requests("cpu", c.cpu, "memory", c.mem), withLabels(LabelJob, c.name, LabelRole, "am")))
	}
	for _, c := range cases {
		e.waitCondition("big/"+c.name, c.want)
	}
	e.add(mkPod("batch", "ok", "1"))
	e.waitBound("batch/ok", "a")
	for _, c := range cases {
		if n := e.nodeOf("big/" + c.name); n != "" {
			t.Errorf("%s bound to %s", c.name, n)
		}
	}
}

// TestWhyAPodWaits: kube-scheduler's words for a pod that fits no node now
// (Insufficient cpu), one whose selector matches no node, and a node
// relabelled so that it matches: the pod is bound.
func TestWhyAPodWaits(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil), readyNode("b", "4", "8Gi", nil))
	e.start(e.options("fifo", "none"))
	e.add(mkPod("ns", "fill-a", "3"))
	e.add(mkPod("ns", "fill-b", "3"))
	e.waitFor("both fillers bound", func() bool { return e.nodeOf("ns/fill-a") != "" && e.nodeOf("ns/fill-b") != "" })
	e.add(mkPod("ns", "two", "2"))
	if msg := e.waitCondition("ns/two", "Insufficient"); msg != "0/2 nodes are available: 2 Insufficient cpu." {
		t.Errorf("two says %q", msg)
	}
	e.add(mkPod("ns", "gpu", "100m", func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"accelerator": "a100"} }))
	if msg := e.waitCondition("ns/gpu", "affinity"); msg != "it fits no node: 0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector." {
		t.Errorf("gpu says %q", msg)
	}
	n := e.client.Tracker()
	obj, err := n.Get(nodesGVR, "", "b")
	if err != nil {
		t.Fatal(err)
	}
	b := obj.(*v1.Node).DeepCopy()
	b.Labels = map[string]string{"accelerator": "a100"}
	if err := n.Update(nodesGVR, b, ""); err != nil {
		t.Fatal(err)
	}
	e.waitBound("ns/gpu", "b")
}

// TestQueuePositionInTheAPI: drivers held by admission get their place in
// their queue, in the JSON snapshot's jobs and pending pods.
func TestQueuePositionInTheAPI(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	o := e.options("fair", "static:3")
	rec := observe.NewRecorder(observe.Options{})
	o.Observe = rec
	s, _ := e.start(o)
	// static:3 keeps 3 of 4 vcores for tasks: one driver at a time.
	for i := range 3 {
		e.add(mkPod("spark", fmt.Sprintf("drv-%d", i), "1", driver(fmt.Sprintf("app-%d", i))))
	}
	e.waitBound("spark/drv-0", "a")
	e.statusTick()
	var snap *observe.Snapshot
	e.waitFor("a snapshot with two drivers waiting", func() bool {
		e.onLoop(s, func() { s.refreshStatus(); s.publish() })
		snap = rec.Latest()
		return snap != nil && len(snap.Pods) == 2
	})
	for i, p := range snap.Pods {
		if p.Pod != fmt.Sprintf("spark/drv-%d", i+1) || p.QueuePosition != i+1 || p.Queue != "default" || !p.AM {
			t.Errorf("pending pod %d = %+v, want spark/drv-%d at position %d", i, p, i+1, i+1)
		}
	}
	if !strings.Contains(snap.Pods[1].Reason, "number 2 in queue default: waits behind job spark/app-1") {
		t.Errorf("the second waiting driver says %q", snap.Pods[1].Reason)
	}
	got := map[string]int{}
	for _, j := range snap.Jobs {
		got[j.Name] = j.QueuePosition
	}
	if got["spark/app-0"] != 0 || got["spark/app-1"] != 1 || got["spark/app-2"] != 2 {
		t.Errorf("job positions %v, want app-0 admitted, app-1 first, app-2 second", got)
	}
	e.onLoop(s, func() {
		if j := s.core.JobByKey("spark/app-2"); j.State() != sched.Waiting {
			t.Errorf("app-2 is %v", j.State())
		}
	})
}
