package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// DJSFGoogle parameterises the Google-2011-like batch workload of the DJSF
// paper's evaluation (1000 jobs drawn from the Google cluster data).
type DJSFGoogle struct {
	Nodes      int
	NodeVCores int64
	NodeMemory int64 // MiB
	NodeDisk   int64 // MiB
	Jobs       int
	Load       float64 // offered load over the arrival window, as a share of capacity
	AM         bool    // give every job a YARN ApplicationMaster
	Seed       uint64
	// Corr is the correlation of a job's log task duration and log task
	// count: positive, long jobs are wide; negative, short jobs are wide
	// (the DJSF paper's premise).
	Corr float64
	// ShortWide is the share of jobs drawn short and wide instead: 50 or
	// more tasks of typically under a minute.
	ShortWide float64
	// Arrivals is ArrivalsPoisson, ArrivalsBursts or ArrivalsBatch.
	Arrivals string
	// Bursts is how many bursts ArrivalsBursts has.
	Bursts int
	// Apps, when positive, makes the jobs recurring runs of that many
	// applications: each job is a run of one, named after it, with its
	// task durations scaled by a per-run factor, so that the mean runtime
	// of an application's earlier runs (--estimates history) predicts a
	// run with a realistic error.
	Apps int
}

// The arrival modes of djsf-google.
const (
	ArrivalsPoisson = "poisson" // a Poisson process over the arrival window
	ArrivalsBursts  = "bursts"  // Bursts instants evenly over the window, each job at one of them
	ArrivalsBatch   = "batch"   // every job at time 0
)

// DefaultDJSFGoogle holds the documented defaults.
var DefaultDJSFGoogle = DJSFGoogle{Nodes: 100, NodeVCores: 16, NodeMemory: 65536, NodeDisk: 1 << 20, Jobs: 1000, Load: 1.5, Seed: 1,
	Corr: gDurTasksCorr, Arrivals: ArrivalsPoisson, Bursts: 10}

// DJSFPaperPreset returns g in the DJSF paper's regime: many short, wide
// jobs (a negative duration-width correlation and 30 % of the jobs short and
// wide) scheduled as one batch. The values are the regime the paper argues
// from (its Fig. 1 and §3: short jobs that need many resources), not numbers
// it states; they were fixed before any policy was run on them.
func DJSFPaperPreset(g DJSFGoogle) DJSFGoogle {
	g.Corr, g.ShortWide, g.Arrivals = -0.5, 0.3, ArrivalsBatch
	return g
}

// The model's constants, stated once so that --help and the code agree. The
// values are approximate readings of published characterisations of the
// Google 2011 trace (Reiss et al., "Heterogeneity and dynamicity of clouds at
// scale", SoCC 2012; Liu and Cho, "Characterizing machines and workloads on a
// Google cluster", ICPP workshops 2012), not a fit: the trace itself is not
// part of this repository. They were fixed before any policy was run on the
// workload and are not tuned to any result.
const (
	gSingleTaskFrac = 0.5  // jobs with one task
	gTasksMedian    = 10.0 // the others: 1 + lognormal(median, sigma) tasks
	gTasksSigma     = 1.4
	gTasksMax       = 1500

	gTwoPhaseFrac   = 0.15 // jobs with 2 phases
	gThreePhaseFrac = 0.05 // jobs with 3 phases; the rest have 1

	gDurMedian = 120.0 // s, a job's typical task duration
	gDurSigma  = 1.2
	gTaskSigma = 0.3 // spread of a job's tasks around its typical duration
	// gDurMax truncates every task duration. The trace's longest batch
	// tasks run for days; in a 1000-job sample one of them would set every
	// policy's makespan, and throughput at fractions of the makespan would
	// measure that one job.
	gDurMax = 3600.0

	gDurTasksCorr = 0.2 // correlation of log duration and log task count

	// A short-and-wide job (--short-wide): 50 + lognormal(median 100,
	// sigma 0.7) tasks, at most gTasksMax, of typically lognormal(median
	// 20 s, sigma 0.5), at most 60 s.
	gSWTasksMin    = 50
	gSWTasksMedian = 100.0
	gSWTasksSigma  = 0.7
	gSWDurMedian   = 20.0
	gSWDurSigma    = 0.5
	gSWDurMax      = 60.0

	// gAppSigma spreads a recurring application's runs: each run's task
	// durations are scaled by lognormal(1, gAppSigma), each task's by a
	// further lognormal(1, gAppTaskSigma).
	gAppSigma     = 0.3
	gAppTaskSigma = 0.1

	gCPUMedian  = 1.0 // vcores per task
	gCPUSigma   = 0.7
	gMemMedian  = 2560.0 // MiB per task
	gMemSigma   = 0.8
	gMemCPUCorr = 0.5
	gDiskMedian = 1024.0 // MiB per task
	gDiskSigma  = 1.0
)

// DJSFGoogleModel describes the model for --help.
const DJSFGoogleModel = `A Google-2011-like batch workload (the DJSF paper evaluates on 1000 jobs from
the Google cluster data). The constants approximate published
characterisations of that trace (Reiss et al., SoCC 2012; Liu and Cho, 2012);
they are not fitted to it and were not tuned to any result.

  Tasks per job   heavy-tailed: half the jobs have one task, the others
                  1 + lognormal(median 10, sigma 1.4), at most 1500.
  Phases          80% one phase, 15% two, 5% three (a later phase has 10-50%
                  of the tasks of the first and starts when the previous one
                  is done); a job's tasks all ask for the same container.
  Durations       a job's typical task duration is lognormal (median 120 s,
                  sigma 1.2); each task varies around it (lognormal, sigma
                  0.3) and is truncated at 1 h, so that no single job sets
                  the makespan of a sample. Log duration and log task count
                  are weakly correlated (0.2), so a job's length says little
                  about its width.
  Requests        per task, like the trace's normalised requests scaled to a
                  node: CPU lognormal (median 1 vcore, sigma 0.7, 0.1-8
                  vcores), memory lognormal (median 2.5 GiB, sigma 0.8,
                  128 MiB-32 GiB, correlation 0.5 with CPU), disk lognormal
                  (median 1 GiB, sigma 1, 16 MiB-64 GiB).
  Cluster         --nodes identical nodes (default 100 x <16 vcores, 64 GiB,
                  1 TiB disk>), YARN-like heartbeats and launch delays.
  AM              none by default: trace jobs (Borg) have no ApplicationMaster;
                  --am gives each job a YARN AM of <1 vcore, 1 GiB>.
  Arrivals        a Poisson process whose rate makes the offered load over
                  the arrival window --load times the cluster's capacity (in
                  its busiest resource). A job offers its work, but at most its
                  peak demand for the whole window: with heavy tails, the few
                  largest jobs hold more work than they can run in the window,
                  and counting all of it would spread the arrivals so thin
                  that the cluster idles. The default 1.5 keeps the cluster
                  busy with a queue while jobs arrive; --load 10 squeezes
                  the arrivals of 1000 jobs into a minute or two (or a single
                  instant), close to the batch the paper schedules.
                  --arrivals bursts puts the jobs at --bursts instants
                  evenly spread over the same window (each job at a random
                  one); --arrivals batch submits every job at time 0.

Knobs for the paper's regime: --corr sets the correlation of log duration
and log task count (default 0.2: long jobs are slightly wider; the paper's
premise is the opposite, many short and wide jobs); --short-wide F draws a
share F of the jobs short and wide instead: 50 + lognormal(median 100, sigma
0.7) tasks of typically lognormal(median 20 s, sigma 0.5), at most 60 s, one
phase. --preset paper sets --corr -0.5 --short-wide 0.3 --arrivals batch.
--apps N makes the jobs recurring runs of N applications (drawn as above),
each job a run of a uniformly drawn one named app-K, its task durations
scaled by a per-run lognormal factor (sigma 0.3) and a per-task one (sigma
0.1): --estimates history then predicts a run from the application's earlier
runs. The knobs draw from their own random stream, so with their defaults the
workload is unchanged.

No job declares an estimate: run SJF, Tetris and DJSF with --estimates oracle
(optionally --estimate-error E), as the paper assumes a JCT predictor.`

// Generate builds the workload.
func (g DJSFGoogle) Generate() (*workload.Workload, error) {
	switch {
	case g.Nodes <= 0:
		return nil, fmt.Errorf("djsf-google: --nodes must be positive")
	case g.Jobs <= 0:
		return nil, fmt.Errorf("djsf-google: --jobs must be positive")
	case g.NodeVCores <= 0 || g.NodeMemory <= 0 || g.NodeDisk <= 0:
		return nil, fmt.Errorf("djsf-google: node vcores, memory and disk must be positive")
	case !(g.Load > 0) || math.IsInf(g.Load, 0):
		return nil, fmt.Errorf("djsf-google: --load must be positive")
	case !(g.Corr >= -1 && g.Corr <= 1):
		return nil, fmt.Errorf("djsf-google: --corr must be in [-1, 1]")
	case !(g.ShortWide >= 0 && g.ShortWide <= 1):
		return nil, fmt.Errorf("djsf-google: --short-wide must be in [0, 1]")
	case g.Arrivals != ArrivalsPoisson && g.Arrivals != ArrivalsBursts && g.Arrivals != ArrivalsBatch:
		return nil, fmt.Errorf("djsf-google: --arrivals must be poisson, bursts or batch, got %q", g.Arrivals)
	case g.Arrivals == ArrivalsBursts && g.Bursts <= 0:
		return nil, fmt.Errorf("djsf-google: --bursts must be positive")
	case g.Apps < 0:
		return nil, fmt.Errorf("djsf-google: --apps must not be negative")
	}
	// A job has at most gTasksMax tasks and about 15 on average; the job
	// count is what can run away.
	if err := checkSize("djsf-google", g.Jobs, 1); err != nil {
		return nil, err
	}
	node := resource.New(g.NodeVCores, g.NodeMemory)
	node[resource.Disk] = g.NodeDisk
	largest := resource.Vector{8 * resource.MilliPerVCore, 32768, 0, 65536}
	if !largest.Fits(node) {
		return nil, fmt.Errorf("djsf-google: nodes of %v cannot hold the largest task request %v", node, largest)
	}
	rng := rand.New(rand.NewPCG(g.Seed, 0x676f6f67)) // "goog"
	w := &workload.Workload{
		Version: workload.Version,
		Cluster: workload.Cluster{
			Nodes:       []workload.NodeGroup{{Count: g.Nodes, Capacity: node}},
			LaunchDelay: workload.DefaultLaunchDelay, LaunchJitter: workload.DefaultLaunchJitter,
		},
	}
	var am resource.Vector
	if g.AM {
		am = resource.New(1, 1024)
	}
	capacity := node.Mul(int64(g.Nodes))
	offers := make([]offer, 0, g.Jobs)
	var knobs *rand.Rand // the knobs' own stream: the defaults draw nothing from it
	if g.ShortWide > 0 || g.Arrivals == ArrivalsBursts || g.Apps > 0 {
		knobs = rand.New(rand.NewPCG(g.Seed, 0x6b6e6f62)) // "knob"
	}
	drawn := g.Jobs
	if g.Apps > 0 {
		drawn = g.Apps
	}
	for i := range drawn {
		j := workload.Job{ID: fmt.Sprintf("g-%05d", i), Queue: workload.DefaultQueue, AM: am}
		zTasks, zDur := rng.NormFloat64(), rng.NormFloat64()
		zDur = g.Corr*zTasks + math.Sqrt(1-g.Corr*g.Corr)*zDur
		tasks := 1
		if rng.Float64() >= gSingleTaskFrac {
			tasks = min(gTasksMax, 1+int(math.Round(gTasksMedian*math.Exp(gTasksSigma*zTasks))))
		}
		typical := gDurMedian * math.Exp(gDurSigma*zDur)
		durRng, durMax := rng, gDurMax
		shortWide := g.ShortWide > 0 && knobs.Float64() < g.ShortWide
		if shortWide {
			tasks = min(gTasksMax, gSWTasksMin+int(math.Round(gSWTasksMedian*math.Exp(gSWTasksSigma*knobs.NormFloat64()))))
			typical = math.Min(gSWDurMax, gSWDurMedian*math.Exp(gSWDurSigma*knobs.NormFloat64()))
			durRng, durMax = knobs, gSWDurMax
		}
		req := googleRequest(rng)
		phases := 1
		switch u := rng.Float64(); {
		case u < gThreePhaseFrac:
			phases = 3
		case u < gThreePhaseFrac+gTwoPhaseFrac:
			phases = 2
		}
		if shortWide {
			phases = 1
		}
		n := tasks
		for k := range phases {
			if k > 0 {
				n = max(1, int(math.Round(float64(tasks)*(0.1+0.4*rng.Float64()))))
			}
			j.Phases = append(j.Phases, googlePhase(fmt.Sprintf("stage%d", k), n, req, typical, durMax, durRng))
		}
		offers = append(offers, jobOffer(&j, capacity))
		w.Jobs = append(w.Jobs, j)
	}
	if g.Apps > 0 {
		apps := w.Jobs
		w.Jobs, offers = make([]workload.Job, 0, g.Jobs), offers[:0]
		for i := range g.Jobs {
			j := recurring(apps[knobs.IntN(len(apps))], knobs)
			j.ID = fmt.Sprintf("g-%05d", i)
			offers = append(offers, jobOffer(&j, capacity))
			w.Jobs = append(w.Jobs, j)
		}
	}
	window := arrivalWindow(offers, capacity, g.Load)
	switch g.Arrivals {
	case ArrivalsBatch:
		for i := range w.Jobs {
			w.Jobs[i].Submit = 0
		}
	case ArrivalsBursts:
		burstArrivals(w.Jobs, window, g.Bursts, knobs)
	default:
		poissonArrivals(w.Jobs, window/float64(g.Jobs), rng)
	}
	return finish("djsf-google", w)
}

// googleRequest draws one task request: CPU, memory correlated with it, and
// disk, each rounded to a tidy unit.
func googleRequest(rng *rand.Rand) resource.Vector {
	zc, zm, zd := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
	zm = gMemCPUCorr*zc + math.Sqrt(1-gMemCPUCorr*gMemCPUCorr)*zm
	cpu := clamp(gCPUMedian*math.Exp(gCPUSigma*zc), 0.1, 8)
	mem := clamp(gMemMedian*math.Exp(gMemSigma*zm), 128, 32768)
	disk := clamp(gDiskMedian*math.Exp(gDiskSigma*zd), 16, 65536)
	var v resource.Vector
	v[resource.VCores] = int64(math.Round(cpu*20)) * resource.MilliPerVCore / 20 // 0.05 vcore
	v[resource.Memory] = int64(math.Round(mem/64)) * 64
	v[resource.Disk] = int64(math.Round(disk/16)) * 16
	return v
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// recurring returns a run of the application app: the same phases and
// requests, every task duration scaled by one factor for the run and one for
// the task, truncated as a drawn one would be.
func recurring(app workload.Job, rng *rand.Rand) workload.Job {
	j := app
	j.Name = "app-" + strings.TrimPrefix(app.ID, "g-")
	run := math.Exp(gAppSigma * rng.NormFloat64())
	j.Phases = make([]workload.Phase, len(app.Phases))
	for k, p := range app.Phases {
		ds := make([]clock.Duration, p.Tasks)
		for t := range ds {
			d := math.Min(gDurMax, p.Duration(t).Seconds()*run*math.Exp(gAppTaskSigma*rng.NormFloat64()))
			ds[t] = clock.Duration(math.Max(1, math.Round(d*1000))) * clock.Millisecond
		}
		p.Durations = ds
		j.Phases[k] = p
	}
	return j
}

// burstArrivals puts the jobs at n instants evenly spread over the window
// (the first at 0), each job at a uniformly drawn one, in job order.
func burstArrivals(jobs []workload.Job, window float64, n int, rng *rand.Rand) {
	at := make([]int, len(jobs))
	for i := range at {
		at[i] = rng.IntN(n)
	}
	slices.Sort(at)
	for i := range jobs {
		t, _ := clock.FromSeconds(math.Round(window*float64(at[i])/float64(n)*1000) / 1000)
		jobs[i].Submit = clock.Time(t)
	}
}

// googlePhase draws the durations of n tasks around a typical duration, each
// at most durMax seconds.
func googlePhase(name string, n int, req resource.Vector, typical, durMax float64, rng *rand.Rand) workload.Phase {
	ds := make([]clock.Duration, n)
	for i := range ds {
		d := math.Min(durMax, typical*math.Exp(gTaskSigma*rng.NormFloat64()))
		ds[i] = clock.Duration(math.Max(1, math.Round(d*1000))) * clock.Millisecond
	}
	return workload.Phase{Name: name, Tasks: n, Request: req, Durations: ds, StartAfter: 1}
}

// offer is what one job can load the cluster with: its total work and its
// peak demand (the most it can hold at once, at most the cluster), both in
// resource units, per dimension.
type offer struct {
	work, peak [resource.NumDims]float64
}

func jobOffer(j *workload.Job, capacity resource.Vector) offer {
	var o offer
	for _, p := range j.Phases {
		for t := range p.Tasks {
			d := p.Duration(t).Seconds()
			for dim := range o.work {
				o.work[dim] += d * float64(p.Request[dim])
			}
		}
		for dim := range o.peak {
			o.peak[dim] = math.Max(o.peak[dim], math.Min(float64(capacity[dim]), float64(p.Request[dim])*float64(p.Tasks)))
		}
	}
	return o
}

// arrivalWindow is the length W of the arrival window at which the work the
// jobs can offer within it, each at most its peak demand for W, equals load
// times the capacity over W, in the busiest dimension. In each dimension
// Σ min(work, peak·W) / W falls as W grows, from the total peak demand
// towards 0, so the root is found by bisection; W = 0 (all jobs at once) when
// even the total peak demand is below load times capacity.
func arrivalWindow(offers []offer, capacity resource.Vector, load float64) float64 {
	window := 0.0
	for d := range capacity {
		c := load * float64(capacity[d])
		if c <= 0 {
			continue
		}
		offered := func(w float64) float64 {
			sum := 0.0
			for _, o := range offers {
				sum += math.Min(o.work[d], o.peak[d]*w)
			}
			return sum / w
		}
		hi := 0.0
		for _, o := range offers {
			hi += o.work[d]
		}
		hi /= c
		if hi <= 0 {
			continue
		}
		lo := 0.0
		if offered(hi*1e-9) <= c {
			continue
		}
		for range 200 {
			mid := (lo + hi) / 2
			if offered(mid) > c {
				lo = mid
			} else {
				hi = mid
			}
		}
		window = math.Max(window, hi)
	}
	return window
}
