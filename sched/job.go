package sched

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// JobSpec is what a submitter tells the resource manager about a job: its
// requests and declared hints, never how long its tasks will take.
type JobSpec struct {
	Key   string // the workload's job id
	Name  string // job type, optional
	Queue string // a leaf's dotted path
	User  string
	// Priority orders the job among the jobs of its leaf queue, higher
	// first, under the policies that read it (FIFO, Capacity, Fair, DRF),
	// as YARN's application priority does; live, the driver pod's
	// spec.priority. 0 by default.
	Priority int32
	AM       resource.Vector // zero: the job runs without an AM container
	Deadline clock.Duration  // completion-time goal relative to submission; 0 = none
	Estimate clock.Duration  // runtime estimate from the run's estimate source; 0 = none
	Phases   []PhaseSpec
	// Open marks a job whose ApplicationMaster runs outside the core (a
	// Spark driver on a live cluster): its phases are unknown, Phases must
	// be empty, and the driver asks for containers as they are wanted
	// (Core.Ask) and ends the job when its AM exits (Core.EndJob).
	Open bool
	// Demand is an Open job's declared peak concurrent request, AM
	// included; zero when unknown. Closed jobs derive it from Phases.
	Demand resource.Vector
	// Eligible, for a simulated job, restricts its AM and every task to
	// the nodes it admits (a node pool: a node selector and tolerations);
	// nil admits every node. Class names those constraints, as
	// Request.Class does. An Open job's requests carry their own.
	Eligible func(n *cluster.Node) bool
	Class    string
	// MinMembers > 0 makes the job a gang, all or nothing (gang.go): it
	// is asked about for admission only when its first MinMembers
	// containers (AM first, then tasks of its first phase; an Open job's
	// requests in the order made) fit the free room together. 0: no
	// minimum.
	MinMembers int
	// GangTimeout, when positive, is this gang's own timeout (a YuniKorn
	// application's placeholderTimeoutInSeconds), else the core's
	// (Config.GangTimeout).
	GangTimeout clock.Duration
	// MinResources, when not zero, is the room a gang's minimum needs in
	// all (a Volcano PodGroup's minResources; YuniKorn's task groups'
	// minMember × minResource): the gang is asked about for admission
	// only once the nodes' free room, less what admitted gangs are owed,
	// holds that much, and is told at once when all nodes together never
	// could.
	MinResources resource.Vector
}

// PhaseSpec is one phase as requested: how many tasks, each asking for what.
type PhaseSpec struct {
	Name       string
	Tasks      int
	Request    resource.Vector
	StartAfter float64 // fraction of the previous phase that must be complete; 1 = all
}

// JobID is a dense job index in submission order, 0..NumJobs-1; policies use
// it to keep per-job state in slices.
type JobID int32

// JobState is where a job is in its life at the resource manager.
type JobState uint8

// Job states.
const (
	Waiting  JobState = iota // submitted, held by admission control
	Admitted                 // admitted; its AM container is requested or starting
	Active                   // its AM runs and asks for task containers
	Finished                 // every task completed and the AM unregistered
)

var jobStateNames = [...]string{"waiting for admission", "admitted, AM not running", "running", "finished"}

func (s JobState) String() string { return jobStateNames[s] }

// AMPhase is the phase index of an ApplicationMaster ask or container.
const AMPhase = -1

// Ask is a job's outstanding request for containers of one shape: its AM, or
// the tasks of one phase (of an Open job: the requests of one resource shape
// and placement class). Pending counts the containers wanted and allocatable
// now.
type Ask struct {
	job      *Job
	phase    int32
	reserved int // nodes reserved for this ask
	Request  resource.Vector
	Pending  int
	// held counts containers wanted but not allocatable in the job's
	// state: task requests before the AM runs (or while it restarts),
	// the AM request before admission.
	held int
	// marked counts containers taken out of Pending because preemption
	// holds room for them on a node (preempt.go), until that node's next
	// update allocates them there.
	marked int
	// lv is what only an Open job's asks carry; nil for simulated jobs,
	// so that their asks stay small on the scheduler's hot path.
	lv *askLive
}

// askLive is an Open job's ask's request keys and placement constraints.
type askLive struct {
	// keys are the driver's handles of the requests wanted, oldest first:
	// len(keys) == Pending + held.
	keys     []string
	class    string
	eligible func(n *cluster.Node) bool
	// unfit: the request fits no node that the constraints admit, so it
	// is held (not allocatable) until the nodes change (Core.refit).
	unfit bool
}

// Job returns the asking job.
func (a *Ask) Job() *Job { return a.job }

// Phase returns the phase index, or AMPhase for the ApplicationMaster.
func (a *Ask) Phase() int { return int(a.phase) }

// IsAM reports whether this asks for the ApplicationMaster container.
func (a *Ask) IsAM() bool { return a.phase < 0 }

// Reserved returns how many nodes are reserved for this ask.
func (a *Ask) Reserved() int { return a.reserved }

// Class returns the placement class the driver gave the ask's requests
// (Request.Class); empty for simulated jobs.
func (a *Ask) Class() string {
	if a.lv == nil {
		return ""
	}
	return a.lv.class
}

// Constrained reports whether the ask may be placed on some nodes only
// (Request.Eligible): policies that group asks by shape alone must test
// EligibleOn per node for it.
func (a *Ask) Constrained() bool { return a.lv != nil && a.lv.eligible != nil }

// EligibleOn reports whether the ask may go to node n at all, whatever n has
// free: n takes new containers and meets the ask's placement constraints.
func (a *Ask) EligibleOn(n *cluster.Node) bool {
	return n.Schedulable() && (a.lv == nil || a.lv.eligible == nil || a.lv.eligible(n))
}

// Unfit reports whether the ask's request fits the capacity of no node it
// may use (its placement constraints admit), so that it waits, held, until
// the nodes change: it holds no job back, and no policy is offered it.
func (a *Ask) Unfit() bool { return a.lv != nil && a.lv.unfit }

// Held returns how many containers the ask wants that are not allocatable in
// the job's present state (and so not counted in Pending).
func (a *Ask) Held() int { return a.held }

// Earmarked returns how many containers the ask wants for which preemption
// holds room on a node (not counted in Pending): the node's next update
// allocates them.
func (a *Ask) Earmarked() int { return a.marked }

// phaseProgress is what the resource manager and the job's AM know of a
// phase. The RM learns completions from node heartbeats; the AM learns them
// on its own heartbeat, and only the AM's view drives the next phase.
type phaseProgress struct {
	asked       bool
	allocated   int32 // task indices handed out (also the next new index)
	running     int32 // RUNNING as reported by nodes
	completedRM int32 // COMPLETED as reported by nodes
	completedAM int32 // completions the AM has heard of
}

// Job is an application as the resource manager knows it.
type Job struct {
	id JobID
	// prio is spec.Priority, next to id: job orders compare both.
	prio  int32
	key   string
	spec  JobSpec
	queue *Queue
	state JobState

	submit, admit, amStart, firstRun, lastDone, finish clock.Time

	usage    resource.Vector // held by the job's containers, AM included
	am       *Container
	asks     []Ask // asks[0] is the AM, asks[1+k] phase k
	progress []phaseProgress
	pending  int // containers asked for and not yet allocated, over all asks
	live     int // containers allocated and not yet ended

	demand       resource.Vector // AM plus the largest phase, all at once
	largestPhase int

	toAcquire []*Container // allocated, waiting for the AM's next heartbeat
	amNews    bool         // the AM has completions to hear of
	wakeAM    bool         // a heartbeat for the AM has been requested

	amFailures int32 // AM containers that ended FAILED
	failed     bool  // ended because its AM failed MaxAMAttempts times
	// ends counts the job's containers by how they ended, from COMPLETED.
	ends [numContainerStates - Completed]int32
	// retry is, per phase, the task indices whose container ended
	// unfinished, to hand out again; nil until one does.
	retry [][]int32
	// gang is an admitted gang's room still owed (gang.go); nil otherwise.
	// gangTimeouts keeps its count of timeouts once it is settled.
	gang         *gangState
	gangTimeouts int
	// mr is the MapReduce AM's allocator state while a phase started
	// early waits for the one before it (mr.go); nil otherwise.
	mr *mrState
	// lastAsked is when the AM last asked for a phase, which mrStart
	// keeps as the time the maps were asked for.
	lastAsked clock.Time
}

func newJob(id JobID, spec *JobSpec, q *Queue, now clock.Time, capacity resource.Vector) *Job {
	j := &Job{
		id: id, prio: spec.Priority, key: spec.Key, spec: *spec, queue: q, state: Waiting,
		submit: now, admit: -1, amStart: -1, firstRun: -1, lastDone: -1, finish: -1,
		asks:     make([]Ask, 1+len(spec.Phases)),
		progress: make([]phaseProgress, len(spec.Phases)),
	}
	j.asks[0] = Ask{job: j, phase: AMPhase, Request: spec.AM}
	if spec.Open {
		j.asks[0].lv = &askLive{}
		// The declared demand is all there is to know up front; an
		// undeclared one is the AM alone.
		j.demand = spec.AM.Max(spec.Demand)
		return j
	}
	largestShare := -1.0
	for k := range spec.Phases {
		p := &spec.Phases[k]
		j.asks[1+k] = Ask{job: j, phase: int32(k), Request: p.Request}
		// The largest phase is the one taking the largest share of the
		// cluster in its dominant resource; the first wins ties.
		if share := p.Request.Mul(int64(p.Tasks)).DominantShare(capacity); share > largestShare {
			j.largestPhase, largestShare = k, share
		}
	}
	if spec.Eligible != nil {
		// Every ask of a job in a node pool carries the pool's
		// constraints; they share one record, since a simulated job's
		// asks carry no request keys.
		lv := &askLive{class: spec.Class, eligible: spec.Eligible}
		for k := range j.asks {
			j.asks[k].lv = lv
		}
	}
	p := &spec.Phases[j.largestPhase]
	j.demand = spec.AM.Add(p.Request.Mul(int64(p.Tasks)))
	return j
}

// ID returns the job's dense index.
func (j *Job) ID() JobID { return j.id }

// Key returns the workload's id for the job.
func (j *Job) Key() string { return j.key }

// Spec returns what was declared at submission. Callers must not modify it.
func (j *Job) Spec() *JobSpec { return &j.spec }

// Queue returns the job's queue, a leaf of the tree.
func (j *Job) Queue() *Queue { return j.queue }

// Priority returns the job's priority (JobSpec.Priority): higher first.
func (j *Job) Priority() int32 { return j.prio }

// State returns the job's state.
func (j *Job) State() JobState { return j.state }

// Submitted returns the submission time.
func (j *Job) Submitted() clock.Time { return j.submit }

// AdmittedAt returns when admission control let the job in, or -1.
func (j *Job) AdmittedAt() clock.Time { return j.admit }

// AMStartedAt returns when the job's AM began running, or -1.
func (j *Job) AMStartedAt() clock.Time { return j.amStart }

// FirstRunning returns when the first task container was reported RUNNING,
// or -1.
func (j *Job) FirstRunning() clock.Time { return j.firstRun }

// LastCompleted returns when the last task container was reported COMPLETED,
// or -1 while tasks remain.
func (j *Job) LastCompleted() clock.Time { return j.lastDone }

// FinishedAt returns when the AM unregistered, or -1.
func (j *Job) FinishedAt() clock.Time { return j.finish }

// Usage returns what the job's containers hold, AM included.
func (j *Job) Usage() resource.Vector { return j.usage }

// AM returns the job's AM container, or nil when it has none allocated.
func (j *Job) AM() *Container { return j.am }

// HasAM reports whether the job runs an AM container at all.
func (j *Job) HasAM() bool { return !j.spec.AM.IsZero() }

// Open reports whether the job's AM runs outside the core and asks as it goes
// (JobSpec.Open).
func (j *Job) Open() bool { return j.spec.Open }

// Failed reports whether the job ended because its AM failed MaxAMAttempts
// times.
func (j *Job) Failed() bool { return j.failed }

// AMFailures returns how many of the job's AM containers ended FAILED.
func (j *Job) AMFailures() int { return int(j.amFailures) }

// Ends returns how many of the job's containers ended in terminal state s
// (COMPLETED, KILLED, FAILED, PREEMPTED, LOST); refusals count as KILLED
// here and apart in Core.Counts.
func (j *Job) Ends(s ContainerState) int {
	if !s.Terminal() {
		return 0
	}
	return int(j.ends[s-Completed])
}

// Asks returns the job's asks: index 0 is the AM, 1+k is phase k. Only those
// with Pending > 0 are outstanding. Callers must not modify them.
func (j *Job) Asks() []Ask { return j.asks }

// Pending returns how many containers the job waits for over all asks.
func (j *Job) Pending() int { return j.pending }

// LiveContainers returns how many of the job's containers hold resources.
func (j *Job) LiveContainers() int { return j.live }

// NextAsk returns the job's first outstanding ask (its AM, then phases in
// order), or nil.
func (j *Job) NextAsk() *Ask {
	if j.pending == 0 {
		return nil
	}
	for i := range j.asks {
		if j.asks[i].Pending > 0 {
			return &j.asks[i]
		}
	}
	return nil
}

// FirstFit returns the first outstanding ask, in the job's own order, whose
// request fits free; nil when none does.
func (j *Job) FirstFit(free resource.Vector) *Ask {
	if j.pending == 0 {
		return nil
	}
	for i := range j.asks {
		if a := &j.asks[i]; a.Pending > 0 && a.Request.Fits(free) {
			return a
		}
	}
	return nil
}

// Demand returns the job's peak concurrent request as declared: its AM plus
// its largest phase with every task at once. DRESS classifies by it, DJSF
// packs by it. An Open job has no phases: its demand is JobSpec.Demand when
// declared, else its AM request alone (policies then see it as small).
func (j *Job) Demand() resource.Vector { return j.demand }

// DemandContainers returns the AM container (if any) plus the task count of
// the largest phase. An Open job declares no count: it is the AM plus the
// task containers it holds and asks for now.
func (j *Job) DemandContainers() int {
	if j.spec.Open {
		n := j.live + j.pending
		for i := range j.asks {
			n += j.asks[i].held
		}
		if j.HasAM() && j.am == nil && j.asks[0].Pending+j.asks[0].held == 0 {
			n++ // its AM, not yet asked for
		}
		return n
	}
	n := j.spec.Phases[j.largestPhase].Tasks
	if j.HasAM() {
		n++
	}
	return n
}

// PhaseStatus is a phase's progress as the resource manager sees it.
type PhaseStatus struct {
	Tasks, Allocated, Running, Completed int
	Requested                            bool
}

// Phase returns the resource manager's view of phase k. An Open job's
// phases are its task asks, whose task count is unknown (Tasks is what was
// asked so far).
func (j *Job) Phase(k int) PhaseStatus {
	p := &j.progress[k]
	tasks := int(p.allocated) + j.asks[1+k].Pending + j.asks[1+k].held
	if !j.spec.Open {
		tasks = j.spec.Phases[k].Tasks
	}
	return PhaseStatus{
		Tasks:     tasks,
		Allocated: int(p.allocated),
		Running:   int(p.running),
		Completed: int(p.completedRM),
		Requested: p.asked,
	}
}

// Describe says where a job is stuck, for deadlock reports. Jobs in the same
// situation get the same words, so reports can group them.
func (j *Job) Describe() string {
	switch j.state {
	case Waiting, Finished:
		return j.state.String()
	case Admitted:
		if j.asks[0].Pending > 0 {
			return "admitted, waiting for an AM container"
		}
		return "admitted, AM starting"
	}
	if j.pending > 0 {
		return "AM running, waiting for task containers"
	}
	return "AM running, tasks running"
}

// phaseReady reports whether phase k may be requested given what the AM
// knows of phase k-1.
func (j *Job) phaseReady(k int) bool {
	if k == 0 {
		return true
	}
	prev := j.spec.Phases[k-1]
	need := int32(math.Ceil(j.spec.Phases[k].StartAfter*float64(prev.Tasks) - 1e-9))
	need = max(need, 1)
	return j.progress[k-1].completedAM >= need
}
