// Package sim is the deterministic discrete-event driver of the scheduling
// core: it replays a workload against a YARN-like cluster in virtual time.
//
// Node heartbeats allocate (node-driven, as in YARN), AM heartbeats acquire
// and launch, launches take a jittered delay, and nodes report RUNNING and
// COMPLETED on their next heartbeat; the simulator alone knows task durations.
// Every node heartbeats at its own seeded phase, but a heartbeat that could
// change nothing (no reports, and no room or no demand) is elided: the
// simulator only delivers heartbeats that carry reports or that reach a node
// with room while some job waits, visiting such nodes in heartbeat order once
// per period after each change. The outcome is identical to delivering every
// heartbeat (a test checks this), at a cost that follows activity rather than
// nodes × time.
package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"unsafe"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sim/internal/prefetch"
	"github.com/spindle-sched/spindle/workload"
)

// Options configure a run.
type Options struct {
	Seed      uint64
	Policy    func(v *sched.View) (sched.Policy, error)
	Admission func(v *sched.View) (sched.Admission, error) // nil: admit every job
	// Estimates selects where the runtime estimates policies see come from.
	Estimates Estimates
	// ForecastError makes the external-load forecast policies see noisy:
	// each knot of the workload's curve is scaled by 1 + U[−E, E] (clipped
	// to [0, 1]), drawn from the seed. 0 gives the exact curve, which the
	// Reverse-Adaptive paper assumes known; it must be in [0, 1].
	ForecastError float64
	// LoadStep is how often a sloping external load is re-sampled; it is
	// held constant in between. 0 means the node heartbeat interval (1 s
	// in ideal mode), the rate at which a resource manager learns of a
	// node's resources.
	LoadStep clock.Duration

	// Check verifies the core's invariants after every event; tests set it.
	Check bool
	// MaxEvents, when positive, fails a run that handles more events: a
	// guard for tests that every run ends.
	MaxEvents uint64
	// EveryHeartbeat delivers every node heartbeat instead of eliding the
	// ones that cannot change anything; tests use it to prove elision exact.
	EveryHeartbeat bool
	// TimelineStep, when positive, records the cluster's allocation over
	// time in Result.Timeline: the allocation at the end of each step-long
	// window in which it changed.
	TimelineStep clock.Duration
	// DropDurations frees each job's true task durations in the workload
	// (sets its phases' Durations to nil) once the job has finished, so
	// that a large workload does not hold them to the end. Only for a
	// workload that is simulated once: it is not fit for another run.
	DropDurations bool
	// Progress, when set, is called every ProgressEvery events.
	Progress      func(p Progress)
	ProgressEvery uint64
}

// Progress is a snapshot for progress displays.
type Progress struct {
	Now               clock.Time
	Events            uint64
	JobsDone, JobsAll int
}

// Result is the outcome of a run: what any driver's run measures
// (metrics.Outcome), and the policy and admission controller that ran, for
// their reports.
type Result struct {
	metrics.Outcome
	Policy    sched.Policy
	Admission sched.Admission
	// Preemption is what the preemption monitor did; nil when it was off.
	Preemption *sched.PreemptionStats
	// TasksKilled counts the task containers the simulator ended early:
	// those their MapReduce AM killed and those preemption took. Each is
	// counted once; in Check mode a second kill of one container fails
	// the run.
	TasksKilled int
}

// Reports returns the sections the policy and admission controller report
// (sched.Reporter), by name; nil when neither reports. A report with an
// empty name is no report.
func (r *Result) Reports() map[string]any {
	var out map[string]any
	if r.Preemption != nil {
		out = map[string]any{sched.PreemptionSection: r.Preemption.Summary()}
	}
	for _, x := range []any{r.Policy, r.Admission} {
		if rep, ok := x.(sched.Reporter); ok {
			name, data := rep.Report()
			if name == "" { // a wrapper whose inner policy does not report
				continue
			}
			if out == nil {
				out = map[string]any{}
			}
			out[name] = data
		}
	}
	return out
}

// mapReduce turns the workload's MapReduce AM settings into the core's.
func mapReduce(m workload.MapReduceAM) sched.MapReduce {
	m = m.Effective()
	model := sched.MRNone
	switch m.Model {
	case workload.MRHadoop28:
		model = sched.MRHadoop28
	case workload.MRHadoop22:
		model = sched.MRHadoop22
	}
	return sched.MapReduce{Model: model, RampupLimit: m.ReduceRampupLimit, PreemptionLimit: m.ReducePreemptionLimit,
		PreemptDelay: m.ReducerPreemptDelay, UnconditionalPreemptDelay: m.ReducerUnconditionalPreemptDelay}
}

// idleTicks is how many ticks a run with nothing but ticks left may go
// without any state change before it is declared deadlocked: enough for a
// policy that adapts a limit over a few intervals to free itself.
const idleTicks = 10

type nodeState struct {
	offset    clock.Duration // heartbeat phase in [0, period)
	beatAt    clock.Time     // queued heartbeat, or -1
	sweepOnly bool           // the queued heartbeat was asked for by the sweep alone
	probe     bool           // the queued heartbeat must retry admission
	// first and last are the node's reports waiting for its heartbeat, in
	// order, as a list in simulator.reports; -1 when there are none.
	first, last int32
}

// report is a container's new state, waiting for its node's heartbeat.
// Every node's reports are lists in one array whose cells are reused last
// freed first: the cells a heartbeat frees are what the next reports take,
// so they are still in cache, where a slice per node would be a line of its
// own to miss on each report and each heartbeat.
type report struct {
	ct    *sched.Container
	next  int32 // the node's next report, or -1; the next free cell when free
	state sched.ContainerState
}

type jobState struct {
	w        *workload.Job
	j        *sched.Job
	beatAt   clock.Time // queued AM heartbeat, or -1
	watchAt  clock.Time // queued watch heartbeat (sched.AMWatcher), or -1
	lastBeat clock.Time
	done     []int32              // tasks truly finished, per phase
	deferred [][]*sched.Container // finished work waiting for the previous phase, per phase
}

type simulator struct {
	w     *workload.Workload
	opt   Options
	core  *sched.Core
	cl    *cluster.Cluster
	q     eventQueue
	now   clock.Time
	ideal bool

	nodePeriod, amPeriod clock.Duration
	launchDelay          clock.Duration
	launchJitter         float64
	launchRNG            *rand.Rand
	api                  *apiLimit // the Kubernetes scheduler's client-side limit, nil: none

	nodes []nodeState
	jobs  []jobState // by sched.JobID, which is arrival order
	order []int      // workload job indices in arrival order
	next  int        // next arrival in order

	// Heartbeat order: nodes sorted by phase. pos[node] is its place,
	// byPos the inverse, phase the sorted offsets.
	pos    []int32
	byPos  []int32
	phase  []clock.Duration
	accept *bitset // by position: the node may accept a container
	sw     sweep

	est *estimator
	// pools are the node pools' placement predicates; nil without pools.
	pools *pools

	// probeQueued says a heartbeat is queued to retry admission (see
	// probe).
	probeQueued bool
	// reportsQueued counts container reports waiting for their node's
	// heartbeat: news that stall detection must wait for.
	reportsQueued int
	reports       []report
	freeReport    int32 // first free cell of reports, or -1

	ext *external // nil when the machines are dedicated

	// killed holds the task containers ended early, by their AM's kill or
	// by preemption, whose start or finish is still queued: those events
	// are dropped when they come.
	killed map[*sched.Container]struct{}

	timeline []metrics.Sample

	// killing holds the containers preemption asked to end, until their
	// kill is handled (evKill); nil while preemption is off.
	killing map[*sched.Container]sched.ContainerID
	// tasksKilled counts task kills (Result.TasksKilled); everKilled, in
	// Check mode, the containers killed, to catch one killed twice (by its
	// AM and by preemption: the guards in the core keep them apart).
	tasksKilled int
	everKilled  map[sched.ContainerID]string

	passQueued bool
	// The furthest point reached in the current instant, in the (class,
	// key) order of events: events queued during an instant may sort before
	// ones already handled, so "has node X heartbeated at this instant yet"
	// is answered from this mark, not from the event being handled.
	markClass uint8
	markKey   int32
	events    uint64
	finished  int
	err       error
}

// sweep walks the nodes that may accept in heartbeat order, for one period
// after the last change, so each gets the heartbeat it would have had.
type sweep struct {
	cycle    int64 // cursor: the last visited (cycle, position)
	pos      int32
	end      clock.Time // visit heartbeats up to end: those at end only up to position endKey
	endKey   int32
	armed    int32 // position whose heartbeat the sweep waits for, or -1
	armedAt  clock.Time
	inactive bool
}

// Run simulates the workload under the given options.
func Run(w *workload.Workload, opt Options) (*Result, error) {
	if opt.Policy == nil {
		return nil, errors.New("sim: no policy")
	}
	if err := opt.Estimates.Validate(); err != nil {
		return nil, err
	}
	if !(opt.ForecastError >= 0 && opt.ForecastError <= 1) {
		return nil, fmt.Errorf("sim: forecast error %v: must be in [0, 1]", opt.ForecastError)
	}
	if opt.LoadStep < 0 {
		return nil, fmt.Errorf("sim: negative load step %v", opt.LoadStep)
	}
	c := &w.Cluster
	// Kubernetes timing is ideal mode's event-driven allocation with the
	// launch delay kept: the pod start latency (workload.TimingKubernetes).
	s := &simulator{w: w, opt: opt, ideal: c.Ideal || c.Timing == workload.TimingKubernetes, freeReport: -1}
	s.nodePeriod, s.amPeriod = c.NodeHeartbeat, c.AMHeartbeat
	s.launchDelay, s.launchJitter = c.LaunchDelay, c.LaunchJitter
	if c.Timing == workload.TimingKubernetes {
		s.api = newAPILimit(c.APIQPS, c.APIBurst)
	}
	if s.ideal {
		s.nodePeriod, s.amPeriod = 0, 0
		if c.Ideal {
			s.launchDelay, s.launchJitter = 0, 0
		}
	} else if s.nodePeriod <= 0 || s.amPeriod <= 0 {
		return nil, errors.New("sim: heartbeat intervals must be positive outside ideal mode")
	}
	// Independent streams, so that changing one use of randomness does not
	// shift another.
	phaseRNG := rand.New(rand.NewPCG(opt.Seed, 0x6e6f6465))   // "node"
	s.launchRNG = rand.New(rand.NewPCG(opt.Seed, 0x6c61756e)) // "laun"

	var caps []resource.Vector
	for _, g := range c.Nodes {
		for range g.Count {
			caps = append(caps, g.Capacity)
		}
	}
	n := len(caps)
	s.pools = newPools(w)
	s.est = newEstimator(opt.Estimates, opt.Seed, caps)
	s.nodes = make([]nodeState, n)
	for i := range s.nodes {
		s.nodes[i] = nodeState{beatAt: -1, first: -1, last: -1}
		if !s.ideal {
			s.nodes[i].offset = clock.Duration(phaseRNG.Int64N(int64(s.nodePeriod)))
		}
	}
	s.byPos = make([]int32, n)
	for i := range s.byPos {
		s.byPos[i] = int32(i)
	}
	sort.SliceStable(s.byPos, func(a, b int) bool { return s.nodes[s.byPos[a]].offset < s.nodes[s.byPos[b]].offset })
	s.pos = make([]int32, n)
	s.phase = make([]clock.Duration, n)
	for p, id := range s.byPos {
		s.pos[id] = int32(p)
		s.phase[p] = s.nodes[id].offset
	}
	s.accept = newBitset(n)
	s.sw = sweep{armed: -1, inactive: true}
	if !s.ideal {
		s.q.wheel = newBeatWheel(s.nodePeriod, s.phase, s.byPos)
	}

	var forecast *cluster.LoadCurve
	if l := c.ExternalLoad; l != nil {
		step := opt.LoadStep
		if step == 0 {
			step = max(s.nodePeriod, clock.Second)
		}
		var err error
		if s.ext, forecast, err = newExternal(l, &opt, step, n); err != nil {
			return nil, err
		}
	} else if c.Held() {
		s.ext = newHeld(c, n)
	}

	queues := make([]sched.QueueSpec, len(w.Queues))
	for i, q := range w.Queues {
		queues[i] = sched.QueueSpec{Name: q.Name, Capacity: q.Capacity, MaxCapacity: q.MaxCapacity, Weight: q.Weight, DisablePreemption: q.DisablePreemption}
	}
	core, err := sched.NewCore(sched.Config{
		Nodes: caps, Queues: queues, Driver: (*driver)(s),
		NewPolicy: opt.Policy, NewAdmission: opt.Admission, Debug: opt.Check,
		Forecast: forecast, Calculator: c.Calculator, MapReduce: mapReduce(c.MapReduceAM),
	})
	if err != nil {
		return nil, err
	}
	s.core, s.cl = core, core.Cluster()
	if core.ReservationsExpire() {
		// A reservation expires at its node's first update past its
		// timeout, which eliding heartbeats would move: deliver them all.
		opt.EveryHeartbeat, s.opt.EveryHeartbeat = true, true
	}
	if s.ext != nil {
		// The load at time 0 holds from the start; later samples are
		// events among the true state changes of their instant, which all
		// come before any allocation at it.
		s.applyLoad()
		if s.err != nil {
			return nil, s.err
		}
	}

	s.order = make([]int, len(w.Jobs))
	for i := range s.order {
		s.order[i] = i
	}
	sort.SliceStable(s.order, func(a, b int) bool { return w.Jobs[s.order[a]].Submit < w.Jobs[s.order[b]].Submit })
	s.jobs = make([]jobState, 0, len(w.Jobs))
	if len(s.order) > 0 {
		s.q.push(w.Jobs[s.order[0]].Submit, evArrival, 0, nil)
	}
	if t := core.NextTick(-1); t != clock.Never {
		s.q.pushTick(t)
	}
	if opt.EveryHeartbeat && !s.ideal {
		for i := range s.nodes {
			s.queueBeat(i, clock.Time(s.nodes[i].offset), false)
		}
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	r := s.result()
	// The result keeps the policy, whose view reaches the core and through
	// its driver this simulator: what only the loop needed goes now, before
	// the caller builds its summaries beside it.
	s.jobs, s.order, s.nodes, s.reports, s.q = nil, nil, nil, nil, eventQueue{}
	return r, nil
}

func (s *simulator) loop() error {
	quietTicks := 0
	mark := s.core.Progress() // progress when the quiet stretch began
	markAt := clock.Time(-1)  // and when
	for s.q.Len() > 0 {
		if s.finished == len(s.w.Jobs) && s.next == len(s.order) && s.q.only(evTick, evNodeBeat, evAMStop, evLoad, evAMWatch) {
			break // every job is done; what remains is housekeeping
		}
		// Stall detection is by progress, not by an empty queue: while no
		// event that carries news is queued (see quiet), only ticks, load
		// samples, allocation passes and heartbeats without reports remain;
		// none of them is progress in itself, and if the core's state
		// stops changing through them the run is stuck.
		if s.quiet() {
			if p := s.core.Progress(); p != mark || markAt < 0 {
				mark, markAt, quietTicks = p, s.now, 0
			} else if s.stalled(markAt, &quietTicks) {
				break
			}
		} else {
			markAt = -1
		}
		e := s.q.pop()
		if e.at != s.now {
			s.markClass, s.markKey = 0, -1
		}
		s.now = e.at
		if c, k := e.class(), e.key(); c > s.markClass || (c == s.markClass && k > s.markKey) {
			s.markClass, s.markKey = c, k
		}
		s.events++
		if s.opt.MaxEvents > 0 && s.events > s.opt.MaxEvents {
			return fmt.Errorf("at %v: more than %d events, %d of %d jobs finished", s.now, s.opt.MaxEvents, s.finished, len(s.w.Jobs))
		}
		s.warm()
		s.handle(&e)
		s.probe()
		if s.opt.TimelineStep > 0 {
			s.sample()
		}
		if s.err != nil {
			return fmt.Errorf("at %v: %w", s.now, s.err)
		}
		if s.q.err != nil {
			return fmt.Errorf("at %v: %w", s.now, s.q.err)
		}
		if err := s.core.Err(); err != nil {
			return fmt.Errorf("at %v: %w", s.now, err)
		}
		if s.opt.Check {
			if err := s.core.Check(); err != nil {
				return fmt.Errorf("invariant broken at %v after %v event: %w", s.now, e.kind, err)
			}
		}
		if s.opt.Progress != nil && s.opt.ProgressEvery > 0 && s.events%s.opt.ProgressEvery == 0 {
			s.opt.Progress(Progress{Now: s.now, Events: s.events, JobsDone: s.finished, JobsAll: len(s.w.Jobs)})
		}
	}
	return nil
}

// quiet reports whether no queued event carries news: no arrival, container
// start, task end, AM exit or AM heartbeat, and no node holds a container
// report. What may remain (ticks, load samples, allocation passes, and
// heartbeats that only offer a node's room) can change the state only
// through a decision that a tick or a load change made possible, so a
// stretch of them without progress, long enough for each to have had its
// turn, means nothing will move again.
func (s *simulator) quiet() bool {
	q := &s.q.counts
	return q[evArrival]+q[evStart]+q[evFinish]+q[evAMStop]+q[evAMBeat]+q[evKill] == 0 && s.reportsQueued == 0
}

// stalled decides, while the queue is quiet and nothing has changed since
// markAt, whether the run is stuck: once idleTicks ticks passed without
// change and, while heartbeats are still offered, every node has had three
// heartbeat periods to take something; with no ticks, once heartbeats alone
// went three periods without change; and while the external load still
// varies, not before a whole period of its curve (or its last knot) went by
// without change, since a falling load may yet make room.
func (s *simulator) stalled(markAt clock.Time, quietTicks *int) bool {
	if s.core.AMDeadline() != clock.Never {
		// An AM waits for a map request to age past a preemption
		// delay, which may yet free room (sched.Core.AMDeadline).
		return false
	}
	if t := s.core.ReservationDeadline(markAt); t != clock.Never && s.now <= t.Add(s.nodePeriod) {
		// A reservation held since before the quiet stretch expires
		// at its node's first heartbeat past t and frees the node.
		return false
	}
	next := s.q.peek()
	if next.kind == evTick {
		*quietTicks++
	}
	from, ticks := markAt, *quietTicks
	if x := s.ext; x != nil {
		if s.q.counts[evLoad] > 0 {
			// A curve that does not repeat stops being sampled after its
			// last knot; one that repeats has shown every value within a
			// period.
			if x.curve == nil {
				return false // held steps still to come may make room
			}
			p := x.curve.Period()
			if p == 0 || s.now-markAt <= clock.Time(s.loadCycle(p)) {
				return false
			}
			return s.q.counts[evTick] == 0 || *quietTicks > idleTicks
		}
		if x.changedAt > markAt {
			// The last change of load may have made room: it gets the
			// same grace as a change of state.
			from, ticks = x.changedAt, min(ticks, x.ticks)
		}
	}
	offered := s.q.counts[evNodeBeat] > 0
	switch {
	case next.kind == evTick:
		return ticks > idleTicks && (!offered || s.ideal || next.at-from > 3*clock.Time(s.nodePeriod))
	case s.q.counts[evTick] == 0 && !s.ideal && offered:
		return next.at-from > 3*clock.Time(s.nodePeriod)
	case s.q.counts[evTick] == 0 && s.q.counts[evAMWatch] > 0:
		// Only AMs watching for room remain: three of their heartbeats
		// without change, and no preemption delay left to pass.
		return next.at-from > 3*clock.Time(s.watchPeriod())
	}
	return false
}

// maxLoadCycles bounds loadCycle, in periods of the load.
const maxLoadCycles = 100

// loadCycle is how long a stuck run under a load of the given period must
// go without change before it is declared stuck: one period, or, under
// ticking policies, until the ticks and the load come back to the same
// phases together (a policy that keeps room for the load a cycle ahead may
// place a task only at the rare tick that falls where the load stays low
// for a whole cycle), bounded by maxLoadCycles periods.
func (s *simulator) loadCycle(p clock.Duration) clock.Duration {
	c := s.core.TickCycle()
	if c <= 0 {
		return p
	}
	g, b := int64(p), int64(c)
	for b != 0 {
		g, b = b, g%b
	}
	if int64(p)/g > maxLoadCycles*int64(p)/int64(c) {
		return maxLoadCycles * p
	}
	return min(clock.Duration(int64(p)/g*int64(c)), maxLoadCycles*p)
}

// watchPeriod is how often a watching AM heartbeats (sched.AMWatcher): its
// heartbeat interval, or a second in ideal mode.
func (s *simulator) watchPeriod() clock.Duration {
	if s.amPeriod > 0 {
		return s.amPeriod
	}
	return clock.Second
}

// warm asks for what the next event's handler will load first, so that the
// memory it misses in cache is fetched while this event is handled: at
// this scale the run waits on such misses more than it computes. The hints
// do not wait for the memory (a load would, stalling this event's work
// behind it), cost next to nothing when the memory is already at hand, and
// change no result. Hinting a second level ahead (the event after next,
// what the next event's memory points to) was tried and measured slower.
func (s *simulator) warm() {
	p, ok := s.q.next()
	if !ok {
		return
	}
	switch p.kind {
	case evStart, evFinish:
		span(unsafe.Pointer(p.ct), unsafe.Sizeof(sched.Container{}))
		prefetch.Line(unsafe.Pointer(&s.jobs[p.idx]))
	case evNodeBeat:
		// The node's own state, which its update reads throughout.
		span(unsafe.Pointer(s.cl.Node(cluster.NodeID(p.idx))), unsafe.Sizeof(cluster.Node{}))
		for i := s.nodes[p.idx].first; i >= 0; i = s.reports[i].next {
			span(unsafe.Pointer(s.reports[i].ct), unsafe.Sizeof(sched.Container{}))
		}
	case evAMBeat:
		prefetch.Line(unsafe.Pointer(&s.jobs[p.idx]))
	}
}

// span hints every cache line of the object of size bytes at p, wherever
// it starts within its first line: each 64 bytes from p and its last byte.
// The hints stay inside the object, as pointer checks require.
func span(p unsafe.Pointer, size uintptr) {
	for off := uintptr(0); off < size; off += 64 {
		prefetch.Line(unsafe.Add(p, off))
	}
	prefetch.Line(unsafe.Add(p, size-1))
}

func (k eventKind) String() string {
	return [...]string{"arrival", "start", "finish", "stop", "tick", "node heartbeat", "AM heartbeat", "allocation pass", "load sample", "kill", "AM watch"}[k]
}

func (s *simulator) handle(e *event) {
	switch e.kind {
	case evArrival:
		s.arrive()
	case evStart:
		s.start(e.ct, e.idx)
	case evFinish:
		s.finishTask(e.ct, e.idx)
	case evKill:
		s.kill(e.ct)
	case evAMStop:
		if e.ct.IsAM() {
			s.report(e.ct, sched.Completed)
		} else {
			s.report(e.ct, sched.Killed)
		}
	case evTick:
		if s.ext != nil {
			s.ext.ticks++
		}
		s.core.Tick(s.now)
		if t := s.core.NextTick(s.now); t != clock.Never {
			s.q.pushTick(t)
		}
	case evNodeBeat:
		s.nodeBeat(int(e.idx))
	case evAMBeat, evAMWatch:
		js := &s.jobs[e.idx]
		if e.kind == evAMWatch {
			if js.watchAt != s.now {
				return // superseded
			}
			js.watchAt = -1
			if js.beatAt == s.now || js.lastBeat == s.now {
				return // the job's regular heartbeat at this instant did it
			}
		} else {
			js.beatAt = -1
		}
		js.lastBeat = s.now
		was := js.j.State()
		s.core.AMHeartbeat(s.now, js.j)
		if j := js.j; was != sched.Finished && j.State() == sched.Finished {
			s.finished++
			s.est.observe(js.w.Name, j.LastCompleted().Sub(j.FirstRunning()))
			if s.opt.DropDurations {
				for k := range js.w.Phases {
					js.w.Phases[k].Durations = nil
				}
			}
		}
	case evPass:
		s.pass()
	case evLoad:
		s.applyLoad()
	}
}

func (s *simulator) arrive() {
	wj := &s.w.Jobs[s.order[s.next]]
	s.next++
	if s.next < len(s.order) {
		s.q.push(s.w.Jobs[s.order[s.next]].Submit, evArrival, 0, nil)
	}
	spec := &sched.JobSpec{
		Key: wj.ID, Name: wj.Name, Queue: wj.Queue, User: wj.User, Priority: wj.Priority, AM: wj.AM, MinMembers: wj.MinMembers, GangTimeout: wj.GangTimeout,
		Deadline: wj.Deadline, Estimate: s.est.estimate(wj),
		Phases: make([]sched.PhaseSpec, len(wj.Phases)),
	}
	for k := range wj.Phases {
		p := &wj.Phases[k]
		spec.Phases[k] = sched.PhaseSpec{Name: p.Name, Tasks: p.Tasks, Request: p.Request, StartAfter: p.StartAfter}
	}
	s.pools.place(spec, s.w, wj)
	s.jobs = append(s.jobs, jobState{w: wj, beatAt: -1, watchAt: -1, lastBeat: -1, done: make([]int32, len(wj.Phases))})
	j, err := s.core.Submit(s.now, spec)
	if err != nil {
		// The workload was validated; a refusal here is a bug, surfaced
		// through the core's error.
		s.jobs = s.jobs[:len(s.jobs)-1]
		s.err = err
		return
	}
	s.jobs[j.ID()].j = j
}

// start runs launched container ct of job jid. Starts and finishes carry
// their job's index so that handling them need not load the job.
func (s *simulator) start(ct *sched.Container, jid int32) {
	if s.dropKilled(ct) {
		return
	}
	js := &s.jobs[jid]
	if ct.IsAM() {
		s.core.AMStarted(s.now, js.j)
	} else {
		d := js.w.Phases[ct.Phase()].Duration(ct.Task())
		s.q.push(s.now.Add(d), evFinish, jid, ct)
	}
	s.report(ct, sched.Running)
}

// finishTask ends a task's work. A task of a phase that started before the
// previous one completed (reduce slow-start) cannot end before that phase
// does: it waits for its inputs, as a reducer waits for the last map output.
func (s *simulator) finishTask(ct *sched.Container, jid int32) {
	if s.dropKilled(ct) {
		return
	}
	js := &s.jobs[jid]
	k := ct.Phase()
	if k > 0 && int(js.done[k-1]) < js.w.Phases[k-1].Tasks {
		if js.deferred == nil {
			js.deferred = make([][]*sched.Container, len(js.w.Phases))
		}
		js.deferred[k] = append(js.deferred[k], ct)
		return
	}
	s.taskDone(js, ct)
}

// dropKilled reports whether ct's start or finish is to be dropped: its AM
// killed it or preemption took it, so its work is lost (the task is asked
// for again). That was the container's last queued event.
func (s *simulator) dropKilled(ct *sched.Container) bool {
	if _, ok := s.killed[ct]; !ok {
		return false
	}
	delete(s.killed, ct)
	return true
}

func (s *simulator) taskDone(js *jobState, ct *sched.Container) {
	k := ct.Phase()
	js.done[k]++
	s.report(ct, sched.Completed)
	if js.deferred != nil && k+1 < len(js.deferred) && int(js.done[k]) == js.w.Phases[k].Tasks {
		waiting := js.deferred[k+1]
		js.deferred[k+1] = nil
		for _, w := range waiting {
			s.taskDone(js, w)
		}
	}
}

// kill ends container ct of job jid, which preemption took: it is reported
// PREEMPTED on its node's next heartbeat and its task's work is lost (the
// core asks for the task again, to be run from the start). A container
// whose task has already finished, its COMPLETED report on its way, is left
// to complete.
func (s *simulator) kill(ct *sched.Container) {
	id, ok := s.killing[ct]
	delete(s.killing, ct)
	if !ok || id != ct.ID() || ct.State() != sched.Running {
		return
	}
	ns := &s.nodes[ct.NodeID()]
	for i := ns.first; i >= 0; i = s.reports[i].next {
		if s.reports[i].ct == ct {
			return // it finished: COMPLETED is on its way
		}
	}
	s.killedTask(ct, "preemption")
	// Its work done, waiting for the previous phase, no end of it is
	// queued; else its finish is, to be dropped.
	if !s.undefer(ct) {
		if s.killed == nil {
			s.killed = map[*sched.Container]struct{}{}
		}
		s.killed[ct] = struct{}{}
	}
	s.report(ct, sched.Preempted)
}

// report hands a container's new state to its node, to be reported on the
// node's next heartbeat (at once in ideal mode).
func (s *simulator) report(ct *sched.Container, st sched.ContainerState) {
	id := int(ct.NodeID())
	if s.ideal {
		s.core.Report(s.now, ct, st)
		s.refresh(id)
		return
	}
	i := s.freeReport
	if i >= 0 {
		s.freeReport = s.reports[i].next
		s.reports[i] = report{ct: ct, next: -1, state: st}
	} else {
		i = int32(len(s.reports))
		s.reports = append(s.reports, report{ct: ct, next: -1, state: st})
	}
	ns := &s.nodes[id]
	if ns.last < 0 {
		ns.first = i
	} else {
		s.reports[ns.last].next = i
	}
	ns.last = i
	s.reportsQueued++
	s.queueBeat(id, s.nextBeat(id), false)
}

// passed reports whether the heartbeat at time t of the node at position pos
// has already happened, were every heartbeat delivered: heartbeats at one
// instant come after true state changes and ticks, in position order, and
// before AM heartbeats.
func (s *simulator) passed(t clock.Time, pos int32) bool {
	if t != s.now {
		return t < s.now
	}
	hb := class[evNodeBeat]
	return s.markClass > hb || (s.markClass == hb && pos <= s.markKey)
}

// nextBeat returns node id's first heartbeat that has not yet happened.
func (s *simulator) nextBeat(id int) clock.Time {
	ns := &s.nodes[id]
	p := clock.Time(s.nodePeriod)
	off := clock.Time(ns.offset)
	t := off
	if s.now > off {
		t = off + (s.now-off+p-1)/p*p
	}
	if s.passed(t, s.pos[id]) {
		t += p
	}
	return t
}

func (s *simulator) queueBeat(id int, at clock.Time, sweepOnly bool) {
	ns := &s.nodes[id]
	if ns.beatAt >= 0 {
		// Already queued for its earliest heartbeat.
		ns.sweepOnly = ns.sweepOnly && sweepOnly
		return
	}
	ns.beatAt = at
	ns.sweepOnly = sweepOnly
	s.q.pushBeat(at, int32(id), s.pos[id])
}

func (s *simulator) nodeBeat(id int) {
	ns := &s.nodes[id]
	if ns.beatAt != s.now {
		return // superseded
	}
	ns.beatAt = -1
	p := s.pos[id]
	swept := s.sw.armed == p && s.sw.armedAt == s.now
	if s.opt.EveryHeartbeat {
		ns.beatAt = s.now.Add(s.nodePeriod)
		s.q.pushBeat(ns.beatAt, int32(id), p)
	}
	probe := ns.probe
	if probe {
		ns.probe, s.probeQueued = false, false
	}
	if probe || ns.first >= 0 || !ns.sweepOnly || (s.accept.has(int(p)) && s.core.HasDemand()) {
		n := s.cl.Node(cluster.NodeID(id))
		// Reporting only queues events, never another report, so the list
		// and the array stay as they are while it is walked.
		for i := ns.first; i >= 0; {
			r := &s.reports[i]
			s.core.Report(s.now, r.ct, r.state)
			next := r.next
			*r = report{next: s.freeReport}
			s.freeReport = i
			s.reportsQueued--
			i = next
		}
		ns.first, ns.last = -1, -1
		s.core.NodeUpdate(s.now, n)
		s.refresh(id)
	}
	if swept {
		s.sw.pos = p
		s.sw.cycle = int64(s.now-clock.Time(s.phase[p])) / int64(s.nodePeriod)
		s.sw.armed = -1
		s.armNext()
	}
}

// probe queues the next heartbeat of any node, even one with no room, when
// jobs wait for admission and the state changed since they were last
// retried: delivering every heartbeat, that heartbeat would retry them, and
// the change may let one in.
func (s *simulator) probe() {
	if s.ideal || s.opt.EveryHeartbeat || s.probeQueued || !s.core.AdmissionStale() {
		return
	}
	period := clock.Time(s.nodePeriod)
	cycle := int64(s.now / period)
	within := clock.Duration(s.now - clock.Time(cycle)*period)
	p := sort.Search(len(s.phase), func(i int) bool { return s.phase[i] >= within })
	for p < len(s.phase) && s.passed(clock.Time(cycle)*period+clock.Time(s.phase[p]), int32(p)) {
		p++
	}
	if p == len(s.phase) {
		cycle, p = cycle+1, 0
	}
	id := int(s.byPos[p])
	s.queueBeat(id, clock.Time(cycle)*period+clock.Time(s.phase[p]), true)
	s.nodes[id].probe, s.probeQueued = true, true
}

// sample records the allocation when it changed, keeping one sample per
// step: a later change within the step overwrites the earlier one.
func (s *simulator) sample() {
	a := s.cl.Allocated()
	n := len(s.timeline)
	if n > 0 && s.timeline[n-1].Allocated == a {
		return
	}
	t := s.now / clock.Time(s.opt.TimelineStep) * clock.Time(s.opt.TimelineStep)
	if n > 0 && s.timeline[n-1].T == t {
		s.timeline[n-1].Allocated = a
		return
	}
	s.timeline = append(s.timeline, metrics.Sample{T: t, Allocated: a})
}

// refresh re-derives whether node id may accept after its resources changed.
func (s *simulator) refresh(id int) {
	p := int(s.pos[id])
	n := s.cl.Node(cluster.NodeID(id))
	if s.ext != nil {
		s.ext.touch(s.now, n)
	}
	may := s.core.MayAccept(n)
	if may == s.accept.has(p) {
		return
	}
	if !may {
		s.accept.clear(p)
		return
	}
	s.accept.set(p)
	if s.ideal || s.sw.inactive || s.sw.armed < 0 {
		return
	}
	// A node that may accept now and whose next heartbeat comes before the
	// one the sweep waits for must be visited first.
	if t := s.nextBeat(id); t < s.sw.armedAt && !s.beyondSweep(t, int32(p)) {
		s.sw.armed, s.sw.armedAt = int32(p), t
		s.queueBeat(id, t, true)
	}
}

// armNext queues the heartbeat of the next node that may accept, after the
// sweep's cursor and before its end; the sweep stops when there is none.
func (s *simulator) armNext() {
	if !s.core.HasDemand() {
		s.sw.inactive = true
		return
	}
	period := clock.Time(s.nodePeriod)
	for {
		cycle := s.sw.cycle
		p := s.accept.next(int(s.sw.pos) + 1)
		if p < 0 {
			p = s.accept.next(0)
			cycle++
		}
		if p < 0 {
			s.sw.inactive = true
			return
		}
		t := clock.Time(cycle)*period + clock.Time(s.phase[p])
		if s.beyondSweep(t, int32(p)) {
			s.sw.inactive = true
			return
		}
		id := int(s.byPos[p])
		if s.passed(t, int32(p)) {
			// Already had this heartbeat: move past it.
			s.sw.cycle, s.sw.pos = cycle, int32(p)
			continue
		}
		s.sw.armed, s.sw.armedAt, s.sw.inactive = int32(p), t, false
		s.queueBeat(id, t, true)
		return
	}
}

// beyondSweep reports whether the heartbeat at time t of position pos comes
// after the sweep's window.
func (s *simulator) beyondSweep(t clock.Time, pos int32) bool {
	return t > s.sw.end || (t == s.sw.end && pos > s.sw.endKey)
}

// startSweep opens a sweep window that gives every node one heartbeat after
// this instant's point in the event order, which is one period ahead: a
// node whose heartbeat at this instant has passed gets the one a period
// later, the others the one at this instant or within the period.
func (s *simulator) startSweep() {
	period := clock.Time(s.nodePeriod)
	hb := class[evNodeBeat]
	s.sw.end = s.now + period
	switch {
	case s.markClass < hb:
		s.sw.endKey = -1
	case s.markClass == hb:
		s.sw.endKey = s.markKey
	default:
		s.sw.endKey = math.MaxInt32
	}
	if !s.sw.inactive && s.sw.armed >= 0 {
		return // the running sweep simply goes on for longer
	}
	// Put the cursor on the last heartbeat that has already happened.
	cycle := int64(s.now / period)
	within := clock.Duration(s.now - clock.Time(cycle)*period)
	var p int
	switch {
	case s.markClass == hb:
		p = int(s.markKey)
	case s.markClass > hb:
		p = sort.Search(len(s.phase), func(i int) bool { return s.phase[i] > within }) - 1
	default:
		p = sort.Search(len(s.phase), func(i int) bool { return s.phase[i] >= within }) - 1
	}
	if p < 0 {
		cycle--
		p = len(s.phase) - 1
	}
	s.sw.cycle, s.sw.pos = cycle, int32(p)
	s.sw.armed = -1
	s.armNext()
}

// pass is ideal mode's allocation: every node that may accept gets a node
// update, in node order, while some job waits.
func (s *simulator) pass() {
	s.passQueued = false
	for p := s.accept.next(0); p >= 0 && s.core.HasDemand(); p = s.accept.next(p + 1) {
		id := int(s.byPos[p])
		s.core.NodeUpdate(s.now, s.cl.Node(cluster.NodeID(id)))
		s.refresh(id)
	}
}

func (s *simulator) result() *Result {
	r := &Result{Outcome: metrics.Outcome{
		Jobs:     make([]metrics.JobResult, len(s.w.Jobs)),
		Events:   s.events,
		End:      s.now,
		Timeline: s.timeline,
	}, Policy: s.core.Policy(), Admission: s.core.Admission(), Preemption: s.core.PreemptionStats()}
	r.UtilArea, r.LastTaskDone = s.core.Utilization()
	r.ReducesPreempted = s.core.Counts().ReducesPreempted
	r.TasksKilled = s.tasksKilled
	r.EndArea, r.EndShare = s.core.UtilizationUntil(s.now)
	if s.ext != nil {
		s.ext.integrate(s.now)
		r.ExternalUnmet = s.ext.unmet()
	}
	for i := range r.Jobs {
		r.Jobs[i] = metrics.JobResult{Index: i, Submit: s.w.Jobs[i].Submit, Admit: -1, AMStart: -1, FirstRun: -1, LastDone: -1, Finish: -1}
	}
	for _, js := range s.jobs {
		j := js.j
		idx := s.order[j.ID()]
		r.Jobs[idx] = metrics.JobResult{
			Index: idx, Submit: j.Submitted(), Admit: j.AdmittedAt(), AMStart: j.AMStartedAt(),
			FirstRun: j.FirstRunning(), LastDone: j.LastCompleted(), Finish: j.FinishedAt(),
			Demand: j.Demand(), DemandContainers: j.DemandContainers(),
		}
		if j.State() != sched.Finished {
			r.Stuck = append(r.Stuck, metrics.StuckJob{ID: j.Key(), State: j.Describe(),
				Held: j.Usage(), Containers: j.LiveContainers(), Asking: j.Pending()})
		}
	}
	for i := s.next; i < len(s.order); i++ {
		r.Stuck = append(r.Stuck, metrics.StuckJob{ID: s.w.Jobs[s.order[i]].ID, State: "never arrived"})
	}
	r.Deadlocked = len(r.Stuck) > 0
	return r
}

// driver adapts the simulator to sched.Driver. Its methods only queue
// events, never call back into the core, so the core is never re-entered.
type driver simulator

func (d *driver) Launch(ct *sched.Container) {
	s := (*simulator)(d)
	at := s.now
	if s.api != nil {
		// The container holds its node from its allocation; its start
		// latency runs from its binding, which waits for the client's
		// limit (apilimit.go).
		at = s.api.reserve(at)
	}
	if s.launchDelay > 0 {
		f := 1.0
		if s.launchJitter > 0 {
			f = 1 - s.launchJitter + 2*s.launchJitter*s.launchRNG.Float64()
		}
		at = at.Add(clock.Duration(float64(s.launchDelay)*f + 0.5))
	}
	s.q.push(at, evStart, int32(ct.Job().ID()), ct)
}

// Stop ends an AM whose job is done, or kills a task its MapReduce AM
// preempts: the task's queued start or finish is dropped (or it leaves the
// tasks waiting for the previous phase), and its node reports it KILLED.
func (d *driver) Stop(ct *sched.Container) {
	s := (*simulator)(d)
	if !ct.IsAM() {
		s.killedTask(ct, "its AM")
		if !s.undefer(ct) {
			if s.killed == nil {
				s.killed = map[*sched.Container]struct{}{}
			}
			s.killed[ct] = struct{}{}
		}
	}
	s.q.push(s.now, evAMStop, 0, ct)
}

// killedTask counts the kill of task container ct, by who; in Check mode a
// container killed a second time fails the run.
func (s *simulator) killedTask(ct *sched.Container, by string) {
	s.tasksKilled++
	if !s.opt.Check {
		return
	}
	if s.everKilled == nil {
		s.everKilled = map[sched.ContainerID]string{}
	}
	if first, ok := s.everKilled[ct.ID()]; ok && s.err == nil {
		s.err = fmt.Errorf("%v killed twice: by %s, then by %s", ct, first, by)
	}
	s.everKilled[ct.ID()] = by
}

// undefer takes ct off the tasks whose work is done and that wait for the
// previous phase to complete, and reports whether it was one.
func (s *simulator) undefer(ct *sched.Container) bool {
	js := &s.jobs[ct.Job().ID()]
	if js.deferred == nil {
		return false
	}
	k := ct.Phase()
	for i, x := range js.deferred[k] {
		if x == ct {
			js.deferred[k] = append(js.deferred[k][:i], js.deferred[k][i+1:]...)
			return true
		}
	}
	return false
}

// WatchAM queues job j's next regular AM heartbeat (every second in ideal
// mode) as a watch: a timer the stall detector does not count as news.
func (d *driver) WatchAM(j *sched.Job) {
	s := (*simulator)(d)
	js := &s.jobs[j.ID()]
	p := clock.Time(s.watchPeriod())
	base := j.AMStartedAt()
	at := base + (s.now-base)/p*p + p
	if js.watchAt >= 0 && js.watchAt <= at && js.watchAt > s.now {
		return
	}
	js.watchAt = at
	s.q.push(at, evAMWatch, int32(j.ID()), nil)
}

func (d *driver) WakeAM(j *sched.Job) {
	s := (*simulator)(d)
	js := &s.jobs[j.ID()]
	if js.beatAt >= 0 {
		return
	}
	at := s.now
	if s.amPeriod > 0 {
		// The AM heartbeats every period from the moment it started.
		base := j.AMStartedAt()
		p := clock.Time(s.amPeriod)
		at = base + (s.now-base+p-1)/p*p
		if at == js.lastBeat {
			at += p
		}
	}
	js.beatAt = at
	s.q.push(at, evAMBeat, int32(j.ID()), nil)
}

// Preempt queues the kill of a container preemption took, to be handled
// after the core's call returns.
func (d *driver) Preempt(ct *sched.Container, _ *sched.Queue) {
	s := (*simulator)(d)
	if s.killing == nil {
		s.killing = map[*sched.Container]sched.ContainerID{}
	}
	s.killing[ct] = ct.ID()
	s.q.push(s.now, evKill, int32(ct.Job().ID()), ct)
}

func (d *driver) Reconsider() {
	s := (*simulator)(d)
	if s.ideal {
		if !s.passQueued {
			s.passQueued = true
			s.q.push(s.now, evPass, 0, nil)
		}
		return
	}
	if !s.opt.EveryHeartbeat {
		s.startSweep()
	}
}

// Revisit is Reconsider for a node whose update the policy cut short while
// it still has room (one container per heartbeat): the sweep must include
// that node's next heartbeat, so its room is recorded before the sweep arms,
// not only after the update.
func (d *driver) Revisit(n *cluster.Node) {
	s := (*simulator)(d)
	if !s.ideal && !s.opt.EveryHeartbeat {
		s.refresh(int(n.ID()))
	}
	d.Reconsider()
}

func (d *driver) AcceptLowered() {
	s := (*simulator)(d)
	for id := range s.nodes {
		p := int(s.pos[id])
		if s.core.MayAccept(s.cl.Node(cluster.NodeID(id))) {
			s.accept.set(p)
		} else {
			s.accept.clear(p)
		}
	}
	if !s.ideal && !s.sw.inactive && !s.opt.EveryHeartbeat {
		s.sw.armed = -1
		s.armNext()
	}
}
