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
// COMPLETED, with KILLED reachable from every live state.
const (
	New ContainerState = iota
	Reserved
	Allocated
	Acquired
	Running
	Completed
	Killed
	numContainerStates
)

var containerStateNames = [numContainerStates]string{"NEW", "RESERVED", "ALLOCATED", "ACQUIRED", "RUNNING", "COMPLETED", "KILLED"}

func (s ContainerState) String() string {
	if s < numContainerStates {
		return containerStateNames[s]
	}
	return fmt.Sprintf("ContainerState(%d)", s)
}

// Terminal reports whether no transition leaves s.
func (s ContainerState) Terminal() bool { return s == Completed || s == Killed }

// legal[from] is the set of states reachable in one step, as a bit mask.
var legal = [numContainerStates]uint8{
	New:       1<<Reserved | 1<<Allocated | 1<<Killed,
	Reserved:  1<<Allocated | 1<<Killed,
	Allocated: 1<<Acquired | 1<<Killed,
	Acquired:  1<<Running | 1<<Killed,
	Running:   1<<Completed | 1<<Killed,
}

// CanTransition reports whether the lifecycle allows from → to.
func CanTransition(from, to ContainerState) bool {
	return from < numContainerStates && to < numContainerStates && legal[from]&(1<<to) != 0
}

// ContainerID identifies a container for the whole run; IDs are never reused.
type ContainerID uint64

// Container is a resource lease on one node for one AM or task. The core owns
// containers and recycles their memory once they are COMPLETED or KILLED, so an
// observer must not keep a *Container past the callback it was given in; copy
// what it needs (an ID check tells a stale pointer apart).
type Container struct {
	id    ContainerID
	job   *Job
	node  *cluster.Node
	phase int32 // -1 for the ApplicationMaster
	task  int32
	req   resource.Vector
	state ContainerState
	times [numContainerStates]clock.Time
}

// ID returns the container's run-unique id.
func (c *Container) ID() ContainerID { return c.id }

// Job returns the job the container belongs to.
func (c *Container) Job() *Job { return c.job }

// Node returns the node the container is on.
func (c *Container) Node() *cluster.Node { return c.node }

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
	t := c.times[s]
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
	for s := New; s < numContainerStates; s++ {
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
	c.job, c.node = nil, nil
	p.free = append(p.free, c)
}
