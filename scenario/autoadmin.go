package scenario

import (
	"fmt"
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// The AutoAdmin paper's testbed (§4.1): 8 worker nodes of 8 vcores and 12 GB,
// 64 vcores in all.
const (
	AutoAdminNodes      = 8
	AutoAdminNodeVCores = 8
	AutoAdminNodeMemory = 12288
)

// The MapReduce model that turns a benchmark and an input size into phases.
// It is stated once here, for --help and docs/autoadmin.md, and was fixed
// before any run; it is not fitted to the paper's results.
const (
	// SplitMB is the HDFS block size, hence the input split: one map per
	// 128 MB of input, the last one taking the remainder.
	SplitMB = 128
	// TaskStartup is what every task costs on top of its data (JVM start,
	// setup, commit); the simulator's launch delay comes on top of it.
	TaskStartup = 3 * clock.Second
	// MBPerSecond is the rate at which one task, on one core, processes its
	// data: a map its split, a reduce its shuffled input.
	MBPerSecond = 10.0
	// PiMaps is the number of maps of a pi job (pi 10 1000): pi reads no
	// input, and its maps only sample, so each costs TaskStartup.
	PiMaps = 10
	// containerMemory is the memory of every AM and task container. The
	// paper studies vcores alone; at 1 GB no node's memory (12 GB for 8
	// vcores) can bind before its vcores do.
	containerMemory = 1024
)

// shuffleRatio is the fraction of a job's input its single reduce receives:
// terasort sorts all of it; wordcount's combiner collapses each map's output
// to the small vocabulary randomtextwriter draws from, and wordmean and pi
// send two numbers per map, which is nothing at MBPerSecond.
var shuffleRatio = map[string]float64{"terasort": 1, "wordcount": 0, "wordmean": 0, "pi": 0}

// AutoAdminModel describes the model for --help.
const AutoAdminModel = `The cluster is the paper's: 8 nodes of <8 vcores, 12 GB> (64 vcores), with
YARN's default timing (1 s heartbeats, 1 s container launch +-25%). Every job
arrives at time 0, a burst. Each job is a MapReduce job with an AM and two
phases, map then reduce (requested once every map has completed):
  - maps: one per 128 MB split of the input (the last one takes the
    remainder); pi reads no input and has 10 maps (pi 10 1000);
  - reduces: 1 (MapReduce's default; wordmean and pi always use one);
  - a task takes 3 s of start-up plus its data at 10 MB/s: a map its split,
    the reduce its shuffled input, which is the whole input for terasort and
    nothing worth counting for wordcount (combined), wordmean and pi;
  - a task's vcores do not change its duration (YARN does not enforce vcores
    by default, and a MapReduce task runs one thread);
  - every container has 1 GB of memory, so vcores are the only bottleneck,
    as in the paper.
So a 100 MB terasort is 1 map of 13 s then 1 reduce of 13 s, and a 400 MB
wordcount is 4 maps of 15.8, 15.8, 15.8 and 4.6 s then 1 reduce of 3 s.`

// AutoAdminHomogeneous is §2.3 and §4.2.1: a burst of identical terasort
// jobs with AMs of AM vcores and map and reduce tasks of Task vcores.
type AutoAdminHomogeneous struct {
	AM, Task int64 // vcores
	Jobs     int
	InputMB  int
}

// DefaultAutoAdminHomogeneous is §4.2.1's round: 72 terasort jobs on 100 MB.
var DefaultAutoAdminHomogeneous = AutoAdminHomogeneous{AM: 1, Task: 1, Jobs: 72, InputMB: 100}

// Generate builds the workload.
func (h AutoAdminHomogeneous) Generate() (*workload.Workload, error) {
	switch {
	case h.AM < 1 || h.AM > AutoAdminNodeVCores:
		return nil, fmt.Errorf("autoadmin-homogeneous: --am must be 1 to %d vcores, got %d", AutoAdminNodeVCores, h.AM)
	case h.Task < 1 || h.Task > AutoAdminNodeVCores:
		return nil, fmt.Errorf("autoadmin-homogeneous: --task must be 1 to %d vcores, got %d", AutoAdminNodeVCores, h.Task)
	case h.Jobs < 1:
		return nil, fmt.Errorf("autoadmin-homogeneous: --jobs must be positive, got %d", h.Jobs)
	case h.InputMB < 1:
		return nil, fmt.Errorf("autoadmin-homogeneous: --input-mb must be positive, got %d", h.InputMB)
	}
	w := autoAdminCluster()
	width := len(fmt.Sprint(h.Jobs))
	for i := range h.Jobs {
		id := fmt.Sprintf("terasort-%0*d", width, i+1)
		w.Jobs = append(w.Jobs, MapReduceJob(id, "terasort", h.InputMB, h.AM, h.Task, h.Task))
	}
	return finish("autoadmin-homogeneous", w)
}

// HeteroRow is one benchmark of one heterogeneous experiment (Table 4.2).
type HeteroRow struct {
	Bench           string
	Jobs            int
	AM, Map, Reduce int64 // vcores
	InputMB         int   // 0 for pi
}

// HeteroExperiments is Table 4.2: Exp1 to Exp6.
var HeteroExperiments = [6][]HeteroRow{
	{{"terasort", 15, 1, 2, 1, 100}, {"wordmean", 15, 2, 1, 2, 400}, {"wordcount", 15, 3, 3, 2, 400}, {"pi", 15, 1, 4, 1, 0}},
	{{"terasort", 15, 3, 4, 2, 400}, {"wordmean", 15, 1, 3, 2, 200}, {"wordcount", 15, 2, 3, 2, 200}, {"pi", 15, 4, 2, 3, 0}},
	{{"terasort", 15, 4, 1, 3, 400}, {"wordmean", 15, 3, 2, 4, 400}, {"wordcount", 15, 2, 4, 1, 200}, {"pi", 15, 1, 2, 2, 0}},
	{{"terasort", 30, 2, 3, 1, 200}, {"wordcount", 30, 1, 3, 4, 800}},
	{{"terasort", 15, 3, 1, 1, 100}, {"wordmean", 15, 4, 1, 2, 100}, {"wordcount", 15, 4, 1, 1, 100}, {"pi", 15, 2, 1, 1, 0}},
	{{"terasort", 20, 1, 1, 2, 200}, {"wordmean", 20, 2, 3, 3, 400}, {"pi", 20, 3, 2, 4, 0}},
}

// AutoAdminHetero is §4.2.2: experiment Exp (1 to 6) of Table 4.2. The
// benchmarks' jobs are submitted in turn, in the table's row order
// (terasort, wordmean, wordcount, pi, terasort, ...), all at time 0.
type AutoAdminHetero struct{ Exp int }

// Generate builds the workload.
func (h AutoAdminHetero) Generate() (*workload.Workload, error) {
	if h.Exp < 1 || h.Exp > len(HeteroExperiments) {
		return nil, fmt.Errorf("autoadmin-hetero: --exp must be 1 to %d, got %d", len(HeteroExperiments), h.Exp)
	}
	rows := HeteroExperiments[h.Exp-1]
	w := autoAdminCluster()
	most := 0
	for _, r := range rows {
		most = max(most, r.Jobs)
	}
	width := len(fmt.Sprint(most))
	for i := range most {
		for _, r := range rows {
			if i < r.Jobs {
				id := fmt.Sprintf("%s-%0*d", r.Bench, width, i+1)
				w.Jobs = append(w.Jobs, MapReduceJob(id, r.Bench, r.InputMB, r.AM, r.Map, r.Reduce))
			}
		}
	}
	return finish(fmt.Sprintf("autoadmin-hetero exp %d", h.Exp), w)
}

func autoAdminCluster() *workload.Workload {
	return &workload.Workload{
		Version: workload.Version,
		Cluster: workload.Cluster{
			Nodes:       []workload.NodeGroup{{Count: AutoAdminNodes, Capacity: resource.New(AutoAdminNodeVCores, AutoAdminNodeMemory)}},
			LaunchDelay: workload.DefaultLaunchDelay, LaunchJitter: workload.DefaultLaunchJitter,
		},
	}
}

// MapReduceJob is one job of the model (see AutoAdminModel): bench is
// terasort, wordcount, wordmean or pi; inputMB is ignored for pi; am, mapVC
// and reduceVC are container sizes in vcores.
func MapReduceJob(id, bench string, inputMB int, am, mapVC, reduceVC int64) workload.Job {
	var maps []clock.Duration
	if bench == "pi" {
		for range PiMaps {
			maps = append(maps, TaskStartup)
		}
	} else {
		for left := inputMB; left > 0; left -= SplitMB {
			maps = append(maps, taskTime(float64(min(left, SplitMB))))
		}
	}
	reduce := taskTime(float64(inputMB) * shuffleRatio[bench])
	if bench == "pi" {
		reduce = TaskStartup
	}
	return workload.Job{
		ID: id, Name: bench, Queue: workload.DefaultQueue,
		AM: resource.New(am, containerMemory),
		Phases: []workload.Phase{
			{Name: "map", Tasks: len(maps), Request: resource.New(mapVC, containerMemory), Durations: compact(maps), StartAfter: 1},
			{Name: "reduce", Tasks: 1, Request: resource.New(reduceVC, containerMemory), Durations: []clock.Duration{reduce}, StartAfter: 1},
		},
	}
}

// taskTime is TaskStartup plus mb at MBPerSecond, in whole milliseconds.
func taskTime(mb float64) clock.Duration {
	ms := math.Round(mb / MBPerSecond * 1000)
	return TaskStartup + clock.Duration(ms)*clock.Millisecond
}

// compact writes one duration when every task has it.
func compact(ds []clock.Duration) []clock.Duration {
	for _, d := range ds[1:] {
		if d != ds[0] {
			return ds
		}
	}
	return ds[:1]
}
