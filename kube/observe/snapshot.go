// Package observe is the live scheduler's window to the outside: Prometheus
// metrics, health and readiness probes, a read-only JSON API and a status page.
//
// The driver's event loop owns the scheduling core and must never wait on an
// HTTP client, so the two sides meet only through a Recorder: the loop counts
// attempts and decisions into it and, after each event batch, publishes a
// Snapshot it built from the core. Publish stores the snapshot behind an
// atomic pointer (copy-on-publish); HTTP handlers and metric scrapes read
// whatever snapshot is current and never take a lock the loop also takes.
// Nothing served here changes scheduler state: every endpoint answers only
// GET and HEAD.
package observe

import (
	"time"

	"github.com/spindle-sched/spindle/resource"
)

// Result is the outcome of one scheduling attempt for a pod.
type Result string

// The attempt outcomes, used as the "result" label of the attempt metrics.
const (
	// ResultScheduled: the core placed the pod on a node (binding follows).
	ResultScheduled Result = "scheduled"
	// ResultUnschedulable: no node can hold the pod now (capacity, selectors,
	// taints); it stays pending.
	ResultUnschedulable Result = "unschedulable"
	// ResultWaitingAdmission: the admission controller holds the pod's job
	// (or the pod is an executor whose driver is not bound yet).
	ResultWaitingAdmission Result = "waiting_admission"
	// ResultError: the attempt failed for a reason other than the cluster
	// being full (bad annotation, internal error).
	ResultError Result = "error"
)

// Results lists every Result, in the order the metrics pre-create them.
var Results = []Result{ResultScheduled, ResultUnschedulable, ResultWaitingAdmission, ResultError}

// BindResult is the outcome of one pods/binding call.
type BindResult string

// The bind outcomes, used as the "result" label of the bind metrics.
const (
	BindOK BindResult = "ok"
	// BindConflict: the apiserver refused because the pod changed or was
	// already bound; the driver undoes the assumed placement.
	BindConflict BindResult = "conflict"
	// BindError: any other failure; the driver undoes and retries with backoff.
	BindError BindResult = "error"
)

// BindResults lists every BindResult.
var BindResults = []BindResult{BindOK, BindConflict, BindError}

// Role is the replica's part in leader election.
type Role string

// The roles. A replica without --leader-elect is RoleSolo.
const (
	RoleSolo    Role = "solo"
	RoleLeader  Role = "leader"
	RoleStandby Role = "standby"
)

// AM states of a job, as shown in JobStatus.AM.
const (
	AMNone     = "none"     // the job has no AM pod (a lone pod, or tasks only)
	AMWaiting  = "waiting"  // the AM pod exists but admission holds it
	AMAdmitted = "admitted" // admitted, not yet running (placed or binding)
	AMRunning  = "running"  // the AM pod runs
	AMDone     = "done"     // the AM pod ended
)

// Resources is an amount of CPU and memory (and GPUs), in units a reader of
// the JSON API does not have to convert twice.
type Resources struct {
	MilliCPU  int64 `json:"milli_cpu"`
	MemoryMiB int64 `json:"memory_mib"`
	GPUs      int64 `json:"gpus,omitempty"`
}

// FromVector converts the core's resource vector.
func FromVector(v resource.Vector) Resources {
	return Resources{MilliCPU: v[resource.VCores], MemoryMiB: v[resource.Memory], GPUs: v[resource.GPU]}
}

// Add returns r+o.
func (r Resources) Add(o Resources) Resources {
	return Resources{MilliCPU: r.MilliCPU + o.MilliCPU, MemoryMiB: r.MemoryMiB + o.MemoryMiB, GPUs: r.GPUs + o.GPUs}
}

// JobStatus is one job as the scheduler sees it.
type JobStatus struct {
	// Name is the job's key: its spindle.io/job (or spark-app-selector)
	// label, or the pod name of a lone pod.
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	Queue     string    `json:"queue"`
	State     string    `json:"state"` // the core's job state (waiting, running, done, ...)
	Submitted time.Time `json:"submitted,omitzero"`
	// AM is one of the AM* constants; AMReason says what a waiting AM waits
	// for (the same text the FailedScheduling Event carries).
	AM       string `json:"am"`
	AMReason string `json:"am_reason,omitempty"`
	// QueuePosition is, while the job waits for admission, its place
	// (from 1) among its queue's waiting jobs, in the order admission
	// control takes them; 0 (left out) once it is admitted.
	QueuePosition int       `json:"queue_position,omitempty"`
	PodsPending   int       `json:"pods_pending"`
	PodsRunning   int       `json:"pods_running"`
	PodsDone      int       `json:"pods_done"`
	Usage         Resources `json:"usage"`
	// ForecastStart is, while the job waits, when the last forecast
	// (Snapshot.Forecast) expects it to start, and once it runs when it
	// started; ForecastFinish is when the forecast expects it to finish.
	// Each is left out when unknown: no forecast has seen the job yet, or
	// it does not start within the forecast's horizon (ForecastBeyond).
	// ForecastSource says where the job's duration estimate came from:
	// history, annotation or cluster (docs/forecast.md).
	ForecastStart  time.Time `json:"forecast_start,omitzero"`
	ForecastFinish time.Time `json:"forecast_finish,omitzero"`
	ForecastBeyond bool      `json:"forecast_beyond,omitempty"`
	ForecastSource string    `json:"forecast_source,omitempty"`
}

// ForecastInfo says which forecast the jobs' forecast fields come from.
type ForecastInfo struct {
	// At is the instant of the cluster state the forecast simulated
	// forward from; AgeSeconds is how old that state was when the
	// snapshot was published.
	At         time.Time `json:"at"`
	AgeSeconds float64   `json:"age_seconds"`
	Policy     string    `json:"policy"`
	// CPUSeconds is what the forward simulation took.
	CPUSeconds float64 `json:"cpu_seconds"`
	// Error is the last attempt's error, when it failed (the fields keep
	// the last forecast that succeeded).
	Error string `json:"error,omitempty"`
}

// Forecast is one forecast of every job the scheduler tracks, under one
// policy: /api/v1/forecast's items.
type Forecast struct {
	Policy     string        `json:"policy"`
	At         time.Time     `json:"at"`
	CPUSeconds float64       `json:"cpu_seconds"`
	Jobs       []JobForecast `json:"jobs"`
}

// JobForecast is one job in a Forecast, with the meaning of JobStatus's
// forecast fields (whether it waits is the same under every policy: it is
// the job's state now, in /api/v1/jobs).
type JobForecast struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	Queue     string    `json:"queue"`
	Start     time.Time `json:"forecast_start,omitzero"`
	Finish    time.Time `json:"forecast_finish,omitzero"`
	Beyond    bool      `json:"forecast_beyond,omitempty"`
	Source    string    `json:"forecast_source,omitempty"`
	// Position is, in a what-if forecast, a waiting job's place among
	// its queue's waiting jobs in the order they are forecast to start
	// under the forecast's policy (1 first); 0 otherwise.
	Position int `json:"forecast_position,omitempty"`
}

// Waits reports whether the forecast made at at saw the job not started:
// its forecast start is not before at, or beyond the horizon. (A started
// job's forecast start is when it started.)
func (j JobForecast) Waits(at time.Time) bool {
	return j.Beyond || !j.Start.IsZero() && !j.Start.Before(at)
}

// PodStatus is one pod spindle has not placed yet: where it stands and why
// it waits.
type PodStatus struct {
	Pod   string `json:"pod"` // namespace/name
	Job   string `json:"job,omitempty"`
	Queue string `json:"queue,omitempty"`
	// QueuePosition is its job's place (from 1) among the jobs of its
	// queue that wait for admission; 0 (left out) once the job is admitted,
	// when the pod waits for room that the policy gives out in its own
	// order.
	QueuePosition int    `json:"queue_position,omitempty"`
	AM            bool   `json:"am,omitempty"`
	Reason        string `json:"reason"` // the text of its PodScheduled=False condition
	// Since is when the pod was created.
	Since time.Time `json:"since,omitzero"`
}

// QueueStatus is one queue with its usage and share of the cluster.
type QueueStatus struct {
	Name string `json:"name"`
	// Weight is the queue's weight from the scheduler config (Fair/DRF);
	// Capacity its guaranteed share (Capacity policy). Either may be zero
	// when the policy does not use it.
	Weight   float64   `json:"weight"`
	Capacity float64   `json:"capacity,omitempty"`
	Usage    Resources `json:"usage"`
	// Share is the queue's dominant share of the cluster capacity spindle
	// may use, in [0, 1].
	Share       float64 `json:"share"`
	PendingPods int     `json:"pending_pods"`
	RunningPods int     `json:"running_pods"`
	Jobs        int     `json:"jobs"`
	AMsAdmitted int     `json:"ams_admitted"`
	AMsWaiting  int     `json:"ams_waiting"`
	// The tree: the queue's parent's name ("" for a child of the root),
	// its depth (1 for a child of the root), whether it takes jobs, and
	// its guarantee and maximum as shares of the cluster (Capacity's
	// absolute capacities). Parents count their leaves' pods and jobs.
	Parent         string  `json:"parent,omitempty"`
	Depth          int     `json:"depth"`
	Leaf           bool    `json:"leaf"`
	AbsCapacity    float64 `json:"abs_capacity"`
	AbsMaxCapacity float64 `json:"abs_max_capacity"`
	// PreemptedFrom and PreemptedFor count the pods preemption took from
	// the queue and for it (ended PREEMPTED), since the scheduler started.
	PreemptedFrom int `json:"preempted_from"`
	PreemptedFor  int `json:"preempted_for"`
	// WouldPreemptFrom and WouldPreemptFor count the pods preemption in
	// observe mode (preemption=observe) would have taken: it evicts
	// nothing.
	WouldPreemptFrom int `json:"would_preempt_from,omitempty"`
	WouldPreemptFor  int `json:"would_preempt_for,omitempty"`
	// PreemptionDisabled: nothing is taken from the queue
	// (disable_preemption, its own or a parent's).
	PreemptionDisabled bool `json:"preemption_disabled,omitempty"`
}

// NodeStatus is one node: what it offers, what others hold on it, what
// spindle placed there.
type NodeStatus struct {
	Name string `json:"name"`
	// Capacity is the node's allocatable; External the requests of pods
	// spindle does not schedule (daemonsets, other schedulers); Allocated
	// what spindle's pods hold (bound or assumed).
	Capacity  Resources `json:"capacity"`
	External  Resources `json:"external"`
	Allocated Resources `json:"allocated"`
	// Schedulable is false for cordoned or NotReady nodes; Reason says which.
	Schedulable bool   `json:"schedulable"`
	Reason      string `json:"reason,omitempty"`
	Pods        int    `json:"pods"`
}

// Decision is one placement the core made.
type Decision struct {
	Time      time.Time `json:"time"`
	Pod       string    `json:"pod"` // namespace/name
	Job       string    `json:"job"`
	Queue     string    `json:"queue"`
	Node      string    `json:"node"`
	AM        bool      `json:"am,omitempty"`
	Policy    string    `json:"policy"`
	Reason    string    `json:"reason,omitempty"` // the policy's reason, when it gives one
	Resources Resources `json:"resources"`
}

// UtilPoint is one sample of cluster utilization: allocated over the
// capacity spindle may use (capacity less external load), per resource.
type UtilPoint struct {
	Time        time.Time `json:"time"`
	CPU         float64   `json:"cpu"`
	Memory      float64   `json:"memory"`
	PendingPods int       `json:"pending_pods"`
	RunningPods int       `json:"running_pods"`
}

// Snapshot is the scheduler's state after one event batch. The driver fills
// Time through Gauges; Publish fills Decisions, Utilization and the process
// fields. Once published a Snapshot is shared with readers and must not be
// changed: build a new one for the next batch.
type Snapshot struct {
	Time      time.Time     `json:"time"`
	Policy    string        `json:"policy"`
	Admission string        `json:"admission"`
	Jobs      []JobStatus   `json:"jobs"`
	Pods      []PodStatus   `json:"pods"` // the pending pods, by queue and position
	Queues    []QueueStatus `json:"queues"`
	Nodes     []NodeStatus  `json:"nodes"`
	// Gauges are policy and admission internals by name, such as
	// "dress_delta" (DRESS's reserve ratio δ) or "autoadmin_rr_vcores"
	// (AutoAdmin's R_R); PolicyGauges builds them from the core's policy and
	// admission. Names must match [a-z_][a-z0-9_]*.
	Gauges map[string]float64 `json:"gauges"`
	// Forecast is the forecast the jobs' forecast fields come from; nil
	// before the first, or when the scheduler does not forecast.
	Forecast *ForecastInfo `json:"forecast,omitempty"`

	// Set by Publish from the Recorder's own history.
	Decisions   []Decision  `json:"decisions"`
	Utilization []UtilPoint `json:"utilization"`
	Role        Role        `json:"role"`
	Synced      bool        `json:"synced"`
	Seq         uint64      `json:"seq"`
}
