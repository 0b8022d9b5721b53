package sched_test

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/policy/fair"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

// reservingFair fills a node in one update (assign_multiple), so that the
// tests see the core's reservation mechanics, not Fair's one container per
// heartbeat.
func reservingFair(v *sched.View) (sched.Policy, error) {
	return fair.New(v, fair.Config{Mode: fair.DRF, MaxAMShare: -1, Reserve: true, AssignMultiple: true}), nil
}

func oneTask(key string, req resource.Vector) sched.JobSpec {
	return sched.JobSpec{Key: key, Queue: "default", Phases: []sched.PhaseSpec{{Tasks: 1, Request: req, StartAfter: 1}}}
}

// A node too small for the first job's request is held for it: the smaller
// request behind it may not use the node, and when enough frees the reserved
// container is allocated, with its RESERVED time kept.
func TestReservationHoldsNodeThenAllocates(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(4, 4096)}, Policy: reservingFair})
	a := h.Submit(oneTask("a", resource.New(3, 1024)))
	held := h.Place(a, 0, 0)
	b := h.Submit(oneTask("b", resource.New(2, 1024)))
	c := h.Submit(oneTask("c", resource.New(1, 1024)))

	h.Now = 10
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if got := b.Asks()[1].Reserved(); got != 1 {
		t.Fatalf("b reserved on %d nodes, want 1", got)
	}
	if c.LiveContainers() != 0 || h.Node(0).Free() != resource.New(1, 3072) {
		t.Fatalf("the reserved node went to c: c has %d containers, node free %v", c.LiveContainers(), h.Node(0).Free())
	}

	h.Now = 20
	h.Complete(held)
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if b.LiveContainers() != 1 || b.Asks()[1].Reserved() != 0 {
		t.Fatalf("after a frees: b has %d containers, %d reservations", b.LiveContainers(), b.Asks()[1].Reserved())
	}
	h.Core.AMHeartbeat(h.Now, b)
	var bc *sched.Container
	for _, x := range h.Launched {
		if x.Job() == b {
			bc = x
		}
	}
	if r, _ := bc.Time(sched.Reserved); r != 10 {
		t.Errorf("RESERVED at %v, want 10", r)
	}
	if al, _ := bc.Time(sched.Allocated); al != 20 {
		t.Errorf("ALLOCATED at %v, want 20", al)
	}
	if c.LiveContainers() != 1 {
		t.Errorf("c should take the space left once the reservation is served, has %d", c.LiveContainers())
	}
}

// A reservation whose request was satisfied on another node is cancelled
// (KILLED) on the next update of the reserved node, which is then free for
// others.
func TestReservationCancelled(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(4, 4096), resource.New(4, 4096)}, Policy: reservingFair})
	filler := h.Submit(sched.JobSpec{Key: "filler", Queue: "default", Phases: []sched.PhaseSpec{{Tasks: 2, Request: resource.New(3, 1024), StartAfter: 1}}})
	f0 := h.Place(filler, 0, 0)
	f1 := h.Place(filler, 0, 1)
	b := h.Submit(oneTask("b", resource.New(2, 1024)))
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if b.Asks()[1].Reserved() != 1 {
		t.Fatal("b should hold node 0")
	}
	// Node 1 frees first: b is allocated there.
	h.Complete(f1)
	h.Core.NodeUpdate(h.Now, h.Node(1))
	if b.LiveContainers() != 1 {
		t.Fatalf("b should run on node 1, has %d containers", b.LiveContainers())
	}
	// Node 0's reservation is now pointless and goes on its next update.
	d := h.Submit(oneTask("d", resource.New(1, 1024)))
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if b.Asks()[1].Reserved() != 0 || d.LiveContainers() != 1 {
		t.Fatalf("reservation not cancelled: %d left, d has %d containers", b.Asks()[1].Reserved(), d.LiveContainers())
	}
	_ = f0
	if err := h.Core.Check(); err != nil {
		t.Fatal(err)
	}
}

// A reservation that has held its node for the timeout without fitting is
// cancelled at the node's next update; for another timeout the same request
// may not reserve that node again, so the smaller request behind it gets the
// room; after that it may. Node <4 vcores>, a holds 3, b asks 2 (reserves at
// 10 s), c asks 1; timeout 30 s.
func TestReservationExpires(t *testing.T) {
	const timeout = 30 * clock.Second
	pol := func(v *sched.View) (sched.Policy, error) {
		return fair.New(v, fair.Config{Mode: fair.DRF, MaxAMShare: -1, Reserve: true, ReserveTimeout: timeout, AssignMultiple: true}), nil
	}
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(4, 4096)}, Policy: pol})
	a := h.Submit(oneTask("a", resource.New(3, 1024)))
	h.Place(a, 0, 0)
	b := h.Submit(oneTask("b", resource.New(2, 1024)))
	c := h.Submit(oneTask("c", resource.New(1, 1024)))
	sec := func(s int) clock.Time { return clock.Time(s) * clock.Time(clock.Second) }
	for _, step := range []struct {
		at          clock.Time
		reserved    int  // b's reservations after the update
		cRuns       bool // c holds a container
		deadline    clock.Time
		deadlineFor clock.Time // ReservationDeadline(since)
	}{
		{at: sec(10), reserved: 1, deadline: sec(40), deadlineFor: sec(10)},
		// Held 29 s: still held, c still kept off.
		{at: sec(39), reserved: 1, deadline: sec(40), deadlineFor: sec(39)},
		// A reservation made after the quiet stretch began does not
		// extend a stall detector's wait.
		{at: sec(39), reserved: 1, deadline: clock.Never, deadlineFor: sec(9)},
		// Held 30 s: expired; b may not reserve the node again until 70 s,
		// so c takes the free vcore.
		{at: sec(40), reserved: 0, cRuns: true, deadline: clock.Never, deadlineFor: sec(40)},
	} {
		h.Now = step.at
		h.Core.NodeUpdate(h.Now, h.Node(0))
		if got := b.Asks()[1].Reserved(); got != step.reserved {
			t.Fatalf("at %v: b reserved on %d nodes, want %d", step.at, got, step.reserved)
		}
		if got := c.LiveContainers() > 0; got != step.cRuns {
			t.Fatalf("at %v: c runs %v, want %v", step.at, got, step.cRuns)
		}
		if got := h.Core.ReservationDeadline(step.deadlineFor); got != step.deadline {
			t.Errorf("at %v: ReservationDeadline(%v) = %v, want %v", step.at, step.deadlineFor, got, step.deadline)
		}
	}
	if h.Core.View().MayReserve(&b.Asks()[1], h.Node(0)) {
		t.Error("b may reserve the node again at once")
	}
	// Past the cool-down b, first in line, reserves the node again.
	h.Now = sec(70)
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if got := b.Asks()[1].Reserved(); got != 1 {
		t.Errorf("after the cool-down b reserved on %d nodes, want 1", got)
	}
	if !h.Core.ReservationsExpire() {
		t.Error("ReservationsExpire false with a timeout")
	}
	if err := h.Core.Check(); err != nil {
		t.Fatal(err)
	}
}
