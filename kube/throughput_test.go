package kube

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// patchesOf counts the status patches the scheduler sent for a pod.
func (e *env) patchesOf(key string) int {
	ns, name := splitKey(key)
	n := 0
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "patch" && a.GetSubresource() == "status" && a.GetNamespace() == ns {
			if pa, ok := a.(interface{ GetName() string }); ok && pa.GetName() == name {
				n++
			}
		}
	}
	return n
}

// A pod that waits less than StatusAfter is told nothing: a driver that
// waits briefly for room, and an executor that waits for it, are bound
// without a FailedScheduling Event or a PodScheduled=False patch, as
// kube-scheduler writes nothing for a pod that merely waits its turn.
func TestShortWaitsWriteNothing(t *testing.T) {
	e := newEnv(t, readyNode("a", "8", "16Gi", nil),
		mkPod("ns", "other", "7500m", scheduler("default-scheduler"), boundTo("a", v1.PodRunning)))
	o := e.options("fifo", "none")
	o.StatusAfter = 10 * time.Second
	e.start(o)
	e.add(mkPod("spark", "drv", "1", driver("app-1")))
	e.add(mkPod("spark", "exec-1", "250m", executor("app-1")))
	// Several status periods (20 ms each) pass while both wait.
	e.staysUnbound("spark/drv")
	e.staysUnbound("spark/exec-1")
	e.setPhase("ns/other", v1.PodSucceeded)
	e.waitBound("spark/drv", "a")
	e.waitBound("spark/exec-1", "a")
	for _, ev := range e.drainEvents() {
		if strings.Contains(ev, "FailedScheduling") {
			t.Errorf("event for a short wait: %s", ev)
		}
	}
	if n := e.patchesOf("spark/exec-1"); n != 0 {
		t.Errorf("%d status patches for an executor that waited less than StatusAfter", n)
	}
}

// A pod that waits longer is told why, once StatusAfter has passed, and
// not before.
func TestLongWaitsAreWrittenAfterStatusAfter(t *testing.T) {
	e := newEnv(t, readyNode("a", "8", "16Gi", nil),
		mkPod("ns", "other", "7500m", scheduler("default-scheduler"), boundTo("a", v1.PodRunning)))
	o := e.options("fifo", "none")
	o.StatusAfter = 300 * time.Millisecond
	e.start(o)
	e.add(mkPod("spark", "drv", "1", driver("app-1")))
	e.add(mkPod("spark", "exec-1", "250m", executor("app-1")))
	// Just short of StatusAfter (and past several refreshes): nothing yet.
	e.advance(o.StatusAfter - o.StatusEvery)
	for _, ev := range e.drainEvents() {
		if strings.Contains(ev, "FailedScheduling") {
			t.Errorf("the reason was written before StatusAfter: %s", ev)
		}
	}
	// Past it, at the next refresh: the reason.
	e.advance(2 * o.StatusEvery)
	e.waitEvent("FailedScheduling", "waiting for driver pod spark/drv to be bound")
	e.waitFor("PodScheduled=False on exec-1", func() bool {
		for _, c := range e.pod("spark/exec-1").Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
				return true
			}
		}
		return false
	})
}

// A refusal is written at once, whatever StatusAfter says.
func TestRefusalsAreWrittenAtOnce(t *testing.T) {
	cfg, err := ParseConfig([]byte("queues: [{name: gold, capacity: 1}]"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, readyNode("a", "8", "16Gi", nil))
	o := e.options("fifo", "none")
	o.Config, o.StatusAfter = cfg, time.Hour
	e.start(o)
	e.add(mkPod("team", "p", "1"))
	e.waitEvent("FailedScheduling", `queue "team" is not configured`)
}

func TestStatusDefaults(t *testing.T) {
	e := newEnv(t)
	o := e.options("fifo", "none")
	o.StatusEvery, o.StatusAfter, o.BindWorkers, o.StatusWorkers = 0, 0, 0, 0
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if s.o.StatusEvery != time.Second || s.o.StatusAfter != 5*time.Second || s.o.BindWorkers != DefaultBindWorkers || s.o.StatusWorkers != DefaultStatusWorkers {
		t.Errorf("defaults: every %v, after %v, %d bind and %d status workers", s.o.StatusEvery, s.o.StatusAfter, s.o.BindWorkers, s.o.StatusWorkers)
	}
}

// A pod that no node could ever take is told why at once, however long
// StatusAfter is, as kube-scheduler writes the reason after its first failed
// attempt; a pod beside it that only waits for room is told nothing.
func TestNeverFitsIsWrittenAtOnce(t *testing.T) {
	e := newEnv(t, readyNode("a", "8", "16Gi", nil),
		mkPod("ns", "other", "7500m", scheduler("default-scheduler"), boundTo("a", v1.PodRunning)))
	o := e.options("fifo", "none")
	o.StatusAfter = time.Hour
	e.start(o)
	e.add(mkPod("ns", "huge", "16"))
	e.add(mkPod("ns", "waits", "1"))
	e.waitEvent("FailedScheduling", "it fits no node: 0/1 nodes are available: 1 Insufficient cpu.")
	e.waitFor("PodScheduled=False on huge", func() bool {
		for _, c := range e.pod("ns/huge").Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && strings.Contains(c.Message, "fits no node") {
				return true
			}
		}
		return false
	})
	e.staysUnbound("ns/waits")
	if n := e.patchesOf("ns/waits"); n != 0 {
		t.Errorf("%d status patches for a pod that only waits for room, before StatusAfter", n)
	}
	for _, ev := range e.drainEvents() {
		if strings.Contains(ev, "FailedScheduling") && !strings.Contains(ev, "fits no node") {
			t.Errorf("event for a pod that only waits: %s", ev)
		}
	}
}
