package sched

import (
	"fmt"
	"sort"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// Gangs: a job with a minimum member count (JobSpec.MinMembers, a Volcano
// PodGroup's minMember, a YuniKorn task group's, Kubernetes' gang
// minCount) is all or nothing. It is asked about for admission only when
// its first MinMembers containers fit the cluster's free room together,
// after the room still owed to gangs admitted before it whose members are
// not all placed yet; until then it waits and holds back no other job
// (readyToAdmit). Admitted, it owes its members' room until they are
// allocated, so that a burst of gangs admits only as many as fit together
// and none is left half placed, which is the deadlock all-or-nothing
// admission exists to prevent.
//
// A gang's members are, for a simulated job, its AM (when it has one) and
// then tasks of its first phase; for an Open job, the requests the driver
// has made, AM first, then each ask's in the order the asks were made.

// gangMember is one container a gang needs placed before it counts as
// complete.
type gangMember struct {
	req      resource.Vector
	eligible func(*cluster.Node) bool // nil: any node
}

// gangState is an admitted gang's room still owed: the members not yet
// allocated.
type gangState struct {
	owed []gangMember
}

// IsGang reports whether the job is all or nothing (MinMembers > 0).
func (j *Job) IsGang() bool { return j.spec.MinMembers > 0 }

// gangMembers returns j's first MinMembers members, and how many of them
// are known (an Open job's driver may not have asked for them all yet).
func (c *Core) gangMembers(j *Job) (out []gangMember, known int) {
	want := j.spec.MinMembers
	out = c.gangScratch[:0]
	if !j.spec.Open {
		if j.HasAM() {
			out = append(out, gangMember{req: j.spec.AM, eligible: j.spec.Eligible})
		}
		for len(out) < want {
			out = append(out, gangMember{req: j.spec.Phases[0].Request, eligible: j.spec.Eligible})
		}
		c.gangScratch = out
		return out, len(out)
	}
	for i := range j.asks {
		a := &j.asks[i]
		if a.lv == nil {
			continue
		}
		for range a.lv.keys {
			if len(out) == want {
				break
			}
			out = append(out, gangMember{req: a.Request, eligible: a.lv.eligible})
		}
	}
	c.gangScratch = out
	return out, len(out)
}

// gangFits reports whether members fit together: on the nodes' free room
// after the room owed to admitted gangs (now), or on the nodes' whole
// capacity (!now: could they ever). Members are packed first fit, largest
// first, on schedulable nodes that admit them.
func (c *Core) gangFits(members []gangMember, now bool) bool {
	free := c.gangFree[:0]
	for i := range c.cl.NumNodes() {
		n := c.cl.Node(cluster.NodeID(i))
		switch {
		case n.Removed() || !n.Schedulable():
			free = append(free, resource.Vector{})
		case now:
			free = append(free, n.Free())
		default:
			free = append(free, n.Capacity())
		}
	}
	c.gangFree = free
	if now {
		for _, g := range c.gangs {
			if !c.packGang(free, g.gang.owed) {
				// The room owed is no longer there (a node left, a
				// policy placed others first): nothing more is
				// admitted as a gang until it is.
				return false
			}
		}
	}
	return c.packGang(free, members)
}

// packGang places members first fit, largest (by vcores, then memory)
// first, taking their room from free; false when one does not fit.
func (c *Core) packGang(free []resource.Vector, members []gangMember) bool {
	cl := c.cl
	order := c.gangOrder[:0]
	for i := range members {
		order = append(order, i)
	}
	c.gangOrder = order
	sort.SliceStable(order, func(a, b int) bool {
		x, y := members[order[a]].req, members[order[b]].req
		if x[resource.VCores] != y[resource.VCores] {
			return x[resource.VCores] > y[resource.VCores]
		}
		return x[resource.Memory] > y[resource.Memory]
	})
	for _, k := range order {
		m := members[k]
		placed := false
		for i := range free {
			if !m.req.Fits(free[i]) {
				continue
			}
			if m.eligible != nil && !m.eligible(cl.Node(cluster.NodeID(i))) {
				continue
			}
			free[i] = free[i].Sub(m.req)
			placed = true
			break
		}
		if !placed {
			return false
		}
	}
	return true
}

// gangReady reports whether waiting gang j may be asked about for
// admission: its members are known and fit together now.
func (c *Core) gangReady(j *Job) bool {
	members, known := c.gangMembers(j)
	return known >= j.spec.MinMembers && c.gangFits(members, true)
}

// gangAdmitted starts counting the room admitted gang j owes.
func (c *Core) gangAdmitted(j *Job) {
	members, _ := c.gangMembers(j)
	j.gang = &gangState{owed: append([]gangMember(nil), members...)}
	c.gangs = append(c.gangs, j)
}

// gangAllocated settles one member of j's debt: a container of request r
// was allocated to it, or a request of that size withdrawn.
func (c *Core) gangAllocated(j *Job, r resource.Vector) {
	g := j.gang
	if g == nil || len(g.owed) == 0 {
		return
	}
	k := len(g.owed) - 1
	for i, m := range g.owed {
		if m.req == r {
			k = i
			break
		}
	}
	g.owed = append(g.owed[:k], g.owed[k+1:]...)
	if len(g.owed) == 0 {
		c.gangDone(j)
	}
}

// gangDone stops counting j's debt (all placed, or the job ended).
func (c *Core) gangDone(j *Job) {
	if j.gang == nil {
		return
	}
	j.gang = nil
	for i, g := range c.gangs {
		if g == j {
			c.gangs = append(c.gangs[:i], c.gangs[i+1:]...)
			break
		}
	}
	c.progress++ // gangs waiting behind its debt may fit now
}

// gangWaitReason says why waiting gang j is not asked about for admission,
// or "" when it is.
func (c *Core) gangWaitReason(j *Job) string {
	members, known := c.gangMembers(j)
	want := j.spec.MinMembers
	switch {
	case known < want:
		return fmt.Sprintf("gang of %d: %d of its %d members exist; none is placed before all %d can be placed together", want, known, want, want)
	case !c.gangFits(members, false):
		return fmt.Sprintf("gang of %d: its %d members never fit the cluster together (more than all nodes hold); it holds nobody back", want, want)
	case !c.gangFits(members, true):
		owed := ""
		if len(c.gangs) > 0 {
			owed = fmt.Sprintf(" beside the room owed to %d gang(s) admitted before it", len(c.gangs))
		}
		return fmt.Sprintf("gang of %d: its %d members do not fit the free room together now%s; it holds nobody back", want, want, owed)
	}
	return ""
}

// checkGang refuses a MinMembers a job cannot meet.
func checkGang(spec *JobSpec) error {
	switch m := spec.MinMembers; {
	case m < 0:
		return fmt.Errorf("job %s: min_members %d must not be negative", spec.Key, m)
	case m == 0 || spec.Open:
		return nil
	case len(spec.Phases) == 0:
		return nil // refused for having no phases
	default:
		most := spec.Phases[0].Tasks
		if !spec.AM.IsZero() {
			most++
		}
		if m > most {
			return fmt.Errorf("job %s: min_members %d is more than its AM and first phase's tasks (%d)", spec.Key, m, most)
		}
	}
	return nil
}
