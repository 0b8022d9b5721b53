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
	usable []resource.Vector // per node: capacity less the sustained load
	am     []resource.Vector // per node: what placed AMs hold
	groups map[[2]resource.Vector]int

	unplaced  map[resource.Vector]int // admitted AMs not yet allocated, by size
	unplacedN int
	shapes    map[resource.Vector]int // task requests of admitted, unfinished jobs: jobs asking each
	// pshapes are the task requests of jobs that may use some nodes only
	// (a node pool), by request and placement class: each must keep room
	// on a node of its own pool, which poolNodes lists.
	pshapes   map[poolShape]int
	poolNodes func(class string) []cluster.NodeID
	scratch   map[[2]resource.Vector]int

	// sizes adds a second bound on how many nodes the items in flight can
	// shut, from their total size (shapeSafe); it matters when they differ
	// in size, as AMs and held reduces do.
	sizes  bool
	kills  []kill    // scratch
	slacks []float64 // scratch

	// sustained is the load the guard plans around when the workload has
	// an external load curve; without one, a node's external load is what
	// the driver says others hold on it now (a live cluster's daemons and
	// other schedulers' pods), which changes only with that node.
	sustained float64
	curve     bool
}

// poolShape is a task request of a job that may use some nodes only.
type poolShape struct {
	t     resource.Vector
	class string
}

type kill struct {
	cost  int64 // unplaced AMs needed to shut one node of the group
	count int
}

func newGuard(cl *cluster.Cluster, sustained float64, curve bool) *guard {
	g := &guard{groups: map[[2]resource.Vector]int{}, unplaced: map[resource.Vector]int{}, shapes: map[resource.Vector]int{},
		pshapes: map[poolShape]int{}, scratch: map[[2]resource.Vector]int{}, sustained: sustained, curve: curve}
	for i := range cl.NumNodes() {
		g.grow(cl.Node(cluster.NodeID(i)))
	}
	return g
}

// usableOf is what node n offers the guard: nothing when it cannot take
// containers (cordoned, NotReady or gone), else its capacity less the
// sustained load, or without a load curve less what others hold on it now.
func (g *guard) usableOf(n *cluster.Node) resource.Vector {
	if !n.Schedulable() {
		return resource.Vector{}
	}
	if !g.curve {
		return n.Usable()
	}
	cp := n.Capacity()
	return cp.Sub(cluster.ExternalShare(cp, g.sustained))
}

// grow records nodes up to n, which joined after the guard was built.
func (g *guard) grow(n *cluster.Node) {
	for len(g.usable) <= int(n.ID()) {
		g.usable, g.am = append(g.usable, resource.Vector{}), append(g.am, resource.Vector{})
		g.groups[[2]resource.Vector{}]++
	}
	g.set(int(n.ID()), g.usableOf(n), g.am[n.ID()])
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

// node records what AMs (and tasks held like them) hold on node n now,
// and what n offers when its capacity, schedulability or held resources
// changed.
func (g *guard) node(n *cluster.Node, am resource.Vector) {
	if int(n.ID()) >= len(g.usable) {
		g.grow(n)
	}
	g.set(int(n.ID()), g.usableOf(n), am)
}

func (g *guard) set(id int, usable, am resource.Vector) {
	if g.am[id] == am && g.usable[id] == usable {
		return
	}
	old := [2]resource.Vector{g.usable[id], g.am[id]}
	if g.groups[old]--; g.groups[old] == 0 {
		delete(g.groups, old)
	}
	g.usable[id], g.am[id] = usable, am
	g.groups[[2]resource.Vector{usable, am}]++
}

// admit and place follow an AM, and any task held like one (hold), from
// admission to its allocation; finish drops a job's task shapes. pool is
// the placement class of a job that may use some nodes only, "" for one
// that may use any.
func (g *guard) admit(am resource.Vector, tasks, hold []resource.Vector, pool string) {
	if !am.IsZero() {
		g.unplaced[am]++
		g.unplacedN++
	}
	for _, h := range hold {
		if !h.IsZero() {
			g.unplaced[h]++
			g.unplacedN++
		}
	}
	for _, t := range tasks {
		if pool == "" {
			g.shapes[t]++
		} else {
			g.pshapes[poolShape{t, pool}]++
		}
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

func (g *guard) finish(tasks []resource.Vector, pool string) {
	for _, t := range tasks {
		if pool != "" {
			k := poolShape{t, pool}
			if g.pshapes[k]--; g.pshapes[k] <= 0 {
				delete(g.pshapes, k)
			}
			continue
		}
		if g.shapes[t]--; g.shapes[t] <= 0 {
			delete(g.shapes, t)
		}
	}
}

// safe reports whether admitting a job with AM am, task requests tasks and
// tasks held like AMs hold keeps every task shape placeable (see guard):
// a shape of a job that may use some nodes only (pool) on a node of its
// pool. Unplaced AMs are assumed to land wherever they shut the most,
// whatever their own constraints: the bound stays safe.
func (g *guard) safe(am resource.Vector, tasks, hold []resource.Vector, pool string) bool {
	n := g.unplacedN
	var big, sum resource.Vector
	for a, k := range g.unplaced {
		big = big.Max(a)
		sum = sum.Add(a.Mul(int64(k)))
	}
	for _, h := range append([]resource.Vector{am}, hold...) {
		if !h.IsZero() {
			n++
			big = big.Max(h)
			sum = sum.Add(h)
		}
	}
	for t := range g.shapes {
		if !g.shapeSafe(g.groups, t, n, big, sum) {
			return false
		}
	}
	for k := range g.pshapes {
		if !g.shapeSafe(g.poolGroups(k.class), k.t, n, big, sum) {
			return false
		}
	}
	for _, t := range tasks {
		switch {
		case pool == "" && g.shapes[t] == 0:
			if !g.shapeSafe(g.groups, t, n, big, sum) {
				return false
			}
		case pool != "" && g.pshapes[poolShape{t, pool}] == 0:
			if !g.shapeSafe(g.poolGroups(pool), t, n, big, sum) {
				return false
			}
		}
	}
	return true
}

// poolGroups returns the nodes of a pool grouped as groups holds them all,
// in scratch that the next call reuses.
func (g *guard) poolGroups(class string) map[[2]resource.Vector]int {
	clear(g.scratch)
	for _, id := range g.poolNodes(class) {
		if int(id) < len(g.usable) {
			g.scratch[[2]resource.Vector{g.usable[id], g.am[id]}]++
		}
	}
	return g.scratch
}

// shapeSafe reports whether n AMs of at most big each, sum in all, cannot
// shut every node of groups that fits a task t beside its placed AMs.
// Shutting a node takes the fewest AMs that bring its room below t in some
// resource; the worst placement shuts the cheapest nodes first. With sizes,
// a second bound: nodes shut through resource d hold more than their slack
// (room − t) in d, so the cheapest of them by slack have slacks summing
// below sum[d]; no placement shuts more nodes than the sum of those counts
// over resources, and the guard keeps the smaller of the two bounds.
func (g *guard) shapeSafe(groups map[[2]resource.Vector]int, t resource.Vector, n int, big, sum resource.Vector) bool {
	if g.sizes && g.sizeBound(groups, t, sum) {
		return true
	}
	g.kills = g.kills[:0]
	fits := 0
	for k, count := range groups {
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

// sizeBound reports whether the items in flight, sum in all, are too small
// in total to shut every node of groups that fits t (see shapeSafe).
func (g *guard) sizeBound(groups map[[2]resource.Vector]int, t, sum resource.Vector) bool {
	fits, shut := 0, 0
	for k, count := range groups {
		if t.Fits(k[0].Sub(k[1])) {
			fits += count
		}
	}
	if fits == 0 {
		return false
	}
	for d := range sum {
		if sum[d] <= 0 {
			continue
		}
		g.slacks = g.slacks[:0]
		for k, count := range groups {
			room := k[0].Sub(k[1])
			if !t.Fits(room) {
				continue
			}
			for range count {
				g.slacks = append(g.slacks, float64(room[d]-t[d]))
			}
		}
		slices.Sort(g.slacks)
		used := 0.0
		for _, sl := range g.slacks {
			if used+sl >= float64(sum[d]) {
				break
			}
			used += sl
			shut++
		}
	}
	return shut < fits
}

// heldTasks appends to buf[:0] one request per task of job j that may start
// before its previous phase completes: phases after the first with
// StartAfter below 1.
func heldTasks(buf []resource.Vector, j *sched.Job) []resource.Vector {
	out := buf[:0]
	for k, p := range j.Spec().Phases {
		if k > 0 && p.StartAfter < 1 {
			for range p.Tasks {
				out = append(out, p.Request)
			}
		}
	}
	return out
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
