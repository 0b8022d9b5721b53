package autoadmin

import (
	"slices"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// guard is the deadlock test the default controllers add to ARC's: a job is
// admitted only if, wherever the AMs of the admitted jobs not yet placed
// land, every task shape of the admitted, unfinished jobs (the new one
// included) still fits, in every resource at once, on some node beside the
// AMs placed there, with the node's capacity reduced by the external load's
// sustained level. Only AMs stay for long: tasks end, so a node that fits a
// task beside its AMs eventually runs one, and no admitted job can wait for
// ever. The AMs are placed by the policy, which admission does not control,
// so the test assumes the worst placement: each unplaced AM, as large as the
// largest unplaced in every resource, lands where it shuts the most nodes.
// Placements and releases of AMs and jobs ending only keep the test true, so
// what it admits stays safe until the next admission.
type guard struct {
	usable    []resource.Vector // per node: capacity less the sustained load
	sustained float64
	am        []resource.Vector // per node: what placed AMs hold
	groups    map[[2]resource.Vector]int

	unplaced  map[resource.Vector]int // admitted AMs not yet allocated, by size
	unplacedN int
	shapes    map[resource.Vector]int // task requests of admitted, unfinished jobs: jobs asking each

	kills []kill // scratch
}

type kill struct {
	cost  int64 // unplaced AMs needed to shut one node of the group
	count int
}

func newGuard(cl *cluster.Cluster, sustained float64) *guard {
	g := &guard{groups: map[[2]resource.Vector]int{}, unplaced: map[resource.Vector]int{}, shapes: map[resource.Vector]int{},
		sustained: sustained}
	n := cl.NumNodes()
	g.usable, g.am = make([]resource.Vector, n), make([]resource.Vector, n)
	for i := range n {
		cp := cl.Node(cluster.NodeID(i)).Capacity()
		g.usable[i] = cp.Sub(cluster.ExternalShare(cp, sustained))
		g.groups[[2]resource.Vector{g.usable[i], {}}]++
	}
	return g
}

// sustainedLoad is the load the machines always come back to: the lowest
// knot of a periodic curve, the last knot of one that does not repeat (it
// holds for ever after), nothing without a curve.
func sustainedLoad(c *cluster.LoadCurve) float64 {
	if c == nil {
		return 0
	}
	pts := c.Points()
	if c.Period() == 0 {
		return pts[len(pts)-1].Frac
	}
	low := pts[0].Frac
	for _, p := range pts {
		low = min(low, p.Frac)
	}
	return low
}

// sync makes node n's record current in what is usable: a node that joined
// a live cluster gets its record here, and one whose capacity changed has it
// updated. In a simulation neither happens and it changes nothing.
func (g *guard) sync(n *cluster.Node) {
	id := int(n.ID())
	for id >= len(g.am) {
		g.usable = append(g.usable, resource.Vector{})
		g.am = append(g.am, resource.Vector{})
		g.groups[[2]resource.Vector{}]++
	}
	cp := n.Capacity()
	if usable := cp.Sub(cluster.ExternalShare(cp, g.sustained)); usable != g.usable[id] {
		old := [2]resource.Vector{g.usable[id], g.am[id]}
		if g.groups[old]--; g.groups[old] == 0 {
			delete(g.groups, old)
		}
		g.usable[id] = usable
		g.groups[[2]resource.Vector{usable, g.am[id]}]++
	}
}

// node records what AMs hold on node id now.
func (g *guard) node(id int, am resource.Vector) {
	if g.am[id] == am {
		return
	}
	old := [2]resource.Vector{g.usable[id], g.am[id]}
	if g.groups[old]--; g.groups[old] == 0 {
		delete(g.groups, old)
	}
	g.am[id] = am
	g.groups[[2]resource.Vector{g.usable[id], am}]++
}

func (g *guard) admit(am resource.Vector, tasks []resource.Vector) {
	if !am.IsZero() {
		g.unplaced[am]++
		g.unplacedN++
	}
	for _, t := range tasks {
		g.shapes[t]++
	}
}

func (g *guard) place(am resource.Vector) {
	if g.unplaced[am] == 0 {
		return // allocated without being admitted by this controller
	}
	if g.unplaced[am]--; g.unplaced[am] == 0 {
		delete(g.unplaced, am)
	}
	g.unplacedN--
}

func (g *guard) finish(tasks []resource.Vector) {
	for _, t := range tasks {
		if g.shapes[t]--; g.shapes[t] <= 0 {
			delete(g.shapes, t)
		}
	}
}

// safe reports whether admitting a job with AM am and task requests tasks
// keeps every task shape placeable (see guard).
func (g *guard) safe(am resource.Vector, tasks []resource.Vector) bool {
	n := g.unplacedN
	var big resource.Vector
	for a := range g.unplaced {
		big = big.Max(a)
	}
	if !am.IsZero() {
		n++
		big = big.Max(am)
	}
	for t := range g.shapes {
		if !g.shapeSafe(t, n, big) {
			return false
		}
	}
	for _, t := range tasks {
		if g.shapes[t] == 0 && !g.shapeSafe(t, n, big) {
			return false
		}
	}
	return true
}

// shapeSafe reports whether n AMs of at most big each cannot shut every node
// that fits a task t beside its placed AMs. Shutting a node takes the fewest
// AMs that bring its room below t in some resource; the worst placement
// shuts the cheapest nodes first.
func (g *guard) shapeSafe(t resource.Vector, n int, big resource.Vector) bool {
	g.kills = g.kills[:0]
	fits := 0
	for k, count := range g.groups {
		room := k[0].Sub(k[1])
		if !t.Fits(room) {
			continue
		}
		fits += count
		cost := int64(-1)
		for d := range room {
			if big[d] > 0 {
				c := (room[d]-t[d])/big[d] + 1
				if cost < 0 || c < cost {
					cost = c
				}
			}
		}
		if cost < 0 {
			return true // no unplaced AM can take anything here
		}
		g.kills = append(g.kills, kill{cost, count})
	}
	if fits == 0 {
		return false
	}
	slices.SortFunc(g.kills, func(a, b kill) int {
		switch {
		case a.cost < b.cost:
			return -1
		case a.cost > b.cost:
			return 1
		}
		return 0
	})
	budget, shut := int64(n), 0
	for _, k := range g.kills {
		m := min(int64(k.count), budget/k.cost)
		shut += int(m)
		budget -= m * k.cost
		if m < int64(k.count) {
			break
		}
	}
	return shut < fits
}

// taskShapes appends a job's distinct task requests to buf[:0].
func taskShapes(buf []resource.Vector, j *sched.Job) []resource.Vector {
	out := buf[:0]
	for _, p := range j.Spec().Phases {
		if !slices.Contains(out, p.Request) {
			out = append(out, p.Request)
		}
	}
	return out
}
