package sched

import (
	"fmt"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// Check verifies the core's invariants: no node over capacity, totals that
// add up across nodes, jobs and queues, pending counts that match the asks,
// and (with Config.Debug) every live container in a legal state with its
// transition times in lifecycle order. Tests call it after every event.
func (c *Core) Check() error {
	if c.err != nil {
		return c.err
	}
	if err := c.cl.Check(); err != nil {
		return err
	}
	var jobs, am resource.Vector
	queueUse := make([]resource.Vector, len(c.tree.queues))
	pending, active := 0, 0
	for _, j := range c.jobs {
		p := 0
		for i := range j.asks {
			if j.asks[i].Pending < 0 {
				return fmt.Errorf("job %s: ask %d has negative pending %d", j.key, i-1, j.asks[i].Pending)
			}
			p += j.asks[i].Pending
		}
		if p != j.pending {
			return fmt.Errorf("job %s: pending %d, asks sum to %d", j.key, j.pending, p)
		}
		if j.usage.AnyNegative() || j.live < 0 {
			return fmt.Errorf("job %s: negative usage %v or live count %d", j.key, j.usage, j.live)
		}
		for k := range j.progress {
			pr := &j.progress[k]
			n := pr.allocated
			if !j.spec.Open {
				n = int32(j.spec.Phases[k].Tasks)
			}
			if pr.allocated > n || pr.completedRM > pr.allocated || pr.completedAM > pr.completedRM || pr.running < 0 || (j.retry != nil && len(j.retry[k]) > int(pr.allocated)) {
				return fmt.Errorf("job %s phase %d: inconsistent progress %+v for %d tasks", j.key, k, *pr, n)
			}
		}
		if err := c.checkAsks(j); err != nil {
			return err
		}
		if j.state == Finished && j.pending != 0 {
			return fmt.Errorf("job %s finished with %d containers pending", j.key, j.pending)
		}
		if j.state == Admitted || j.state == Active {
			active++
		}
		pending += p
		jobs = jobs.Add(j.usage)
		for q := j.queue; q.parent != nil; q = q.parent {
			queueUse[q.index] = queueUse[q.index].Add(j.usage)
		}
		if j.am != nil {
			am = am.Add(j.am.req)
		}
	}
	if pending != c.pending {
		return fmt.Errorf("core pending %d, jobs sum to %d", c.pending, pending)
	}
	if active != c.active {
		return fmt.Errorf("core counts %d active jobs, jobs say %d", c.active, active)
	}
	if jobs != c.cl.Allocated() {
		return fmt.Errorf("jobs hold %v, cluster says %v allocated", jobs, c.cl.Allocated())
	}
	if am != c.cl.AMAllocated() {
		return fmt.Errorf("AM containers hold %v, cluster says %v", am, c.cl.AMAllocated())
	}
	for i, q := range c.tree.queues {
		if q.usage != queueUse[i] {
			return fmt.Errorf("queue %s: usage %v, its jobs hold %v", q.spec.Name, q.usage, queueUse[i])
		}
	}
	if r := c.tree.root; r.usage != jobs || r.active != c.active {
		return fmt.Errorf("root queue: usage %v and %d active jobs, jobs hold %v in %d", r.usage, r.active, jobs, c.active)
	}
	if err := c.checkNodes(); err != nil {
		return err
	}
	if c.pre != nil {
		return c.pre.check()
	}
	return nil
}

// checkAsks verifies that job j's asks are allocatable only in the state
// that allows them, and that an Open job's request keys match its counts.
func (c *Core) checkAsks(j *Job) error {
	for i := range j.asks {
		a := &j.asks[i]
		if a.held < 0 {
			return fmt.Errorf("job %s ask %d: negative held %d", j.key, i-1, a.held)
		}
		if a.Pending > 0 && !allocatable(a) {
			return fmt.Errorf("job %s ask %d: %d pending while the job is %v", j.key, i-1, a.Pending, j.state)
		}
		if a.held > 0 && allocatable(a) {
			return fmt.Errorf("job %s ask %d: %d held while allocatable", j.key, i-1, a.held)
		}
		if j.spec.Open != (a.lv != nil) && (j.spec.Open || j.spec.Eligible == nil) {
			return fmt.Errorf("job %s ask %d: open %v but live request state %v", j.key, i-1, j.spec.Open, a.lv != nil)
		}
		if !j.spec.Open {
			if a.lv != nil && (len(a.lv.keys) > 0 || a.lv.unfit) {
				return fmt.Errorf("job %s ask %d: a simulated job's ask with request keys or held as fitting no node", j.key, i-1)
			}
			continue
		}
		if len(a.lv.keys) != a.Pending+a.held+a.marked {
			return fmt.Errorf("job %s ask %d: %d request keys for %d pending, %d held and %d earmarked", j.key, i-1, len(a.lv.keys), a.Pending, a.held, a.marked)
		}
		for _, k := range a.lv.keys {
			if c.asked[k] != j {
				return fmt.Errorf("job %s: request %q not indexed to it", j.key, k)
			}
		}
	}
	if j.state == Finished && j.am != nil && !j.spec.Open && j.am.state.Terminal() {
		return fmt.Errorf("job %s: finished holding an ended AM", j.key)
	}
	return nil
}

// checkNodes verifies every node's list of live containers: each is on the
// node it names, live, listed once (no container placed twice, no key
// placed twice), and, with the simulated jobs' containers (Config.Debug),
// they hold exactly what the node has allocated, so that every freed
// resource was given back.
func (c *Core) checkNodes() error {
	// With Config.Debug, one pass over every live container: each is in
	// a live state with its transition times in lifecycle order, names
	// the node it is on, and (for simulated jobs, which the per-node
	// lists below do not hold) adds to what its node holds.
	var simHeld, simAM []resource.Vector
	if c.live != nil {
		n := c.cl.NumNodes()
		if cap(c.checkHeld) < 2*n {
			c.checkHeld = make([]resource.Vector, 2*n)
		}
		c.checkHeld = c.checkHeld[:2*n]
		clear(c.checkHeld)
		simHeld, simAM = c.checkHeld[:n], c.checkHeld[n:]
		for ct := range c.live {
			if ct.state.Terminal() {
				return fmt.Errorf("%v is %v but still live", ct, ct.state)
			}
			if err := ct.checkTimes(); err != nil {
				return err
			}
			if ct.node != nil && ct.nodeID != ct.node.ID() {
				return fmt.Errorf("%v on %v names node %d", ct, ct.node, ct.nodeID)
			}
			if !ct.job.spec.Open && ct.state >= Allocated {
				id := ct.node.ID()
				simHeld[id] = simHeld[id].Add(ct.req)
				if ct.IsAM() {
					simAM[id] = simAM[id].Add(ct.req)
				}
			}
		}
	}
	for k, j := range c.asked {
		if !c.known(j) || j.state == Finished {
			return fmt.Errorf("request %q indexed to an unknown or finished job", k)
		}
	}
	if len(c.onNode) != c.cl.NumNodes() {
		return fmt.Errorf("%d container lists for %d nodes", len(c.onNode), c.cl.NumNodes())
	}
	keyed := 0
	for id := range c.onNode {
		n := c.cl.Node(cluster.NodeID(id))
		var sum, am resource.Vector
		var prev *Container
		for ct := c.onNode[id]; ct != nil; ct = ct.next {
			switch {
			case ct.node != n:
				return fmt.Errorf("%v listed on %v but placed on %v", ct, n, ct.node)
			case ct.nodeID != n.ID():
				return fmt.Errorf("%v listed on %v but names node %d", ct, n, ct.nodeID)
			case ct.prev != prev:
				return fmt.Errorf("%v: broken container list on %v", ct, n)
			case ct.job == nil || ct.state.Terminal() || ct.state < Allocated || !ct.job.spec.Open:
				return fmt.Errorf("%v listed on %v in state %v", ct, n, ct.state)
			}
			if ct.key != "" {
				if c.keyed[ct.key] != ct {
					return fmt.Errorf("%v: key %q not indexed to it", ct, ct.key)
				}
				keyed++
			}
			sum = sum.Add(ct.req)
			if ct.IsAM() {
				am = am.Add(ct.req)
			}
			prev = ct
		}
		if n.Removed() && c.onNode[id] != nil {
			return fmt.Errorf("%v removed with containers on it", n)
		}
		if simHeld == nil {
			continue // simulated jobs' containers are not tracked
		}
		sum, am = sum.Add(simHeld[n.ID()]), am.Add(simAM[n.ID()])
		if sum != n.Allocated() || am != n.AMAllocated() {
			return fmt.Errorf("%v: containers hold %v (AM %v), node says %v (AM %v)", n, sum, am, n.Allocated(), n.AMAllocated())
		}
	}
	if keyed != len(c.keyed) {
		return fmt.Errorf("%d keyed containers live, index holds %d", keyed, len(c.keyed))
	}
	return nil
}
