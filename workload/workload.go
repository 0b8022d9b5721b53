// Package workload holds spindle's workload model (format v1): the cluster, its
// queues and the jobs to run, read from YAML or JSON and validated strictly.
//
// A workload is ground truth for a driver: per-task durations live here and
// nowhere in the scheduling core. The simulator reads them to decide when a
// task finishes; policies never see them.
package workload

import (
	"fmt"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Version is the only workload format version this package reads and writes.
const Version = 1

// Defaults applied when the cluster section leaves a timing unset. They follow
// Hadoop YARN's defaults: NodeManagers and ApplicationMasters heartbeat once a
// second and starting a container (localisation, JVM start) takes about one.
const (
	DefaultNodeHeartbeat = 1 * clock.Second
	DefaultAMHeartbeat   = 1 * clock.Second
	DefaultLaunchDelay   = 1 * clock.Second
	DefaultLaunchJitter  = 0.25
	DefaultQueue         = "default"
)

// The client-side limit on a Kubernetes scheduler's calls to the
// apiserver when the cluster section leaves it unset (timing kubernetes):
// kube-scheduler's clientConnection defaults, qps 50 and burst 100, which
// are also 'spindle kube schedule' --qps and --burst defaults.
const (
	DefaultAPIQPS   = 50.0
	DefaultAPIBurst = 100
)

// DefaultAM is the ApplicationMaster request of a job that does not declare
// one: one vcore and 1 GiB, close to MapReduce's yarn.app.mapreduce.am.resource
// defaults. A job that declares an all-zero AM runs without an AM container.
var DefaultAM = resource.New(1, 1024)

// Workload is a parsed and validated workload file.
type Workload struct {
	Version int
	Cluster Cluster
	Queues  []Queue // never empty after validation: defaults to one "default" queue
	Jobs    []Job
}

// Cluster describes the machines and the YARN-like timing of the run.
type Cluster struct {
	Nodes []NodeGroup

	// Ideal makes every delay zero: containers are allocated the moment
	// resources free and start at once. Used for hand-checkable cases.
	Ideal bool

	NodeHeartbeat clock.Duration // NodeManager heartbeat interval
	AMHeartbeat   clock.Duration // ApplicationMaster heartbeat (allocate call) interval
	LaunchDelay   clock.Duration // mean time from acquiring a container to its task running
	// LaunchJitter spreads each launch uniformly over
	// LaunchDelay × [1−LaunchJitter, 1+LaunchJitter]; in [0, 1).
	LaunchJitter float64

	// ExternalLoad is non-YARN load on every node as a fraction of its
	// capacity over time; nil when the machines are dedicated.
	ExternalLoad *ExternalLoad

	// Timing is the timing model: "" or TimingYARN (heartbeats), or
	// TimingKubernetes (no heartbeats; see TimingKubernetes).
	Timing string

	// APIQPS and APIBurst are, under TimingKubernetes, the scheduler's
	// client-side limit on its apiserver calls (api_qps, api_burst): every
	// placed pod is bound by one call, so past a burst of APIBurst no more
	// than APIQPS pods a second are bound, whatever the policy. APIQPS 0
	// is no limit. A parsed file with Kubernetes timing that leaves them
	// unset gets DefaultAPIQPS and DefaultAPIBurst; other timings ignore
	// them.
	APIQPS   float64
	APIBurst int

	// Calculator is how the resource manager compares amounts of
	// resource (resource_calculator: memory, YARN's default
	// DefaultResourceCalculator, or dominant): every policy's
	// ApplicationMaster limit is checked with it.
	Calculator resource.Calculator

	// MapReduceAM is how every job's ApplicationMaster asks for the tasks
	// of a phase that starts before the previous one completes (reduces
	// at slow-start), and when it preempts them to make room for that
	// previous phase (mapreduce_am). The zero value, a file without the
	// key, means DefaultMapReduceAM (see Effective).
	MapReduceAM MapReduceAM
}

// Effective returns m, or DefaultMapReduceAM when m is unset (zero).
func (m MapReduceAM) Effective() MapReduceAM {
	if m == (MapReduceAM{}) {
		return DefaultMapReduceAM
	}
	return m
}

// MapReduceAM configures the MapReduce ApplicationMaster the simulator's
// jobs run, as Hadoop's RMContainerAllocator: each field is named after the
// Hadoop setting it models, with Hadoop's default.
type MapReduceAM struct {
	// Model is which release's allocator: MRHadoop28 (the default),
	// MRHadoop22 (the AutoAdmin paper's) or MRNone (every task of a phase
	// asked at once, none preempted: spindle's model before).
	Model MRModel
	// ReduceRampupLimit is yarn.app.mapreduce.am.job.reduce.rampup.limit:
	// while maps are still asked for, reduces may hold at most this share
	// of what the job can use (0.5).
	ReduceRampupLimit float64
	// ReducePreemptionLimit is
	// yarn.app.mapreduce.am.job.reduce.preemption.limit: the share of what
	// the job can use that one preemption may take back from its reduces
	// (0.5).
	ReducePreemptionLimit float64
	// ReducerPreemptDelay is mapreduce.job.reducer.preempt.delay.sec: how
	// long a map request waits, with no headroom for it, before reduces
	// are preempted (0: at once). Hadoop 2.8 only.
	ReducerPreemptDelay clock.Duration
	// ReducerUnconditionalPreemptDelay is
	// mapreduce.job.reducer.unconditional-preempt.delay.sec: how long a
	// map request waits before reduces are preempted whatever the
	// headroom says (300 s); negative disables it. Hadoop 2.8 only
	// (MAPREDUCE-6302).
	ReducerUnconditionalPreemptDelay clock.Duration
}

// MRModel names the release whose MapReduce ApplicationMaster is modelled.
type MRModel uint8

// The models.
const (
	MRHadoop28 MRModel = iota
	MRHadoop22
	MRNone
	numMRModels
)

var mrModelNames = [numMRModels]string{"hadoop-2.8", "hadoop-2.2", "none"}

func (m MRModel) String() string {
	if m < numMRModels {
		return mrModelNames[m]
	}
	return fmt.Sprintf("MRModel(%d)", m)
}

// MRModelNames lists the model names, the default first.
func MRModelNames() []string { return mrModelNames[:] }

// DefaultMapReduceAM is Hadoop's defaults, in the 2.8 allocator.
var DefaultMapReduceAM = MapReduceAM{
	Model: MRHadoop28, ReduceRampupLimit: 0.5, ReducePreemptionLimit: 0.5,
	ReducerPreemptDelay: 0, ReducerUnconditionalPreemptDelay: 300 * clock.Second,
}

// NodeGroup is Count identical machines. Labels and Taints, both optional,
// make it a node pool, as on Kubernetes: a job may run there only if its
// NodeSelector matches the labels and its Tolerations tolerate every
// NoSchedule and NoExecute taint (Job.Admits).
type NodeGroup struct {
	Count    int
	Capacity resource.Vector
	Labels   map[string]string
	Taints   []Taint
	// External is what other workloads hold on each node of the group over
	// time (a recorded cluster's daemonsets and other schedulers' pods);
	// nil when nothing else runs there.
	External []HeldStep
}

// ExternalLoad is a piecewise-linear fraction of each node's capacity used by
// other workloads. Points are sorted by At; before the first point the first
// value holds, after the last the last value holds unless Period > 0, in which
// case the curve repeats with that period.
type ExternalLoad struct {
	Points []LoadPoint
	Period clock.Duration
}

// LoadPoint is one knot of an external-load curve.
type LoadPoint struct {
	At   clock.Duration
	Frac float64 // in [0, 1]
}

// Queue is a queue of the tree, as YARN's Capacity scheduler configures
// one. Name is its dotted path below the root ("prod.etl"; a leading
// "root." may be written): a name without a dot is a child of the root, so
// the flat list of a format-v1 file is a tree of one level. A parent must be
// listed too, in any order; only leaves take jobs.
//
// Capacity is the guaranteed share of the parent (of the cluster, for a
// child of the root), MaxCapacity the share of the parent it may grow to;
// Capacity in [0, 1] (0: guaranteed nothing, as YARN allows), MaxCapacity
// in (0, 1] and at least Capacity, and the capacities of a parent's
// children sum to at most 1. Weight orders the queue among its siblings
// under Fair and DRF; 0 (unset) means Capacity. DisablePreemption spares the
// queue and the queues below it from preemption (YARN's
// disable_preemption).
type Queue struct {
	Name              string
	Capacity          float64
	MaxCapacity       float64
	Weight            float64
	DisablePreemption bool
}

// Job is one application: an ApplicationMaster plus ordered phases of tasks.
type Job struct {
	ID     string
	Name   string // job type, for history-based estimates and reports; optional
	Queue  string
	User   string // optional
	Submit clock.Time
	AM     resource.Vector // all zero: the job has no AM container

	// Deadline is a completion-time goal relative to Submit; 0 means none.
	Deadline clock.Duration
	// Estimate is the runtime the submitter declares; 0 means none.
	Estimate clock.Duration
	// Priority orders the job among the jobs of its leaf queue under
	// FIFO, Capacity and Fair, higher first (YARN's application priority;
	// live, the driver pod's spec.priority); 0 by default.
	Priority int32
	// MinMembers, optional, makes the job a gang (all or nothing, as a
	// Volcano PodGroup's minMember or a YuniKorn task group's): it is
	// admitted only when its first MinMembers containers, its AM first
	// and then tasks of its first phase, fit the cluster's free room
	// together. 0 (absent): no minimum.
	MinMembers int
	// GangTimeout, optional with MinMembers, is how long the gang may
	// hold the room of members not yet placed before it is released (a
	// YuniKorn placeholderTimeoutInSeconds, the live scheduler's
	// --gang-timeout); 0 (absent): the simulator's default
	// (sched.DefaultGangTimeout).
	GangTimeout clock.Duration

	// NodeSelector and Tolerations, both optional, say which node groups
	// the job's AM and tasks may use (Job.Admits), as a pod's
	// nodeSelector and tolerations do.
	NodeSelector map[string]string
	Tolerations  []Toleration

	Phases []Phase

	// Recorded is what a recording saw of the job; nil for a workload
	// that was not recorded. Simulations ignore it.
	Recorded *Recorded
}

// Phase is a set of tasks with the same request, run after the previous phase.
type Phase struct {
	Name    string
	Tasks   int
	Request resource.Vector
	// Durations holds either one value for every task or exactly Tasks values.
	Durations []clock.Duration
	// StartAfter is the fraction of the previous phase's tasks that must have
	// completed before this phase's tasks are requested (MapReduce reduce
	// slow-start). 1 means the previous phase must be complete. Always 1 for
	// the first phase.
	StartAfter float64

	// Started holds, in a recorded workload, when each task started
	// (container start, workload time); nil otherwise. Simulations ignore
	// it.
	Started []clock.Time
	// Unfinished is how many of the phase's last tasks were still running
	// when the recording stopped: their durations are lower bounds.
	Unfinished int
}

// Duration returns the true duration of task i of the phase.
func (p *Phase) Duration(i int) clock.Duration {
	if len(p.Durations) == 1 {
		return p.Durations[0]
	}
	return p.Durations[i]
}

// Tasks returns the total number of tasks over all phases.
func (j *Job) Tasks() int {
	n := 0
	for i := range j.Phases {
		n += j.Phases[i].Tasks
	}
	return n
}

// Capacity returns the total resources of the cluster.
func (c *Cluster) Capacity() resource.Vector {
	var v resource.Vector
	for _, g := range c.Nodes {
		v = v.Add(g.Capacity.Mul(int64(g.Count)))
	}
	return v
}

// NumNodes returns the number of machines.
func (c *Cluster) NumNodes() int {
	n := 0
	for _, g := range c.Nodes {
		n += g.Count
	}
	return n
}

// TotalTasks returns the number of tasks over all jobs.
func (w *Workload) TotalTasks() int {
	n := 0
	for i := range w.Jobs {
		n += w.Jobs[i].Tasks()
	}
	return n
}
