package sched

import (
	"math"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// This file is the MapReduce ApplicationMaster the core runs for simulated
// jobs, modelled on Hadoop's RMContainerAllocator: how it asks for the tasks
// of a phase that may start before the previous one completes (a reduce at
// slow-start waits for every map's output while it holds its container),
// and when it kills its own such tasks to make room for the previous phase.
// "Maps" and "reduces" below are a job's phase m and the phase r = m+1 that
// started early. The AM decides only from what a real one knows: its own
// asks and containers, the completions it has heard of, the time its map
// requests were made, and the headroom the resource manager reports; never
// a task's duration.

// MapReduce configures the ApplicationMaster of simulated jobs
// (Config.MapReduce). Each field is named after the Hadoop setting it
// models; the zero value is MRNone.
type MapReduce struct {
	Model MRModel
	// RampupLimit is yarn.app.mapreduce.am.job.reduce.rampup.limit: while
	// maps are still asked for, reduces may hold this share of the job's
	// resource limit (Hadoop: 0.5).
	RampupLimit float64
	// PreemptionLimit is yarn.app.mapreduce.am.job.reduce.preemption.limit:
	// the share of the job's resource limit one preemption may take back
	// from its reduces (Hadoop: 0.5).
	PreemptionLimit float64
	// PreemptDelay is mapreduce.job.reducer.preempt.delay.sec: how long
	// map requests wait, with no headroom for one, before reduces are
	// preempted (Hadoop: 0, at once). MRHadoop28 only.
	PreemptDelay clock.Duration
	// UnconditionalPreemptDelay is
	// mapreduce.job.reducer.unconditional-preempt.delay.sec: how long map
	// requests wait before reduces are preempted whatever the headroom
	// says (Hadoop: 300 s); negative disables it. MRHadoop28 only.
	UnconditionalPreemptDelay clock.Duration
}

// MRModel is which release's allocator the core models.
type MRModel uint8

// The models.
const (
	// MRNone asks for every task of a phase at once when its turn comes
	// and never preempts: spindle's model before the allocator was.
	MRNone MRModel = iota
	// MRHadoop28 is RMContainerAllocator since Hadoop 2.8: reduces ramp
	// up within RampupLimit while maps are asked for; when no map is
	// running and map requests wait, reduces are preempted if the
	// headroom has no room for a map (after PreemptDelay) or, whatever
	// the headroom, after UnconditionalPreemptDelay (MAPREDUCE-6302).
	// Containers are counted in the resources the run's calculator
	// compares (memory only by default).
	MRHadoop28
	// MRHadoop22 is RMContainerAllocator of Hadoop 2.2, which the
	// AutoAdmin paper ran: the same ramp-up, in memory only, and reduces
	// preempted whenever the headroom plus what the job's maps hold cannot
	// fit a map; no delays, no unconditional preemption.
	MRHadoop22
)

// mrState is the allocator's state for a job while its reduces have started
// and its maps have not all completed (as the AM knows).
type mrState struct {
	m, r    int          // the map and reduce phases
	pending int          // reduces not yet asked for (Hadoop's pendingReduces)
	reduces []*Container // assigned reduces not being killed, oldest first
	killing []*Container // assigned reduces whose kill was asked for
	// hold is set by a preemption: no reduce is asked for again until a
	// map gets a container (see mrSchedule).
	hold bool
	// checked is when the allocator last ran, so that AMDeadline knows
	// which time-based preemptions are still to be decided.
	checked clock.Time
	// mapsAsked is when the AM asked for its maps (a simulated job asks
	// for every task of a phase at once).
	mapsAsked clock.Time
}

// mrStart takes over asking for phase r of job j, whose start condition the
// AM now knows to hold while phase r-1 is incomplete: its tasks are ramped
// up rather than asked for at once. It reports false when the model is off
// or the phase did not start early, and phase r is then asked for whole.
func (c *Core) mrStart(j *Job, r int) bool {
	if c.mr.Model == MRNone || r == 0 || int(j.progress[r-1].completedAM) >= j.spec.Phases[r-1].Tasks {
		return false
	}
	if j.mr != nil {
		// Phase r starts only once its previous phase has tasks done,
		// which waits for every task before: the pair before is over.
		c.mrEnd(j)
	}
	j.mr = &mrState{m: r - 1, r: r, pending: j.spec.Phases[r].Tasks, checked: -1, mapsAsked: j.lastAsked}
	c.mrJobs = append(c.mrJobs, j)
	return true
}

// mrEnd gives up the allocator's state once every map has completed (as the
// AM knows) or the job ends: reduces not yet asked for are asked for now.
func (c *Core) mrEnd(j *Job) {
	s := j.mr
	j.mr = nil
	if i := slices.Index(c.mrJobs, j); i >= 0 {
		c.mrJobs = slices.Delete(c.mrJobs, i, i+1)
	}
	if s.pending > 0 && j.state == Active {
		c.addPending(&j.asks[1+s.r], s.pending)
		c.reconsider()
	}
}

// mrHeartbeat runs the allocator on one of job j's AM heartbeats, after the
// AM has taken its new containers and heard of completions: first whether
// reduces must be preempted, then how many reduces to ask for. While the job
// waits in the state from which only time or other jobs can move it (maps
// asked for and none running, reduces holding containers), it asks to be
// woken on later heartbeats too, as Hadoop's AM re-checks every heartbeat.
func (c *Core) mrHeartbeat(j *Job) {
	s := j.mr
	if int(j.progress[s.m].completedAM) >= j.spec.Phases[s.m].Tasks {
		c.mrEnd(j)
		return
	}
	s.checked = c.now
	preempted := false
	switch c.mr.Model {
	case MRHadoop28:
		preempted = c.mrPreempt28(j)
	case MRHadoop22:
		preempted = c.mrPreempt22(j)
	}
	// Hadoop 2.8 schedules no reduce in a heartbeat that preempted; 2.2
	// does, but a preemption holds reduces back here anyway (mrSchedule).
	if !preempted || c.mr.Model == MRHadoop22 {
		c.mrSchedule(j)
	}
	if c.mrWatch(j) {
		if w, ok := c.driver.(AMWatcher); ok {
			w.WatchAM(j)
		}
	}
}

// mrCounts returns what the AM knows of its tasks: maps asked for and not
// yet assigned, maps assigned and not completed, reduces asked for and not
// assigned, and reduces assigned (those being killed included). A map whose
// container ended without completing (preempted, failed, lost) waits in
// j.retry for a new one: it is asked for again, not assigned, or an AM that
// lost its only running map to queue preemption would think one still ran
// and never kill a reduce to make room for it.
func (j *Job) mrCounts() (schedMaps, assignedMaps, schedReduces, assignedReduces int) {
	s := j.mr
	p := &j.progress[s.m]
	assigned := int(p.allocated - p.completedAM)
	if j.retry != nil {
		assigned -= len(j.retry[s.m])
	}
	return j.asks[1+s.m].Pending, assigned, j.asks[1+s.r].Pending, len(s.reduces) + len(s.killing)
}

// mrWatch reports whether job j can be moved only by time or by other jobs:
// its maps wait for containers (and, for Hadoop 2.8, none runs) while its
// reduces hold theirs.
func (c *Core) mrWatch(j *Job) bool {
	schedMaps, assignedMaps, _, _ := j.mrCounts()
	if schedMaps == 0 || len(j.mr.reduces) == 0 {
		return false
	}
	return c.mr.Model != MRHadoop28 || assignedMaps == 0
}

// AMWatcher is implemented by drivers that run simulated jobs (the
// simulator). The core's MapReduce AM calls WatchAM while its reduces hold
// containers and its maps wait for theirs: the driver delivers the job's
// next regular AM heartbeat even if nothing happens to the job. Such a
// heartbeat is a timer, not news: a stall detector must not count it as
// progress, but must not declare a stall before AMDeadline either.
type AMWatcher interface{ WatchAM(j *Job) }

// AMDeadline returns the earliest instant, after the AM last looked, at
// which the passing of time alone may make a watched MapReduce AM preempt
// its reduces (a map request waiting past mapreduce.job.reducer.preempt.delay
// or the unconditional delay), or clock.Never when no such instant is
// pending. A driver that detects stalls waits for it.
func (c *Core) AMDeadline() clock.Time {
	next := clock.Never
	if c.mr.Model != MRHadoop28 {
		return next
	}
	for _, j := range c.mrJobs {
		if !c.mrWatch(j) {
			continue
		}
		asked := j.mr.mapsAsked
		for _, d := range []clock.Duration{c.mr.UnconditionalPreemptDelay, c.mr.PreemptDelay} {
			if d > 0 {
				// A request hangs once it has waited longer than d
				// (mrHanging, as Hadoop's getNumHangingRequests): the
				// first instant the AM can see it is one tick past
				// asked+d. An AM that looked at exactly asked+d saw
				// nothing yet, and its next heartbeat will.
				if t := asked.Add(d) + 1; t > j.mr.checked {
					next = min(next, t)
				}
			}
		}
	}
	return next
}

// headroom is what the resource manager tells job j's AM it may still get:
// what the cluster has free, capped by what the job's queue may still grow
// to (YARN's headroom in the allocate response, without user limits).
func (c *Core) headroom(j *Job) resource.Vector {
	capacity, free := c.cl.Capacity(), c.cl.Free()
	q := j.queue
	var h resource.Vector
	for d := range h {
		ceiling := int64(math.Floor(float64(capacity[d])*q.spec.MaxCapacity + 1e-9))
		h[d] = max(0, min(ceiling-q.usage[d], free[d]))
	}
	return h
}

// mrDims reports whether the allocator counts containers in every resource
// (Hadoop 2.8 under a scheduler that compares more than memory) rather than
// in memory alone.
func (c *Core) mrDims() bool {
	return c.mr.Model == MRHadoop28 && c.calc == resource.DominantCalculator
}

// fits is ResourceCalculatorUtils.computeAvailableContainers: how many
// containers of req fit in a (negative when a is), in the counted resources.
func (c *Core) fits(a, req resource.Vector) int64 {
	n := int64(math.MaxInt32)
	for d := range a {
		if req[d] > 0 && (d == int(resource.Memory) || c.mrDims()) {
			n = min(n, a[d]/req[d])
		}
	}
	return n
}

// ceilDiv is ResourceCalculatorUtils.divideAndCeilContainers: how many
// containers of req it takes to cover a, in the counted resources.
func (c *Core) ceilDiv(a, req resource.Vector) int64 {
	var n int64
	for d := range a {
		if req[d] > 0 && (d == int(resource.Memory) || c.mrDims()) {
			n = max(n, (a[d]+req[d]-1)/req[d])
		}
	}
	return n
}

// scale is Resources.multiply: each resource times f, truncated.
func scale(v resource.Vector, f float64) resource.Vector {
	for d := range v {
		v[d] = int64(float64(v[d]) * f)
	}
	return v
}

// mrLimit is getResourceLimit: the headroom plus what the job's maps and
// reduces hold.
func (c *Core) mrLimit(j *Job) resource.Vector {
	_, assignedMaps, _, assignedReduces := j.mrCounts()
	s := j.mr
	return c.headroom(j).Add(j.spec.Phases[s.m].Request.Mul(int64(assignedMaps))).Add(j.spec.Phases[s.r].Request.Mul(int64(assignedReduces)))
}

// mrSchedule is scheduleReduces: how many reduces to ask for, or to take
// back, given the maps left to run and the share of the job's resource limit
// RampupLimit lets reduces have. Once no map waits for a container, every
// reduce is asked for. After a preemption no reduce is asked for until a map
// gets a container: Hadoop asks again on its next heartbeat and relies on
// giving maps the room, but spindle's asks go in phase order, and without
// the hold reduces that the policy would place while refusing maps would be
// placed and preempted for ever.
func (c *Core) mrSchedule(j *Job) {
	s := j.mr
	if s.pending == 0 {
		return
	}
	schedMaps, assignedMaps, schedReduces, assignedReduces := j.mrCounts()
	red := &j.asks[1+s.r]
	if schedMaps == 0 {
		n := s.pending
		s.pending = 0
		c.addPending(red, n)
		c.progress++
		c.reconsider()
		return
	}
	if s.hold {
		return
	}
	mapReq, redReq := j.spec.Phases[s.m].Request, j.spec.Phases[s.r].Request
	done := float64(j.progress[s.m].completedAM) / float64(j.spec.Phases[s.m].Tasks)
	netMap := mapReq.Mul(int64(schedMaps + assignedMaps))
	netReduce := redReq.Mul(int64(schedReduces + assignedReduces))
	total := c.mrLimit(j)
	idealReduce := scale(total, min(done, c.mr.RampupLimit))
	idealMap := total.Sub(idealReduce)
	finalReduce := idealReduce
	enough := c.fits(idealMap, mapReq) >= int64(schedMaps+assignedMaps)
	if c.mr.Model == MRHadoop22 {
		enough = idealMap[resource.Memory] > netMap[resource.Memory]
	}
	if enough {
		// The maps cannot use all their share: the rest goes to reduces.
		finalReduce = idealReduce.Add(idealMap.Sub(netMap))
	}
	switch up := c.fits(finalReduce.Sub(netReduce), redReq); {
	case up > 0:
		n := min(int(up), s.pending)
		s.pending -= n
		c.addPending(red, n)
		c.progress++
		c.reconsider()
	case up < 0:
		n := min(int(-up), schedReduces)
		if n > 0 {
			s.pending += n
			c.addPending(red, -n)
			c.progress++
		}
	}
}

// mrHanging counts the job's map requests that have waited longer than d
// (all of them when d ≤ 0). A simulated job asks for every map at once.
func (c *Core) mrHanging(j *Job, d clock.Duration) int {
	schedMaps, _, _, _ := j.mrCounts()
	if d <= 0 || c.now.Sub(j.mr.mapsAsked) > d {
		return schedMaps
	}
	return 0
}

// mrPreempt28 is Hadoop 2.8's preemptReducesIfNeeded: with maps waiting and
// none running, reduces are preempted once a map request has waited past
// the unconditional delay, or, when the headroom less the reduces still
// asked for cannot fit a map, past the (no-headroom) preempt delay.
func (c *Core) mrPreempt28(j *Job) bool {
	schedMaps, assignedMaps, schedReduces, _ := j.mrCounts()
	if assignedMaps > 0 || schedMaps == 0 {
		return false
	}
	if c.mr.UnconditionalPreemptDelay >= 0 {
		if h := c.mrHanging(j, c.mr.UnconditionalPreemptDelay); h > 0 {
			c.mrPreemptFor(j, h)
			return true
		}
	}
	s := j.mr
	mapReq, redReq := j.spec.Phases[s.m].Request, j.spec.Phases[s.r].Request
	if c.fits(c.headroom(j).Sub(redReq.Mul(int64(schedReduces))), mapReq) > 0 {
		return false
	}
	if h := c.mrHanging(j, c.mr.PreemptDelay); h > 0 {
		c.mrPreemptFor(j, h)
		return true
	}
	return false
}

// mrPreemptFor is preemptReducer: every reduce still asked for is taken
// back, and enough assigned reduces are killed for one map, or for
// PreemptionLimit of the job's resource limit if that is more, but no more
// than the hanging maps need.
func (c *Core) mrPreemptFor(j *Job, hanging int) {
	s := j.mr
	mapReq, redReq := j.spec.Phases[s.m].Request, j.spec.Phases[s.r].Request
	limit := c.mrLimit(j)
	c.mrRampDownAll(j)
	toPreempt := min(max(c.ceilDiv(mapReq, redReq), c.ceilDiv(scale(limit, c.mr.PreemptionLimit), redReq)),
		c.ceilDiv(mapReq.Mul(int64(hanging)), redReq))
	c.mrKill(j, int(toPreempt))
}

// mrPreempt22 is Hadoop 2.2's preemptReducesIfNeeded, in memory: with maps
// waiting, when the headroom plus what the job's maps and the reduces
// already being killed hold cannot fit a map, every reduce still asked for
// is taken back and reduces are killed for the maps, up to PreemptionLimit
// of the job's memory limit (at least one map's worth).
func (c *Core) mrPreempt22(j *Job) bool {
	schedMaps, _, _, assignedReduces := j.mrCounts()
	s := j.mr
	mapMem, redMem := j.spec.Phases[s.m].Request[resource.Memory], j.spec.Phases[s.r].Request[resource.Memory]
	if schedMaps == 0 || redMem <= 0 {
		return false
	}
	memLimit := c.mrLimit(j)[resource.Memory]
	if memLimit-int64(len(s.reduces))*redMem >= mapMem {
		return false
	}
	c.mrRampDownAll(j)
	preemptMem := min(int64(schedMaps)*mapMem, max(mapMem, int64(c.mr.PreemptionLimit*float64(memLimit))))
	toPreempt := min((preemptMem+redMem-1)/redMem, int64(assignedReduces))
	c.mrKill(j, int(toPreempt))
	return true
}

// mrRampDownAll takes back every reduce asked for and not yet assigned
// (clearAllPendingReduceRequests).
func (c *Core) mrRampDownAll(j *Job) {
	s := j.mr
	if n := j.asks[1+s.r].Pending; n > 0 {
		s.pending += n
		c.addPending(&j.asks[1+s.r], -n)
		c.progress++
	}
}

// mrKill has n of the job's assigned reduces killed, those already being
// killed counted among them: the ones with the least progress first, as
// Hadoop's preemptReduce sorts them. The AM knows no more of a waiting
// reduce's progress than whether it runs yet, and Hadoop's stable sort
// keeps assignment order among equals: those not yet running go first, then
// the oldest. The driver stops each; its KILLED report frees the container,
// and the reduce, its work lost, is asked for again (endAbnormal).
func (c *Core) mrKill(j *Job, n int) {
	s := j.mr
	s.hold = true
	for len(s.killing) < n && len(s.reduces) > 0 {
		// A reduce queue preemption took (a victim) is ending already:
		// the AM does not kill it again.
		i := slices.IndexFunc(s.reduces, func(ct *Container) bool { return ct.state != Running && !ct.victim })
		if i < 0 {
			i = slices.IndexFunc(s.reduces, func(ct *Container) bool { return !ct.victim })
		}
		if i < 0 {
			break
		}
		ct := s.reduces[i]
		s.reduces = slices.Delete(s.reduces, i, i+1)
		s.killing = append(s.killing, ct)
		c.progress++
		c.driver.Stop(ct)
	}
}

// amKilling reports whether ct's MapReduce AM has asked for its kill: it is
// ending, and queue preemption does not take it as well.
func (ct *Container) amKilling() bool {
	j := ct.job
	return j != nil && j.mr != nil && int(ct.phase) == j.mr.r && slices.Contains(j.mr.killing, ct)
}

// mrAllocated follows the allocator's containers: a map that gets one
// lifts the hold a preemption put on reduces; an assigned reduce joins the
// list preemption picks from.
func (c *Core) mrAllocated(j *Job, ct *Container) {
	switch s := j.mr; int(ct.phase) {
	case s.m:
		s.hold = false
	case s.r:
		s.reduces = append(s.reduces, ct)
	}
}

// mrEnded forgets a reduce container that ended, and reports whether the
// allocator asked for its kill: the reduce then goes back to the reduces
// not yet asked for, to be ramped up again.
func (c *Core) mrEnded(j *Job, ct *Container) (preempted bool) {
	s := j.mr
	if s == nil || int(ct.phase) != s.r {
		return false
	}
	if i := slices.Index(s.killing, ct); i >= 0 {
		s.killing = slices.Delete(s.killing, i, i+1)
		return true
	}
	if i := slices.Index(s.reduces, ct); i >= 0 {
		s.reduces = slices.Delete(s.reduces, i, i+1)
	}
	return false
}
