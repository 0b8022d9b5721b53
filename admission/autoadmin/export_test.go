package autoadmin

import (
	"fmt"
	"maps"
	"slices"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Verify recomputes from the current cluster and jobs, from scratch, every
// total the controller keeps incrementally as nodes change (ClusterChanged,
// updateNode), and returns the first that differs: C_R, each node's counted
// capacity, the node shapes and their per-dimension lists, the granularity,
// the RIC's records, every known pool, and the guard's per-node state. It
// walks every node; the controller never does (pools.go).
func Verify(c *Controller) error {
	cl := c.v.Cluster()
	nn := cl.NumNodes()

	// C_R, the counted capacity per node and the node shapes.
	var capacity resource.Vector
	want := map[resource.Vector]int{}
	var nodeGran resource.Vector
	for i := range nn {
		n := cl.Node(cluster.NodeID(i))
		var nc resource.Vector
		if n.Schedulable() {
			nc = n.Capacity()
		}
		if got := c.capAt(n.ID()); got != nc {
			return fmt.Errorf("%v: counted capacity %v, want %v", n, got, nc)
		}
		capacity = capacity.Add(nc)
		if !nc.IsZero() {
			want[nc]++
		}
		for d := range nodeGran {
			nodeGran[d] = gcd(nodeGran[d], nc[d])
		}
	}
	if len(c.nodeCap) > nn {
		return fmt.Errorf("%d nodes counted, the cluster has %d", len(c.nodeCap), nn)
	}
	if c.capacity != capacity {
		return fmt.Errorf("C_R %v, want %v", c.capacity, capacity)
	}
	got := map[resource.Vector]int{}
	for _, s := range c.shapes {
		if s.count <= 0 || got[s.capacity] != 0 {
			return fmt.Errorf("node shapes %v: a shape listed twice or with no node", c.shapes)
		}
		got[s.capacity] = s.count
	}
	if !maps.Equal(got, want) {
		return fmt.Errorf("node shapes %v, want %v", got, want)
	}
	for d := range c.nodeCaps {
		if len(c.nodeCaps[d]) != len(c.shapes) {
			return fmt.Errorf("dimension %d: %d shape capacities for %d shapes", d, len(c.nodeCaps[d]), len(c.shapes))
		}
		for k, s := range c.shapes {
			if c.nodeCaps[d][k] != [2]int64{s.capacity[d], int64(s.count)} {
				return fmt.Errorf("dimension %d: shape %d listed as %v, is %v", d, k, c.nodeCaps[d][k], s)
			}
		}
	}

	// The granularity: of the node capacities counted, and of every
	// request a job declared.
	if c.nodeGran != nodeGran {
		return fmt.Errorf("granularity of node capacities %v, want %v", c.nodeGran, nodeGran)
	}
	var reqGran resource.Vector
	for id := range c.v.NumJobs() {
		sp := c.v.Job(sched.JobID(id)).Spec()
		for d := range reqGran {
			reqGran[d] = gcd(reqGran[d], sp.AM[d])
			for _, p := range sp.Phases {
				reqGran[d] = gcd(reqGran[d], p.Request[d])
			}
		}
	}
	if c.reqGran != reqGran {
		return fmt.Errorf("granularity of requests %v, want %v", c.reqGran, reqGran)
	}

	// The RIC.
	var total Usage
	for i := range nn {
		n := cl.Node(cluster.NodeID(i))
		u := Usage{AMs: n.AMContainers(), Tasks: n.TaskContainers(),
			AMRes: n.AMAllocated(), TaskRes: n.Allocated().Sub(n.AMAllocated())}
		if i >= len(c.ric.nodes) {
			if u != (Usage{}) {
				return fmt.Errorf("%v: RIC has no record, node holds %+v", n, u)
			}
			continue
		}
		if c.ric.nodes[i] != u {
			return fmt.Errorf("%v: RIC records %+v, node holds %+v", n, c.ric.nodes[i], u)
		}
		total = total.add(u)
	}
	if c.ric.total != total {
		return fmt.Errorf("RIC total %+v, want %+v", c.ric.total, total)
	}

	// Every pool.
	if len(c.pools) != len(c.poolList) {
		return fmt.Errorf("%d pools by class, %d listed", len(c.pools), len(c.poolList))
	}
	for _, p := range c.poolList {
		if c.pools[p.key] != p {
			return fmt.Errorf("pool %q is listed but not found by its class", p.key)
		}
		var nodes []cluster.NodeID
		var size resource.Vector
		out := 0
		for i := range nn {
			n := cl.Node(cluster.NodeID(i))
			s := poolNone
			switch {
			case !n.Schedulable():
			case p.ask.EligibleOn(n):
				s = poolIn
				nodes = append(nodes, n.ID())
				size = size.Add(n.Capacity())
			default:
				s = poolOut
				out++
			}
			st := poolNone // a node the pool never saw
			if i < len(p.state) {
				st = p.state[i]
			}
			if st != s {
				return fmt.Errorf("pool %q: %v in state %d, want %d", p.key, n, st, s)
			}
		}
		if !slices.Equal(p.nodes, nodes) || p.size != size || p.out != out {
			return fmt.Errorf("pool %q: nodes %v size %v out %d, want nodes %v size %v out %d", p.key, p.nodes, p.size, p.out, nodes, size, out)
		}
	}

	// The guard's per-node state.
	if g := c.guard; g != nil {
		if len(g.usable) != nn || len(g.am) != nn {
			return fmt.Errorf("guard follows %d nodes, the cluster has %d", len(g.usable), nn)
		}
		groups := map[[2]resource.Vector]int{}
		for i := range nn {
			n := cl.Node(cluster.NodeID(i))
			am := n.AMAllocated()
			if c.held != nil {
				am = am.Add(c.held.at(n.ID()))
			}
			if u := g.usableOf(n); g.usable[i] != u || g.am[i] != am {
				return fmt.Errorf("guard: %v offers %v with %v held like AMs, want %v and %v", n, g.usable[i], g.am[i], u, am)
			}
			groups[[2]resource.Vector{g.usable[i], g.am[i]}]++
		}
		if !maps.Equal(g.groups, groups) {
			return fmt.Errorf("guard groups %v, want %v", g.groups, groups)
		}
	}
	return nil
}

// Pools returns how many placement classes' pools the controller follows.
func Pools(c *Controller) int { return len(c.poolList) }
