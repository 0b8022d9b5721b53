package sched

import "github.com/spindle-sched/spindle/resource"

// QueueSpec configures a queue: Capacity is its guaranteed share of the
// cluster and MaxCapacity the share it may grow to, both in (0, 1].
type QueueSpec struct {
	Name        string
	Capacity    float64
	MaxCapacity float64
}

// Queue is a queue with its current usage. Queues partition jobs; what they
// mean for allocation is up to the policy (Capacity enforces them, Fair
// weighs them, FIFO ignores them).
type Queue struct {
	index   int
	spec    QueueSpec
	usage   resource.Vector
	amUsage resource.Vector
	active  int // jobs admitted and not finished
	amCount int // AM containers allocated and not ended
}

// Index returns the queue's position in the workload's queue list.
func (q *Queue) Index() int { return q.index }

// Name returns the queue's name.
func (q *Queue) Name() string { return q.spec.Name }

// Capacity returns the guaranteed share of the cluster.
func (q *Queue) Capacity() float64 { return q.spec.Capacity }

// MaxCapacity returns the share of the cluster the queue may grow to.
func (q *Queue) MaxCapacity() float64 { return q.spec.MaxCapacity }

// Usage returns what the queue's containers hold.
func (q *Queue) Usage() resource.Vector { return q.usage }

// AMUsage returns what the queue's AM containers hold.
func (q *Queue) AMUsage() resource.Vector { return q.amUsage }

// AMContainers returns the number of AM containers the queue holds.
func (q *Queue) AMContainers() int { return q.amCount }

// ActiveJobs returns the number of admitted, unfinished jobs in the queue.
func (q *Queue) ActiveJobs() int { return q.active }
