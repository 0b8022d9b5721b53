// Package forecast answers "when will my job start?": it takes the cluster
// as the live scheduler sees it at one instant — nodes, the pods on them,
// every admitted and waiting job in its queue — and simulates forward under
// a policy and admission controller on the same core the scheduler runs.
//
// It is its own room: it reads an immutable Snapshot and returns forecasts,
// and never touches the scheduler's state, so it runs off the scheduler's
// goroutine and is tested without a cluster. Pods become jobs through the
// same mapping `kube record` uses (package kube/record); durations come only
// from what a resource manager may know (docs/forecast.md).
//
// Beyond Snapshot, Options, Source, Job, Result, History and Run, the
// package offers the driver:
//   - Job.Position, a waiting job's place in its queue (1 first), and
//     Result.Pinned, which model of the running tasks a forecast used;
//   - NewHistory, History.Add (a finished job, once per key), History.Learn
//     (every finished job of a snapshot) and History.Len;
//   - DefaultHorizon, MinRemaining and DefaultEstimate, the constants the
//     forecast assumes.
package forecast

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// Snapshot is the cluster at one instant, as the live scheduler sees it.
// Everything in it is read only: Pods and Nodes are informer objects.
type Snapshot struct {
	Now   time.Time
	Nodes []*v1.Node
	// Pods is every pod the scheduler watches: its own (spec.schedulerName
	// equal to SchedulerName) waiting, running or finished, and other
	// schedulers' pods on the nodes, which are load from outside.
	Pods          []*v1.Pod
	SchedulerName string
	// Queues, DefaultQueue and Calculator are the scheduler's
	// configuration, as its config file gives them.
	Queues       []workload.Queue
	DefaultQueue string
	Calculator   resource.Calculator
	// History holds what finished jobs took; the driver owns it and adds
	// to it as jobs finish. May be nil.
	History *History
}

// Options choose what to simulate the snapshot under.
type Options struct {
	PolicyName string
	Policy     sched.PolicyFactory
	Admission  sched.AdmissionFactory // nil admits every job
	// Horizon bounds how far ahead the simulation runs; a job not started
	// by then is reported as Beyond. 0 means 24 h.
	Horizon time.Duration
}

// Source says where a job's duration estimate came from.
type Source string

const (
	// SourceHistory: completed jobs of the same name or label
	// (--estimates history's rule).
	SourceHistory Source = "history"
	// SourceAnnotation: the job's declared estimate annotation.
	SourceAnnotation Source = "annotation"
	// SourceCluster: no estimate of its own; the cluster's observed task
	// durations stand in.
	SourceCluster Source = "cluster"
)

// Job is one job's forecast.
type Job struct {
	// Key is the job's key as the live scheduler's /api/v1/jobs names it
	// (podmap.Identity's Job).
	Key       string
	Namespace string
	Queue     string
	Waiting   bool // not started yet
	// Start is the forecast start of a waiting job, the actual start of a
	// running one; Finish the forecast finish. Both zero when Beyond.
	Start  time.Time
	Finish time.Time
	// Beyond: the horizon ended before the job started, or the scheduler
	// would hold it for good (no schedulable node it may use can hold it,
	// a gang that never fits, no configured queue takes it).
	Beyond bool
	Source Source
	// Position is a waiting job's place in its queue, 1 first: the
	// waiting jobs of its queue in the order they are forecast to start
	// (Beyond last, then by key). 0 for a running job.
	Position int
}

// Result is one forecast of every job in a snapshot.
type Result struct {
	At     time.Time // the snapshot's Now
	Policy string
	Jobs   []Job // sorted by Key
	// CPU is what the forward simulation took.
	CPU time.Duration
	// Pinned says the running tasks were placed in the simulation, on
	// their nodes, and counted in their queues' shares; false when the
	// policy would not place one of them at once (the admission
	// controller adopts them: docs/forecast.md),
	// and they were load on their nodes instead (docs/forecast.md).
	Pinned bool
}

// Run forecasts every job in s under o: the snapshot's pods become jobs by
// kube record's mapping, the running tasks hold their nodes until their
// estimated end, and the waiting work is simulated forward from s.Now under
// o's policy and admission controller (docs/forecast.md). The same
// snapshot and options give the same result. Result.CPU is the CPU time
// Run took on its goroutine.
func Run(s *Snapshot, o Options) (*Result, error) {
	clk := startCPU()
	res, err := run(s, o)
	cpu := clk.stop()
	if err != nil {
		return nil, err
	}
	res.CPU = cpu
	return res, nil
}

func run(s *Snapshot, o Options) (*Result, error) {
	if s == nil {
		return nil, errors.New("forecast: no snapshot")
	}
	if o.Policy == nil {
		return nil, errors.New("forecast: options: no policy")
	}
	if s.Now.IsZero() {
		return nil, errors.New("forecast: snapshot: Now is not set")
	}
	if o.Horizon < 0 {
		return nil, fmt.Errorf("forecast: options: negative horizon %v", o.Horizon)
	}
	if o.Horizon == 0 {
		o.Horizon = DefaultHorizon
	}
	// Running tasks are pinned first; if the policy or the admission
	// controller keeps one from its node at time 0, the model is not the
	// cluster's state, and they are load on their nodes instead
	// (docs/forecast.md).
	inst, err := instant(s)
	if err != nil {
		return nil, err
	}
	est := newEstimates(s.History, inst)
	m, err := forward(s, inst, est, o, nil)
	if err != nil {
		return nil, err
	}
	// A running AM holds its node until its job's last task ends, and a
	// running job asks for its later waves once its current tasks end,
	// which only the simulation tells when the job has tasks still to
	// place: where it forecasts them to end otherwise than the simulation
	// took them to, the forecast is made again with the AM and the later
	// waves held until then, at most refinements times.
	var h []hold
	for range refinements {
		var changed bool
		if h, changed = m.holds(h); !changed {
			break
		}
		if m, err = forward(s, inst, est, o, h); err != nil {
			return nil, err
		}
	}
	return &Result{At: s.Now, Policy: o.PolicyName, Jobs: finish(m.jobs), Pinned: m.pin}, nil
}

// refinements bounds how many times a forecast is made again with running
// jobs held to what the one before found (see run): each is a whole
// simulation, and holds need not settle.
const refinements = 3

// errUnpinned says a pinned task did not start at time 0.
var errUnpinned = errors.New("forecast: a running task was not placed on its node")

// forward simulates s under o, the running tasks pinned, else as load.
func forward(s *Snapshot, inst *record.Instant, est *estimates, o Options, holds []hold) (*model, error) {
	m, err := simulate(s, inst, est, o, true, holds)
	if err == errUnpinned {
		m, err = simulate(s, inst, est, o, false, holds)
	}
	return m, err
}

// simulate builds the model of s and runs it forward under o.
func simulate(s *Snapshot, inst *record.Instant, est *estimates, o Options, pin bool, holds []hold) (*model, error) {
	m, err := build(s, inst, est, pin, holds)
	if err != nil || len(m.w.Jobs) == 0 {
		return m, err
	}
	// The pinned jobs run already: admitted as the live core adopts them,
	// not by the admission controller (adopting).
	so := sim.Options{Seed: seed, Policy: o.Policy, Admission: adopting(o.Admission, m.pinnedIDs())}
	out, err := sim.Run(m.w, so)
	if err != nil && m.gangs() {
		// A gang the simulator finds can never fit, where the forecast's
		// count said it could: forecast the gangs piecemeal rather than
		// nothing at all.
		out, err = sim.Run(m.w, so)
	}
	if err != nil {
		return nil, fmt.Errorf("forecast: simulating: %w", err)
	}
	if pin && !m.pinsHeld(out.Jobs) {
		return nil, errUnpinned
	}
	m.read(out.Jobs, o.Horizon)
	return m, nil
}
