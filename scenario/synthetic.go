// Package scenario generates workloads: a generic synthetic one for scale
// tests and, per paper, the evaluation setups to reproduce. Generators are
// pure functions of their parameters and seed, so the same command always
// writes the same file.
package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Synthetic parameterises the generic synthetic workload.
type Synthetic struct {
	Nodes       int
	NodeVCores  int64
	NodeMemory  int64 // MiB
	Jobs        int
	TasksPerJob float64 // mean tasks per job
	Load        float64 // offered load over the arrival window, as a share of capacity
	Seed        uint64
	// QueueTree puts the jobs in SyntheticTree's leaves, with priorities,
	// instead of the one default queue; the jobs are otherwise the same.
	QueueTree bool
}

// SyntheticTree is the queue tree of --queue-tree: prod (60 %) with two
// children, etl and adhoc, half of prod each; batch (40 %). Each job goes to
// one of the three leaves at random (prod.etl 30 %, prod.adhoc 20 %, batch
// 50 %) with priority 0 (70 %), 1 (20 %) or 2 (10 %).
var SyntheticTree = []workload.Queue{
	{Name: "prod", Capacity: 0.6, MaxCapacity: 1},
	{Name: "prod.etl", Capacity: 0.5, MaxCapacity: 1},
	{Name: "prod.adhoc", Capacity: 0.5, MaxCapacity: 1},
	{Name: "batch", Capacity: 0.4, MaxCapacity: 1},
}

// DefaultSynthetic holds the documented defaults.
var DefaultSynthetic = Synthetic{Nodes: 100, NodeVCores: 16, NodeMemory: 65536, Jobs: 1000, TasksPerJob: 50, Load: 0.9, Seed: 1}

// The synthetic model, stated once so --help and the code agree.
const (
	// taskCountSigma is the log-space spread of a job's task count; the
	// median is chosen so that the mean is TasksPerJob.
	taskCountSigma = 1.0
	// durationMedian and durationSigma give each phase's typical task
	// length; taskSigma spreads the tasks of one phase around it.
	durationMedian = 30 * clock.Second
	durationSigma  = 0.8
	taskSigma      = 0.25
	// twoPhaseFrac of jobs are map+reduce, with reduceFrac of their tasks
	// in the reduce phase; the rest are a single phase.
	twoPhaseFrac = 0.3
	reduceFrac   = 0.2
)

// containerMix is the distribution of a job's task container size.
var containerMix = []struct {
	weight float64
	req    resource.Vector
}{
	{0.4, resource.New(1, 1024)},
	{0.3, resource.New(1, 2048)},
	{0.2, resource.New(2, 4096)},
	{0.1, resource.New(4, 8192)},
}

// SyntheticModel describes the model for --help.
const SyntheticModel = `Jobs arrive as a Poisson process whose rate makes the offered work equal to
--load times the cluster's capacity over the arrival window. Each job has an
AM of <1 vcore, 1024 MB> and a lognormal number of tasks (sigma 1.0, mean
--tasks-per-job, at least 1); 30% are map+reduce (20% of the tasks in a
reduce phase that starts when the maps are done), the rest one phase. A
phase's typical task length is lognormal (median 30 s, sigma 0.8) and each
task varies around it (lognormal, sigma 0.25). Container sizes are mixed per
job: <1 vcore, 1 GB> 40%, <1, 2 GB> 30%, <2, 4 GB> 20%, <4, 8 GB> 10%.
All jobs go to one queue, "default"; with --queue-tree, to the leaves of a
tree (prod 60 % with children etl and adhoc, half each; batch 40 %): prod.etl
30 % of the jobs, prod.adhoc 20 %, batch 50 %, with priority 0 (70 %), 1
(20 %) or 2 (10 %), the jobs otherwise the same.`

// Generate builds the synthetic workload.
func (s Synthetic) Generate() (*workload.Workload, error) {
	switch {
	case s.Nodes <= 0 || s.Jobs <= 0:
		return nil, fmt.Errorf("synthetic: --nodes and --jobs must be positive")
	case s.TasksPerJob < 1:
		return nil, fmt.Errorf("synthetic: --tasks-per-job must be at least 1")
	case s.NodeVCores <= 0 || s.NodeMemory <= 0:
		return nil, fmt.Errorf("synthetic: node vcores and memory must be positive")
	case !(s.Load > 0) || math.IsInf(s.Load, 0):
		return nil, fmt.Errorf("synthetic: --load must be positive")
	}
	if err := checkSize("synthetic", s.Jobs, s.TasksPerJob); err != nil {
		return nil, err
	}
	node := resource.New(s.NodeVCores, s.NodeMemory)
	for _, c := range containerMix {
		if !c.req.Fits(node) {
			return nil, fmt.Errorf("synthetic: nodes of %v cannot hold a %v container", node, c.req)
		}
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x73796e74)) // "synt"
	w := &workload.Workload{
		Version: workload.Version,
		Cluster: workload.Cluster{
			Nodes:       []workload.NodeGroup{{Count: s.Nodes, Capacity: node}},
			LaunchDelay: workload.DefaultLaunchDelay, LaunchJitter: workload.DefaultLaunchJitter,
		},
	}
	capacity := node.Mul(int64(s.Nodes))
	am := resource.New(1, 1024)
	countMu := math.Log(s.TasksPerJob) - taskCountSigma*taskCountSigma/2
	// Work per dimension, in unit-seconds, to set the arrival rate.
	var work [resource.NumDims]float64
	for i := range s.Jobs {
		n := max(1, int(math.Round(math.Exp(countMu+taskCountSigma*rng.NormFloat64()))))
		req := pickContainer(rng)
		j := workload.Job{ID: fmt.Sprintf("job-%05d", i), Queue: workload.DefaultQueue, AM: am}
		if n >= 2 && rng.Float64() < twoPhaseFrac {
			reduces := max(1, int(math.Round(float64(n)*reduceFrac)))
			j.Name = "mapreduce"
			j.Phases = []workload.Phase{phase("map", n-reduces, req, rng), phase("reduce", reduces, req, rng)}
		} else {
			j.Name = "single"
			j.Phases = []workload.Phase{phase("tasks", n, req, rng)}
		}
		for _, p := range j.Phases {
			for t := range p.Tasks {
				d := p.Duration(t).Seconds()
				for dim := range work {
					work[dim] += d * float64(p.Request[dim])
				}
			}
		}
		w.Jobs = append(w.Jobs, j)
	}
	// The arrival window over which the offered load equals Load in the
	// busiest dimension.
	window := 0.0
	for d := range work {
		if capacity[d] > 0 {
			window = math.Max(window, work[d]/(s.Load*float64(capacity[d])))
		}
	}
	gap := window / float64(s.Jobs)
	poissonArrivals(w.Jobs, gap, rng)
	if s.QueueTree {
		// A stream of its own, so that the jobs are those of the flat
		// workload with the same seed.
		qr := rand.New(rand.NewPCG(s.Seed, 0x74726565)) // "tree"
		w.Queues = append([]workload.Queue(nil), SyntheticTree...)
		for i := range w.Jobs {
			switch u := qr.Float64(); {
			case u < 0.3:
				w.Jobs[i].Queue = "prod.etl"
			case u < 0.5:
				w.Jobs[i].Queue = "prod.adhoc"
			default:
				w.Jobs[i].Queue = "batch"
			}
			switch u := qr.Float64(); {
			case u < 0.7:
			case u < 0.9:
				w.Jobs[i].Priority = 1
			default:
				w.Jobs[i].Priority = 2
			}
		}
	}
	return finish("synthetic", w)
}

func pickContainer(rng *rand.Rand) resource.Vector {
	u := rng.Float64()
	for _, c := range containerMix {
		if u < c.weight {
			return c.req
		}
		u -= c.weight
	}
	return containerMix[len(containerMix)-1].req
}

func phase(name string, tasks int, req resource.Vector, rng *rand.Rand) workload.Phase {
	base := float64(durationMedian) * math.Exp(durationSigma*rng.NormFloat64())
	ds := make([]clock.Duration, tasks)
	for i := range ds {
		d := base * math.Exp(taskSigma*rng.NormFloat64())
		// Whole milliseconds keep the file short and exact.
		ds[i] = clock.Duration(math.Max(1, math.Round(d/float64(clock.Millisecond)))) * clock.Millisecond
	}
	return workload.Phase{Name: name, Tasks: tasks, Request: req, Durations: ds, StartAfter: 1}
}
