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
	// TeragenMaps is how many files teragen writes, hence how many files
	// terasort reads: mapreduce.job.maps, whose default is 2. Each file is
	// split at SplitMB, so 100 MB of teragen output is 2 maps of 50 MB.
	TeragenMaps = 2
	// SlowStart is mapreduce.job.reduce.slowstart.completedmaps in
	// mapred-default.xml (Hadoop 2.2): a job asks for its reduces once this
	// fraction of its maps has completed, and the reduces then hold their
	// containers while the remaining maps run.
	SlowStart = 0.05
	// SubmitGap is the spacing of submissions in the paper model: the jobs
	// of a batch are submitted one after another from one client, and each
	// hadoop-jar submission (client JVM, staging the job, computing splits)
	// takes about a second before the resource manager sees the next. The
	// paper says only "a batch"; the second is our assumption.
	SubmitGap = clock.Second
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
YARN's default timing (1 s heartbeats, 1 s container launch +-25%). Each job
is a MapReduce job with an AM and two phases, map then reduce.

--model paper (the default) follows Hadoop 2.2's defaults where the paper is
silent:
  - arrivals: the batch is submitted one job after another from one client,
    1 s apart (--gap; the paper says only "a batch", the second is our
    estimate of one hadoop-jar submission);
  - terasort reads teragen's output, which is 2 files (teragen runs
    mapreduce.job.maps = 2 maps, one file each), each split at 128 MB: so a
    100 MB terasort has 2 maps of 50 MB;
  - reduce slow-start 0.05 (mapreduce.job.reduce.slowstart.completedmaps):
    the reduce is requested once 5 % of the maps have completed, and holds
    its container while the other maps run;
  - the MapReduce AM is Hadoop 2.2's (mapreduce_am: hadoop-2.2): reduces
    ramp up within half of what the job can use while maps wait, and are
    preempted when the headroom has no room for a map; no unconditional
    preemption, which came with Hadoop 2.8.
--model burst (the model before the paper model) submits every job at time
0, splits every input as one file, and requests the reduce once every map
has completed (slow-start 1.0).

In both models:
  - maps: one per 128 MB split of each input file (the last split of a file
    takes the remainder); pi reads no input and has 10 maps (pi 10 1000);
    wordcount and wordmean read their input as one file;
  - reduces: 1 (MapReduce's default; wordmean and pi always use one);
  - a task takes 3 s of start-up plus its data at 10 MB/s: a map its split,
    the reduce its shuffled input, which is the whole input for terasort and
    nothing worth counting for wordcount (combined), wordmean and pi; an
    early reduce's duration is its own work, not the wait for the last map;
  - a task's vcores do not change its duration (YARN does not enforce vcores
    by default, and a MapReduce task runs one thread);
  - every container has 1 GB of memory, so vcores are the only bottleneck,
    as in the paper.
So in the paper model a 100 MB terasort is 2 maps of 8 s and 1 reduce of
13 s, requested when the first map completes; in the burst model it is 1 map
of 13 s then 1 reduce of 13 s.`

// Model selects the MapReduce workload model of the AutoAdmin generators.
type Model struct {
	// Name is "paper" or "burst"; it fixes the defaults of the fields below
	// through ModelNamed.
	Name string
	// TeragenFiles is how many files terasort's input comes in; 0 reads it
	// as one file.
	TeragenFiles int
	// SlowStart is the fraction of maps completed before the reduce is
	// requested, in (0, 1]; 0 means 1, so the zero Model is the burst model.
	SlowStart float64
	// Gap spaces submissions; 0 submits every job at time 0.
	Gap clock.Duration
	// MapReduceAM is the cluster's MapReduce ApplicationMaster (the zero
	// value: the simulator's default).
	MapReduceAM workload.MapReduceAM
}

// PaperModel and BurstModel are the two named models (see AutoAdminModel).
var (
	PaperModel = Model{Name: "paper", TeragenFiles: TeragenMaps, SlowStart: SlowStart, Gap: SubmitGap, MapReduceAM: hadoop22}
	BurstModel = Model{Name: "burst", TeragenFiles: 0, SlowStart: 1, Gap: 0}
)

// hadoop22 is Hadoop 2.2's MapReduce AM with its defaults: the AutoAdmin
// paper's.
var hadoop22 = func() workload.MapReduceAM {
	m := workload.DefaultMapReduceAM
	m.Model = workload.MRHadoop22
	return m
}()

// ModelNamed returns the named model.
func ModelNamed(name string) (Model, error) {
	switch name {
	case "paper", "":
		return PaperModel, nil
	case "burst":
		return BurstModel, nil
	}
	return Model{}, fmt.Errorf("--model must be paper or burst, got %q", name)
}

func (m Model) validate(gen string) error {
	switch {
	case !(m.SlowStart >= 0 && m.SlowStart <= 1):
		return fmt.Errorf("%s: --slowstart must be in (0, 1], got %v", gen, m.SlowStart)
	case m.Gap < 0:
		return fmt.Errorf("%s: --gap must not be negative, got %v", gen, m.Gap)
	case m.TeragenFiles < 0:
		return fmt.Errorf("%s: --teragen-files must not be negative, got %d", gen, m.TeragenFiles)
	}
	return nil
}

// space submits jobs in order, Gap apart.
func (m Model) space(jobs []workload.Job) {
	for i := range jobs {
		jobs[i].Submit = clock.Time(clock.Duration(i) * m.Gap)
	}
}

// AutoAdminHomogeneous is §2.3 and §4.2.1: a burst of identical terasort
// jobs with AMs of AM vcores and map and reduce tasks of Task vcores.
type AutoAdminHomogeneous struct {
	AM, Task int64 // vcores
	Jobs     int
	InputMB  int
	Model    Model
}

// DefaultAutoAdminHomogeneous is §4.2.1's round: 72 terasort jobs on 100 MB,
// in the paper model.
var DefaultAutoAdminHomogeneous = AutoAdminHomogeneous{AM: 1, Task: 1, Jobs: 72, InputMB: 100, Model: PaperModel}

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
	if err := checkSize("autoadmin-homogeneous", h.Jobs, 1); err != nil {
		return nil, err
	}
	if err := h.Model.validate("autoadmin-homogeneous"); err != nil {
		return nil, err
	}
	w := autoAdminCluster()
	w.Cluster.MapReduceAM = h.Model.MapReduceAM
	width := len(fmt.Sprint(h.Jobs))
	for i := range h.Jobs {
		id := fmt.Sprintf("terasort-%0*d", width, i+1)
		w.Jobs = append(w.Jobs, h.Model.Job(id, "terasort", h.InputMB, h.AM, h.Task, h.Task))
	}
	h.Model.space(w.Jobs)
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
// (terasort, wordmean, wordcount, pi, terasort, ...), spaced as Model says.
type AutoAdminHetero struct {
	Exp   int
	Model Model
}

// Generate builds the workload.
func (h AutoAdminHetero) Generate() (*workload.Workload, error) {
	if h.Exp < 1 || h.Exp > len(HeteroExperiments) {
		return nil, fmt.Errorf("autoadmin-hetero: --exp must be 1 to %d, got %d", len(HeteroExperiments), h.Exp)
	}
	if err := h.Model.validate("autoadmin-hetero"); err != nil {
		return nil, err
	}
	rows := HeteroExperiments[h.Exp-1]
	w := autoAdminCluster()
	w.Cluster.MapReduceAM = h.Model.MapReduceAM
	most := 0
	for _, r := range rows {
		most = max(most, r.Jobs)
	}
	width := len(fmt.Sprint(most))
	for i := range most {
		for _, r := range rows {
			if i < r.Jobs {
				id := fmt.Sprintf("%s-%0*d", r.Bench, width, i+1)
				w.Jobs = append(w.Jobs, h.Model.Job(id, r.Bench, r.InputMB, r.AM, r.Map, r.Reduce))
			}
		}
	}
	h.Model.space(w.Jobs)
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

// MapReduceJob is one job of the burst model (see AutoAdminModel): bench
// is terasort, wordcount, wordmean or pi; inputMB is ignored for pi; am,
// mapVC and reduceVC are container sizes in vcores.
func MapReduceJob(id, bench string, inputMB int, am, mapVC, reduceVC int64) workload.Job {
	return BurstModel.Job(id, bench, inputMB, am, mapVC, reduceVC)
}

// Job is one job of model m (see AutoAdminModel), with its submit time left
// at 0.
func (m Model) Job(id, bench string, inputMB int, am, mapVC, reduceVC int64) workload.Job {
	var maps []clock.Duration
	if bench == "pi" {
		for range PiMaps {
			maps = append(maps, TaskStartup)
		}
	} else {
		files := 1
		if bench == "terasort" && m.TeragenFiles > 0 {
			files = m.TeragenFiles
		}
		for f := range files {
			// teragen gives its maps equal shares of the rows; the
			// first files take the remainder.
			size := inputMB / files
			if f < inputMB%files {
				size++
			}
			for left := size; left > 0; left -= SplitMB {
				maps = append(maps, taskTime(float64(min(left, SplitMB))))
			}
		}
	}
	reduce := taskTime(float64(inputMB) * shuffleRatio[bench])
	if bench == "pi" {
		reduce = TaskStartup
	}
	slow := m.SlowStart
	if slow == 0 {
		slow = 1
	}
	return workload.Job{
		ID: id, Name: bench, Queue: workload.DefaultQueue,
		AM: resource.New(am, containerMemory),
		Phases: []workload.Phase{
			{Name: "map", Tasks: len(maps), Request: resource.New(mapVC, containerMemory), Durations: compact(maps), StartAfter: 1},
			{Name: "reduce", Tasks: 1, Request: resource.New(reduceVC, containerMemory), Durations: []clock.Duration{reduce}, StartAfter: slow},
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
