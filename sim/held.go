package sim

import (
	"sort"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// heldSteps applies the node groups' external steps (nodes[].external, a
// recorded cluster's daemonsets and other schedulers' pods): at each step's
// time every node of its group holds the step's amount for other
// workloads. The excess of our containers over what is left is measured as
// unmet external demand, as for the cluster-wide curve.
type heldSteps struct {
	steps []heldStep // every group's steps, by time, then group
	next  int
	nodes [][]cluster.NodeID // by group
}

type heldStep struct {
	at    clock.Time
	group int
	held  resource.Vector
}

// newHeld builds the steps of c's node groups over its n nodes (numbered
// group by group, in order).
func newHeld(c *workload.Cluster, n int) *external {
	h := &heldSteps{nodes: make([][]cluster.NodeID, len(c.Nodes))}
	id := 0
	for g, ng := range c.Nodes {
		for range ng.Count {
			h.nodes[g] = append(h.nodes[g], cluster.NodeID(id))
			id++
		}
		for _, st := range ng.External {
			h.steps = append(h.steps, heldStep{at: clock.Time(st.At), group: g, held: st.Held})
		}
	}
	sort.SliceStable(h.steps, func(a, b int) bool { return h.steps[a].at < h.steps[b].at })
	return &external{held: h, over: make([]resource.Vector, n)}
}

// applyHeld applies the steps due now and queues the next.
func (s *simulator) applyHeld() {
	x, h := s.ext, s.ext.held
	for h.next < len(h.steps) && h.steps[h.next].at <= s.now {
		st := &h.steps[h.next]
		h.next++
		if err := s.core.SetHeld(s.now, h.nodes[st.group], st.held); err != nil {
			s.err = err
			return
		}
		for _, id := range h.nodes[st.group] {
			x.touch(s.now, s.cl.Node(id))
		}
		x.changedAt, x.ticks = s.now, 0
	}
	if h.next < len(h.steps) {
		s.q.push(h.steps[h.next].at, evLoad, 0, nil)
	}
}
