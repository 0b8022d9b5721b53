// Package cluster holds the machines of a cluster, what is allocated on each,
// and how much of each other (non-YARN) workloads take: the external load of
// the Reverse-Adaptive paper, as a LoadCurve over time. Everyone may read it;
// only the holder of its Ledger (the scheduling core) may change it, so that
// allocation state has exactly one owner.
package cluster

import (
	"fmt"
	"math"

	"github.com/spindle-sched/spindle/resource"
)

// NodeID is a dense node index, 0..NumNodes-1. IDs are never reused: a
// removed node stays as a tombstone (Removed, zero capacity), so policies may
// keep per-node state in slices indexed by ID.
type NodeID int32

// Node is one machine as the resource manager sees it.
type Node struct {
	id       NodeID
	capacity resource.Vector
	// usable is what YARN may hold: the capacity less what other
	// (non-YARN) workloads use now. Containers that were placed before the
	// external load rose keep running, so allocated may exceed it. ceiling
	// is usable, raised to the allocation where that exceeds it, so that
	// Free, on the scheduler's hottest path, is one subtraction; over says
	// the two differ.
	usable      resource.Vector
	ceiling     resource.Vector
	over        bool
	allocated   resource.Vector
	amAllocated resource.Vector
	amCount     int32
	taskCount   int32
	// external is what other workloads hold as last set, before clamping
	// to the capacity, so that a capacity change keeps it.
	external resource.Vector
	// name is the driver's name for the node; empty for simulated nodes.
	name string
	// cordoned nodes keep their containers but take no new ones; removed
	// nodes are tombstones.
	cordoned, removed bool
	// slots is how many containers the node may hold at once, counting
	// heldSlots taken by things the scheduler does not own (a kubelet's
	// max-pods, Kubernetes' "pods" allocatable); 0 means no limit, as on a
	// YARN NodeManager and every simulated node.
	slots, heldSlots int32
}

// ID returns the node's index.
func (n *Node) ID() NodeID { return n.id }

// Capacity returns what the node offers to containers.
func (n *Node) Capacity() resource.Vector { return n.capacity }

// Allocated returns what containers hold on the node.
func (n *Node) Allocated() resource.Vector { return n.allocated }

// Usable returns what YARN may hold on the node: its capacity less the
// external load. Without external load it is the capacity.
func (n *Node) Usable() resource.Vector { return n.usable }

// External returns what other (non-YARN) workloads take of the node now.
func (n *Node) External() resource.Vector { return n.capacity.Sub(n.usable) }

// Free returns what may still be allocated: the usable capacity minus the
// allocation, never negative (a node whose external load rose above what
// was free has nothing free in that resource until containers end).
func (n *Node) Free() resource.Vector { return n.ceiling.Sub(n.allocated) }

// AMAllocated returns what ApplicationMaster containers hold on the node.
func (n *Node) AMAllocated() resource.Vector { return n.amAllocated }

// AMContainers returns the number of ApplicationMaster containers on the node.
func (n *Node) AMContainers() int { return int(n.amCount) }

// TaskContainers returns the number of task containers on the node.
func (n *Node) TaskContainers() int { return int(n.taskCount) }

// Slots returns how many containers the node may hold at once, things the
// scheduler does not own included; 0 means no limit.
func (n *Node) Slots() int { return int(n.slots) }

// HeldSlots returns how many of the node's slots things the scheduler does
// not own take.
func (n *Node) HeldSlots() int { return int(n.heldSlots) }

// Full reports whether the node's slots are all taken, so that it can take
// no new container whatever it has free. A node without a slot limit is
// never full.
func (n *Node) Full() bool {
	return n.slots > 0 && n.amCount+n.taskCount+n.heldSlots >= n.slots
}

// Name returns the driver's name for the node (empty for simulated nodes).
func (n *Node) Name() string { return n.name }

// Schedulable reports whether new containers may be placed on the node: it
// has not been removed or marked unschedulable (cordoned, NotReady).
func (n *Node) Schedulable() bool { return !n.cordoned && !n.removed }

// Removed reports whether the node has left the cluster.
func (n *Node) Removed() bool { return n.removed }

// String names the node for messages.
func (n *Node) String() string {
	if n.name != "" {
		return fmt.Sprintf("node%d (%s)", n.id, n.name)
	}
	return fmt.Sprintf("node%d", n.id)
}

// Cluster is the set of nodes and their totals.
type Cluster struct {
	// nodes are pointers so that a joining node does not move the others:
	// containers and policies hold *Node. The nodes a cluster starts with
	// share one backing array.
	nodes       []*Node
	capacity    resource.Vector
	usable      resource.Vector
	ceiling     resource.Vector // sum of the nodes' ceilings
	allocated   resource.Vector
	amAllocated resource.Vector
	largest     resource.Vector // component-wise maximum node capacity
}

// Ledger is the write side of a Cluster.
type Ledger struct{ c *Cluster }

// New builds a cluster with one node per capacity and returns it with the
// ledger that alone may change it.
func New(capacities []resource.Vector) (*Cluster, *Ledger) {
	c := &Cluster{nodes: make([]*Node, len(capacities))}
	backing := make([]Node, len(capacities))
	for i, cap := range capacities {
		backing[i] = Node{id: NodeID(i), capacity: cap, usable: cap, ceiling: cap}
		c.nodes[i] = &backing[i]
		c.capacity = c.capacity.Add(cap)
		c.largest = c.largest.Max(cap)
	}
	c.usable, c.ceiling = c.capacity, c.capacity
	return c, &Ledger{c: c}
}

// NumNodes returns the number of nodes ever known, removed ones included:
// node IDs run from 0 to NumNodes-1.
func (c *Cluster) NumNodes() int { return len(c.nodes) }

// Node returns the node with the given id.
func (c *Cluster) Node(id NodeID) *Node { return c.nodes[id] }

// Lookup returns the node with the given id, or nil when there is none.
func (c *Cluster) Lookup(id NodeID) *Node {
	if id < 0 || int(id) >= len(c.nodes) {
		return nil
	}
	return c.nodes[id]
}

// Capacity returns the total capacity.
func (c *Cluster) Capacity() resource.Vector { return c.capacity }

// Allocated returns the total allocation.
func (c *Cluster) Allocated() resource.Vector { return c.allocated }

// AMAllocated returns the total held by ApplicationMaster containers.
func (c *Cluster) AMAllocated() resource.Vector { return c.amAllocated }

// Usable returns the total usable capacity: the capacity less the external
// load.
func (c *Cluster) Usable() resource.Vector { return c.usable }

// Free returns the sum of the nodes' free resources.
func (c *Cluster) Free() resource.Vector { return c.ceiling.Sub(c.allocated) }

// Largest returns the component-wise maximum node capacity: a request that
// does not fit it fits no node.
func (c *Cluster) Largest() resource.Vector { return c.largest }

// AddNode adds a node of the given capacity and returns it; its ID is the
// next unused one.
func (l *Ledger) AddNode(name string, capacity resource.Vector) (*Node, error) {
	if capacity.AnyNegative() {
		return nil, fmt.Errorf("node %q: negative capacity %v", name, capacity)
	}
	c := l.c
	n := &Node{id: NodeID(len(c.nodes)), name: name, capacity: capacity, usable: capacity, ceiling: capacity}
	c.nodes = append(c.nodes, n)
	c.capacity = c.capacity.Add(capacity)
	c.usable = c.usable.Add(capacity)
	c.ceiling = c.ceiling.Add(capacity)
	c.largest = c.largest.Max(capacity)
	return n, nil
}

// SetName names node id with the driver's name for it.
func (l *Ledger) SetName(id NodeID, name string) { l.c.nodes[id].name = name }

// RemoveNode turns node id into a tombstone: no capacity, never schedulable
// again. Its containers must have been released first.
func (l *Ledger) RemoveNode(id NodeID) error {
	n := l.c.nodes[id]
	if n.removed {
		return fmt.Errorf("%v already removed", n)
	}
	if !n.allocated.IsZero() {
		return fmt.Errorf("%v: removing it with %v still allocated", n, n.allocated)
	}
	if err := l.SetCapacity(id, resource.Vector{}); err != nil {
		return err
	}
	n.removed = true
	return nil
}

// SetCapacity changes node id's capacity. What other workloads hold is kept
// (clamped to the new capacity); containers already placed keep running
// even where they now exceed it, as with a rise in external load.
func (l *Ledger) SetCapacity(id NodeID, capacity resource.Vector) error {
	n := l.c.nodes[id]
	if capacity.AnyNegative() {
		return fmt.Errorf("%v: negative capacity %v", n, capacity)
	}
	c := l.c
	c.capacity = c.capacity.Sub(n.capacity).Add(capacity)
	n.capacity = capacity
	u := capacity.Sub(n.external.Min(capacity))
	c.usable = c.usable.Sub(n.usable).Add(u)
	n.usable = u
	l.setCeiling(n)
	var largest resource.Vector
	for _, m := range c.nodes {
		largest = largest.Max(m.capacity)
	}
	c.largest = largest
	return nil
}

// SetSchedulable marks node id as taking new containers or not.
func (l *Ledger) SetSchedulable(id NodeID, schedulable bool) error {
	n := l.c.nodes[id]
	if n.removed {
		return fmt.Errorf("%v is removed", n)
	}
	n.cordoned = !schedulable
	return nil
}

// SetSlots limits node id to slots containers at once (0: no limit), held
// of them taken by things the scheduler does not own. Containers already
// placed keep running even where they now exceed it.
func (l *Ledger) SetSlots(id NodeID, slots, held int) error {
	n := l.c.nodes[id]
	if slots < 0 || held < 0 || slots > math.MaxInt32 || held > math.MaxInt32 {
		return fmt.Errorf("%v: slot limit %d with %d held is out of range", n, slots, held)
	}
	n.slots, n.heldSlots = int32(slots), int32(held)
	return nil
}

// SetHeld records that things the scheduler does not own hold held of node
// id; what exceeds the capacity is clamped, since a driver may see more
// requested than a node offers.
func (l *Ledger) SetHeld(id NodeID, held resource.Vector) error {
	n := l.c.nodes[id]
	if held.AnyNegative() {
		return fmt.Errorf("%v: negative held capacity %v", n, held)
	}
	n.external = held
	u := n.capacity.Sub(held.Min(n.capacity))
	l.c.usable = l.c.usable.Sub(n.usable).Add(u)
	n.usable = u
	l.setCeiling(n)
	return nil
}

// Allocate places r on node id. It reports an error, and changes nothing,
// when r does not fit the node's free resources.
func (l *Ledger) Allocate(id NodeID, r resource.Vector, am bool) error {
	n := l.c.nodes[id]
	if !n.Schedulable() {
		return fmt.Errorf("%v takes no new containers", n)
	}
	if n.Full() {
		return fmt.Errorf("%v: all %d container slots are taken", n, n.slots)
	}
	if !r.Fits(n.Free()) {
		return fmt.Errorf("%v: %v does not fit free %v", n, r, n.Free())
	}
	l.hold(n, r, am)
	return nil
}

// hold adds r to what node n and the cluster hold, as an AM or a task.
func (l *Ledger) hold(n *Node, r resource.Vector, am bool) {
	n.allocated = n.allocated.Add(r)
	l.c.allocated = l.c.allocated.Add(r)
	if am {
		n.amAllocated = n.amAllocated.Add(r)
		l.c.amAllocated = l.c.amAllocated.Add(r)
		n.amCount++
	} else {
		n.taskCount++
	}
}

// Adopt records r, already held by a container running on node id that the
// scheduler finds on starting, whether or not it fits what is free (the node
// is then over its usable capacity until containers end) and whether or not
// the node now takes new containers.
func (l *Ledger) Adopt(id NodeID, r resource.Vector, am bool) error {
	n := l.c.nodes[id]
	if n.removed || r.AnyNegative() {
		return fmt.Errorf("%v: cannot adopt %v on a removed node or with a negative request", n, r)
	}
	l.hold(n, r, am)
	l.setCeiling(n)
	return nil
}

// SetExternal records that other workloads now take ext of node id, so
// that YARN may hold only the rest. Running containers are not touched:
// the allocation may exceed the usable capacity until they end. It reports
// an error, and changes nothing, when ext is negative or exceeds the
// node's capacity.
func (l *Ledger) SetExternal(id NodeID, ext resource.Vector) error {
	n := l.c.nodes[id]
	if ext.AnyNegative() || !ext.Fits(n.capacity) {
		return fmt.Errorf("%v: external load %v outside [0, capacity %v]", n, ext, n.capacity)
	}
	n.external = ext
	u := n.capacity.Sub(ext)
	l.c.usable = l.c.usable.Sub(n.usable).Add(u)
	n.usable = u
	l.setCeiling(n)
	return nil
}

// setCeiling re-derives n's ceiling and over, and the cluster's ceiling,
// after n's allocation or usable capacity changed.
func (l *Ledger) setCeiling(n *Node) {
	c := n.usable.Max(n.allocated)
	l.c.ceiling = l.c.ceiling.Sub(n.ceiling).Add(c)
	n.ceiling = c
	n.over = c != n.usable
}

// Release returns r, previously allocated on node id, to the node.
func (l *Ledger) Release(id NodeID, r resource.Vector, am bool) error {
	n := l.c.nodes[id]
	if !r.Fits(n.allocated) {
		return fmt.Errorf("%v: releasing %v exceeds allocated %v", n, r, n.allocated)
	}
	n.allocated = n.allocated.Sub(r)
	l.c.allocated = l.c.allocated.Sub(r)
	if n.over {
		l.setCeiling(n)
	}
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
	var alloc, am, usable, ceiling resource.Vector
	for _, n := range c.nodes {
		if n.removed && (!n.capacity.IsZero() || !n.allocated.IsZero()) {
			return fmt.Errorf("%v is removed but has capacity %v, allocation %v", n, n.capacity, n.allocated)
		}
		if n.usable.AnyNegative() || !n.usable.Fits(n.capacity) {
			return fmt.Errorf("%v: usable capacity %v outside [0, capacity %v]", n, n.usable, n.capacity)
		}
		if n.ceiling != n.usable.Max(n.allocated) || n.over != (n.ceiling != n.usable) {
			return fmt.Errorf("%v: ceiling %v (over %v) with allocation %v of usable %v", n, n.ceiling, n.over, n.allocated, n.usable)
		}
		// A node may hold more than its capacity only after the capacity
		// shrank under running containers (then it is over its usable
		// capacity too, and nothing fits it until they end).
		if !n.allocated.Fits(n.capacity) && !n.over {
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
		usable = usable.Add(n.usable)
		ceiling = ceiling.Add(n.ceiling)
	}
	if usable != c.usable || ceiling != c.ceiling {
		return fmt.Errorf("cluster usable capacity %v (ceiling %v) differs from the sum over nodes %v (%v)", c.usable, c.ceiling, usable, ceiling)
	}
	if alloc != c.allocated || am != c.amAllocated {
		return fmt.Errorf("cluster totals %v (AM %v) differ from the sum over nodes %v (AM %v)", c.allocated, c.amAllocated, alloc, am)
	}
	return nil
}
