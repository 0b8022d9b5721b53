package sched

import (
	"fmt"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// ContainerState is a step of YARN's RMContainer lifecycle.
type ContainerState uint8

// The lifecycle: NEW → (RESERVED) → ALLOCATED → ACQUIRED → RUNNING →
// COMPLETED, with KILLED reachable from every live state. A live cluster adds
// the ends a simulated container never meets: FAILED (it exited non-zero),
// PREEMPTED (something else took its resources) and LOST (its node left),
// each reachable from ALLOCATED, ACQUIRED and RUNNING. Every state from
// COMPLETED on is terminal; only COMPLETED counts as a task done.
const (
	New ContainerState = iota
	Reserved
	Allocated
	Acquired
	Running
	Completed
	Killed
	Failed
	Preempted
	Lost
	numContainerStates
)

var containerStateNames = [numContainerStates]string{"NEW", "RESERVED", "ALLOCATED", "ACQUIRED", "RUNNING", "COMPLETED", "KILLED", "FAILED", "PREEMPTED", "LOST"}

func (s ContainerState) String() string {
	if s < numContainerStates {
		return containerStateNames[s]
	}
	return fmt.Sprintf("ContainerState(%d)", s)
}

// Terminal reports whether no transition leaves s.
func (s ContainerState) Terminal() bool { return s >= Completed && s < numContainerStates }

// Ended reports whether s ends a container that held resources in any way:
// COMPLETED, KILLED, FAILED, PREEMPTED or LOST. It is Terminal under the name
// observers that release what a container held should use.
func (s ContainerState) Ended() bool { return s.Terminal() }

// legal[from] is the set of states reachable in one step, as a bit mask.
var legal = [numContainerStates]uint16{
	New:       1<<Reserved | 1<<Allocated | 1<<Killed,
	Reserved:  1<<Allocated | 1<<Killed,
	Allocated: 1<<Acquired | abnormal,
	Acquired:  1<<Running | abnormal,
	Running:   1<<Completed | abnormal,
}

// abnormal is the set of ends other than completion.
const abnormal = 1<<Killed | 1<<Failed | 1<<Preempted | 1<<Lost

// CanTransition reports whether the lifecycle allows from → to.
func CanTransition(from, to ContainerState) bool {
	return from < numContainerStates && to < numContainerStates && legal[from]&(1<<to) != 0
}

// ContainerID identifies a container for the whole run; IDs are never reused.
type ContainerID uint64

// Container is a resource lease on one node for one AM or task. The core owns
// containers and recycles the memory of a simulated job's containers once they
// end, so an observer must not keep a *Container past the callback it was
// given in; copy what it needs (an ID check tells a stale pointer apart).
// Containers of Open jobs are never recycled: a live driver may keep them
// (pod → container), and one that ended stays in its terminal state, so the
// core refuses a stale handle instead of acting on another container.
type Container struct {
	id   ContainerID
	job  *Job
	node *cluster.Node
	key  string // the request it fills (Open jobs and adopted containers)
	// prev and next link the live containers of one node, so that a
	// node leaving can end them all.
	prev, next *Container
	phase      int32 // -1 for the ApplicationMaster
	task       int32
	req        resource.Vector
	state      ContainerState
	// victim marks a container preemption asked the driver to end; its
	// memory is not recycled, since the driver may still hold it.
	victim bool
	// room marks a container allocated into room preemption held for it.
	room bool
	// nodeID is node.ID(), kept here because a driver handling a report
	// has this container in cache and the node, most often, not.
	nodeID cluster.NodeID
	// times[s] is when the container entered s; every end from KILLED on
	// shares one slot, since a container ends once.
	times [Killed + 1]clock.Time
}

// slot is the index in times of state s.
func slot(s ContainerState) ContainerState { return min(s, Killed) }

// ID returns the container's run-unique id.
func (c *Container) ID() ContainerID { return c.id }

// Job returns the job the container belongs to.
func (c *Container) Job() *Job { return c.job }

// Key returns the driver's handle for the one request this container fills
// (Request.Key, e.g. a pod's namespace/name). A simulated job's containers
// have no driver handle; they are named job/phase/task (job/am for an AM).
func (c *Container) Key() string {
	if c.key != "" || c.job == nil {
		return c.key
	}
	if c.IsAM() {
		return c.job.key + "/am"
	}
	return fmt.Sprintf("%s/%d/%d", c.job.key, c.phase, c.task)
}

// Node returns the node the container is on.
func (c *Container) Node() *cluster.Node { return c.node }

// NodeID returns the id of the node the container is on: Node().ID()
// without loading the node.
func (c *Container) NodeID() cluster.NodeID { return c.nodeID }

func (c *Container) place(n *cluster.Node) { c.node, c.nodeID = n, n.ID() }

// Preempted reports whether preemption asked the driver to end the
// container (it then ends PREEMPTED, or COMPLETED if it finished first).
func (c *Container) Preempted() bool { return c.victim }

// IntoPreemptedRoom reports whether the container was allocated into room
// that preemption freed and held for it (its queue's) on its node.
func (c *Container) IntoPreemptedRoom() bool { return c.room }

// IsAM reports whether the container holds the job's ApplicationMaster.
func (c *Container) IsAM() bool { return c.phase < 0 }

// Phase returns the index of the task's phase, or -1 for an AM container.
func (c *Container) Phase() int { return int(c.phase) }

// Task returns the task's index within its phase (0 for an AM).
func (c *Container) Task() int { return int(c.task) }

// Request returns the resources the container holds.
func (c *Container) Request() resource.Vector { return c.req }

// State returns the current lifecycle state.
func (c *Container) State() ContainerState { return c.state }

// Time returns when the container entered s as the resource manager observed
// it, and false if it never did.
func (c *Container) Time(s ContainerState) (clock.Time, bool) {
	if s >= Killed && c.state != s {
		return -1, false
	}
	t := c.times[slot(s)]
	return t, t >= 0
}

func (c *Container) String() string {
	if c.IsAM() {
		return fmt.Sprintf("container %d (AM of %s)", c.id, c.job.key)
	}
	return fmt.Sprintf("container %d (%s phase %d task %d)", c.id, c.job.key, c.phase, c.task)
}

// checkTimes verifies that the recorded transition times follow the lifecycle
// order.
func (c *Container) checkTimes() error {
	last := clock.Time(-1)
	lastState := New
	for s := New; s <= Killed; s++ {
		t := c.times[s]
		if t < 0 {
			continue
		}
		if t < last {
			return fmt.Errorf("%v entered %v at %v, before %v at %v", c, s, t, lastState, last)
		}
		last, lastState = t, s
	}
	return nil
}

// containerPool recycles container memory; the event loop creates and ends
// one container per task, and reuse keeps the allocator out of it.
type containerPool struct {
	free   []*Container
	nextID ContainerID
}

func (p *containerPool) get() *Container {
	var c *Container
	if n := len(p.free); n > 0 {
		c = p.free[n-1]
		p.free = p.free[:n-1]
	} else {
		c = new(Container)
	}
	p.nextID++
	*c = Container{id: p.nextID}
	for i := range c.times {
		c.times[i] = -1
	}
	return c
}

func (p *containerPool) put(c *Container) {
	if c.job.spec.Open || c.victim || (c.state == Killed && c.times[Acquired] >= 0) {
		// The driver may still hold it: a live driver its pod's, the
		// simulator the events of a task its AM killed or preemption
		// took. See Container.
		return
	}
	c.job, c.node, c.prev, c.next = nil, nil, nil, nil
	p.free = append(p.free, c)
}
