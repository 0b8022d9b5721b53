package sched

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// Preemption: a queue below its share of the tree with demand it cannot
// place takes containers back from queues above theirs, as YARN's
// ProportionalCapacityPreemptionPolicy (Capacity) and FSPreemptionThread
// (Fair) do. One monitor serves every policy that turns it on; the policy
// says how shares are measured and which of its asks it would serve, the
// driver carries the kills out (the simulator ends the container and its
// task is redone; live, the pod is evicted).
//
// Every Interval (YARN's monitoring_interval) a round:
//
//  1. divides the cluster among the queues (Divide: what each would hold
//     if the scheduler could start afresh), from what each holds and what
//     its admitted jobs ask for that the policy would serve;
//  2. finds the starved leaves (holding less than that) and the leaves
//     holding more by more than max_ignored_over_capacity of their
//     guarantee; each of the latter may give back its excess, the total
//     capped at PerRound of the cluster (total_preemption_per_round), times
//     Natural (natural_termination_factor: containers end on their own
//     too, so a round takes only that fraction of what it could);
//  3. for each starved leaf, most under-served first, walks its outstanding
//     asks in the order it serves its jobs and, for each container that no
//     node has room for, picks victims on one node where the container
//     would fit once they are gone: containers of the leaves over their
//     share, from the most over, within a leaf its lowest-priority and
//     youngest job first, within a job its newest container first. Never an
//     ApplicationMaster (a Spark driver): only task containers, and only
//     RUNNING ones;
//  4. marks the victims it picked (YARN's preemption warning to the AM);
//     a group of victims all marked at least Delay ago (max_wait_before_kill)
//     is killed: the driver ends each victim as PREEMPTED, and the room is
//     held on that node for the container it was taken for (an earmark, as
//     Fair's scheduler node keeps resources preempted for an application),
//     so no other queue takes it: the next update of the node allocates it
//     there. A mark the next round does not pick again is forgotten.
//
// Preemption is off unless the policy turns it on, so that the papers'
// baselines do not move.

// Preemption configures the monitor. The defaults of YARN's Capacity
// scheduler are in DefaultPreemption.
type Preemption struct {
	// Interval is the time between rounds (monitoring_interval).
	Interval clock.Duration
	// Delay is how long a victim stays marked before it is killed
	// (max_wait_before_kill); 0 kills in the round that picks it.
	Delay clock.Duration
	// PerRound caps what one round may take back, as a share of the
	// cluster (total_preemption_per_round), in (0, 1].
	PerRound float64
	// Natural is the fraction of a queue's excess one round takes back
	// (natural_termination_factor), in (0, 1].
	Natural float64
	// Deadzone spares a queue over its share by no more than this
	// fraction of its guarantee (max_ignored_over_capacity), >= 0.
	Deadzone float64
	// MinUtilization skips rounds while the cluster's allocated share is
	// below it (Fair's preemption.cluster-utilization-threshold); 0 never
	// skips.
	MinUtilization float64
	// ByWeight divides idle capacity by weight (Fair, DRF) rather than by
	// guarantee (Capacity): Divide's ByWeight.
	ByWeight bool
	// Balance lets a leaf above its guarantee take from another above its
	// own, levelling them (YARN Capacity's
	// preemption-to-balance-queue-after-satisfied.enabled; Divide's
	// Balance). Off, YARN's default, a leaf's share is at most the larger
	// of its guarantee and what it holds. Fair and DRF always balance to
	// their fair shares.
	Balance bool
	// Measure is the resource calculator shares are compared in: a vector
	// as a share of the cluster. It must be the one the policy orders its
	// queues by, so that the monitor and the policy agree on who is
	// under-served.
	Measure Measure
	// Observe runs the monitor without taking anything (YARN's
	// observe_only): rounds divide, pick and mark as they would, and a
	// group due to be killed is counted and reported to the driver
	// (PreemptObserver) instead, once per container; nothing is killed,
	// no room is held.
	Observe bool
	// Trace, when set, hears each round's division and picks (tests and
	// debugging).
	Trace func(format string, args ...any)
}

// Measure turns a resource vector into a share of total, as a resource
// calculator compares resources: memory alone (YARN's
// DefaultResourceCalculator) or the dominant share (its
// DominantResourceCalculator).
type Measure func(v, total resource.Vector) float64

// DominantMeasure measures a vector by its dominant share.
func DominantMeasure(v, total resource.Vector) float64 { return v.DominantShare(total) }

// MemoryMeasure measures a vector by its memory share.
func MemoryMeasure(v, total resource.Vector) float64 { return v.Share(resource.Memory, total) }

// DefaultPreemption is YARN's Capacity scheduler preemption defaults:
// rounds every 3 s, a victim killed 15 s after it is marked, at most 10 %
// of the cluster per round, a fifth of the excess per round, queues within
// 10 % of their guarantee spared.
func DefaultPreemption() Preemption {
	return Preemption{Interval: 3 * clock.Second, Delay: 15 * clock.Second, PerRound: 0.1, Natural: 0.2, Deadzone: 0.1, Measure: DominantMeasure}
}

func (p *Preemption) check() error {
	switch {
	case p.Interval <= 0:
		return errors.New("preemption: interval must be > 0")
	case p.Delay < 0:
		return errors.New("preemption: delay must be >= 0")
	case !(p.PerRound > 0 && p.PerRound <= 1):
		return fmt.Errorf("preemption: per-round fraction %v not in (0, 1]", p.PerRound)
	case !(p.Natural > 0 && p.Natural <= 1):
		return fmt.Errorf("preemption: natural termination factor %v not in (0, 1]", p.Natural)
	case !(p.Deadzone >= 0):
		return fmt.Errorf("preemption: dead zone %v must be >= 0", p.Deadzone)
	case !(p.MinUtilization >= 0 && p.MinUtilization <= 1):
		return fmt.Errorf("preemption: minimum utilization %v not in [0, 1]", p.MinUtilization)
	case p.Measure == nil:
		return errors.New("preemption: no measure")
	}
	return nil
}

// Preempting is implemented by policies that can turn preemption on.
type Preempting interface {
	// Preemption returns the monitor's settings, or nil when preemption
	// is off. The core asks once, at construction.
	Preemption() *Preemption
	// Serves reports whether the policy would give ask a, outstanding, a
	// container were there room for it on a node: false, say, for an AM
	// its queue's AM limit holds back. Only such asks count as a queue's
	// demand, and only for them are containers taken. The monitor asks it
	// of AM asks; task asks are always served.
	Serves(a *Ask) bool
}

// Preempter is implemented by drivers that can carry preemption out. The
// core calls Preempt, from inside a core call like every Driver callback,
// for a RUNNING task container it takes back for queue forQueue; the
// driver ends it (the simulator at once, live by eviction, which may be
// refused or take the pod's grace period) and reports it PREEMPTED through
// Core.Report, or COMPLETED if it finished first. A driver that cannot end
// it reports nothing: the room held for it is given back after a while.
type Preempter interface {
	Preempt(ct *Container, forQueue *Queue)
}

// PreemptObserver is implemented by drivers that report what preemption in
// observe mode would have taken (live: an Event on the pod and a metric).
// The core calls WouldPreempt once per container, when it would have been
// killed; the container runs on.
type PreemptObserver interface {
	WouldPreempt(ct *Container, forQueue *Queue)
}

// PreemptionStats is what the monitor did, for summaries and metrics.
type PreemptionStats struct {
	Rounds int
	// Marked counts victims marked (warned), Killed those the driver was
	// asked to end, Preempted those that then ended PREEMPTED.
	Marked, Killed, Preempted int
	// Observed counts the containers observe mode would have killed;
	// Observe says the monitor ran in that mode.
	Observed int
	Observe  bool
	// WorkLost is the running time of the preempted containers, from
	// RUNNING to PREEMPTED as the resource manager saw it, summed: work
	// done and lost, redone by a simulated job.
	WorkLost clock.Duration
	// Earmarks counts rooms held for a starved queue's container; Served
	// those the container then took, Expired those given back unused.
	Earmarks, Served, Expired int
	// ByQueue is, per queue path with any, the containers taken from it
	// and taken for it (a parent's include its leaves').
	ByQueue map[string]QueuePreemption
}

// QueuePreemption counts containers preempted from and for one queue, and
// in observe mode those that would have been.
type QueuePreemption struct {
	TakenFrom int `json:"taken_from"`
	TakenFor  int `json:"taken_for"`
	// WouldTakeFrom and WouldTakeFor are observe mode's counts.
	WouldTakeFrom int `json:"would_take_from,omitempty"`
	WouldTakeFor  int `json:"would_take_for,omitempty"`
}

// earmarkTTL bounds how long a node's room is held for the container it
// was taken for: a victim the driver could not end (an eviction a
// PodDisruptionBudget refused) must not hold it for ever.
func (p *preemptor) earmarkTTL() clock.Duration {
	return max(4*p.cfg.Interval, p.cfg.Delay+2*p.cfg.Interval, 60*clock.Second)
}

// preemptor is the monitor: a Ticker the core runs among its observers.
type preemptor struct {
	c      *Core
	cfg    Preemption
	policy Preempting
	driver Preempter

	// jobs is, per leaf (by queue index), its admitted jobs, compacted
	// as they finish; tasks is, per job id, its task containers in
	// allocation order (oldest first), compacted as they end.
	jobs [][]*Job
	// tasks lists, by job id, the job's task containers in allocation
	// order (newest last), compacted as it fills; a finished job's list
	// goes back to spare, to be reused by a later job, so that listing
	// containers feeds the garbage collector nothing in the long run.
	tasks [][]ctRef
	spare [][]ctRef
	// taskPend is, per leaf, what its jobs' pending task containers ask
	// for (every task ask is served); amWait, per leaf, its jobs that
	// have asked for their AM, in order, compacted as the AMs are placed.
	taskPend []resource.Vector
	amWait   [][]*Job
	// seen is, per job id, the last round that counted its AM.
	seen []int

	marks   map[*Container]mark
	markSeq int // the last mark's seq
	killed  map[*Container]kill
	// earmarks holds, per node, the rooms held on it; nEarmarks counts
	// them all.
	earmarks  [][]earmark
	nEarmarks int

	total    resource.Vector // the cluster's capacity this round
	stats    PreemptionStats
	from     []int // per queue index: containers preempted from it
	forQueue []int // per queue index: preempted for it
	// wouldFrom and wouldFor are observe mode's from and forQueue.
	wouldFrom, wouldFor []int

	// Scratch, reused by every round.
	demandV, usedV []resource.Vector // per queue index
	demand, used   []float64
	ideal          []float64
	caps           []float64 // Divide's scratch
	budget         []float64 // over leaves: what this round may take back
	excess         []float64 // over leaves: how far over their share they are
	need           []float64 // starved leaves: how far below
	markedOrder    []*Container
	markedAt       []markedCt
	left           []float64 // per queue index, trimMarks' scratch
	starved, over  []*Queue
	// victimOrder is, per over leaf (by queue index), its jobs in the
	// order victims are taken (lowest priority, then youngest, first),
	// sorted once a round; sortedAt says which round.
	victimOrder [][]*Job
	sortedAt    []int
	jobScratch  []*Job
	acc         []resource.Vector // per node: room freed by candidates so far
	// claimed is, per node, the free room this round's groups there count
	// on besides their victims', so that two groups do not count it twice.
	claimed []resource.Vector
	accCts  [][]*Container
	touched []cluster.NodeID
	picked  map[*Container]bool
	// gone counts, per job, its running task containers already killed
	// or picked this round.
	gone    map[JobID]int
	groups  []group
	cand    candWalk
	fits    map[fitKey]*int
	lastKey fitKey // the shape (and class) victimsFor last served
	accepts map[acceptKey]bool
	// serving is set while an earmark is being allocated.
	serving bool
	// full marks, per node, an accumulation no further victim may join
	// (clearAcc and a taken group clear it).
	full []bool
	// rejected marks, per node, candidates worth refused for lastKey:
	// kept for other asks, not offered to this one again until more are
	// added.
	rejected []bool
}

type ctRef struct {
	ct *Container
	id ContainerID
}

func (r ctRef) live() bool { return r.ct.id == r.id && r.ct.job != nil && !r.ct.state.Terminal() }

type mark struct {
	id    ContainerID
	at    clock.Time
	forq  *Queue // the starved leaf it was marked for
	round int    // the last round that picked it
	// observed: observe mode counted it as due already.
	observed bool
	// seq orders marks made at the same time as they were picked, so
	// that the next round walks them in the order this one took them.
	seq int
}

type kill struct {
	id   ContainerID
	forq *Queue
}

type earmark struct {
	ask  *Ask
	forq *Queue
	at   clock.Time
}

// group is the victims on one node for one container of a starved ask.
type group struct {
	ask     *Ask
	node    cluster.NodeID
	victims []*Container
}

type fitKey struct {
	shape resource.Vector
	ask   *Ask // constrained asks are checked on their own
}

func newPreemptor(c *Core, cfg Preemption, pol Preempting, d Preempter) *preemptor {
	n := len(c.tree.queues)
	p := &preemptor{c: c, cfg: cfg, policy: pol, driver: d,
		jobs: make([][]*Job, n), victimOrder: make([][]*Job, n), sortedAt: make([]int, n), taskPend: make([]resource.Vector, n), amWait: make([][]*Job, n), marks: map[*Container]mark{}, killed: map[*Container]kill{},
		earmarks: make([][]earmark, c.cl.NumNodes()), from: make([]int, n), forQueue: make([]int, n), wouldFrom: make([]int, n), wouldFor: make([]int, n),
		demandV: make([]resource.Vector, n), usedV: make([]resource.Vector, n),
		demand: make([]float64, n), used: make([]float64, n), ideal: make([]float64, n), caps: make([]float64, n),
		budget: make([]float64, n), excess: make([]float64, n), need: make([]float64, n), left: make([]float64, n),
		picked: map[*Container]bool{}, accepts: map[acceptKey]bool{}, gone: map[JobID]int{}, fits: map[fitKey]*int{}}
	return p
}

// TickEvery is the monitoring interval.
func (p *preemptor) TickEvery() clock.Duration { return p.cfg.Interval }

// jobAdmitted lists an admitted job under its leaf.
func (p *preemptor) jobAdmitted(j *Job) {
	i := j.queue.index
	p.jobs[i] = append(p.jobs[i], j)
}

// pendingChanged follows n more (or fewer) pending containers of ask a.
func (p *preemptor) pendingChanged(a *Ask, n int) {
	i := a.job.queue.index
	if !a.IsAM() {
		p.taskPend[i] = p.taskPend[i].Add(a.Request.Mul(int64(n)))
		return
	}
	if n > 0 && a.Pending == n {
		p.amWait[i] = append(p.amWait[i], a.job)
	}
}

// seenAt reports whether job j's AM was counted already this round, and
// records that it now is.
func (p *preemptor) seenAt(j *Job) bool {
	for int(j.id) >= len(p.seen) {
		p.seen = append(p.seen, 0)
	}
	if p.seen[j.id] == p.stats.Rounds {
		return true
	}
	p.seen[j.id] = p.stats.Rounds
	return false
}

// allocated lists a task container last in its job's list.
func (p *preemptor) allocated(ct *Container) {
	id := int(ct.job.id)
	for id >= len(p.tasks) {
		p.tasks = append(p.tasks, nil)
	}
	l := p.tasks[id]
	if l == nil && len(p.spare) > 0 {
		l = p.spare[len(p.spare)-1]
		p.spare = p.spare[:len(p.spare)-1]
	}
	if len(l) >= 8 && len(l) == cap(l) {
		// Compact before growing: most of a long list has ended.
		k := 0
		for _, r := range l {
			if r.live() {
				l[k] = r
				k++
			}
		}
		clear(l[k:])
		if k >= len(l)/2 {
			// Mostly live: grow now, or the next few appends would
			// compact the same live entries again each time.
			g := make([]ctRef, k, 2*cap(l))
			copy(g, l[:k])
			clear(l[:k])
			p.spare = append(p.spare, l[:0])
			l = g
		} else {
			l = l[:k]
		}
	}
	p.tasks[id] = append(l, ctRef{ct, ct.id})
}

// dropTasks gives job id's list back (the job finished).
func (p *preemptor) dropTasks(id JobID) {
	if int(id) >= len(p.tasks) || p.tasks[id] == nil {
		return
	}
	l := p.tasks[id]
	clear(l)
	p.spare = append(p.spare, l[:0])
	p.tasks[id] = nil
}

// nodeAdded grows the per-node state for a node that joined.
func (p *preemptor) nodeAdded() { p.earmarks = append(p.earmarks, nil) }

// ended accounts a victim's end: it was killed for a starved queue, and
// ends PREEMPTED, or COMPLETED when it finished first.
func (p *preemptor) ended(ct *Container, s ContainerState) {
	k, ok := p.killed[ct]
	if !ok || k.id != ct.id {
		return
	}
	delete(p.killed, ct)
	if s != Preempted {
		return
	}
	p.stats.Preempted++
	if t, ok := ct.Time(Running); ok {
		p.stats.WorkLost += p.c.now.Sub(t)
	}
	for q := ct.job.queue; q.parent != nil; q = q.parent {
		p.from[q.index]++
	}
	for q := k.forq; q.parent != nil; q = q.parent {
		p.forQueue[q.index]++
	}
}

// Stats returns what preemption did so far; nil when it is off.
func (c *Core) PreemptionStats() *PreemptionStats {
	if c.pre == nil {
		return nil
	}
	s := c.pre.stats
	s.Observe = c.pre.cfg.Observe
	s.ByQueue = map[string]QueuePreemption{}
	for _, q := range c.tree.queues {
		f, t := c.pre.from[q.index], c.pre.forQueue[q.index]
		wf, wt := c.pre.wouldFrom[q.index], c.pre.wouldFor[q.index]
		if f+t+wf+wt > 0 {
			s.ByQueue[q.spec.Name] = QueuePreemption{TakenFrom: f, TakenFor: t, WouldTakeFrom: wf, WouldTakeFor: wt}
		}
	}
	return &s
}

// PreemptedFor returns the queue container ct was taken for, from the
// moment preemption asks the driver to end it until the callbacks of its
// end have run; nil for any other container.
func (v *View) PreemptedFor(ct *Container) *Queue {
	p := v.c.pre
	if p == nil || ct == nil || !ct.victim {
		return nil
	}
	if k, ok := p.killed[ct]; ok && k.id == ct.id {
		return k.forq
	}
	return nil
}

// PreemptionSummary is the summary section of a run with preemption on.
type PreemptionSummary struct {
	Rounds int `json:"rounds"`
	Marked int `json:"marked"`
	Killed int `json:"killed"`
	// Containers counts the containers that ended PREEMPTED.
	Containers int `json:"containers"`
	// WorkLostS is the container-seconds of work they had done.
	WorkLostS float64                    `json:"work_lost_s"`
	Earmarks  int                        `json:"earmarks"`
	Served    int                        `json:"served"`
	Expired   int                        `json:"expired"`
	ByQueue   map[string]QueuePreemption `json:"by_queue"`
	// Mode is "observe" when nothing was taken (preemption=observe);
	// absent when preemption was on.
	Mode string `json:"mode,omitempty"`
	// WouldPreempt counts the containers observe mode would have
	// killed.
	WouldPreempt int `json:"would_preempt,omitempty"`
}

// PreemptionSection is the name of the summary section (sched.Reporter's
// name) that PreemptionStats.Summary fills.
const PreemptionSection = "queue_preemption"

// Summary returns the stats as the summary section.
func (s *PreemptionStats) Summary() *PreemptionSummary {
	r := &PreemptionSummary{Rounds: s.Rounds, Marked: s.Marked, Killed: s.Killed, Containers: s.Preempted,
		WorkLostS: s.WorkLost.Seconds(), Earmarks: s.Earmarks, Served: s.Served, Expired: s.Expired, ByQueue: s.ByQueue,
		WouldPreempt: s.Observed}
	if s.Observe {
		r.Mode = "observe"
	}
	return r
}

// Tick runs one round.
func (p *preemptor) Tick(now clock.Time) {
	p.stats.Rounds++
	c := p.c
	total := c.cl.Capacity()
	p.total = total
	if total.IsZero() {
		return
	}
	p.expireEarmarks(now)
	if c.tree.root.usage.DominantShare(total) < p.cfg.MinUtilization {
		p.forget()
		return
	}
	if !p.measure(total) {
		p.forget()
		return
	}
	Divide(c.tree.root, DivideInput{Demand: p.demand, ByWeight: p.cfg.ByWeight, Used: p.used, Balance: p.cfg.Balance, Cap: p.caps}, p.ideal)
	if !p.findStarved(total) {
		p.forget()
		return
	}
	p.budgets()
	p.pick(total)
	if t := p.cfg.Trace; t != nil {
		for _, q := range c.tree.queues {
			t("%v %s: used %.4f ideal %.4f demand %.4f; after picking need %.4f excess %.4f budget %.4f", now, q.spec.Name,
				p.used[q.index], p.ideal[q.index], p.demand[q.index], p.need[q.index], p.excess[q.index], p.budget[q.index])
		}
		for _, g := range p.groups {
			t("%v  for %s (%s) on node %d: %v", now, g.ask.job.key, g.ask.job.queue.spec.Name, g.node, g.victims)
		}
	}
	p.act(now)
	p.forget()
}

// measure computes every queue's usage and served demand, as vectors and
// in the measure, and reports whether some leaf asks for anything. A
// victim killed but not yet ended no longer counts for its queue; a room
// held for a queue counts as its own.
func (p *preemptor) measure(total resource.Vector) bool {
	c := p.c
	for i := range p.usedV {
		p.usedV[i], p.demandV[i] = resource.Vector{}, resource.Vector{}
	}
	asking := false
	for _, leaf := range c.tree.queues {
		if !leaf.Leaf() {
			continue
		}
		i := leaf.index
		jobs := p.jobs[i][:0]
		for _, j := range p.jobs[i] {
			if j.state == Finished {
				p.dropTasks(j.id)
				continue
			}
			jobs = append(jobs, j)
		}
		clear(p.jobs[i][len(jobs):])
		p.jobs[i] = jobs
		// Pending AMs count as far as the policy would serve them, in
		// the order they asked: the first it holds back (its AM limit)
		// ends the count, as the limit holds back those after it too;
		// so does the maxAMsCounted-th.
		pend := p.taskPend[i]
		l := p.amWait[i]
		k, counted := 0, 0
		for n, j := range l {
			a := &j.asks[0]
			if j.state == Finished || a.Pending == 0 || p.seenAt(j) {
				continue // placed, ended, or listed again by a new attempt
			}
			if counted == maxAMsCounted || !p.policy.Serves(a) {
				// The rest waits behind it: kept, unread.
				k += copy(l[k:], l[n:])
				break
			}
			l[k] = j
			k++
			counted++
			pend = pend.Add(a.Request.Mul(int64(a.Pending)))
		}
		clear(l[k:])
		p.amWait[i] = l[:k]
		asking = asking || !pend.IsZero()
		p.usedV[i] = leaf.usage
		p.demandV[i] = pend
	}
	for ct, k := range p.killed {
		if ct.id == k.id && !ct.state.Terminal() {
			i := ct.job.queue.index
			p.usedV[i] = p.usedV[i].Sub(ct.req)
		}
	}
	for n := range p.earmarks {
		for _, e := range p.earmarks[n] {
			i := e.forq.index
			p.usedV[i] = p.usedV[i].Add(e.ask.Request)
			p.demandV[i] = p.demandV[i].Add(e.ask.Request)
		}
	}
	// Demand is what is held plus what is asked; parents sum their
	// leaves.
	for _, leaf := range c.tree.queues {
		if !leaf.Leaf() {
			continue
		}
		u, d := p.usedV[leaf.index], p.demandV[leaf.index]
		p.demandV[leaf.index] = u.Add(d)
		for q := leaf.parent; q.parent != nil; q = q.parent {
			p.usedV[q.index] = p.usedV[q.index].Add(u)
			p.demandV[q.index] = p.demandV[q.index].Add(u.Add(d))
		}
	}
	for i := range p.usedV {
		p.used[i] = p.cfg.Measure(p.usedV[i], total)
		p.demand[i] = p.cfg.Measure(p.demandV[i], total)
	}
	return asking
}

// maxAMsCounted bounds the pending ApplicationMasters a round counts as a
// leaf's demand, in the order they asked: on a congested cluster thousands
// wait, of which an AM limit lets a few run at a time, and reading them all
// every round would cost more than the rest of the round.
const maxAMsCounted = 64

// shareEps ignores differences below a millionth of the cluster.
const shareEps = 1e-6

// findStarved lists the leaves holding less than their share while they
// ask for more, most under-served first, and the leaves holding more than
// their share beyond the dead zone; it reports whether both exist.
func (p *preemptor) findStarved(total resource.Vector) bool {
	p.starved, p.over = p.starved[:0], p.over[:0]
	for _, q := range p.c.tree.queues {
		if !q.Leaf() {
			continue
		}
		i := q.index
		p.need[i], p.budget[i], p.excess[i] = 0, 0, 0
		switch u, id := p.used[i], p.ideal[i]; {
		case id-u > shareEps && p.demand[i]-u > shareEps:
			p.need[i] = id - u
			p.starved = append(p.starved, q)
		case u-id > shareEps && u > q.abs*(1+p.cfg.Deadzone)+shareEps && !q.noPreempt:
			p.excess[i] = u - id
			p.budget[i] = u - id
			p.over = append(p.over, q)
		}
	}
	if len(p.starved) == 0 || len(p.over) == 0 {
		return false
	}
	// Starved leaves in the order the scheduler serves them (its tree
	// walk), so that free room is counted for the leaf that will get it.
	sort.SliceStable(p.starved, func(a, b int) bool {
		sa, sb := meet(p.starved[a], p.starved[b])
		return p.before(sa, sb)
	})
	// From the most over: queues without a guarantee first (by their
	// excess), then by excess over guarantee.
	sort.SliceStable(p.over, func(a, b int) bool {
		qa, qb := p.over[a], p.over[b]
		ea, eb := p.used[qa.index]-p.ideal[qa.index], p.used[qb.index]-p.ideal[qb.index]
		za, zb := qa.abs <= 0, qb.abs <= 0
		switch {
		case za && zb:
			return ea > eb
		case za != zb:
			return za
		}
		return ea/qa.abs > eb/qb.abs
	})
	return true
}

// budgets caps what the over leaves give back: in all at most PerRound of
// the cluster, each then Natural of its part.
func (p *preemptor) budgets() {
	sum := 0.0
	for _, q := range p.over {
		sum += p.budget[q.index]
	}
	scale := p.cfg.Natural
	if sum > p.cfg.PerRound {
		scale *= p.cfg.PerRound / sum
	}
	for _, q := range p.over {
		p.budget[q.index] *= scale
	}
}

// candWalk yields the candidate victims in order: first the containers
// marked in earlier rounds for the starved leaf being served, oldest mark
// first, so that a warning is not wasted, the delay does not start again
// on another container, and a leaf that starves later does not take the
// victims another has waited for; then, unmarked, the over leaves from the
// most over, within a leaf its jobs from the
// lowest priority and youngest, within a job its containers from the
// newest. Only RUNNING task containers of leaves with budget left, not
// already killed.
type candWalk struct {
	p      *preemptor
	s      *Queue          // the starved leaf served
	c      float64         // the size of the container it is served for
	req    resource.Vector // and the container itself
	marked int             // index into p.markedOrder
	avail  int             // running tasks the current job may still lose
	leaf   int             // index into p.over
	job    int             // index into p.order
	ct     int             // index into the job's task list, walking down; -2 before the job
	loaded bool
	done   bool
}

func (w *candWalk) reset(p *preemptor, s *Queue) { *w = candWalk{p: p, s: s} }

// fit reports whether ct may be taken now for w's leaf: a candidate not
// picked yet, whose single move would be one the scheduler keeps.
func (w *candWalk) fit(ct *Container) bool {
	p := w.p
	if ct.state != Running || ct.victim || ct.IsAM() || (len(p.picked) > 0 && p.picked[ct]) {
		return false
	}
	return p.candidate(ct) && p.acceptableCached(w.s, ct, w.req)
}

// acceptKey caches acceptable within one walk: its answer depends on the
// victim's leaf and size alone until a group is taken.
type acceptKey struct {
	leaf int
	req  resource.Vector
}

// acceptableCached is acceptable, remembered until the next group is taken
// (takeGroup clears it).
func (p *preemptor) acceptableCached(s *Queue, v *Container, req resource.Vector) bool {
	k := acceptKey{v.job.queue.index, v.req}
	if ok, hit := p.accepts[k]; hit {
		return ok
	}
	ok := p.acceptable(s, v, req)
	p.accepts[k] = ok
	return ok
}

// trimMarks keeps, for each starved leaf, only the marks its need still
// calls for, oldest first; the others, and those of leaves no longer
// starved, are forgotten, so that their containers are anyone's again
// this round rather than the next.
func (p *preemptor) trimMarks(total resource.Vector) {
	if len(p.marks) == 0 {
		return
	}
	p.markedOrder = p.markedOrder[:0]
	for ct := range p.marks {
		p.markedOrder = append(p.markedOrder, ct)
	}
	p.sortMarked()
	// left is, per queue index, what a starved leaf's marks may still
	// cover; 0 for every other queue, whose marks are all forgotten.
	left := p.left
	clear(left)
	for _, s := range p.starved {
		left[s.index] = p.need[s.index]
	}
	for _, ct := range p.markedOrder {
		m := p.marks[ct]
		if l := left[m.forq.index]; l <= shareEps || ct.id != m.id {
			delete(p.marks, ct)
			continue
		}
		left[m.forq.index] -= p.cfg.Measure(ct.req, total)
	}
}

// loadMarked puts the containers marked for starved leaf s first in the
// walk, oldest mark first.
func (p *preemptor) loadMarked(s *Queue) {
	p.markedOrder = p.markedOrder[:0]
	for ct, m := range p.marks {
		if m.forq == s && ct.id == m.id && !ct.state.Terminal() {
			p.markedOrder = append(p.markedOrder, ct)
		}
	}
	p.sortMarked()
	p.cand.marked = 0
	p.lastKey = fitKey{} // the touched nodes are offered again
}

// sortMarked orders p.markedOrder oldest mark first, then in the order
// the marks were made. Walked in that order, a round in which nothing
// changed takes its victims in the order the last one did, so each move is
// judged at the same usages and the same victims are taken again: marks
// stay put until their delay runs out, rather than a tie deciding
// differently and starting another victim's delay. Sequence numbers are
// unique, so the order is total and the same whatever the sorting
// algorithm; the marks are looked up once, not at every comparison.
func (p *preemptor) sortMarked() {
	p.markedAt = p.markedAt[:0]
	for _, ct := range p.markedOrder {
		m := p.marks[ct]
		p.markedAt = append(p.markedAt, markedCt{ct, m.at, m.seq})
	}
	slices.SortFunc(p.markedAt, func(x, y markedCt) int {
		if x.at != y.at {
			return cmp.Compare(x.at, y.at)
		}
		return cmp.Compare(x.seq, y.seq)
	})
	for i, m := range p.markedAt {
		p.markedOrder[i] = m.ct
	}
}

type markedCt struct {
	ct  *Container
	at  clock.Time
	seq int
}

// candidate reports whether ct may be taken now.
func (p *preemptor) candidate(ct *Container) bool {
	return ct.state == Running && !ct.victim && !ct.IsAM() && !ct.amKilling() && p.budget[ct.job.queue.index] > 0 && !p.lastTask(ct.job, 1)
}

// lastTask reports whether taking n more of job j's running task
// containers would leave it none while its ApplicationMaster runs.
// Preemption never does: a job left holding its AM with nothing running
// makes no progress and holds what the AM holds, and ApplicationMasters
// so stranded can fill a cluster, the deadlock AutoAdmin describes. A job
// without an AM, or whose AM is not running, may lose them all.
func (p *preemptor) lastTask(j *Job, n int) bool {
	if !j.HasAM() || j.am == nil || j.am.state != Running {
		return false
	}
	running := 0
	for k := range j.progress {
		running += int(j.progress[k].running)
	}
	return running-p.gone[j.id]-n < 1
}

func (w *candWalk) next() *Container {
	p := w.p
	for w.marked < len(p.markedOrder) {
		ct := p.markedOrder[w.marked]
		w.marked++
		if w.fit(ct) {
			return ct
		}
	}
	for w.leaf < len(p.over) {
		q := p.over[w.leaf]
		if p.budget[q.index] <= 0 {
			w.leaf++
			w.loaded = false
			continue
		}
		order := p.victimJobs(q)
		if !w.loaded {
			w.loaded, w.job, w.ct = true, 0, -2
		}
		for w.job < len(order) && p.budget[q.index] > 0 {
			j := order[w.job]
			var l []ctRef
			if int(j.id) < len(p.tasks) {
				l = p.tasks[j.id]
			}
			if w.ct == -2 {
				w.ct = len(l)
				// How many of its running tasks the job may lose,
				// judged once for the job: never its last beside a
				// running AM.
				w.avail = 0
				if len(l) > 0 {
					for k := range j.progress {
						w.avail += int(j.progress[k].running)
					}
					w.avail -= p.gone[j.id]
					if j.mr != nil {
						w.avail -= len(j.mr.killing) // its AM's own kills
					}
					if j.HasAM() && j.am != nil && j.am.state == Running {
						w.avail--
					}
				}
			}
			for w.ct--; w.ct >= 0 && w.avail > 0; w.ct-- {
				r := l[w.ct]
				if !r.live() || r.ct.state != Running || r.ct.victim || r.ct.amKilling() || (len(p.picked) > 0 && p.picked[r.ct]) {
					continue
				}
				if len(p.marks) > 0 {
					if m, ok := p.marks[r.ct]; ok && m.id == r.id {
						continue // kept for the leaf it was marked for
					}
				}
				if !p.acceptableCached(w.s, r.ct, w.req) {
					continue
				}
				w.avail--
				return r.ct
			}
			w.job++
			w.ct = -2
		}
		w.leaf++
		w.loaded = false
	}
	w.done = true
	return nil
}

// victimJobs returns over leaf q's jobs in the order their containers are
// taken: lowest priority first, then youngest; sorted once a round.
func (p *preemptor) victimJobs(q *Queue) []*Job {
	i := q.index
	if p.sortedAt[i] != p.stats.Rounds {
		p.sortedAt[i] = p.stats.Rounds
		o := append(p.victimOrder[i][:0], p.jobs[i]...)
		slices.SortFunc(o, func(ja, jb *Job) int {
			if ja.prio != jb.prio {
				return cmp.Compare(ja.prio, jb.prio)
			}
			return cmp.Compare(jb.id, ja.id)
		})
		p.victimOrder[i] = o
	}
	return p.victimOrder[i]
}

// freeSlots returns how many containers of ask a's shape the free room
// of the nodes that take containers and hold no earmark or reservation
// has, as a counter this round's picks draw down: those the scheduler will
// place without preemption. Unconstrained asks share a counter per shape.
func (p *preemptor) freeSlots(a *Ask) *int {
	k := fitKey{shape: a.Request}
	if a.Constrained() {
		k.ask = a
	}
	if v, ok := p.fits[k]; ok {
		return v
	}
	n := 0
	cl := p.c.cl
	for i := range cl.NumNodes() {
		node := cl.Node(cluster.NodeID(i))
		if len(p.earmarks[i]) == 0 && p.c.reservedOn(node) == nil && a.EligibleOn(node) {
			n += fitCount(node.Free(), a.Request)
		}
	}
	v := &n
	p.fits[k] = v
	return v
}

// fitCount is how many containers of request r fit in free.
func fitCount(free, r resource.Vector) int {
	n := -1
	for d := range r {
		if r[d] <= 0 {
			continue
		}
		if free[d] < r[d] {
			return 0
		}
		if k := int(free[d] / r[d]); n < 0 || k < n {
			n = k
		}
	}
	return max(n, 0)
}

// pick chooses this round's victims, in groups.
func (p *preemptor) pick(total resource.Vector) {
	c := p.c
	clear(p.fits)
	clear(p.picked)
	clear(p.gone)
	for ct, k := range p.killed {
		if ct.id == k.id && ct.state == Running {
			p.gone[ct.job.id]++
		}
	}
	p.groups = p.groups[:0]
	for len(p.acc) < c.cl.NumNodes() {
		p.claimed = append(p.claimed, resource.Vector{})
		p.acc = append(p.acc, resource.Vector{})
		p.accCts = append(p.accCts, nil)
		p.rejected = append(p.rejected, false)
		p.full = append(p.full, false)
	}
	p.touched = p.touched[:0]
	clear(p.claimed)
	p.trimMarks(total)
	for _, s := range p.starved {
		// Each starved leaf walks the candidates afresh, from those
		// marked for it: which of them it may take depends on where it
		// and their leaves stand in the policy's order.
		p.clearAcc()
		p.cand.reset(p, s)
		clear(p.accepts)
		p.lastKey = fitKey{}
		p.loadMarked(s)
		// The leaf's jobs in the order it serves them.
		jobs := append(p.jobScratch[:0], p.jobs[s.index]...)
		p.jobScratch = jobs
		slices.SortFunc(jobs, func(ja, jb *Job) int {
			if ja.prio != jb.prio {
				return cmp.Compare(jb.prio, ja.prio)
			}
			return cmp.Compare(ja.id, jb.id)
		})
	asks:
		for _, j := range jobs {
			for k := range j.asks {
				a := &j.asks[k]
				if a.Pending == 0 || (a.IsAM() && !p.policy.Serves(a)) {
					continue
				}
				free := p.freeSlots(a)
				for range a.Pending {
					if p.need[s.index] <= shareEps || p.spent() {
						break asks
					}
					if *free > 0 {
						// Room is free for it: the scheduler will
						// place it without preemption.
						*free--
						p.need[s.index] -= p.cfg.Measure(a.Request, total)
						continue
					}
					if p.need[s.index] < p.cfg.Measure(a.Request, total)-shareEps {
						// A whole container more than it is due: a
						// leaf takes back only whole containers it
						// is owed, so that siblings short of theirs
						// by fractions get one each in turn.
						continue asks
					}
					g, ok := p.victimsFor(a, s, total)
					if !ok {
						continue asks // no node can hold it with what is left
					}
					p.groups = append(p.groups, g)
				}
			}
		}
	}
	p.clearAcc()
}

// spent reports whether no over leaf has budget left: nothing more can be
// taken this round.
func (p *preemptor) spent() bool {
	for _, q := range p.over {
		if p.budget[q.index] > 0 {
			return false
		}
	}
	return true
}

// clearAcc forgets the candidates accumulated on nodes.
func (p *preemptor) clearAcc() {
	for _, id := range p.touched {
		p.acc[id] = resource.Vector{}
		clear(p.accCts[id])
		p.accCts[id] = p.accCts[id][:0]
		p.rejected[id] = false
		p.full[id] = false
	}
	p.touched = p.touched[:0]
}

// acceptable reports whether taking victim v for one container req of
// starved leaf s leaves s no later than v's leaf in the policy's order
// (see worth), and v's leaf has budget left.
func (p *preemptor) acceptable(s *Queue, v *Container, req resource.Vector) bool {
	o := v.job.queue
	if p.budget[o.index] <= 0 {
		return false
	}
	p.shift(s, req, true)
	p.shift(o, v.req, false)
	sa, so := meet(s, o)
	ok := sa != so && !p.before(so, sa)
	p.shift(s, req, false)
	p.shift(o, v.req, true)
	return ok
}

// shift adds r to (or takes it from) what leaf q and its ancestors hold.
// Usage moves in resource units, integers, so that a container moved and
// moved back, or two queues brought level, compare exactly as the
// scheduler will see them: no error builds up over a round's moves.
func (p *preemptor) shift(q *Queue, r resource.Vector, add bool) {
	for ; q.parent != nil; q = q.parent {
		if add {
			p.usedV[q.index] = p.usedV[q.index].Add(r)
		} else {
			p.usedV[q.index] = p.usedV[q.index].Sub(r)
		}
	}
}

// victimsFor finds, for one container of starved leaf s's ask a, a node
// where a fits once the candidates walked so far on it are gone, walking on
// as needed, and takes them if the move is worth it (worth).
func (p *preemptor) victimsFor(a *Ask, s *Queue, total resource.Vector) (group, bool) {
	if a.Request != p.cand.req || p.cand.c == 0 {
		// The rules depend on the container's size: judge afresh.
		p.cand.c, p.cand.req = p.cfg.Measure(a.Request, total), a.Request
		clear(p.accepts)
		for _, id := range p.touched {
			p.full[id] = false
		}
	}
	fitsOn := func(id cluster.NodeID) bool {
		n := p.c.cl.Node(id)
		return len(p.accCts[id]) > 0 && !p.rejected[id] && len(p.earmarks[id]) == 0 && p.c.reservedOn(n) == nil &&
			a.Request.Fits(n.Free().Sub(p.claimed[id]).Add(p.acc[id])) && a.EligibleOn(n)
	}
	drop := func(id cluster.NodeID) {
		p.acc[id] = resource.Vector{}
		clear(p.accCts[id])
		p.accCts[id] = p.accCts[id][:0]
		p.full[id] = false
	}
	try := func(id cluster.NodeID) (group, bool) {
		if !p.worth(a, s, p.accCts[id], total) {
			// Not for this ask; another may take them.
			p.rejected[id] = true
			return group{}, false
		}
		g := group{ask: a, node: id, victims: slices.Clone(p.accCts[id])}
		for _, v := range g.victims {
			p.picked[v] = true
			p.gone[v.job.id]++
		}
		clear(p.accepts) // the usages moved
		// What the victims do not cover comes from the node's free
		// room, which later groups there must not count again.
		p.claimed[id] = p.claimed[id].Add(a.Request.Sub(p.acc[id]).Max(resource.Vector{}))
		drop(id)
		return g, true
	}
	// A node already holding enough candidates from earlier walks: only
	// for a new shape, since a node was checked for this one as it was
	// walked and nothing was added to it since.
	key := fitKey{shape: a.Request}
	if a.Constrained() {
		key.ask = a
	}
	if key != p.lastKey {
		p.lastKey = key
		for _, id := range p.touched {
			p.rejected[id] = false
		}
		for _, id := range p.touched {
			if fitsOn(id) {
				if g, ok := try(id); ok {
					return g, true
				}
			}
		}
	}
	for {
		ct := p.cand.next()
		if ct == nil {
			return group{}, false
		}
		id := ct.nodeID
		// A node's candidates always make a group the rules allow:
		// one that would break them (a leaf taken below the starved
		// one, a budget overrun) is left out, for it would spoil every
		// group there.
		if p.full[id] {
			continue // a victim more there breaks the rules already
		}
		p.accCts[id] = append(p.accCts[id], ct)
		if len(p.accCts[id]) > 1 && !p.groupOK(s, p.cand.req, p.accCts[id], total) {
			p.accCts[id][len(p.accCts[id])-1] = nil
			p.accCts[id] = p.accCts[id][:len(p.accCts[id])-1]
			// One more victim only moves more away: the node is full
			// for this walk, until a group is taken.
			p.full[id] = true
			continue
		}
		if len(p.accCts[id]) == 1 && p.acc[id].IsZero() {
			p.touched = append(p.touched, id)
		}
		p.acc[id] = p.acc[id].Add(ct.req)
		p.rejected[id] = false
		if fitsOn(id) {
			if g, ok := try(id); ok {
				return g, true
			}
		}
	}
}

// worth decides whether to take victims for one container of starved leaf
// s's ask a, and if so charges the move. Every victim's leaf must have
// budget left (at most one container past it, as YARN takes containers
// while any is left to obtain). And the move must be one the scheduler
// would keep: after it, s must still come no later than each victim's leaf
// in the policy's own order (before), compared where their paths meet in
// the tree. Otherwise the scheduler would hand the room back as soon as a
// container ends, and the monitor take it again: a container thrown back
// and forth. With the order a strict function of usage, a move makes the
// less served of the two more served and the more served less so without
// swapping them, so no sequence of moves comes back to where it began.
func (p *preemptor) worth(a *Ask, s *Queue, victims []*Container, total resource.Vector) bool {
	if !p.charge(s, a.Request, victims, total) {
		return false
	}
	p.need[s.index] -= p.cfg.Measure(a.Request, total)
	return true
}

// groupOK reports whether worth would take victims for a container req of
// leaf s, changing nothing.
func (p *preemptor) groupOK(s *Queue, req resource.Vector, victims []*Container, total resource.Vector) bool {
	if !p.charge(s, req, victims, total) {
		return false
	}
	p.shift(s, req, false)
	p.unwind(victims, total)
	return true
}

// charge moves a container req to leaf s and victims from their leaves,
// in the usages and budgets, and keeps the move if worth's rules hold;
// otherwise it undoes it and reports false.
func (p *preemptor) charge(s *Queue, req resource.Vector, victims []*Container, total resource.Vector) bool {
	p.shift(s, req, true)
	charged := 0
	ok := true
	for i, v := range victims {
		o := v.job.queue
		same := 1
		for _, u := range victims[:i] {
			if u.job == v.job {
				same++
			}
		}
		if p.budget[o.index] <= 0 || p.lastTask(v.job, same) {
			ok = false
			break
		}
		cv := p.cfg.Measure(v.req, total)
		p.shift(o, v.req, false)
		p.excess[o.index] -= cv
		p.budget[o.index] -= cv
		charged++
	}
	if ok {
		for _, v := range victims {
			sa, so := meet(s, v.job.queue)
			if sa == so || p.before(so, sa) {
				ok = false
				break
			}
		}
	}
	if !ok {
		p.shift(s, req, false)
		p.unwind(victims[:charged], total)
	}
	return ok
}

// meet returns the ancestors of a and b (themselves included) that are
// siblings: where the scheduler compares the two.
func meet(a, b *Queue) (*Queue, *Queue) {
	for a.depth > b.depth {
		a = a.parent
	}
	for b.depth > a.depth {
		b = b.parent
	}
	for a.parent != b.parent {
		a, b = a.parent, b.parent
	}
	return a, b
}

// before reports whether the policy offers a node to sibling a before
// sibling b at what they hold as the round has moved it so far (usedV):
// Capacity's most under-served first (CapacityBefore); Fair's
// FairSharePolicy order (FairBefore). Each share is measured afresh from
// the integer usage, and two queues within orderTolerance of each other are
// level: neither comes before the other, so a move that leaves them
// exactly level (queue a holding 50 of 100 units, b 50, both guaranteed
// half) is one the scheduler keeps, whatever rounding says.
func (p *preemptor) before(a, b *Queue) bool {
	ua, ub := p.cfg.Measure(p.usedV[a.index], p.total), p.cfg.Measure(p.usedV[b.index], p.total)
	if !p.cfg.ByWeight {
		return capacityLess(a, ua, b, ub, orderTolerance)
	}
	return fairLess(a, ua, b, ub, orderTolerance)
}

// unwind gives back what charge took for victims.
func (p *preemptor) unwind(victims []*Container, total resource.Vector) {
	for _, v := range victims {
		o := v.job.queue
		cv := p.cfg.Measure(v.req, total)
		p.shift(o, v.req, true)
		p.excess[o.index] += cv
		p.budget[o.index] += cv
	}
}

// act marks this round's victims and kills the groups whose every victim
// has been marked for at least Delay.
func (p *preemptor) act(now clock.Time) {
	for _, g := range p.groups {
		due := true
		for _, v := range g.victims {
			m, ok := p.marks[v]
			if !ok || m.id != v.id || m.forq != g.ask.job.queue {
				p.markSeq++
				m = mark{id: v.id, at: now, forq: g.ask.job.queue, seq: p.markSeq}
				p.stats.Marked++
			}
			m.round = p.stats.Rounds
			p.marks[v] = m
			due = due && now.Sub(m.at) >= p.cfg.Delay
		}
		if !due {
			continue
		}
		if p.cfg.Observe {
			p.observe(g)
			continue
		}
		for _, v := range g.victims {
			delete(p.marks, v)
			v.victim = true
			p.killed[v] = kill{id: v.id, forq: g.ask.job.queue}
			p.stats.Killed++
			p.driver.Preempt(v, g.ask.job.queue)
		}
		p.earmark(g.ask, g.node, now)
	}
}

// observe counts and reports group g, due to be killed, in observe mode:
// each victim once while its mark lives, so that a state that does not
// change is not counted again every round. Nothing is killed and no room
// held, so the next round finds the same starved leaf and picks the same
// victims again, as YARN's observe_only logs them round after round.
func (p *preemptor) observe(g group) {
	o, _ := p.driver.(PreemptObserver)
	forq := g.ask.job.queue
	for _, v := range g.victims {
		m := p.marks[v]
		if m.observed {
			continue
		}
		m.observed = true
		p.marks[v] = m
		p.stats.Observed++
		for q := v.job.queue; q.parent != nil; q = q.parent {
			p.wouldFrom[q.index]++
		}
		for q := forq; q.parent != nil; q = q.parent {
			p.wouldFor[q.index]++
		}
		if o != nil {
			o.WouldPreempt(v, forq)
		}
	}
}

// forget drops the marks this round did not pick again (all of them when
// the round stopped early): a mark lives while each round picks its
// container for the same leaf, so that a container is reserved for a
// starved leaf only while that leaf still wants it. YARN keeps an unpicked
// mark for twice max_wait_before_kill; kept here, a mark a leaf no longer
// takes would hold its container back from another starved leaf.
func (p *preemptor) forget() {
	for v, m := range p.marks {
		if m.round != p.stats.Rounds || v.id != m.id || v.state != Running {
			delete(p.marks, v)
		}
	}
}

// earmark holds room on node for one container of ask a: the container
// leaves a's pending count until the node's next update allocates it
// there.
func (p *preemptor) earmark(a *Ask, node cluster.NodeID, now clock.Time) {
	c := p.c
	c.addPending(a, -1)
	a.marked++
	p.earmarks[node] = append(p.earmarks[node], earmark{ask: a, forq: a.job.queue, at: now})
	p.nEarmarks++
	p.stats.Earmarks++
	c.progress++
}

// unmark takes the earmark at index k of node's list away, without giving
// its container back to the ask.
func (p *preemptor) unmark(node int, k int) {
	l := p.earmarks[node]
	l[k].ask.marked--
	copy(l[k:], l[k+1:])
	l[len(l)-1] = earmark{}
	p.earmarks[node] = l[:len(l)-1]
	p.nEarmarks--
}

// release gives an earmarked container back to its ask: pending again, or
// held if the job's state no longer allows it.
func (p *preemptor) release(node, k int) {
	a := p.earmarks[node][k].ask
	p.unmark(node, k)
	if a.job.state != Finished {
		p.c.want(a, 1)
	}
}

// expireEarmarks gives back the rooms held too long.
func (p *preemptor) expireEarmarks(now clock.Time) {
	if p.nEarmarks == 0 {
		return
	}
	ttl := p.earmarkTTL()
	for n := range p.earmarks {
		for k := 0; k < len(p.earmarks[n]); {
			if now.Sub(p.earmarks[n][k].at) > ttl {
				p.stats.Expired++
				p.release(n, k)
				continue
			}
			k++
		}
	}
}

// serve allocates on node n the containers held for there, those that fit
// now; it reports whether any is still waiting, in which case the node
// takes nothing else.
func (p *preemptor) serve(n *cluster.Node) bool {
	c := p.c
	id := int(n.ID())
	for k := 0; k < len(p.earmarks[id]); {
		e := p.earmarks[id][k]
		a := e.ask
		switch {
		case a.job.state == Finished:
			p.unmark(id, k)
		case !allocatable(a):
			p.release(id, k)
		case a.Request.Fits(n.Free()) && a.EligibleOn(n):
			p.unmark(id, k)
			c.addPending(a, 1)
			p.stats.Served++
			p.serving = true
			c.allocate(n, a, nil)
			p.serving = false
		default:
			k++
		}
	}
	return len(p.earmarks[id]) > 0
}

// dropOne takes one earmark of ask a away without giving its container
// back: the request it stood for was withdrawn.
func (p *preemptor) dropOne(a *Ask) {
	for n := range p.earmarks {
		for k := range p.earmarks[n] {
			if p.earmarks[n][k].ask == a {
				p.unmark(n, k)
				return
			}
		}
	}
}

// dropMarks gives back every earmark of ask a (its job finished, its
// containers were withdrawn or are held): the ask's own state decides
// what becomes of them.
func (p *preemptor) dropMarks(a *Ask, giveBack bool) {
	if a.marked == 0 {
		return
	}
	for n := range p.earmarks {
		for k := 0; k < len(p.earmarks[n]); {
			if p.earmarks[n][k].ask != a {
				k++
				continue
			}
			if giveBack {
				p.release(n, k)
			} else {
				p.unmark(n, k)
			}
		}
	}
}

// check verifies the monitor's invariants.
func (p *preemptor) check() error {
	count := 0
	for n := range p.earmarks {
		for _, e := range p.earmarks[n] {
			count++
			if e.ask.job.state == Finished {
				return fmt.Errorf("node %d holds room for finished job %s", n, e.ask.job.key)
			}
		}
	}
	if count != p.nEarmarks {
		return fmt.Errorf("preemption: %d earmarks listed, %d counted", count, p.nEarmarks)
	}
	pend := make([]resource.Vector, len(p.taskPend))
	for _, j := range p.c.jobs {
		for k := 1; k < len(j.asks); k++ {
			pend[j.queue.index] = pend[j.queue.index].Add(j.asks[k].Request.Mul(int64(j.asks[k].Pending)))
		}
	}
	for i := range pend {
		if pend[i] != p.taskPend[i] {
			return fmt.Errorf("preemption: queue %s's pending tasks counted %v, its asks hold %v", p.c.tree.queues[i].spec.Name, p.taskPend[i], pend[i])
		}
	}
	marked := 0
	for _, j := range p.c.jobs {
		for k := range j.asks {
			if j.asks[k].marked < 0 {
				return fmt.Errorf("job %s ask %d: negative earmarks", j.key, k-1)
			}
			marked += j.asks[k].marked
		}
	}
	if marked != count {
		return fmt.Errorf("preemption: asks count %d earmarked containers, nodes hold %d", marked, count)
	}
	for ct, k := range p.killed {
		if ct.id == k.id && ct.IsAM() {
			return fmt.Errorf("%v: an ApplicationMaster was preempted", ct)
		}
	}
	return nil
}
