package autoadmin

import (
	"fmt"
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

// pool is the nodes one placement class may use.
type pool struct {
	key   string // "" when the class may use every node
	nodes []cluster.NodeID
	size  resource.Vector // their capacity
}

// poolOf returns the nodes job j's AM may use, by its placement class,
// cached until the cluster changes; a zero pool (key "") when it may use
// every node that takes containers.
func (c *Controller) poolOf(j *sched.Job) *pool {
	a := j.Asks()[0]
	if !a.Constrained() {
		return &everyNode
	}
	key := a.Class()
	if key == "" {
		key = "\x00" // constrained by untolerated taints alone
	}
	if p, ok := c.pools[key]; ok {
		return p
	}
	cl := c.v.Cluster()
	p := &pool{key: key}
	every := true
	for i := range cl.NumNodes() {
		n := cl.Node(cluster.NodeID(i))
		if !n.Schedulable() {
			continue
		}
		if a.EligibleOn(n) {
			p.nodes = append(p.nodes, n.ID())
			p.size = p.size.Add(n.Capacity())
		} else {
			every = false
		}
	}
	if every {
		p = &everyNode
	}
	if c.pools == nil {
		c.pools = map[string]*pool{}
	}
	c.pools[key] = p
	c.poolAsk[key] = a
	return p
}

var everyNode = pool{}

// poolNodes lists the nodes of the pool with key key, for the guard; the
// pool is derived again from a job of it once the cluster has changed.
func (c *Controller) poolNodes(key string) []cluster.NodeID {
	if p, ok := c.pools[key]; ok {
		return p.nodes
	}
	a, ok := c.poolAsk[key]
	if !ok {
		return nil
	}
	cl := c.v.Cluster()
	var nodes []cluster.NodeID
	for i := range cl.NumNodes() {
		if n := cl.Node(cluster.NodeID(i)); n.Schedulable() && a.EligibleOn(n) {
			nodes = append(nodes, n.ID())
		}
	}
	return nodes
}

// ClusterChanged forgets the pools: a node joined, left, changed size or
// schedulability, or now meets other constraints.
func (c *Controller) ClusterChanged(*cluster.Node) { clear(c.pools) }

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
