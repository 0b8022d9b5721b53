package sched

import (
	"fmt"
	"sort"

	"github.com/spindle-sched/spindle/clock"
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
// A gang admitted whose members are not all placed within its timeout
// (JobSpec.GangTimeout, else Config.GangTimeout, DefaultGangTimeout by
// default) releases the room it is owed and waits again: its unplaced
// members are held out of allocation, reservations of them are cancelled,
// and it is owed room again only once those members fit the free room
// together (gangRereserve). Members already placed stay where they are.
// Without the timeout, a gang whose owed room a policy gave to other jobs
// first would keep every later gang out for as long as those jobs run.
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

// DefaultGangTimeout is 60 s, the default of kube-scheduler's
// coscheduling plugin (scheduler-plugins' permitWaitingTimeSeconds), after
// which the pods of a group that has not reached its minimum are released
// from where they wait. YuniKorn's placeholders wait 15 minutes by default,
// but they hold nodes' room that idles meanwhile; spindle's owed room keeps
// only other gangs out, so the shorter wait costs the gang little and
// frees the others sooner.
const DefaultGangTimeout = 60 * clock.Second

// gangState is an admitted gang's room still owed: the members not yet
// allocated, since when it is owed, and whether a timeout released it.
type gangState struct {
	owed     []gangMember
	since    clock.Time
	released bool
	timeouts int
}

// IsGang reports whether the job is all or nothing (MinMembers > 0).
func (j *Job) IsGang() bool { return j.spec.MinMembers > 0 }

// gangMembers returns j's first MinMembers members, and how many of them
// are known (an Open job's driver may not have asked for them all yet).
func (c *Core) gangMembers(j *Job) (out []gangMember, known int) {
	c.gangScratch = j.appendGangMembers(c.gangScratch[:0])
	return c.gangScratch, len(c.gangScratch)
}

// GangMinimum is what gang j's minimum requests in all: its first
// MinMembers containers (AM first) as far as they are known, and at least
// its MinResources; zero when j is no gang. Admission control counts it as
// it counts an AM: the members are placed together and held together.
func (j *Job) GangMinimum() resource.Vector {
	if !j.IsGang() {
		return resource.Vector{}
	}
	var sum resource.Vector
	for _, m := range j.appendGangMembers(nil) {
		sum = sum.Add(m.req)
	}
	return sum.Max(j.spec.MinResources)
}

// appendGangMembers appends j's first MinMembers members, as far as they
// are known, to out.
func (j *Job) appendGangMembers(out []gangMember) []gangMember {
	want := j.spec.MinMembers
	if !j.spec.Open {
		if j.HasAM() {
			out = append(out, gangMember{req: j.spec.AM, eligible: j.spec.Eligible})
		}
		for len(out) < want {
			out = append(out, gangMember{req: j.spec.Phases[0].Request, eligible: j.spec.Eligible})
		}
		return out
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
	return out
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
	if !j.spec.MinResources.IsZero() && !j.spec.MinResources.Fits(c.gangRoom(true)) {
		return false
	}
	members, known := c.gangMembers(j)
	return known >= j.spec.MinMembers && c.gangFits(members, true)
}

// gangRoom sums what the schedulable nodes have free, less the room owed
// to admitted gangs (now), or their whole capacity (!now).
func (c *Core) gangRoom(now bool) resource.Vector {
	var sum resource.Vector
	for i := range c.cl.NumNodes() {
		n := c.cl.Node(cluster.NodeID(i))
		switch {
		case n.Removed() || !n.Schedulable():
		case now:
			sum = sum.Add(n.Free())
		default:
			sum = sum.Add(n.Capacity())
		}
	}
	if now {
		for _, g := range c.gangs {
			for _, m := range g.gang.owed {
				sum = sum.Sub(m.req)
			}
		}
	}
	return sum
}

// GangNeverFits reports whether waiting gang j could not be placed even
// on the empty cluster as it is: its minimum resources exceed all nodes
// together, or its members, all known, fit no packing of the nodes. It
// stays so until nodes join or grow.
func (c *Core) GangNeverFits(j *Job) bool {
	if !j.IsGang() || j.state != Waiting {
		return false
	}
	if mr := j.spec.MinResources; !mr.IsZero() && !mr.Fits(c.gangRoom(false)) {
		return true
	}
	members, known := c.gangMembers(j)
	return known >= j.spec.MinMembers && !c.gangFits(members, false)
}

// gangAdmitted starts counting the room admitted gang j owes.
func (c *Core) gangAdmitted(j *Job) {
	members, _ := c.gangMembers(j)
	j.gang = &gangState{owed: append([]gangMember(nil), members...), since: c.now}
	c.gangs = append(c.gangs, j)
}

// gangTimeoutOf is gang j's timeout; not positive: none.
func (c *Core) gangTimeoutOf(j *Job) clock.Duration {
	if j.spec.GangTimeout > 0 {
		return j.spec.GangTimeout
	}
	return c.gangTimeout
}

// gangDeadline is the earliest instant after now at which an admitted
// gang's timeout falls, or clock.Never.
func (c *Core) gangDeadline(now clock.Time) clock.Time {
	next := clock.Never
	for _, j := range c.gangs {
		if t := c.gangTimeoutOf(j); t > 0 {
			next = min(next, max(j.gang.since.Add(t), now+1))
		}
	}
	return next
}

// gangExpire releases the room owed to every admitted gang whose timeout
// has passed with members still unplaced: those members are held out of
// allocation (allocatable) and their reservations end at their nodes'
// next update, until gangRereserve finds them room together again.
func (c *Core) gangExpire() {
	for i := 0; i < len(c.gangs); {
		j := c.gangs[i]
		t := c.gangTimeoutOf(j)
		if t <= 0 || c.now.Sub(j.gang.since) < t {
			i++
			continue
		}
		c.gangs = append(c.gangs[:i], c.gangs[i+1:]...)
		j.gang.released = true
		j.gang.timeouts++
		c.gangsReleased = append(c.gangsReleased, j)
		for k := range j.asks {
			c.hold(&j.asks[k])
		}
		c.progress++ // gangs waiting behind its room may fit now
	}
}

// gangRereserve owes room again, in the order they were released, to the
// released gangs whose unplaced members now fit the free room together
// (after the room owed to admitted gangs), and makes those members
// allocatable again.
func (c *Core) gangRereserve() {
	for i := 0; i < len(c.gangsReleased); {
		j := c.gangsReleased[i]
		if !c.gangFits(j.gang.owed, true) {
			i++
			continue
		}
		c.gangsReleased = append(c.gangsReleased[:i], c.gangsReleased[i+1:]...)
		j.gang.released, j.gang.since = false, c.now
		c.gangs = append(c.gangs, j)
		c.releaseAsks(j)
	}
}

// releaseAsks makes j's held asks pending where its state allows.
func (c *Core) releaseAsks(j *Job) {
	released := false
	for k := range j.asks {
		released = c.release(&j.asks[k]) || released
	}
	if released {
		c.progress++
		c.reconsider()
	}
}

// GangTimeouts returns how many times job j's room as a gang was released
// by its timeout.
func (j *Job) GangTimeouts() int {
	if j.gang == nil {
		return j.gangTimeouts
	}
	return j.gang.timeouts
}

// GangReleasedReason says why admitted gang j's unplaced members wait
// after its timeout released their room, or "" when it is not so.
func (c *Core) GangReleasedReason(j *Job) string {
	g := j.gang
	if g == nil || !g.released {
		return ""
	}
	want := j.spec.MinMembers
	return fmt.Sprintf("gang of %d: %d of its %d members were not placed together within its timeout (%v); the room held for them is released, and they are placed only once they fit the free room together again; it holds nobody back", want, len(g.owed), want, c.gangTimeoutOf(j))
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
	g := j.gang
	if g == nil {
		return
	}
	j.gang, j.gangTimeouts = nil, g.timeouts
	c.gangs = dropJob(c.gangs, j)
	if g.released {
		c.gangsReleased = dropJob(c.gangsReleased, j)
		c.releaseAsks(j) // nothing is owed any more: the rest are placed as any job's
	}
	c.progress++ // gangs waiting behind its debt may fit now
}

// dropJob removes j from js, keeping the order.
func dropJob(js []*Job, j *Job) []*Job {
	for i, g := range js {
		if g == j {
			return append(js[:i], js[i+1:]...)
		}
	}
	return js
}

// gangWaitReason says why waiting gang j is not asked about for admission,
// or "" when it is.
func (c *Core) gangWaitReason(j *Job) string {
	want := j.spec.MinMembers
	mr := j.spec.MinResources
	// What can never change without new nodes first, then the members
	// still to come, then the room free now.
	if all := c.gangRoom(false); !mr.IsZero() && !mr.Fits(all) {
		return fmt.Sprintf("gang of %d: its minimum resources %v exceed what all nodes hold together (%v); it holds nobody back", want, mr, all)
	}
	members, known := c.gangMembers(j)
	owed := ""
	if len(c.gangs) > 0 {
		owed = fmt.Sprintf(" beside the room owed to %d gang(s) admitted before it", len(c.gangs))
	}
	switch {
	case known >= want && !c.gangFits(members, false):
		return fmt.Sprintf("gang of %d: its %d members never fit the cluster together (more than all nodes hold); it holds nobody back", want, want)
	case known < want:
		return fmt.Sprintf("gang of %d: %d of its %d members exist; none is placed before all %d can be placed together", want, known, want, want)
	case !mr.IsZero() && !mr.Fits(c.gangRoom(true)):
		return fmt.Sprintf("gang of %d: its minimum resources %v exceed the free room (%v)%s; it holds nobody back", want, mr, c.gangRoom(true).Max(resource.Vector{}), owed)
	case !c.gangFits(members, true):
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
