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

// AdaptiveShared is the evaluation setup of the Reverse-Adaptive paper:
// MapReduce jobs with completion-time goals on machines that (experiments 2
// and 3) also serve a transactional workload whose demand varies over the
// day. The paper gives no sizes; the ones here are stated in
// AdaptiveSharedModel and were fixed before any scheduler was run on them.
type AdaptiveShared struct {
	Exp        int // 1: MapReduce only; 2: diurnal external load; 3: bursty
	Nodes      int
	NodeVCores int64
	NodeMemory int64 // MiB
	Jobs       int
	// TasksMean is the mean number of map tasks per job.
	TasksMean float64
	// Load is the MapReduce work offered over the arrival window as a
	// fraction of the cluster's task containers.
	Load float64
	// Goals are drawn uniformly in [GoalMin, GoalMax] × the job's
	// standalone runtime.
	GoalMin, GoalMax float64
	// The transactional load: between LoadLow and LoadHigh of every node
	// over a day of Period.
	LoadLow, LoadHigh float64
	Period            clock.Duration
	// Burstiness B (experiment 3) concentrates the same mean demand into
	// bursts: each BurstInterval is busy with probability 1/(1+B), at 1+B
	// times the diurnal value (capped at the whole node), and idle
	// otherwise.
	Burstiness    float64
	BurstInterval clock.Duration
	Seed          uint64

	// Waves, when positive, sets TasksMean to Waves times the cluster's
	// task containers: jobs that need several waves even alone.
	Waves float64
	// TightFrac of the jobs get tight goals, U[TightMin, TightMax] × their
	// standalone runtime, whatever the other goal rule.
	TightFrac, TightMin, TightMax float64
	// SlackMax, when positive, gives the other jobs goals of their
	// standalone runtime plus U[SlackMin, SlackMax]: slack independent of
	// the job's size. Zero keeps the GoalMin..GoalMax factor.
	SlackMin, SlackMax clock.Duration
	// LoadShape is the transactional load's shape in experiments 2 and 3:
	// "diurnal" (default) or "square" (LoadLow for the first half of each
	// period, LoadHigh for the second, 1 s ramps).
	LoadShape string
}

// AdaptivePreset returns the named preset's settings over the defaults:
// "today" is DefaultAdaptiveShared; "paper" is the regime stated in
// AdaptivePaperPreset.
func AdaptivePreset(name string) (AdaptiveShared, error) {
	a := DefaultAdaptiveShared
	switch name {
	case "today", "":
		return a, nil
	case "paper":
		a.Waves = 2
		a.TightFrac, a.TightMin, a.TightMax = 0.3, 1.2, 1.5
		a.SlackMin, a.SlackMax = 300*clock.Second, 1800*clock.Second
		return a, nil
	}
	return a, fmt.Errorf("adaptive-shared: --preset must be today or paper, got %q", name)
}

// AdaptivePaperPreset states what --preset paper assumes and why.
const AdaptivePaperPreset = `--preset paper reads the paper's text for what it implies about jobs and
goals, and fixes numbers the text does not give (ours, set before any run):
  - "jobs are dynamically submitted by users": Poisson arrivals, as by
    default;
  - the Adaptive Scheduler's model estimates how many tasks a job must run
    in parallel over time, which only matters when a job runs in several
    waves: --waves 2 (a job's mean task count is twice the cluster's task
    containers);
  - "each job is associated with a completion time goal provided by users":
    a user's deadline does not scale with the job, so slack is drawn in
    seconds, U[300 s, 1800 s] over the standalone runtime (--slack-min,
    --slack-max), and some users are in a hurry: 30 % of the jobs get
    U[1.2, 1.5] x their standalone runtime (--tight-frac, --tight-min,
    --tight-max);
  - "the usage of the front-end changes significantly over time" and is
    "predicted in the form of a given function f(t)": the diurnal curve of
    experiment 2, as by default.
Flags given with --preset override it.`

// DefaultAdaptiveShared holds the documented defaults.
var DefaultAdaptiveShared = AdaptiveShared{
	Exp: 2, Nodes: 20, NodeVCores: 8, NodeMemory: 16384, Jobs: 100, TasksMean: 40, Load: 0.6,
	GoalMin: 2, GoalMax: 4, LoadLow: 0.1, LoadHigh: 0.6, Period: 1800 * clock.Second,
	Burstiness: 1, BurstInterval: 60 * clock.Second, Seed: 1,
}

// The job model.
const (
	// adaptiveTasksSigma: a job's map task count is lognormal (at least
	// 1) around --tasks-mean.
	adaptiveTasksSigma = 0.8
	// adaptiveTaskMedian and adaptiveJobSigma: each job's typical task
	// length; adaptiveTaskSigma spreads its tasks around it.
	adaptiveTaskMedian = 60 * clock.Second
	adaptiveJobSigma   = 0.5
	adaptiveTaskSigma  = 0.2
	// adaptiveDiurnalKnots is how finely the diurnal curve is drawn.
	adaptiveDiurnalKnots = 24
)

var (
	adaptiveTask = resource.New(1, 2048)
	adaptiveAM   = resource.New(1, 1024)
)

// AdaptiveSharedModel describes the model for --help.
const AdaptiveSharedModel = `The Reverse-Adaptive paper's three experiments: MapReduce jobs with
completion-time goals (1) alone on the cluster, (2) sharing it with a
transactional workload whose demand follows a known diurnal curve, and (3)
sharing it with the same demand made bursty. The paper states no sizes;
these were fixed before any scheduler ran on them.

Cluster: --nodes (20) of <8 vcores, 16 GB>, YARN's default timing. Every
task container is <1 vcore, 2 GB> and every AM <1 vcore, 1 GB>: 8 tasks
per node.

Jobs: --jobs (100) map-only jobs (the Adaptive Scheduler's model is of map
tasks), arriving as a Poisson process whose rate makes the offered work
--load (0.6) of the cluster's task containers over the arrival window.
Tasks per job: lognormal, mean --tasks-mean (40), sigma 0.8. Each job's typical task
length is lognormal (median 60 s, sigma 0.5) and its tasks vary around it
(sigma 0.2). A job's goal is U[--goal-min, --goal-max] (2, 4) times its
standalone runtime (alone on the dedicated cluster), and its declared
estimate is that standalone runtime: the profile of earlier runs the paper
assumes. The jobs depend only on --seed, so the three experiments run the
same jobs.

External load (a fraction of every node):
  exp 1: none.
  exp 2: diurnal, between --load-low (0.1) and --load-high (0.6):
         low + (high - low)(1 - cos(2 pi t / P))/2 with P = --period
         (1800 s), drawn with 24 knots per period and repeating; it
         starts at its trough.
  exp 3: the exp 2 curve cut into --burst-interval (60 s) slots; each slot
         is busy with probability 1/(1+B) (B = --burstiness, default 1),
         at (1+B) times the diurnal value at its middle (at most 1), and
         idle otherwise, with 1 s ramps between slots: the same mean
         demand (less what the cap cuts) in bursts whose peak is 1+B
         times the mean. B = 0 is a staircase of exp 2. The slots cover
         twice the arrival window plus a period; the last value holds
         after.
The scheduler is told the curve in advance, as the paper assumes (the
simulator can make the forecast noisy).`

// Generate builds the workload.
func (a AdaptiveShared) Generate() (*workload.Workload, error) {
	switch {
	case a.Exp < 1 || a.Exp > 3:
		return nil, fmt.Errorf("adaptive-shared: --exp must be 1, 2 or 3, not %d", a.Exp)
	case a.Nodes <= 0 || a.Jobs <= 0:
		return nil, fmt.Errorf("adaptive-shared: --nodes and --jobs must be positive")
	case !(a.TasksMean >= 1) || math.IsInf(a.TasksMean, 0):
		return nil, fmt.Errorf("adaptive-shared: --tasks-mean must be at least 1")
	case a.NodeVCores <= 0 || a.NodeMemory <= 0:
		return nil, fmt.Errorf("adaptive-shared: node vcores and memory must be positive")
	case !(a.Load > 0) || math.IsInf(a.Load, 0):
		return nil, fmt.Errorf("adaptive-shared: --load must be positive")
	case !(a.GoalMin >= 1 && a.GoalMax >= a.GoalMin) || math.IsInf(a.GoalMax, 0):
		return nil, fmt.Errorf("adaptive-shared: goals need 1 <= --goal-min <= --goal-max")
	case !(a.LoadLow >= 0 && a.LoadHigh >= a.LoadLow && a.LoadHigh <= 1):
		return nil, fmt.Errorf("adaptive-shared: external load needs 0 <= --load-low <= --load-high <= 1")
	case a.Period < clock.Second*adaptiveDiurnalKnots:
		return nil, fmt.Errorf("adaptive-shared: --period must be at least %v", clock.Second*adaptiveDiurnalKnots)
	case !(a.Burstiness >= 0) || math.IsInf(a.Burstiness, 0):
		return nil, fmt.Errorf("adaptive-shared: --burstiness must be >= 0")
	case a.BurstInterval < 2*clock.Second:
		return nil, fmt.Errorf("adaptive-shared: --burst-interval must be at least 2s")
	case !(a.Waves >= 0) || math.IsInf(a.Waves, 0):
		return nil, fmt.Errorf("adaptive-shared: --waves must be >= 0")
	case !(a.TightFrac >= 0 && a.TightFrac <= 1):
		return nil, fmt.Errorf("adaptive-shared: --tight-frac must be in [0, 1]")
	case a.TightFrac > 0 && !(a.TightMin >= 1 && a.TightMax >= a.TightMin && !math.IsInf(a.TightMax, 0)):
		return nil, fmt.Errorf("adaptive-shared: tight goals need 1 <= --tight-min <= --tight-max")
	case a.SlackMin < 0 || a.SlackMax < a.SlackMin:
		return nil, fmt.Errorf("adaptive-shared: slack needs 0 <= --slack-min <= --slack-max")
	case a.LoadShape != "" && a.LoadShape != "diurnal" && a.LoadShape != "square":
		return nil, fmt.Errorf("adaptive-shared: --load-shape must be diurnal or square, got %q", a.LoadShape)
	}
	if err := checkSize("adaptive-shared", a.Jobs, a.TasksMean); err != nil {
		return nil, err
	}
	node := resource.New(a.NodeVCores, a.NodeMemory)
	perNode := adaptiveTask.CountIn(node)
	if perNode == 0 || !adaptiveAM.Fits(node) {
		return nil, fmt.Errorf("adaptive-shared: nodes of %v cannot hold a %v task and a %v AM", node, adaptiveTask, adaptiveAM)
	}
	nodes := slices.Repeat([]resource.Vector{node}, a.Nodes)
	w := &workload.Workload{
		Version: workload.Version,
		Cluster: workload.Cluster{
			Nodes:       []workload.NodeGroup{{Count: a.Nodes, Capacity: node}},
			LaunchDelay: workload.DefaultLaunchDelay, LaunchJitter: workload.DefaultLaunchJitter,
		},
	}
	rng := rand.New(rand.NewPCG(a.Seed, 0x61647370)) // "adsp": the jobs, the same in every experiment
	// Goals other than the default factor come from their own stream, so
	// that the jobs themselves do not change with them.
	goalRNG := rand.New(rand.NewPCG(a.Seed, 0x676f616c)) // "goal"
	tasksMean := a.TasksMean
	if a.Waves > 0 {
		tasksMean = a.Waves * float64(a.Nodes*perNode)
	}
	countMu := math.Log(tasksMean) - adaptiveTasksSigma*adaptiveTasksSigma/2
	work := 0.0
	for i := range a.Jobs {
		n := max(1, int(math.Round(math.Exp(countMu+adaptiveTasksSigma*rng.NormFloat64()))))
		typical := float64(adaptiveTaskMedian) * math.Exp(adaptiveJobSigma*rng.NormFloat64())
		ds := make([]clock.Duration, n)
		for k := range ds {
			d := typical * math.Exp(adaptiveTaskSigma*rng.NormFloat64())
			ds[k] = clock.Duration(math.Max(1, math.Round(d/float64(clock.Millisecond)))) * clock.Millisecond
			work += ds[k].Seconds()
		}
		j := workload.Job{
			ID: fmt.Sprintf("job-%03d", i), Name: "map-only", Queue: workload.DefaultQueue, AM: adaptiveAM,
			Phases: []workload.Phase{{Name: "map", Tasks: n, Request: adaptiveTask, Durations: ds, StartAfter: 1}},
		}
		alone := j.Standalone(nodes)
		goal := a.GoalMin + (a.GoalMax-a.GoalMin)*rng.Float64()
		deadline := goal * float64(alone)
		if a.TightFrac > 0 || a.SlackMax > 0 {
			tight, u := goalRNG.Float64() < a.TightFrac, goalRNG.Float64()
			switch {
			case tight:
				deadline = (a.TightMin + (a.TightMax-a.TightMin)*u) * float64(alone)
			case a.SlackMax > 0:
				deadline = float64(alone) + float64(a.SlackMin) + float64(a.SlackMax-a.SlackMin)*u
			}
		}
		j.Estimate = alone
		j.Deadline = clock.Duration(math.Round(deadline/float64(clock.Millisecond))) * clock.Millisecond
		w.Jobs = append(w.Jobs, j)
	}
	window := work / (a.Load * float64(a.Nodes*perNode))
	gap := window / float64(a.Jobs)
	poissonArrivals(w.Jobs, gap, rng)
	span, _ := clock.FromSeconds(window)
	switch a.Exp {
	case 2:
		w.Cluster.ExternalLoad = a.diurnal()
	case 3:
		w.Cluster.ExternalLoad = a.bursty(2*span + a.Period)
	}
	return finish("adaptive-shared", w)
}

// diurnalAt is the diurnal curve at t: its trough at 0, its peak at P/2;
// the square shape is low for the first half of the period, high after.
func (a AdaptiveShared) diurnalAt(t clock.Duration) float64 {
	x := float64(t%a.Period) / float64(a.Period)
	if a.LoadShape == "square" {
		if x < 0.5 {
			return a.LoadLow
		}
		return a.LoadHigh
	}
	return a.LoadLow + (a.LoadHigh-a.LoadLow)*(1-math.Cos(2*math.Pi*x))/2
}

// diurnal is experiment 2's load: the diurnal curve with a knot every
// P/24, repeating; the square shape has knots at its two steps instead.
func (a AdaptiveShared) diurnal() *workload.ExternalLoad {
	if a.LoadShape == "square" {
		half := a.Period / 2
		return &workload.ExternalLoad{Period: a.Period, Points: []workload.LoadPoint{
			{At: 0, Frac: round4(a.LoadLow)}, {At: half - clock.Second, Frac: round4(a.LoadLow)},
			{At: half, Frac: round4(a.LoadHigh)}, {At: a.Period - clock.Second, Frac: round4(a.LoadHigh)}}}
	}
	l := &workload.ExternalLoad{Period: a.Period}
	for k := range adaptiveDiurnalKnots {
		at := a.Period * clock.Duration(k) / adaptiveDiurnalKnots
		l.Points = append(l.Points, workload.LoadPoint{At: at, Frac: round4(a.diurnalAt(at))})
	}
	return l
}

// bursty is experiment 3's load over [0, horizon]: each slot busy with
// probability 1/(1+B) at (1+B) times the diurnal value at its middle,
// capped at 1, idle otherwise; 1 s ramps join the slots.
func (a AdaptiveShared) bursty(horizon clock.Duration) *workload.ExternalLoad {
	rng := rand.New(rand.NewPCG(a.Seed, 0x62757273)) // "burs": the bursts, apart from the jobs
	l := &workload.ExternalLoad{}
	tau := a.BurstInterval
	for at := clock.Duration(0); at < horizon; at += tau {
		v := 0.0
		if rng.Float64() < 1/(1+a.Burstiness) {
			v = math.Min(1, (1+a.Burstiness)*a.diurnalAt(at+tau/2))
		}
		v = round4(v)
		l.Points = append(l.Points, workload.LoadPoint{At: at, Frac: v}, workload.LoadPoint{At: at + tau - clock.Second, Frac: v})
	}
	return l
}

// round4 keeps the file short: four decimals are finer than any node's
// resources.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
