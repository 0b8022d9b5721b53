package sched

import (
	"fmt"

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
	queueUse := make([]resource.Vector, len(c.queues))
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
			n := int32(j.spec.Phases[k].Tasks)
			if pr.allocated > n || pr.completedRM > pr.allocated || pr.completedAM > pr.completedRM || pr.running < 0 {
				return fmt.Errorf("job %s phase %d: inconsistent progress %+v for %d tasks", j.key, k, *pr, n)
			}
		}
		if j.state == Finished && j.pending != 0 {
			return fmt.Errorf("job %s finished with %d containers pending", j.key, j.pending)
		}
		if j.state == Admitted || j.state == Active {
			active++
		}
		pending += p
		jobs = jobs.Add(j.usage)
		queueUse[j.queue.index] = queueUse[j.queue.index].Add(j.usage)
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
	for i, q := range c.queues {
		if q.usage != queueUse[i] {
			return fmt.Errorf("queue %s: usage %v, its jobs hold %v", q.spec.Name, q.usage, queueUse[i])
		}
	}
	for ct := range c.live {
		if ct.state.Terminal() {
			return fmt.Errorf("%v is %v but still live", ct, ct.state)
		}
		if err := ct.checkTimes(); err != nil {
			return err
		}
	}
	return nil
}
