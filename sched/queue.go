package sched

import (
	"fmt"
	"strings"

	"github.com/spindle-sched/spindle/resource"
)

// QueueSpec configures a queue of the tree. Name is its dotted path below
// the root ("prod.etl"; "root.prod.etl" is the same queue): a name without
// a dot is a child of the root, so a flat list of queues is a tree of one
// level, as workload format v1 always had it.
//
// Capacity and MaxCapacity are shares of the queue's parent, as in YARN's
// Capacity scheduler (yarn.scheduler.capacity.<path>.capacity and
// maximum-capacity, there in percent): Capacity is the guarantee, in [0, 1],
// and MaxCapacity what the queue may grow to, in [Capacity, 1]. A child of
// the root has them as shares of the cluster. The capacities of a parent's
// children sum to at most 1. A queue of capacity 0 is guaranteed nothing:
// it runs on what the queues with a guarantee leave (see order.go) and is
// the first preemption takes from.
//
// Weight orders the queue among its siblings under Fair and DRF (YARN
// Fair's queue weight); 0 means Capacity, so that a tree without weights is
// shared under Fair as it is guaranteed under Capacity.
//
// DisablePreemption spares the queue and every queue below it from
// preemption: nothing is taken from them, and what they hold is theirs in
// the ideal division (YARN Capacity's
// yarn.scheduler.capacity.<path>.disable_preemption, which children
// inherit; Fair's allowPreemptionFrom false).
type QueueSpec struct {
	Name              string
	Capacity          float64
	MaxCapacity       float64
	Weight            float64
	DisablePreemption bool
}

// RootQueue is the name of the tree's root. It is implicit: a QueueSpec
// never names it alone.
const RootQueue = "root"

// Queue is a queue of the tree with its current usage. Only leaves take
// jobs. What queues mean for allocation is up to the policy (Capacity
// enforces them, Fair weighs them, FIFO ignores them); the core keeps the
// tree, the usage of every queue (a parent's is its subtree's), and
// divides a parent's share among its children for the policies and for
// preemption (queuetree.go).
type Queue struct {
	index    int
	spec     QueueSpec
	parent   *Queue // nil for the root
	children []*Queue
	depth    int // 0 for the root

	// abs and absMax are Capacity and MaxCapacity as shares of the
	// cluster: products down the path from the root.
	abs, absMax float64
	// noPreempt is DisablePreemption, the queue's or an ancestor's.
	noPreempt bool

	usage   resource.Vector
	amUsage resource.Vector // leaves only
	active  int             // jobs admitted and not finished, in the subtree
	amCount int             // AM containers allocated and not ended; leaves only
}

// Index returns the queue's position in the workload's queue list; the
// root's is -1.
func (q *Queue) Index() int { return q.index }

// Name returns the queue's dotted path below the root ("prod.etl"), or
// "root" for the root.
func (q *Queue) Name() string { return q.spec.Name }

// Path returns the queue's full path, as YARN names it ("root.prod.etl").
func (q *Queue) Path() string {
	if q.parent == nil {
		return RootQueue
	}
	return RootQueue + "." + q.spec.Name
}

// Capacity returns the guaranteed share of the queue's parent.
func (q *Queue) Capacity() float64 { return q.spec.Capacity }

// MaxCapacity returns the share of its parent the queue may grow to.
func (q *Queue) MaxCapacity() float64 { return q.spec.MaxCapacity }

// PreemptionDisabled reports whether preemption spares the queue: its own
// disable_preemption or an ancestor's.
func (q *Queue) PreemptionDisabled() bool { return q.noPreempt }

// Weight returns the queue's weight among its siblings for Fair and DRF.
func (q *Queue) Weight() float64 { return q.spec.Weight }

// AbsCapacity returns the guaranteed share of the cluster: the product of
// the capacities down the path from the root (YARN's absolute capacity).
func (q *Queue) AbsCapacity() float64 { return q.abs }

// AbsMaxCapacity returns the share of the cluster the queue may grow to:
// the product of the maximum capacities down the path (YARN's absolute
// maximum capacity).
func (q *Queue) AbsMaxCapacity() float64 { return q.absMax }

// Parent returns the queue's parent, nil for the root.
func (q *Queue) Parent() *Queue { return q.parent }

// Children returns the queue's children in workload order. Callers must not
// modify the slice.
func (q *Queue) Children() []*Queue { return q.children }

// Leaf reports whether the queue takes jobs: it has no children. The root
// is never a leaf.
func (q *Queue) Leaf() bool { return len(q.children) == 0 && q.parent != nil }

// Depth returns the number of steps from the root (1 for its children).
func (q *Queue) Depth() int { return q.depth }

// Usage returns what the queue's containers hold; a parent's is its
// subtree's.
func (q *Queue) Usage() resource.Vector { return q.usage }

// AMUsage returns what the queue's AM containers hold (leaves only).
func (q *Queue) AMUsage() resource.Vector { return q.amUsage }

// AMContainers returns the number of AM containers the queue holds (leaves
// only).
func (q *Queue) AMContainers() int { return q.amCount }

// ActiveJobs returns the number of admitted, unfinished jobs in the queue's
// subtree.
func (q *Queue) ActiveJobs() int { return q.active }

// queueTree is the queues of a core: the root, then every queue of the
// spec list by index.
type queueTree struct {
	root   *Queue
	queues []*Queue // workload order; the root is not among them
	byName map[string]*Queue
}

// QueuePath returns the canonical name of a queue path: without the
// leading "root.", and "root" for the root itself.
func QueuePath(name string) string {
	if name == RootQueue {
		return name
	}
	return strings.TrimPrefix(name, RootQueue+".")
}

// ResolveQueue maps a job's queue name (its label, or its namespace) to a
// configured queue, as the live scheduler places jobs and its forecast
// assumes: the queue of listed whose path is name's, with or without
// "root.", as listed; else def ("" when there is none: the job is held).
// A parent queue is returned as it is: the core refuses it.
func ResolveQueue(listed []string, def, name string) string {
	for _, q := range listed {
		if QueuePath(q) == QueuePath(name) {
			return q
		}
	}
	return def
}

// ValidateQueues checks a queue tree as NewCore will build it, naming the
// spec (queues[i].field) that breaks a rule, and returns, by canonical
// path (QueuePath), whether each queue is a leaf. Configuration readers
// call it to reject a bad tree before a core is built.
func ValidateQueues(specs []QueueSpec) (leaves map[string]bool, err error) {
	t, err := newQueueTree(specs)
	if err != nil {
		return nil, err
	}
	leaves = make(map[string]bool, len(t.queues))
	for _, q := range t.queues {
		leaves[q.spec.Name] = q.Leaf()
	}
	return leaves, nil
}

// capacitySlack absorbs rounding when capacities such as 0.1 and 0.2 are
// summed in floating point.
const capacitySlack = 1e-9

// newQueueTree builds the tree from specs, which may list a parent after
// its children. Every error names the spec by index and field. An empty
// list gives one queue, "default", with the whole cluster.
func newQueueTree(specs []QueueSpec) (*queueTree, error) {
	if len(specs) == 0 {
		specs = []QueueSpec{{Name: "default", Capacity: 1, MaxCapacity: 1}}
	}
	root := &Queue{index: -1, spec: QueueSpec{Name: RootQueue, Capacity: 1, MaxCapacity: 1, Weight: 1}, abs: 1, absMax: 1}
	t := &queueTree{root: root, byName: map[string]*Queue{}}
	for i, s := range specs {
		s.Name = QueuePath(s.Name)
		switch {
		case s.Name == "" || s.Name == RootQueue:
			return nil, fmt.Errorf("queues[%d].name: %q is not a queue below the root", i, specs[i].Name)
		case strings.HasPrefix(s.Name, ".") || strings.HasSuffix(s.Name, ".") || strings.Contains(s.Name, ".."):
			return nil, fmt.Errorf("queues[%d].name: %q has an empty path element", i, s.Name)
		case t.byName[s.Name] != nil:
			return nil, fmt.Errorf("queues[%d].name: queue %q defined twice", i, s.Name)
		case !(s.Capacity >= 0 && s.Capacity <= 1):
			return nil, fmt.Errorf("queues[%d].capacity: %v not in [0, 1]", i, s.Capacity)
		case !(s.MaxCapacity > 0):
			return nil, fmt.Errorf("queues[%d].max_capacity: %v must be > 0 (a queue that may hold nothing can run nothing)", i, s.MaxCapacity)
		case !(s.MaxCapacity >= s.Capacity && s.MaxCapacity <= 1):
			return nil, fmt.Errorf("queues[%d].max_capacity: %v not in [capacity, 1] = [%v, 1]", i, s.MaxCapacity, s.Capacity)
		case s.Weight < 0 || s.Weight != s.Weight:
			return nil, fmt.Errorf("queues[%d].weight: %v must be >= 0", i, s.Weight)
		}
		if s.Weight == 0 {
			s.Weight = s.Capacity
		}
		q := &Queue{index: i, spec: s}
		t.queues = append(t.queues, q)
		t.byName[s.Name] = q
	}
	for _, q := range t.queues {
		parent := root
		if k := strings.LastIndexByte(q.spec.Name, '.'); k >= 0 {
			parent = t.byName[q.spec.Name[:k]]
			if parent == nil {
				return nil, fmt.Errorf("queues[%d].name: %q's parent queue %q is not defined", q.index, q.spec.Name, q.spec.Name[:k])
			}
		}
		q.parent = parent
		parent.children = append(parent.children, q)
	}
	// Depths and absolute shares top-down, in workload order within each
	// parent, and the capacities of each parent's children.
	var walk func(p *Queue) error
	walk = func(p *Queue) error {
		sum := 0.0
		for _, q := range p.children {
			q.depth = p.depth + 1
			q.abs = p.abs * q.spec.Capacity
			q.absMax = p.absMax * q.spec.MaxCapacity
			q.noPreempt = p.noPreempt || q.spec.DisablePreemption
			sum += q.spec.Capacity
			if err := walk(q); err != nil {
				return err
			}
		}
		if sum > 1+capacitySlack {
			return fmt.Errorf("queues: the capacities of %s's children sum to %.6g, more than 1", p.Path(), sum)
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return t, nil
}

// addUsage adds r to leaf q's usage and every ancestor's, the root's
// included (which is then the cluster's allocation).
func addUsage(q *Queue, r resource.Vector) {
	for ; q != nil; q = q.parent {
		q.usage = q.usage.Add(r)
	}
}

func subUsage(q *Queue, r resource.Vector) {
	for ; q != nil; q = q.parent {
		q.usage = q.usage.Sub(r)
	}
}

// addActive counts a job admitted (n = 1) or finished (n = -1) in leaf q
// and its ancestors.
func addActive(q *Queue, n int) {
	for ; q != nil; q = q.parent {
		q.active += n
	}
}
