// Package cluster holds the machines of a cluster and what is allocated on
// each. Everyone may read it; only the holder of its Ledger (the scheduling
// core) may change it, so that allocation state has exactly one owner.
package cluster

import (
	"fmt"

	"github.com/spindle-sched/spindle/resource"
)

// NodeID is a dense node index, 0..NumNodes-1.
type NodeID int32

// Node is one machine as the resource manager sees it.
type Node struct {
	id          NodeID
	capacity    resource.Vector
	allocated   resource.Vector
	amAllocated resource.Vector
	amCount     int32
	taskCount   int32
}

// ID returns the node's index.
func (n *Node) ID() NodeID { return n.id }

// Capacity returns what the node offers to containers.
func (n *Node) Capacity() resource.Vector { return n.capacity }

// Allocated returns what containers hold on the node.
func (n *Node) Allocated() resource.Vector { return n.allocated }

// Free returns capacity minus allocation.
func (n *Node) Free() resource.Vector { return n.capacity.Sub(n.allocated) }

// AMAllocated returns what ApplicationMaster containers hold on the node.
func (n *Node) AMAllocated() resource.Vector { return n.amAllocated }

// AMContainers returns the number of ApplicationMaster containers on the node.
func (n *Node) AMContainers() int { return int(n.amCount) }

// TaskContainers returns the number of task containers on the node.
func (n *Node) TaskContainers() int { return int(n.taskCount) }

// String names the node for messages.
func (n *Node) String() string { return fmt.Sprintf("node%d", n.id) }

// Cluster is the set of nodes and their totals.
type Cluster struct {
	nodes       []Node
	capacity    resource.Vector
	allocated   resource.Vector
	amAllocated resource.Vector
	largest     resource.Vector // component-wise maximum node capacity
}

// Ledger is the write side of a Cluster.
type Ledger struct{ c *Cluster }

// New builds a cluster with one node per capacity and returns it with the
// ledger that alone may change it.
func New(capacities []resource.Vector) (*Cluster, *Ledger) {
	c := &Cluster{nodes: make([]Node, len(capacities))}
	for i, cap := range capacities {
		c.nodes[i] = Node{id: NodeID(i), capacity: cap}
		c.capacity = c.capacity.Add(cap)
		c.largest = c.largest.Max(cap)
	}
	return c, &Ledger{c: c}
}

// NumNodes returns the number of nodes.
func (c *Cluster) NumNodes() int { return len(c.nodes) }

// Node returns the node with the given id.
func (c *Cluster) Node(id NodeID) *Node { return &c.nodes[id] }

// Capacity returns the total capacity.
func (c *Cluster) Capacity() resource.Vector { return c.capacity }

// Allocated returns the total allocation.
func (c *Cluster) Allocated() resource.Vector { return c.allocated }

// AMAllocated returns the total held by ApplicationMaster containers.
func (c *Cluster) AMAllocated() resource.Vector { return c.amAllocated }

// Free returns total capacity minus total allocation.
func (c *Cluster) Free() resource.Vector { return c.capacity.Sub(c.allocated) }

// Largest returns the component-wise maximum node capacity: a request that
// does not fit it fits no node.
func (c *Cluster) Largest() resource.Vector { return c.largest }

// Allocate places r on node id. It reports an error, and changes nothing,
// when r does not fit the node's free resources.
func (l *Ledger) Allocate(id NodeID, r resource.Vector, am bool) error {
	n := &l.c.nodes[id]
	if !r.Fits(n.Free()) {
		return fmt.Errorf("%v: %v does not fit free %v", n, r, n.Free())
	}
	n.allocated = n.allocated.Add(r)
	l.c.allocated = l.c.allocated.Add(r)
	if am {
		n.amAllocated = n.amAllocated.Add(r)
		l.c.amAllocated = l.c.amAllocated.Add(r)
		n.amCount++
	} else {
		n.taskCount++
	}
	return nil
}

// Release returns r, previously allocated on node id, to the node.
func (l *Ledger) Release(id NodeID, r resource.Vector, am bool) error {
	n := &l.c.nodes[id]
	if !r.Fits(n.allocated) {
		return fmt.Errorf("%v: releasing %v exceeds allocated %v", n, r, n.allocated)
	}
	n.allocated = n.allocated.Sub(r)
	l.c.allocated = l.c.allocated.Sub(r)
	if am {
		n.amAllocated = n.amAllocated.Sub(r)
		l.c.amAllocated = l.c.amAllocated.Sub(r)
		n.amCount--
	} else {
		n.taskCount--
	}
	return nil
}

// Check verifies that no node is over capacity or negative and that totals
// match the nodes. Tests call it after every event.
func (c *Cluster) Check() error {
	var alloc, am resource.Vector
	for i := range c.nodes {
		n := &c.nodes[i]
		if !n.allocated.Fits(n.capacity) {
			return fmt.Errorf("%v over capacity: allocated %v, capacity %v", n, n.allocated, n.capacity)
		}
		if n.allocated.AnyNegative() || n.amAllocated.AnyNegative() || n.amCount < 0 || n.taskCount < 0 {
			return fmt.Errorf("%v has negative allocation %v (AM %v, %d AMs, %d tasks)", n, n.allocated, n.amAllocated, n.amCount, n.taskCount)
		}
		if !n.amAllocated.Fits(n.allocated) {
			return fmt.Errorf("%v: AM allocation %v exceeds allocation %v", n, n.amAllocated, n.allocated)
		}
		alloc = alloc.Add(n.allocated)
		am = am.Add(n.amAllocated)
	}
	if alloc != c.allocated || am != c.amAllocated {
		return fmt.Errorf("cluster totals %v (AM %v) differ from the sum over nodes %v (AM %v)", c.allocated, c.amAllocated, alloc, am)
	}
	return nil
}
