package autoadmin

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// Each case is worked by hand: a node that fits the task beside its AMs is
// shut by the fewest AMs that bring its room below the task in some
// resource, (room − task)/AM + 1, and the worst placement shuts the
// cheapest nodes first.
func TestGuardSafe(t *testing.T) {
	v := resource.New
	cases := []struct {
		name     string
		nodes    []resource.Vector
		load     float64
		placed   map[int]resource.Vector // AMs already on nodes
		unplaced []resource.Vector       // admitted AMs not yet placed
		am, task resource.Vector         // the job asking
		want     bool
	}{
		{"two nodes, one AM shuts neither", []resource.Vector{v(4, 4096), v(4, 4096)}, 0, nil, nil, v(1, 1024), v(2, 1024), true},
		{"one node, its own AM may take the task's room", []resource.Vector{v(4, 4096)}, 0, nil, nil, v(1, 1024), v(4, 1024), false},
		// Memory binds: room 8192, task 2048, AM 2048: (8192-2048)/2048+1
		// = 4 AMs shut the node, while vcores would need 16.
		{"memory binds, 3 AMs in flight", []resource.Vector{v(16, 8192)}, 0, nil, []resource.Vector{v(1, 2048), v(1, 2048)}, v(1, 2048), v(1, 2048), true},
		{"memory binds, 4 AMs in flight", []resource.Vector{v(16, 8192)}, 0, nil, []resource.Vector{v(1, 2048), v(1, 2048), v(1, 2048)}, v(1, 2048), v(1, 2048), false},
		// Only the 16-vcore node fits an 8-vcore task: 9 AMs of 1 vcore
		// shut it, whatever the small nodes have in sum.
		{"fragmented, 8 AMs in flight", []resource.Vector{v(16, 65536), v(4, 16384), v(4, 16384), v(4, 16384)}, 0, nil,
			[]resource.Vector{v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1)}, v(1, 1), v(8, 1024), true},
		{"fragmented, 9 AMs in flight", []resource.Vector{v(16, 65536), v(4, 16384), v(4, 16384), v(4, 16384)}, 0, nil,
			[]resource.Vector{v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1)}, v(1, 1), v(8, 1024), false},
		{"placed AMs count where they are", []resource.Vector{v(16, 65536), v(4, 16384)}, 0, map[int]resource.Vector{0: v(8, 8)}, nil, v(1, 1), v(8, 1024), false},
		{"placed AMs elsewhere do not", []resource.Vector{v(16, 65536), v(4, 16384)}, 0, map[int]resource.Vector{1: v(4, 8)}, nil, v(1, 1), v(8, 1024), true},
		// A sustained load of 0.5 leaves 8 of 16 vcores: one 1-vcore AM
		// shuts the node for an 8-vcore task.
		{"sustained external load", []resource.Vector{v(16, 65536)}, 0.5, nil, nil, v(1, 1), v(8, 1024), false},
		{"a job without an AM shuts nothing", []resource.Vector{v(8, 8192)}, 0, nil, nil, resource.Vector{}, v(8, 8192), true},
		{"a task no node fits", []resource.Vector{v(4, 4096)}, 0, nil, nil, resource.Vector{}, v(8, 1024), false},
	}
	for _, c := range cases {
		cl, _ := cluster.New(c.nodes)
		g := newGuard(cl, c.load, c.load > 0)
		for id, am := range c.placed {
			g.set(id, g.usable[id], am)
		}
		for _, am := range c.unplaced {
			g.admit(am, nil)
		}
		if got := g.safe(c.am, []resource.Vector{c.task}); got != c.want {
			t.Errorf("%s: safe %v, want %v", c.name, got, c.want)
		}
	}
}

// An admitted job's shapes stay checked until it finishes; placing its AM
// moves it from the worst case to where it is.
func TestGuardFollowsJobs(t *testing.T) {
	v := resource.New
	cl, _ := cluster.New([]resource.Vector{v(16, 65536), v(4, 16384)})
	g := newGuard(cl, 0, false)
	big := []resource.Vector{v(8, 1024)}
	for range 8 {
		if !g.safe(v(1, 1), big) {
			t.Fatal("refused before 9 AMs were in flight")
		}
		g.admit(v(1, 1), big)
	}
	if g.safe(v(1, 1), nil) {
		t.Fatal("a 9th AM in flight could shut the only node for the admitted jobs' 8-vcore tasks")
	}
	g.place(v(1, 1))
	g.set(1, g.usable[1], v(1, 1)) // landed on the small node
	if !g.safe(v(1, 1), nil) {
		t.Fatal("with one AM placed on the small node, 8 in flight cannot shut the big one")
	}
	g.finish(big)
	if len(g.shapes) != 1 {
		t.Fatalf("shapes %v after one of 8 jobs finished", g.shapes)
	}
}

func TestSustainedLoad(t *testing.T) {
	mk := func(period clock.Duration, fr ...float64) *cluster.LoadCurve {
		var pts []cluster.LoadPoint
		for i, f := range fr {
			pts = append(pts, cluster.LoadPoint{At: clock.Duration(i) * clock.Second, Frac: f})
		}
		c, err := cluster.NewLoadCurve(pts, period)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct {
		curve *cluster.LoadCurve
		want  float64
	}{
		{nil, 0},
		{mk(0, 0.1, 0.9, 0.4), 0.4}, // holds its last value for ever
		{mk(10*clock.Second, 0.5, 0.2, 0.7), 0.2}, // comes back to its lowest knot every period
	} {
		if got := sustainedLoad(c.curve); got != c.want {
			t.Errorf("sustained %v, want %v", got, c.want)
		}
	}
}

// On a live cluster nodes join, are cordoned and have part of their
// capacity held by pods of other schedulers; the guard follows each node's
// record as its heartbeat refreshes it.
func TestGuardFollowsLiveNodes(t *testing.T) {
	v := resource.New
	cl, led := cluster.New([]resource.Vector{v(4, 16384)})
	g := newGuard(cl, 0, false)
	task := []resource.Vector{v(8, 1024)}
	if g.safe(v(1, 1), task) {
		t.Fatal("an 8-vcore task fits no node yet")
	}
	big, err := led.AddNode("big", v(16, 65536))
	if err != nil {
		t.Fatal(err)
	}
	g.node(big)
	if !g.safe(v(1, 1), task) {
		t.Fatal("the joined 16-vcore node fits the task beside one AM")
	}
	if err := led.SetHeld(big.ID(), v(8, 0)); err != nil {
		t.Fatal(err)
	}
	g.node(big)
	if g.safe(v(1, 1), task) {
		t.Fatal("with 8 of 16 vcores held by others, one AM shuts the node for an 8-vcore task")
	}
	if err := led.SetHeld(big.ID(), resource.Vector{}); err != nil {
		t.Fatal(err)
	}
	if err := led.SetSchedulable(big.ID(), false); err != nil {
		t.Fatal(err)
	}
	g.node(big)
	if g.safe(v(1, 1), task) {
		t.Fatal("a cordoned node offers nothing")
	}
}
