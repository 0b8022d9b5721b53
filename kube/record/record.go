// Package record turns what a Kubernetes cluster ran into a spindle workload
// (format v1): the jobs its pods formed, mapped exactly as the live
// scheduler maps them (kube/podmap), with their submit times, requests and
// task durations, the nodes grouped by size, and what other workloads held
// on them over time. The result, simulated under each policy beside the
// recorded run itself, answers "which policy for this cluster?" (spindle
// whatif).
//
// Two sources feed one core: a Recorder that follows pods and nodes as a
// watch reports them (spindle kube record, through kube/record/listwatch),
// and Snapshot, which reads
// `kubectl get pods -A -o json` and friends (spindle trace convert --from
// kube). The Recorder keeps only the jobs still running and streams every
// finished job to its output, so its memory follows what runs, not what
// ran. docs/record.md states every rule.
package record

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/spindle-sched/spindle/clock"
)

// What to do with pods still running when the recording stops.
const (
	// RunningDrop leaves out every job with a pod still running or
	// pending at the end: its remaining work is unknown.
	RunningDrop = "drop"
	// RunningKeep keeps them, each running task with the time it has run so
	// far as its duration (a lower bound, marked in the phase's
	// unfinished count), and the job without a recorded end.
	RunningKeep = "keep"
)

// Options configure a recording.
type Options struct {
	// Schedulers are the spec.schedulerName values whose pods make the
	// workload; empty means every scheduler's. Other pods are external
	// load.
	Schedulers []string
	// Selector, when set, keeps in the workload only the pods it matches;
	// the others are external load.
	Selector labels.Selector
	// Running is RunningDrop (default, "") or RunningKeep.
	Running string
	// SingleQueue puts every job in one queue, "default", as 'spindle kube
	// schedule' does without --config; otherwise each job's queue is its
	// spindle.io/queue label, else its namespace, with equal shares.
	SingleQueue bool
	// JobIdle is how long a job without an AM must have no pod left before
	// it is written out; a pod of it seen later starts a new job. Default
	// 60 s. A job with an AM ends with its AM.
	JobIdle time.Duration
	// LoadStep is the resolution of the external load: each node group's
	// load is averaged over steps of this length. Default 10 s.
	LoadStep time.Duration
	// Progress, when set, gets a line now and then.
	Progress io.Writer
}

func (o *Options) defaults() error {
	switch o.Running {
	case "":
		o.Running = RunningDrop
	case RunningDrop, RunningKeep:
	default:
		return fmt.Errorf("running: want %s or %s, got %q", RunningDrop, RunningKeep, o.Running)
	}
	if o.JobIdle <= 0 {
		o.JobIdle = 60 * time.Second
	}
	if o.LoadStep <= 0 {
		o.LoadStep = 10 * time.Second
	}
	return nil
}

// Summary says what a recording holds and what it left out, and why.
type Summary struct {
	Jobs, Tasks int // written to the workload
	// Pods is how many pods the workload's jobs are made of (AMs and
	// tasks).
	Pods int
	// Span is from the first submission to the last end recorded.
	Span       time.Duration
	Nodes      int
	NodeGroups int
	// ByKind counts the jobs by what grouped their pods.
	ByKind map[string]int
	// LaunchDelay is the measured pod start latency (binding to
	// container start), the median over the workload's pods, and
	// LaunchJitter its spread.
	LaunchDelay  time.Duration
	LaunchJitter float64
	// SchedulingWait and SchedulingWaitP90 are the median and 90th
	// percentile of the pods' scheduling waits, creation to binding.
	SchedulingWait, SchedulingWaitP90 time.Duration
	// ReactionDelay is the median time, over Reactions cases, from what
	// allowed a job's next pods (its driver started, a task of its
	// previous wave ended) to the creation of the first of them: the
	// driver's or controller's reaction and its API call, which a
	// simulation of the recording does not see.
	ReactionDelay time.Duration
	Reactions     int64
	// Left counts what is not in the workload, External what became
	// external load, Adjusted what is in it but was changed; each by
	// reason, in order of first occurrence.
	Left, External, Adjusted []Count
	// Examples are the first few problem messages (malformed objects, clock
	// skew), for the user to look at.
	Examples []string
	// Malformed are the first few malformed objects' messages (each
	// also among Examples).
	Malformed []string
	// Objects counts the objects a snapshot's files held (pods, nodes,
	// events); 0 for a recording.
	Objects int64
	// Restarts counts the workload pods' container restarts, over
	// RestartedPods pods; RestartLost is the time their restarted runs
	// took (from each pod's first start to its latest), which the tasks'
	// durations include. ApproxStarts counts pods whose first start is
	// their startTime (a container restarted more than once).
	Restarts, RestartedPods, ApproxStarts int64
	RestartLost                           time.Duration
	// LatencyCapped counts pod start latencies of two minutes or more,
	// counted as two minutes in the median.
	LatencyCapped int64
	// PodGroups counts the PodGroup objects read (Volcano's and
	// Kubernetes'), PodGroupsUnused those no written job's pods named.
	PodGroups, PodGroupsUnused int
}

// Count is a number of things for one reason.
type Count struct {
	Reason string
	N      int64
}

const maxExamples = 8

type counts []Count

func (c *counts) add(reason string, n int64) {
	if n == 0 {
		return
	}
	for i := range *c {
		if (*c)[i].Reason == reason {
			(*c)[i].N += n
			return
		}
	}
	*c = append(*c, Count{reason, n})
}

// Write prints the summary for a person, one fact a line.
func (s *Summary) Write(w io.Writer) {
	fmt.Fprintf(w, "recorded %d jobs (%s), %d tasks, %d pods over %s on %d nodes in %d groups\n",
		s.Jobs, kinds(s.ByKind), s.Tasks, s.Pods, s.Span.Round(time.Millisecond), s.Nodes, s.NodeGroups)
	if s.LaunchDelay > 0 {
		fmt.Fprintf(w, "pod start latency (binding to container start): median %s, jitter %.2f\n", s.LaunchDelay.Round(time.Millisecond), s.LaunchJitter)
	}
	if s.SchedulingWait > 0 || s.SchedulingWaitP90 > 0 {
		fmt.Fprintf(w, "pod scheduling wait (creation to binding): median %s, 90th percentile %s\n", s.SchedulingWait.Round(time.Millisecond), s.SchedulingWaitP90.Round(time.Millisecond))
	}
	if s.Reactions > 0 {
		fmt.Fprintf(w, "pods created after what allowed them (a driver started, a wave's task ended): median %s later, over %d waves\n", s.ReactionDelay.Round(time.Millisecond), s.Reactions)
	}
	for _, n := range s.Notes() {
		fmt.Fprintln(w, n)
	}
	for _, c := range s.External {
		fmt.Fprintf(w, "external load: %d %s\n", c.N, c.Reason)
	}
	for _, c := range s.Adjusted {
		fmt.Fprintf(w, "adjusted: %d %s\n", c.N, c.Reason)
	}
	for _, c := range s.Left {
		fmt.Fprintf(w, "left out: %d %s\n", c.N, c.Reason)
	}
	for _, e := range s.Examples {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

// Notes are the summary's facts beyond its counts: restarts and the
// latency cap.
func (s *Summary) Notes() []string {
	var out []string
	if s.Restarts > 0 {
		n := fmt.Sprintf("restarts: %d pods restarted containers %d times; each is timed from its first start, so its task includes %s of restarted runs in all",
			s.RestartedPods, s.Restarts, s.RestartLost.Round(time.Second))
		if s.ApproxStarts > 0 {
			n += fmt.Sprintf(" (%d pods restarted more than once: their first start is the pod's startTime)", s.ApproxStarts)
		}
		out = append(out, n)
	}
	if s.PodGroups > 0 {
		out = append(out, fmt.Sprintf("podgroups: %d read (their minimum and queue applied to the jobs whose pods name them), %d naming no pod of a written job", s.PodGroups, s.PodGroupsUnused))
	}
	if s.LatencyCapped > 0 {
		out = append(out, fmt.Sprintf("pod start latency: %d pods took %s or more from binding to start, counted as %s in the median", s.LatencyCapped, maxLatency, maxLatency))
	}
	return out
}

func kinds(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// micros converts a span of wall time to workload time.
func micros(d time.Duration) clock.Duration { return clock.Duration(d / time.Microsecond) }
