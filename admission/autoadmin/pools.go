package autoadmin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// A job may be allowed on some nodes only (a node pool: a node selector,
// required node affinity, taints it does not tolerate). Room on the others
// is no use to it: eight jobs pinned to one node of 8 vcores deadlock it
// whatever three 32-vcore nodes beside it hold. So a job whose AM may use
// some nodes only must also pass ARC's test on those nodes alone (C_R, the
// AMs there and R_R all counted on them), and the guard keeps each of its
// task shapes placeable on a node of its pool. A job that may use every
// node is tested as before, on the whole cluster.

// pool is the nodes one placement class may use. It follows the cluster
// incrementally (follow): each node's change moves it in or out of every
// known pool, so no event walks every node.
type pool struct {
	key   string // "" when the class may use every node
	ask   sched.Ask
	nodes []cluster.NodeID // in ID order
	size  resource.Vector  // their capacity
	// state is, per node, where it stands for this pool: not counted (it
	// takes no containers), in, or out (it takes containers but not this
	// class's); out counts the last. A pool with none out may use every
	// node that takes containers.
	state []uint8
	out   int
}

const (
	poolNone uint8 = iota
	poolIn
	poolOut
)

// poolOf returns the nodes job j's AM may use, by its placement class; a
// zero pool (key "") when it may use every node that takes containers.
// A class's pool is built by one walk over the nodes when first asked for,
// then follows the cluster's changes (ClusterChanged).
func (c *Controller) poolOf(j *sched.Job) *pool {
	a := j.Asks()[0]
	if !a.Constrained() {
		return &everyNode
	}
	key := a.Class()
	if key == "" {
		key = "\x00" // constrained by untolerated taints alone
	}
	p, ok := c.pools[key]
	if !ok {
		p = &pool{key: key, ask: a}
		cl := c.v.Cluster()
		for i := range cl.NumNodes() {
			n := cl.Node(cluster.NodeID(i))
			p.follow(n, c.capAt(n.ID()), c.capAt(n.ID()))
		}
		if c.pools == nil {
			c.pools = map[string]*pool{}
		}
		c.pools[key] = p
		c.poolList = append(c.poolList, p)
	}
	if p.out == 0 {
		return &everyNode
	}
	return p
}

var everyNode = pool{}

// follow moves node n in or out of the pool after a change: old is the
// capacity counted for it before, now after (zero while it takes no
// containers).
func (p *pool) follow(n *cluster.Node, old, now resource.Vector) {
	id := int(n.ID())
	for id >= len(p.state) {
		p.state = append(p.state, poolNone)
	}
	s := poolNone
	if n.Schedulable() {
		s = poolOut
		if p.ask.EligibleOn(n) {
			s = poolIn
		}
	}
	prev := p.state[id]
	if prev == s && (s != poolIn || old == now) {
		return
	}
	switch prev {
	case poolIn:
		p.size = p.size.Sub(old)
		if k, found := slices.BinarySearch(p.nodes, n.ID()); found {
			p.nodes = slices.Delete(p.nodes, k, k+1)
		}
	case poolOut:
		p.out--
	}
	switch s {
	case poolIn:
		p.size = p.size.Add(now)
		if k, found := slices.BinarySearch(p.nodes, n.ID()); !found {
			p.nodes = slices.Insert(p.nodes, k, n.ID())
		}
	case poolOut:
		p.out++
	}
	p.state[id] = s
}

// poolNodes lists the nodes of the pool with key key, for the guard.
func (c *Controller) poolNodes(key string) []cluster.NodeID {
	if p, ok := c.pools[key]; ok {
		return p.nodes
	}
	return nil
}

// capAt is the capacity counted for node id: its capacity while it takes
// containers, else zero.
func (c *Controller) capAt(id cluster.NodeID) resource.Vector {
	if int(id) < len(c.nodeCap) {
		return c.nodeCap[id]
	}
	return resource.Vector{}
}

// ClusterChanged follows a live cluster's node that joined, left, changed
// size or schedulability, or now meets other placement constraints (labels,
// taints): C_R and the node shapes count the nodes that take containers,
// and each known pool moves the node in or out. It touches that node
// alone: a change of what others hold on a node (a recorded cluster's
// external load, others' pods on a live node) changes neither and costs
// one comparison per pool, but the guard hears of it at once, since it
// plans without a load curve around what others hold now, and an
// admission may be decided before the node's next heartbeat.
func (c *Controller) ClusterChanged(n *cluster.Node) {
	id := int(n.ID())
	for id >= len(c.nodeCap) {
		c.nodeCap = append(c.nodeCap, resource.Vector{})
	}
	old := c.nodeCap[id]
	var now resource.Vector
	if n.Schedulable() {
		now = n.Capacity()
	}
	for _, p := range c.poolList {
		p.follow(n, old, now)
	}
	if now == old {
		c.guardNode(n)
		return
	}
	c.nodeCap[id] = now
	c.capacity = c.capacity.Sub(old).Add(now)
	c.reshape(old, -1)
	c.reshape(now, 1)
	c.updateNode(n)
	c.note()
}

// poolTest is ARC's test on the nodes of pool p alone: C_R is their
// capacity, TotalAMC_R the AMs placed on them plus every admitted AM not
// yet placed (it may land there), and R_R is RRP's prediction for that
// capacity, from the cluster's average AM and task sizes. It returns, per
// configured dimension that fails, what is left after the AMs there, and
// R_R.
func (c *Controller) poolTest(p *pool, am resource.Vector) (left, reserve resource.Vector, ok bool) {
	cl := c.v.Cluster()
	var held resource.Vector
	for _, id := range p.nodes {
		held = held.Add(cl.Node(id).AMAllocated())
	}
	held = held.Add(c.amHeld.Sub(cl.AMAllocated()).Max(resource.Vector{}))
	u := c.ric.Total()
	ok = true
	for _, d := range c.cfg.Dims {
		if p.size[d] <= 0 {
			continue
		}
		in := InputsFor(p.size, u, d)
		in.TotalAM = float64(held[d])
		if in.Known && c.cfg.Demand && c.demandJobs > 0 {
			in.AvgTC = float64(c.demandSum[d]) / float64(c.demandJobs)
		}
		if !in.Known && c.cfg.ColdStart && c.declN > 0 && c.declTC[d] > 0 {
			in.Known = true
			in.AvgAM = float64(c.declAM[d]) / float64(c.declN)
			in.AvgTC = float64(c.declTC[d]) / float64(c.declN)
		}
		reserve[d] = c.cfg.Predict(in, unitOf(d)).Value
		left[d] = p.size[d] - held[d]
		if left[d]-am[d] < reserve[d] {
			ok = false
		}
	}
	return left, reserve, ok
}

// poolReason says why job j fails ARC's test on its pool, "" when it
// passes.
func (c *Controller) poolReason(j *sched.Job) string {
	p := c.poolOf(j)
	if p.key == "" {
		return ""
	}
	am := j.Spec().AM
	left, reserve, ok := c.poolTest(p, am)
	if ok {
		return ""
	}
	var parts []string
	for _, d := range c.cfg.Dims {
		if p.size[d] > 0 && left[d]-am[d] < reserve[d] {
			parts = append(parts, fmt.Sprintf("%s %s left after admitted AMs, AM needs %s, reserve R_R = %s for tasks",
				d.Name(), amount(d, left[d]), amount(d, am[d]), amount(d, reserve[d])))
		}
	}
	return fmt.Sprintf("AutoAdmin on the %d of %d nodes this job may use: %s", len(p.nodes), c.v.Cluster().NumNodes(), strings.Join(parts, "; "))
}
