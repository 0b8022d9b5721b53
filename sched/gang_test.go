package sched_test

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// Gang admission on a live core, two 8-vcore nodes, step by step:
//
//  1. G (a gang of 2 × 8 vcores) is admitted at its second request: both
//     fit the two empty nodes together. It now owes both nodes.
//  2. H (the same) waits: the room is owed to G, though nothing is placed
//     yet; its reason says so, and L (1 vcore, no gang) is admitted past it.
//  3. G's two requests are withdrawn (its pods deleted) before they are
//     placed: the room is no longer owed, and H is admitted.
func TestGangOwedRoom(t *testing.T) {
	fc, err := fakecluster.New(fakecluster.Config{Nodes: []resource.Vector{big8, big8}, NodeNames: []string{"n1", "n2"}})
	must(t, err)
	gang := func(key string) *sched.Job {
		j, err := fc.Submit(sched.JobSpec{Key: key, Open: true, MinMembers: 2})
		must(t, err)
		return j
	}
	g := gang("g")
	must(t, fc.Ask("g", sched.Request{Key: "g-0", Resource: big8}))
	if g.State() != sched.Waiting {
		t.Fatalf("g is %v with 1 of its 2 members asked for; want waiting", g.State())
	}
	if why := fc.Core.WaitReason(g); !strings.Contains(why, "1 of its 2 members exist") {
		t.Errorf("g waits because %q", why)
	}
	must(t, fc.Ask("g", sched.Request{Key: "g-1", Resource: big8}))
	if g.State() == sched.Waiting {
		t.Fatalf("g still waits with both members asked for on two empty nodes")
	}
	h := gang("h")
	must(t, fc.Ask("h", sched.Request{Key: "h-0", Resource: big8}))
	must(t, fc.Ask("h", sched.Request{Key: "h-1", Resource: big8}))
	if h.State() != sched.Waiting {
		t.Fatalf("h is %v while g owes every node; want waiting", h.State())
	}
	if why := fc.Core.WaitReason(h); !strings.Contains(why, "do not fit the free room together now beside the room owed to 1 gang(s)") {
		t.Errorf("h waits because %q", why)
	}
	l, err := fc.Submit(sched.JobSpec{Key: "l", Open: true})
	must(t, err)
	must(t, fc.Ask("l", sched.Request{Key: "l-0", Resource: one}))
	if l.State() == sched.Waiting {
		t.Errorf("l waits behind gang h; a waiting gang must hold nobody back")
	}
	must(t, fc.Core.Cancel(fc.Now, g, "g-0"))
	must(t, fc.Core.Cancel(fc.Now, g, "g-1"))
	fc.Core.NodeUpdate(fc.Now, fc.Core.Cluster().Node(0)) // admission is retried on the next node update
	if h.State() == sched.Waiting {
		t.Fatalf("h still waits after g's members were withdrawn: %s", fc.Core.WaitReason(h))
	}
	settle(t, fc)
	if err := fc.Core.Check(); err != nil {
		t.Fatal(err)
	}
}

// A gang that can never fit says so, and a simulated one is refused at
// submission (its cluster never changes).
func TestGangNeverFits(t *testing.T) {
	fc, err := fakecluster.New(fakecluster.Config{Nodes: []resource.Vector{big8, big8}, NodeNames: []string{"n1", "n2"}})
	must(t, err)
	g, err := fc.Submit(sched.JobSpec{Key: "g", Open: true, MinMembers: 3})
	must(t, err)
	for _, k := range []string{"a", "b", "c"} {
		must(t, fc.Ask("g", sched.Request{Key: k, Resource: big8}))
	}
	if why := fc.Core.WaitReason(g); g.State() != sched.Waiting || !strings.Contains(why, "never fit the cluster together") {
		t.Errorf("g is %v: %q", g.State(), why)
	}
	_, err = fc.Submit(sched.JobSpec{Key: "s", MinMembers: 3, Phases: []sched.PhaseSpec{{Tasks: 3, Request: big8, StartAfter: 1}}})
	if err == nil || !strings.Contains(err.Error(), "never fit the cluster together") {
		t.Errorf("simulated gang that never fits: error %v", err)
	}
	_, err = fc.Submit(sched.JobSpec{Key: "t", MinMembers: 4, Phases: []sched.PhaseSpec{{Tasks: 3, Request: one, StartAfter: 1}}})
	if err == nil || !strings.Contains(err.Error(), "min_members 4 is more than its AM and first phase's tasks (3)") {
		t.Errorf("min_members above the tasks: error %v", err)
	}
}

// The gang timeout, step by step on three 8-vcore nodes (as
// testdata/gang-timeout.txt): gang g (driver and one executor, 8 vcores
// each) is admitted and its driver placed but not started; job l takes n2;
// g still owes n3 for its executor, so gang h (4 vcores) waits. After
// `after`, h is admitted exactly when g's timeout (the core's, or g's own)
// has passed, and then g waits with its reason; it is owed room again,
// and its executor placed, once l ends.
func TestGangTimeout(t *testing.T) {
	for _, tc := range []struct {
		name           string
		core, own      clock.Duration
		after          clock.Duration
		wantReleased   bool
		wantReasonPart string
	}{
		{name: "default 60s, not yet", after: 59 * clock.Second},
		{name: "default 60s, passed", after: 60 * clock.Second, wantReleased: true, wantReasonPart: "within its timeout (1m0s)"},
		{name: "core 10s, passed", core: 10 * clock.Second, after: 10 * clock.Second, wantReleased: true, wantReasonPart: "within its timeout (10s)"},
		{name: "own 5s beats core 10s", core: 10 * clock.Second, own: 5 * clock.Second, after: 5 * clock.Second, wantReleased: true, wantReasonPart: "within its timeout (5s)"},
		{name: "own 5s, not yet", own: 5 * clock.Second, after: 4 * clock.Second},
		{name: "never", core: -1, after: 24 * 60 * clock.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc, err := fakecluster.New(fakecluster.Config{Nodes: []resource.Vector{big8, big8, big8}, NodeNames: []string{"n1", "n2", "n3"}, GangTimeout: tc.core})
			must(t, err)
			g, err := fc.Submit(sched.JobSpec{Key: "g", Open: true, AM: big8, MinMembers: 2, GangTimeout: tc.own})
			must(t, err)
			must(t, fc.Ask("g", sched.Request{Key: "d", Resource: big8, AM: true}))
			must(t, fc.Ask("g", sched.Request{Key: "e1", Resource: big8}))
			settle(t, fc)
			_, err = fc.Submit(sched.JobSpec{Key: "l", Open: true})
			must(t, err)
			must(t, fc.Ask("l", sched.Request{Key: "l0", Resource: big8}))
			settle(t, fc)
			must(t, fc.Run("l0"))
			h, err := fc.Submit(sched.JobSpec{Key: "h", Open: true, MinMembers: 1})
			must(t, err)
			must(t, fc.Ask("h", sched.Request{Key: "h0", Resource: resource.New(4, 1024)}))
			if h.State() != sched.Waiting {
				t.Fatalf("h is %v while g owes n3; want waiting", h.State())
			}
			fc.Now = fc.Now.Add(tc.after)
			if next := fc.Core.NextTick(fc.Now - 1); next <= fc.Now {
				fc.Core.Tick(next)
			}
			settle(t, fc)
			released := h.State() != sched.Waiting
			if released != tc.wantReleased {
				t.Fatalf("after %v: h admitted %v, want %v (h: %s)", tc.after, released, tc.wantReleased, fc.Core.WaitReason(h))
			}
			why := fc.Core.WaitReason(g)
			if tc.wantReleased != strings.Contains(why, "the room held for them is released") || !strings.Contains(why, tc.wantReasonPart) {
				t.Errorf("g: %q", why)
			}
			if got, want := g.GangTimeouts(), map[bool]int{false: 0, true: 1}[tc.wantReleased]; got != want {
				t.Errorf("g timed out %d times, want %d", got, want)
			}
			must(t, fc.Run("d"))
			settle(t, fc)
			if tc.wantReleased && g.Pending() != 0 {
				t.Errorf("g's executor is pending while its room is released")
			}
			must(t, fc.End("l0", sched.Completed))
			settle(t, fc)
			if g.Pending() != 0 || fc.Core.GangReleasedReason(g) != "" {
				t.Errorf("after l ended, g still waits: %s", fc.Core.WaitReason(g))
			}
			if err := fc.Core.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A gang's minimum resources (Volcano's minResources, YuniKorn's task
// groups' minResource × minMember) on two 8-vcore nodes, one of them full
// of job x's 8 vcores: the gang of one 1-vcore pod is admitted only when
// the free room (8) holds its minimum, and told at once when the two
// nodes together (16) never could.
func TestGangMinResources(t *testing.T) {
	for _, tc := range []struct {
		name      string
		min       resource.Vector
		admitted  bool
		neverFits bool
		why       string
	}{
		{name: "fits the free room", min: resource.New(8, 1024), admitted: true},
		{name: "exceeds the free room", min: resource.New(9, 1024), why: "its minimum resources <9 vcores, 1024 MiB> exceed the free room (<8 vcores, 8192 MiB>); it holds nobody back"},
		{name: "exceeds all nodes", min: resource.New(17, 1024), neverFits: true, why: "exceed what all nodes hold together"},
		{name: "none", admitted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc, err := fakecluster.New(fakecluster.Config{Nodes: []resource.Vector{big8, big8}, NodeNames: []string{"n1", "n2"}})
			must(t, err)
			_, err = fc.Submit(sched.JobSpec{Key: "x", Open: true})
			must(t, err)
			must(t, fc.Ask("x", sched.Request{Key: "x0", Resource: big8}))
			settle(t, fc)
			g, err := fc.Submit(sched.JobSpec{Key: "g", Open: true, MinMembers: 1, MinResources: tc.min})
			must(t, err)
			must(t, fc.Ask("g", sched.Request{Key: "g0", Resource: one}))
			settle(t, fc)
			if got := g.State() != sched.Waiting; got != tc.admitted {
				t.Fatalf("g admitted %v, want %v: %s", got, tc.admitted, fc.Core.WaitReason(g))
			}
			if got := fc.Core.GangNeverFits(g); got != tc.neverFits {
				t.Errorf("GangNeverFits %v, want %v", got, tc.neverFits)
			}
			if why := fc.Core.WaitReason(g); !tc.admitted && !strings.Contains(why, tc.why) {
				t.Errorf("g waits because %q, want it to say %q", why, tc.why)
			}
			// A job behind it is not held back.
			l, err := fc.Submit(sched.JobSpec{Key: "l", Open: true})
			must(t, err)
			must(t, fc.Ask("l", sched.Request{Key: "l0", Resource: one}))
			settle(t, fc)
			if l.State() == sched.Waiting {
				t.Errorf("l waits behind gang g")
			}
		})
	}
}
