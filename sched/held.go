package sched

import (
	"fmt"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// SetHeld records that other workloads now hold held of each of nodes: the
// form of SetNodeExternal for many nodes at once, with which the simulator
// applies a recorded cluster's per-group external load. The driver hears
// once (AcceptLowered), and nodes are reconsidered once when any of them
// may now take more; a change of what others hold counts as progress, as
// SetNodeExternal's does.
func (c *Core) SetHeld(now clock.Time, nodes []cluster.NodeID, held resource.Vector) error {
	c.enter("SetHeld")
	c.advance(now)
	changed, more := false, false
	for _, id := range nodes {
		node, err := c.node(id)
		if err != nil {
			return fmt.Errorf("set held: %w", err)
		}
		before := node.Usable()
		if err := c.ledger.SetHeld(id, held); err != nil {
			return err
		}
		if u := node.Usable(); u != before {
			changed = true
			more = more || !u.Fits(before)
			for _, o := range c.obs.cluster {
				o.ClusterChanged(node)
			}
		}
	}
	if !changed {
		return nil
	}
	c.progress++
	c.driver.AcceptLowered()
	if more {
		c.retryAdmission()
		c.reconsider()
	}
	return nil
}
