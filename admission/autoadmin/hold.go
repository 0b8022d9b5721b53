package autoadmin

import (
	"slices"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// holds follows, for HoldEarly, the tasks the guard counts as held like
// AMs: those of a phase that may start before the previous one completes
// (a reduce at slow-start). Such a task waits for its inputs, so it can hold
// its container for as long as an earlier task of its job waits for room.
// Once every earlier phase of its job is fully allocated, those earlier
// tasks will run and end, and the task ends after them like any other: from
// then on it is not counted.
type holds struct {
	node []resource.Vector // per node: what counted tasks hold there
	jobs map[sched.JobID]*jobHolds
}

type jobHolds struct {
	left     []int  // per phase: counted tasks not yet allocated
	released []bool // per phase: no longer counted
	cts      []*sched.Container
}

func newHolds(nodes int) *holds {
	return &holds{node: make([]resource.Vector, nodes), jobs: map[sched.JobID]*jobHolds{}}
}

// admit starts counting job j's early tasks, all unplaced.
func (h *holds) admit(j *sched.Job) {
	ph := j.Spec().Phases
	jh := &jobHolds{left: make([]int, len(ph)), released: make([]bool, len(ph))}
	for k, p := range ph {
		if k > 0 && p.StartAfter < 1 {
			jh.left[k] = p.Tasks
		} else {
			jh.released[k] = true
		}
	}
	h.jobs[j.ID()] = jh
}

// allocated records a task container's allocation: a counted task leaves
// the guard's unplaced set (g.place) for its node, and the phases it
// completes the allocation of stop counting theirs. touch is called for
// every node whose held amount changed.
func (h *holds) allocated(ct *sched.Container, g *guard, touch func(node int)) {
	j := ct.Job()
	jh := h.jobs[j.ID()]
	if jh == nil || ct.Phase() >= len(jh.released) {
		return // a live application's tasks belong to no declared phase
	}
	if k := ct.Phase(); !jh.released[k] {
		if jh.left[k] > 0 {
			jh.left[k]--
			g.place(ct.Request())
		}
		id := int(ct.Node().ID())
		if id >= len(h.node) {
			h.node = append(h.node, make([]resource.Vector, id+1-len(h.node))...)
		}
		h.node[id] = h.node[id].Add(ct.Request())
		jh.cts = append(jh.cts, ct)
		touch(id)
	}
	// Release every held phase whose earlier phases are all allocated.
	ph := j.Spec().Phases
	all := true
	for k := range ph {
		if k > 0 && all && !jh.released[k] {
			jh.released[k] = true
			for range jh.left[k] {
				g.place(ph[k].Request)
			}
			jh.left[k] = 0
			jh.cts = slices.DeleteFunc(jh.cts, func(c *sched.Container) bool {
				if c.Phase() != k {
					return false
				}
				id := int(c.Node().ID())
				h.node[id] = h.node[id].Sub(c.Request())
				touch(id)
				return true
			})
		}
		all = all && j.Phase(k).Allocated == ph[k].Tasks
	}
}

// ended stops counting a task container that ended while counted.
func (h *holds) ended(ct *sched.Container, touch func(node int)) {
	jh := h.jobs[ct.Job().ID()]
	if jh == nil {
		return
	}
	if i := slices.Index(jh.cts, ct); i >= 0 {
		jh.cts = slices.Delete(jh.cts, i, i+1)
		id := int(ct.Node().ID())
		h.node[id] = h.node[id].Sub(ct.Request())
		touch(id)
	}
}

// finish forgets job j, and what its counted tasks still hold.
func (h *holds) finish(j *sched.Job, touch func(node int)) {
	jh := h.jobs[j.ID()]
	if jh == nil {
		return
	}
	for _, c := range jh.cts {
		id := int(c.Node().ID())
		h.node[id] = h.node[id].Sub(c.Request())
		touch(id)
	}
	delete(h.jobs, j.ID())
}

// at returns what counted tasks hold on node id; nothing on a node that
// joined after the controller was built and has held nothing yet.
func (h *holds) at(id cluster.NodeID) resource.Vector {
	if int(id) >= len(h.node) {
		return resource.Vector{}
	}
	return h.node[id]
}
