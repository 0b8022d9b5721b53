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
		hold     []resource.Vector // the asking job's tasks held like AMs
	}{
		{"two nodes, one AM shuts neither", []resource.Vector{v(4, 4096), v(4, 4096)}, 0, nil, nil, v(1, 1024), v(2, 1024), true, nil},
		{"one node, its own AM may take the task's room", []resource.Vector{v(4, 4096)}, 0, nil, nil, v(1, 1024), v(4, 1024), false, nil},
		// Memory binds: room 8192, task 2048, AM 2048: (8192-2048)/2048+1
		// = 4 AMs shut the node, while vcores would need 16.
		{"memory binds, 3 AMs in flight", []resource.Vector{v(16, 8192)}, 0, nil, []resource.Vector{v(1, 2048), v(1, 2048)}, v(1, 2048), v(1, 2048), true, nil},
		{"memory binds, 4 AMs in flight", []resource.Vector{v(16, 8192)}, 0, nil, []resource.Vector{v(1, 2048), v(1, 2048), v(1, 2048)}, v(1, 2048), v(1, 2048), false, nil},
		// Only the 16-vcore node fits an 8-vcore task: 9 AMs of 1 vcore
		// shut it, whatever the small nodes have in sum.
		{"fragmented, 8 AMs in flight", []resource.Vector{v(16, 65536), v(4, 16384), v(4, 16384), v(4, 16384)}, 0, nil,
			[]resource.Vector{v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1)}, v(1, 1), v(8, 1024), true, nil},
		{"fragmented, 9 AMs in flight", []resource.Vector{v(16, 65536), v(4, 16384), v(4, 16384), v(4, 16384)}, 0, nil,
			[]resource.Vector{v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1), v(1, 1)}, v(1, 1), v(8, 1024), false, nil},
		{"placed AMs count where they are", []resource.Vector{v(16, 65536), v(4, 16384)}, 0, map[int]resource.Vector{0: v(8, 8)}, nil, v(1, 1), v(8, 1024), false, nil},
		{"placed AMs elsewhere do not", []resource.Vector{v(16, 65536), v(4, 16384)}, 0, map[int]resource.Vector{1: v(4, 8)}, nil, v(1, 1), v(8, 1024), true, nil},
		// A sustained load of 0.5 leaves 8 of 16 vcores: one 1-vcore AM
		// shuts the node for an 8-vcore task.
		{"sustained external load", []resource.Vector{v(16, 65536)}, 0.5, nil, nil, v(1, 1), v(8, 1024), false, nil},
		{"a job without an AM shuts nothing", []resource.Vector{v(8, 8192)}, 0, nil, nil, resource.Vector{}, v(8, 8192), true, nil},
		{"a task no node fits", []resource.Vector{v(4, 4096)}, 0, nil, nil, resource.Vector{}, v(8, 1024), false, nil},
		// An 8-vcore node, an AM of 3 and 4-vcore maps: room 8 − 4 = 4
		// takes (4/3) + 1 = 2 held containers of at most 3 to shut. The AM
		// alone cannot; the AM and a reduce at slow-start (2 vcores, held
		// until the maps end) can.
		{"an AM alone", []resource.Vector{v(8, 8192)}, 0, nil, nil, v(3, 1024), v(4, 1024), true, nil},
		{"an AM and a held reduce", []resource.Vector{v(8, 8192)}, 0, nil, nil, v(3, 1024), v(4, 1024), false, []resource.Vector{v(2, 1024)}},
		{"a held reduce already in flight", []resource.Vector{v(8, 8192)}, 0, nil, []resource.Vector{v(2, 1024)}, v(3, 1024), v(4, 1024), false, nil},
	}
	for _, c := range cases {
		cl, _ := cluster.New(c.nodes)
		g := newGuard(cl, c.load, c.load > 0)
		for id, am := range c.placed {
			g.set(id, g.usable[id], am)
		}
		for _, am := range c.unplaced {
			g.admit(am, nil, nil, "")
		}
		if got := g.safe(c.am, []resource.Vector{c.task}, c.hold, ""); got != c.want {
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
		if !g.safe(v(1, 1), big, nil, "") {
			t.Fatal("refused before 9 AMs were in flight")
		}
		g.admit(v(1, 1), big, nil, "")
	}
	if g.safe(v(1, 1), nil, nil, "") {
		t.Fatal("a 9th AM in flight could shut the only node for the admitted jobs' 8-vcore tasks")
	}
	g.place(v(1, 1))
	g.set(1, g.usable[1], v(1, 1)) // landed on the small node
	if !g.safe(v(1, 1), nil, nil, "") {
		t.Fatal("with one AM placed on the small node, 8 in flight cannot shut the big one")
	}
	g.finish(big, "")
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
	if g.safe(v(1, 1), task, nil, "") {
		t.Fatal("an 8-vcore task fits no node yet")
	}
	big, err := led.AddNode("big", v(16, 65536))
	if err != nil {
		t.Fatal(err)
	}
	g.node(big, resource.Vector{})
	if !g.safe(v(1, 1), task, nil, "") {
		t.Fatal("the joined 16-vcore node fits the task beside one AM")
	}
	if err := led.SetHeld(big.ID(), v(8, 0)); err != nil {
		t.Fatal(err)
	}
	g.node(big, resource.Vector{})
	if g.safe(v(1, 1), task, nil, "") {
		t.Fatal("with 8 of 16 vcores held by others, one AM shuts the node for an 8-vcore task")
	}
	if err := led.SetHeld(big.ID(), resource.Vector{}); err != nil {
		t.Fatal(err)
	}
	if err := led.SetSchedulable(big.ID(), false); err != nil {
		t.Fatal(err)
	}
	g.node(big, resource.Vector{})
	if g.safe(v(1, 1), task, nil, "") {
		t.Fatal("a cordoned node offers nothing")
	}
}

// The size bound (hold_early): held containers in flight of different sizes
// shut a node only if those on it exceed its slack, room − task, in some
// resource; n containers of the largest size overstate them. Two nodes of
// <8 vcores, 8 GB>, tasks <1 vcore, 1 GB>: slack 7 vcores, 7 GB each.
func TestGuardSizeBound(t *testing.T) {
	v := resource.New
	am, reduce := v(4, 1024), v(1, 1024)
	cases := []struct {
		name     string
		inFlight []resource.Vector
		sizes    bool
		want     bool
	}{
		// Counted as 4 containers of 4 vcores: 2 shut a node, 4 shut both.
		{"AM and 3 reduces, count bound only", []resource.Vector{am, reduce, reduce, reduce}, false, false},
		// 7 vcores in all cannot exceed one node's slack of 7.
		{"AM and 3 reduces, size bound", []resource.Vector{am, reduce, reduce, reduce}, true, true},
		// 8 vcores can shut one node (4 + 4 > 7), not two.
		{"2 AMs, size bound", []resource.Vector{am, am}, true, true},
		// 16 vcores: 4 + 4 on each node shuts both.
		{"4 AMs, size bound", []resource.Vector{am, am, am, am}, true, false},
	}
	for _, c := range cases {
		cl, _ := cluster.New([]resource.Vector{v(8, 8192), v(8, 8192)})
		g := newGuard(cl, 0, false)
		g.sizes = c.sizes
		for _, x := range c.inFlight {
			g.admit(x, nil, nil, "")
		}
		if got := g.safe(resource.Vector{}, []resource.Vector{v(1, 1024)}, nil, ""); got != c.want {
			t.Errorf("%s: safe %v, want %v", c.name, got, c.want)
		}
	}
}

// A task shape of a job in a node pool must keep room on a node of its
// pool: on a 4-vcore node beside a 16-vcore one, a 2-vcore task is shut out
// of the small node by 3 AMs of 1 vcore, (4 − 2)/1 + 1, while the big node,
// which the pool excludes, would take it beside 14 more.
func TestGuardPools(t *testing.T) {
	v := resource.New
	cl, _ := cluster.New([]resource.Vector{v(4, 4096), v(16, 16384)})
	g := newGuard(cl, 0, false)
	g.poolNodes = func(class string) []cluster.NodeID {
		if class == "small" {
			return []cluster.NodeID{0}
		}
		return nil
	}
	task := []resource.Vector{v(2, 1024)}
	cases := []struct {
		name     string
		unplaced int
		pool     string
		want     bool
	}{
		{"pool, 2 AMs in flight with this one", 1, "small", true},
		{"pool, 3 AMs in flight with this one", 2, "small", false},
		{"any node, 3 AMs in flight", 2, "", true},
		{"a pool with no node", 0, "none", false},
	}
	for _, c := range cases {
		g := newGuard(cl, 0, false)
		g.poolNodes = func(class string) []cluster.NodeID {
			if class == "small" {
				return []cluster.NodeID{0}
			}
			return nil
		}
		for range c.unplaced {
			g.admit(v(1, 1), nil, nil, "")
		}
		if got := g.safe(v(1, 1), task, nil, c.pool); got != c.want {
			t.Errorf("%s: safe %v, want %v", c.name, got, c.want)
		}
	}
	// Admitted, the pool's shape is checked for every later job, pinned
	// or not.
	g.admit(v(1, 1), task, nil, "small")
	if !g.safe(v(1, 1), nil, nil, "") {
		t.Error("a second AM in flight cannot shut the small node for the pinned task")
	}
	g.admit(v(1, 1), nil, nil, "")
	if g.safe(v(1, 1), nil, nil, "") {
		t.Error("a third AM in flight could shut the small node, the pinned job's only one")
	}
	g.finish(task, "small")
	if len(g.pshapes) != 0 {
		t.Errorf("pool shapes %v after the pinned job finished", g.pshapes)
	}
}
