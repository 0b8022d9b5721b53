package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// DRESS is the evaluation setup of the DRESS paper (§V-A): a 5-node cluster,
// 20 HiBench-like jobs submitted 5 s apart, MapReduce jobs, Spark-on-YARN
// jobs, or both mixed, a given fraction of them small (< 10 containers).
type DRESS struct {
	Kind      string // DRESSSpark, DRESSMapReduce or DRESSMixed
	Nodes     int
	Jobs      int
	SmallFrac float64
	Gap       clock.Duration
	Seed      uint64
	// MediumFrac of the jobs that are not small read a medium input
	// (1.5-6 GB) instead of a large one: jobs between small and half the
	// cluster, which the paper's mixes do not have. 0 in the paper's
	// setups.
	MediumFrac float64
	// Hetero gives each job task containers of 1, 2 or 4 times <1 vcore,
	// 2 GB>, drawn uniformly, instead of the paper's uniform containers.
	Hetero bool
}

// The DRESS workload kinds.
const (
	DRESSSpark     = "spark"
	DRESSMapReduce = "mapreduce"
	DRESSMixed     = "mixed"
)

// DefaultDRESS holds the paper's settings: 5 nodes, 20 jobs 5 s apart, and
// 6 small jobs in 20 (the paper's Spark and MapReduce runs both have six).
var DefaultDRESS = DRESS{Kind: DRESSMixed, Nodes: 5, Jobs: 20, SmallFrac: 0.3, Gap: 5 * clock.Second, Seed: 1}

// The model, from the paper's description and HiBench's and Hadoop's
// defaults; only the large jobs' input range was calibrated, against the
// paper's Capacity baseline, and nothing against DRESS's results. Stated
// once, here, for --help and docs/dress.md.
const (
	// dressNodeVCores and dressNodeMemory are a CloudLab c220g2: two
	// 10-core CPUs and 160 GB.
	dressNodeVCores = 20
	dressNodeMemory = 160 * 1024
	// dressBlockMB is the HDFS block, hence the input split.
	dressBlockMB = 128.0
	// dressMBPerSec is what one task processes per second at cost 1.
	dressMBPerSec = 10.0
	// A task's start-up: a MapReduce task starts a JVM; a Spark task runs
	// in an executor that is already up.
	dressMRStartup    = 3.0
	dressSparkStartup = 1.0
	// dressTaskSigma spreads a phase's task durations (lognormal): the
	// paper's PageRank reduces average 18.25 s with a deviation of 1.45 s.
	dressTaskSigma = 0.08
	// dressTrailing is how much longer a trailing task (a skewed
	// partition) runs than the longest regular task of its phase (§III-A3:
	// 38 %), and dressSkewProb how often a skew-prone phase has one.
	dressTrailing = 1.38
	dressSkewProb = 0.5
	// Input sizes, drawn log-uniformly: a small job reads one file of
	// 160-896 MB (2-7 blocks, so at most 8 containers with its AM); a
	// large one 6-30 GB in 1-3 files (48-240 blocks and more). The large
	// range is the one scale set against the paper: once, so that
	// Capacity on the Spark workload is as congested as the paper's
	// Capacity row of Table II.
	dressSmallMinMB = 160.0
	dressSmallMaxMB = 896.0
	dressLargeMinMB = 6144.0
	dressLargeMaxMB = 30720.0
	// A medium job (--medium-frac) reads 1.5-6 GB in one file: 12 to 48
	// blocks, less than half the cluster.
	dressMediumMinMB = 1536.0
	dressMediumMaxMB = 6144.0
)

// DRESSModel describes the model for --help.
const DRESSModel = `Cluster: 5 nodes (--nodes) of <20 vcores, 160 GB>, the paper's CloudLab
c220g2, with YARN's default timing (1 s heartbeats, 1 s launch +-25%). Every
container is <1 vcore, 2 GB> and every AM <1 vcore, 1 GB>, so the cluster
holds 100 containers and "small" (< 10 containers) is the DRESS rule.

Jobs: --jobs (20) submitted --gap (5 s) apart, exactly round(F x jobs) of them
small at random positions. Each job's type is drawn uniformly among the
benchmarks of its platform; in the mixed workload the platform is drawn
first, MapReduce or Spark with equal odds.
  MapReduce (the paper's benchmarks 1-10): wordcount, sort, terasort, scan,
    join, pagerank, kmeans, lr, bayes, nweight.
  Spark-on-YARN (benchmarks 4-6 and 9-10): kmeans, lr, bayes, pagerank,
    nweight.

Input: a small job reads one file of 160-896 MB; a large job 6-30 GB in 1 to 3
files (sizes log-uniform, files split at uniform cut points). The large range
is the model's one calibrated scale: it was set once so that Capacity on the
Spark workload is as congested as the paper's Capacity row (Table II: 1029 s
makespan, 310 s average wait), never against DRESS's results. The input is
cut into 128 MB blocks, one map (or first-stage task) per block; the last
block of each file is under-loaded and its task short: the paper's heading
tasks.

Beyond the paper: --medium-frac M makes that fraction of the jobs that are
not small read 1.5-6 GB in one file (12-48 blocks, under half the cluster)
instead; --hetero gives each job task containers of 1, 2 or 4 times <1 vcore,
2 GB>, drawn uniformly. Both draw from their own random stream, so without
them the paper's setups are unchanged.

Tasks: a task takes its start-up (3 s MapReduce, 1 s Spark) plus its data at
10 MB/s times its phase's cost, varied +-8% (lognormal). Reduce and shuffle
phases split their input, the map output (input x shuffle ratio), evenly. In
skew-prone shuffle phases of at least 4 tasks (marked *), with probability
1/2 one task is a trailing task: a skewed partition that runs 38% longer than
the phase's longest other task (§III-A3). Phases run one after another: a
reduce is asked for when its maps are done.

Phase structure (cost, shuffle ratio, reduces per map):
  wordcount  map 1.5 | reduce 1.0 (shuffle 0.1, 1 per 5 maps)
  sort       map 0.5 | reduce 1.0 (shuffle 1.0, 1 per 2 maps)
  terasort   map 0.7 | reduce 1.2 (shuffle 1.0, 1 per 2 maps)
  scan       map 0.6 (map only)
  join       map 0.8 | reduce* 1.2 (0.6, 1 per 4) | map 0.5 | reduce 1.0 (0.05, 1)
  pagerank   2 stages (§III-A2): map 0.8 | reduce* 1.0 (1.0, 1 per 4) |
             map 0.5 over the reduce outputs | reduce* 1.0 (1.0, as many)
  kmeans     5 iterations (HiBench default) of map 1.5 | reduce 1.0 (0.001, 1),
             then a map 1.0 that assigns the points
  lr         3 iterations of map 1.0 | reduce 1.0 (0.001, 1)
  bayes      map 1.5 | reduce 1.0 (0.3, 1 per 4) | map 0.5 | reduce 1.0 (0.05, 1 per 2)
  nweight    3 hops of map (0.8 on the input, then 0.5 over the reduce
             outputs) | reduce* 1.0 (1.0, 1 per 4)
  spark kmeans    load 1.0, then 5 iteration stages of 0.3 over the cached
                  partitions (no shuffle)
  spark lr        load 1.0, then 5 iteration stages of 0.2
  spark bayes     load 1.5 | aggregate* 1.0 (0.3, a task per partition) |
                  train 0.5 (1 task per 4 partitions)
  spark pagerank  load 1.0, then 3 iteration stages* of 0.8 (1.0, a task per
                  partition)
  spark nweight   load 1.0, then 3 hop stages* of 1.2 (1.0, a task per
                  partition)`

// dressPhase is one phase of a job type's structure.
type dressPhase struct {
	name string
	// cost multiplies the time per MB.
	cost float64
	// For shuffle phases: the fraction of the job's input it receives and
	// the tasks per input block (0: one task); ratio < 0 marks a phase that
	// reads the previous phase's outputs one task per output.
	shuffle float64
	perMap  float64
	skew    bool
	kind    int
}

// Kinds of phase.
const (
	readsInput  = iota // one task per input block
	shuffles           // reads a shuffle of shuffle × input over perMap tasks per block
	readsOutput        // one task per output of the previous phase
	cached             // one task per input block, over the cached partition
)

type dressType struct {
	name   string
	spark  bool
	phases []dressPhase
}

func mapP(cost float64) dressPhase { return dressPhase{name: "map", cost: cost, kind: readsInput} }
func reduceP(cost, shuffle, perMap float64, skew bool) dressPhase {
	return dressPhase{name: "reduce", cost: cost, shuffle: shuffle, perMap: perMap, skew: skew, kind: shuffles}
}
func outMapP(cost float64) dressPhase { return dressPhase{name: "map", cost: cost, kind: readsOutput} }

func iterate(n int, ps ...dressPhase) []dressPhase {
	var out []dressPhase
	for range n {
		out = append(out, ps...)
	}
	return out
}

func concat(parts ...[]dressPhase) []dressPhase {
	var out []dressPhase
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func stage(name string, cost, shuffle, perMap float64, skew bool, kind int) dressPhase {
	return dressPhase{name: name, cost: cost, shuffle: shuffle, perMap: perMap, skew: skew, kind: kind}
}

var dressMapReduce = []dressType{
	{name: "wordcount", phases: []dressPhase{mapP(1.5), reduceP(1.0, 0.1, 0.2, false)}},
	{name: "sort", phases: []dressPhase{mapP(0.5), reduceP(1.0, 1.0, 0.5, false)}},
	{name: "terasort", phases: []dressPhase{mapP(0.7), reduceP(1.2, 1.0, 0.5, false)}},
	{name: "scan", phases: []dressPhase{mapP(0.6)}},
	{name: "join", phases: []dressPhase{mapP(0.8), reduceP(1.2, 0.6, 0.25, true), outMapP(0.5), reduceP(1.0, 0.05, 0, false)}},
	{name: "pagerank", phases: []dressPhase{mapP(0.8), reduceP(1.0, 1.0, 0.25, true), outMapP(0.5), reduceP(1.0, 1.0, -1, true)}},
	{name: "kmeans", phases: concat(iterate(5, mapP(1.5), reduceP(1.0, 0.001, 0, false)), []dressPhase{mapP(1.0)})},
	{name: "lr", phases: iterate(3, mapP(1.0), reduceP(1.0, 0.001, 0, false))},
	{name: "bayes", phases: []dressPhase{mapP(1.5), reduceP(1.0, 0.3, 0.25, false), outMapP(0.5), reduceP(1.0, 0.05, -0.5, false)}},
	{name: "nweight", phases: concat([]dressPhase{mapP(0.8), reduceP(1.0, 1.0, 0.25, true)}, iterate(2, outMapP(0.5), reduceP(1.0, 1.0, 0.25, true)))},
}

var dressSpark = []dressType{
	{name: "spark-kmeans", spark: true, phases: concat([]dressPhase{stage("load", 1.0, 0, 0, false, readsInput)}, iterate(5, stage("iteration", 0.3, 0, 0, false, cached)))},
	{name: "spark-lr", spark: true, phases: concat([]dressPhase{stage("load", 1.0, 0, 0, false, readsInput)}, iterate(5, stage("iteration", 0.2, 0, 0, false, cached)))},
	{name: "spark-bayes", spark: true, phases: []dressPhase{stage("load", 1.5, 0, 0, false, readsInput), stage("aggregate", 1.0, 0.3, 1, true, shuffles), stage("train", 0.5, 0.3, 0.25, false, shuffles)}},
	{name: "spark-pagerank", spark: true, phases: concat([]dressPhase{stage("load", 1.0, 0, 0, false, readsInput)}, iterate(3, stage("iteration", 0.8, 1.0, 1, true, shuffles)))},
	{name: "spark-nweight", spark: true, phases: concat([]dressPhase{stage("load", 1.0, 0, 0, false, readsInput)}, iterate(3, stage("hop", 1.2, 1.0, 1, true, shuffles)))},
}

// Generate builds the workload.
func (s DRESS) Generate() (*workload.Workload, error) {
	var types []dressType
	switch s.Kind {
	case DRESSSpark:
		types = dressSpark
	case DRESSMapReduce:
		types = dressMapReduce
	case DRESSMixed:
	default:
		return nil, fmt.Errorf("dress: unknown kind %q (spark, mapreduce or mixed)", s.Kind)
	}
	switch {
	case s.Nodes <= 0:
		return nil, fmt.Errorf("dress: --nodes must be positive")
	case s.Jobs <= 0:
		return nil, fmt.Errorf("dress: --jobs must be positive")
	case !(s.SmallFrac >= 0 && s.SmallFrac <= 1):
		return nil, fmt.Errorf("dress: --small-frac must be in [0, 1]")
	case s.Gap < 0:
		return nil, fmt.Errorf("dress: --gap must not be negative")
	case !(s.MediumFrac >= 0 && s.MediumFrac <= 1):
		return nil, fmt.Errorf("dress: --medium-frac must be in [0, 1]")
	}
	if err := checkSize("dress", s.Jobs, 1); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x64726573)) // "dres"
	w := &workload.Workload{
		Version: workload.Version,
		Cluster: workload.Cluster{
			Nodes:       []workload.NodeGroup{{Count: s.Nodes, Capacity: resource.New(dressNodeVCores, dressNodeMemory)}},
			LaunchDelay: workload.DefaultLaunchDelay, LaunchJitter: workload.DefaultLaunchJitter,
		},
	}
	small := make([]bool, s.Jobs)
	nSmall := int(math.Round(s.SmallFrac * float64(s.Jobs)))
	for _, i := range rng.Perm(s.Jobs)[:nSmall] {
		small[i] = true
	}
	size := make([]int, s.Jobs)
	for i := range size {
		if small[i] {
			size[i] = sizeSmall
		} else {
			size[i] = sizeLarge
		}
	}
	var knobs *rand.Rand // the knobs draw from their own stream, so the paper's setups are unchanged
	if s.MediumFrac > 0 || s.Hetero {
		knobs = rand.New(rand.NewPCG(s.Seed, 0x6b6e6f62)) // "knob"
	}
	if s.MediumFrac > 0 {
		var big []int
		for i := range size {
			if size[i] == sizeLarge {
				big = append(big, i)
			}
		}
		n := int(math.Round(s.MediumFrac * float64(len(big))))
		for _, k := range knobs.Perm(len(big))[:n] {
			size[big[k]] = sizeMedium
		}
	}
	for i := range s.Jobs {
		ts := types
		if s.Kind == DRESSMixed {
			ts = dressMapReduce
			if rng.IntN(2) == 1 {
				ts = dressSpark
			}
		}
		t := ts[rng.IntN(len(ts))]
		task := resource.New(1, 2048)
		if s.Hetero {
			task = task.Mul([]int64{1, 2, 4}[knobs.IntN(3)])
		}
		j := t.job(rng, size[i], task)
		j.ID = fmt.Sprintf("%02d-%s", i+1, t.name)
		j.Submit = clock.Time(clock.Duration(i) * s.Gap)
		w.Jobs = append(w.Jobs, j)
	}
	return finish("dress", w)
}

// logUniform draws from [lo, hi] with a uniform logarithm.
func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// dressBlocks draws a job's input and cuts it into blocks: the MB each block
// holds, full blocks first and each file's under-loaded last block after
// them.
func dressBlocks(rng *rand.Rand, size int) []float64 {
	var files []float64
	switch size {
	case sizeSmall:
		files = []float64{logUniform(rng, dressSmallMinMB, dressSmallMaxMB)}
	case sizeMedium:
		files = []float64{logUniform(rng, dressMediumMinMB, dressMediumMaxMB)}
	default:
		total := logUniform(rng, dressLargeMinMB, dressLargeMaxMB)
		n := 1 + rng.IntN(3)
		cuts := []float64{0, 1}
		for range n - 1 {
			cuts = append(cuts, rng.Float64())
		}
		slices.Sort(cuts)
		for k := 1; k < len(cuts); k++ {
			if mb := total * (cuts[k] - cuts[k-1]); mb >= 1 {
				files = append(files, mb)
			}
		}
	}
	var full, last []float64
	for _, f := range files {
		f = math.Round(f)
		for f > dressBlockMB {
			full = append(full, dressBlockMB)
			f -= dressBlockMB
		}
		if f > 0 {
			last = append(last, f)
		}
	}
	return append(full, last...)
}

// A job's input size class.
const (
	sizeSmall = iota
	sizeMedium
	sizeLarge
)

// job builds one job of the type, its tasks asking for task.
func (t dressType) job(rng *rand.Rand, size int, task resource.Vector) workload.Job {
	startup := dressMRStartup
	if t.spark {
		startup = dressSparkStartup
	}
	blocks := dressBlocks(rng, size)
	input := 0.0
	for _, b := range blocks {
		input += b
	}
	j := workload.Job{Name: t.name, Queue: workload.DefaultQueue, AM: resource.New(1, 1024)}
	prevTasks, prevMB := 0, 0.0 // the previous phase's outputs
	for _, p := range t.phases {
		var data []float64 // MB per task
		switch p.kind {
		case readsInput, cached:
			data = blocks
		case readsOutput:
			data = even(prevTasks, prevMB)
		case shuffles:
			n := 1
			switch {
			case p.perMap > 0:
				n = max(1, int(math.Round(p.perMap*float64(len(blocks)))))
			case p.perMap < 0:
				n = max(1, int(math.Round(-p.perMap*float64(prevTasks))))
			}
			data = even(n, input*p.shuffle)
		}
		ds := make([]clock.Duration, len(data))
		for i, mb := range data {
			ds[i] = millis((startup + mb/dressMBPerSec*p.cost) * math.Exp(dressTaskSigma*rng.NormFloat64()))
		}
		if p.skew && len(ds) >= 4 && rng.Float64() < dressSkewProb {
			// A skewed partition: one task runs 38 % longer than the
			// longest of the others.
			k := rng.IntN(len(ds))
			other := clock.Duration(0)
			for i, d := range ds {
				if i != k {
					other = max(other, d)
				}
			}
			ds[k] = millis(other.Seconds() * dressTrailing)
		}
		j.Phases = append(j.Phases, workload.Phase{Name: p.name, Tasks: len(ds), Request: task, Durations: ds, StartAfter: 1})
		// A phase that reads the previous one's outputs reads what that
		// phase read, one task per output file.
		prevTasks, prevMB = len(ds), 0
		for _, mb := range data {
			prevMB += mb
		}
	}
	return j
}

// even splits mb over n tasks.
func even(n int, mb float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mb / float64(n)
	}
	return out
}

// millis rounds seconds to whole milliseconds, at least one.
func millis(secs float64) clock.Duration {
	return clock.Duration(math.Max(1, math.Round(secs*1000))) * clock.Millisecond
}

// DRESSTypes lists the job types of a kind, for --help and tests.
func DRESSTypes(kind string) []string {
	var ts []dressType
	switch kind {
	case DRESSSpark:
		ts = dressSpark
	case DRESSMapReduce:
		ts = dressMapReduce
	default:
		ts = append(append(ts, dressMapReduce...), dressSpark...)
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
	}
	return names
}
