// Package djsf is the DJSF paper's evaluation (Hu and Li, Tsinghua Sci.
// Technol. 2022): SJF, Tetris (default and as packing plus shortest
// remaining work), DJSF and djsf+ against the baselines on djsf-google
// workloads, the paper's regime first, with oracle and history estimates
// and DJSF's k. Run simulates every setting, tables.go reduces the runs to
// the section's tables and quoted figures, and section.md.tmpl writes the
// text.
package djsf

import (
	"embed"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	djsfpolicy "github.com/spindle-sched/spindle/policy/djsf"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

//go:embed section.md.tmpl
var templates embed.FS

// The paper's headline numbers (Hu and Li 2022, abstract and Fig. 11).
const (
	paperJCTvsSJF        = -23.19 // % average JCT, DJSF against SJF
	paperThroughputVsSJF = 42.19  // % system throughput, DJSF against SJF
	paperEffVsTetris     = 55.4   // % job completion efficiency, DJSF's packing against Tetris
	paperEffTetris       = 0.0426 // jobs/s, Fig. 11
	paperEffDJSF         = 0.0662
)

// tetrisSRTF is Tetris as packing plus shortest remaining work: no
// fairness restriction and the remaining-work term weighed ten times the
// default, the strongest Tetris setting measured on these workloads.
const tetrisSRTF = "tetris:f=0,m=10"

var (
	estimating = []string{"sjf", "tetris", tetrisSRTF, "djsf", "djsf+"}
	baselines  = []string{"fifo", "fair", "drf", "capacity"}
	errorsRun  = []float64{0, 0.5}
	ks         = []int{1, 2, 3, 5, 10, 0}
	// curveTenths are the throughput-curve points (of metrics.CurvePoints,
	// evenly spaced up to the slowest run's makespan T) at 10, 20, 30 and
	// 50 % of T: fixed instants, the same for every policy of a seed.
	curveTenths = []int{1, 3, 5, 9}
)

// batchLoad compresses the Poisson arrivals of the same jobs into a burst
// of a minute or two, close to the batch the paper schedules.
const batchLoad = 10

// apps is how many recurring applications the history settings have.
const apps = 100

// setting is one workload setting.
type setting struct {
	label, flags string
	g            scenario.DJSFGoogle
	// history runs the estimating policies with oracle estimates at error
	// 0 and history estimates instead of the error sweep.
	history bool
	ks      bool // run the k sweep
}

func settings() []setting {
	def := scenario.DefaultDJSFGoogle
	def.Jobs = 1000
	paper := scenario.DJSFPaperPreset(def)
	bursts := paper
	bursts.Arrivals = scenario.ArrivalsBursts
	load10 := def
	load10.Load = batchLoad
	burstsApps, defApps := bursts, def
	burstsApps.Apps, defApps.Apps = apps, apps
	return []setting{
		{label: "Paper regime, batch", flags: "--preset paper", g: paper, ks: true},
		{label: "Paper regime, bursts", flags: "--preset paper --arrivals bursts", g: bursts, ks: true},
		{label: "Default, Poisson (load 1.5)", flags: "", g: def, ks: true},
		{label: "Default, burst (load 10)", flags: fmt.Sprintf("--load %d", batchLoad), g: load10, ks: true},
		{label: "Paper regime, bursts, recurring applications", flags: fmt.Sprintf("--preset paper --arrivals bursts --apps %d", apps), g: burstsApps, history: true},
		{label: "Default, Poisson, recurring applications", flags: fmt.Sprintf("--apps %d", apps), g: defApps, history: true},
	}
}

// main4 is how many of the settings come first, each with a full table;
// the others are the recurring-application settings. mainSetting is the
// default workload with Poisson arrivals, the target's setting.
const (
	main4       = 4
	mainSetting = 2
	burstLoad   = 3
)

// est is an estimate source and error.
type est struct {
	src string
	err float64
}

func (e est) String() string {
	if e.src == sim.EstimatesHistory {
		return "history"
	}
	return fmt.Sprintf("oracle, E = %g", e.err)
}

var (
	exact   = est{sim.EstimatesOracle, 0}
	noisy   = est{sim.EstimatesOracle, 0.5}
	history = est{sim.EstimatesHistory, 0}
)

func (c setting) estimates() []est {
	if c.history {
		return []est{{sim.EstimatesOracle, 0}, {sim.EstimatesHistory, 0}}
	}
	var out []est
	for _, e := range errorsRun {
		out = append(out, est{sim.EstimatesOracle, e})
	}
	return out
}

// run is one simulation of a comparison and what the tables need of it.
type run struct {
	policy string
	est    est
	sum    *metrics.Summary
	jobs   []metrics.Job
}

// kept is what the section keeps of a simulation (section.Simulate).
type kept struct {
	Summary *metrics.Summary   `json:"summary"`
	Jobs    []metrics.Job      `json:"jobs"`
	DJSF    *djsfpolicy.Report `json:"djsf,omitempty"`
}

func keep(_ int, o *runner.Outcome) (kept, error) {
	k := kept{Summary: section.Plain(o.Summary), Jobs: o.Jobs}
	if r, ok := o.Summary.Reports["djsf"].(djsfpolicy.Report); ok {
		k.DJSF = &r
	}
	return k, nil
}

// compare runs every (policy, estimate) pair on one workload and seed and
// puts their throughput on the common axis of the slowest run's makespan.
// A share of the cells (cfg.Partial) returns no runs.
func compare(cfg section.Config, w *workload.Workload, name string, seed uint64, pairs []run) ([]run, error) {
	specs := make([]runner.Spec, len(pairs))
	for i, p := range pairs {
		src := p.est.src
		if src == "" {
			src = sim.EstimatesOracle
		}
		specs[i] = runner.Spec{Workload: w, WorkloadName: name, Policy: p.policy, Seed: seed,
			Estimates: sim.Estimates{Source: src, Error: p.est.err}}
	}
	ks, err := section.Simulate(cfg, specs, keep, nil)
	if err != nil || cfg.Partial() {
		return nil, err
	}
	sums := make([]*metrics.Summary, len(ks))
	for i, k := range ks {
		s := k.Summary
		s.RestoreFinishes(k.Jobs)
		if k.DJSF != nil {
			s.Reports = map[string]any{"djsf": *k.DJSF}
		}
		sums[i] = s
		pairs[i].sum, pairs[i].jobs = s, k.Jobs
	}
	metrics.CompareRuns(sums)
	return pairs, nil
}

// runs is one setting's runs over every seed, by policy and estimate.
type runs struct {
	c     setting
	seeds int
	runs  map[string][]*metrics.Summary // key: policy|estimate
	// maxWaiting is the most jobs waiting for their first container at
	// once under SJF, E = 0, on the first seed.
	maxWaiting int
	// t50 and t90 are the times after the first submission by which half
	// and nine tenths of the jobs completed, per run.
	t50, t90 map[string][]float64
	// lastSubmit is the latest submission over the seeds, in seconds.
	lastSubmit float64
	// k holds DJSF's average JCT for each k of ks, per seed.
	k map[int][]float64
}

func key(pol string, e est) string { return pol + "|" + e.String() }

func (s *runs) get(pol string, e est) []*metrics.Summary { return s.runs[key(pol, e)] }

// simulate runs one setting: the baselines once (they use no estimate),
// the estimating policies under each estimate, and the k sweep.
func simulate(cfg section.Config, c setting) (*runs, error) {
	s := &runs{c: c, seeds: cfg.Seeds, runs: map[string][]*metrics.Summary{}, t50: map[string][]float64{}, t90: map[string][]float64{}, k: map[int][]float64{}}
	for seed := uint64(1); seed <= uint64(cfg.Seeds); seed++ {
		g := c.g
		g.Seed = seed
		w, err := g.Generate()
		if err != nil {
			return nil, err
		}
		for _, j := range w.Jobs {
			s.lastSubmit = math.Max(s.lastSubmit, j.Submit.Seconds())
		}
		var pairs []run
		if !c.history {
			for _, p := range baselines {
				pairs = append(pairs, run{policy: p, est: exact})
			}
		}
		for _, e := range c.estimates() {
			for _, p := range estimating {
				pairs = append(pairs, run{policy: p, est: e})
			}
		}
		if c.ks {
			for _, k := range ks {
				pairs = append(pairs, run{policy: fmt.Sprintf("djsf:k=%d", k), est: exact})
			}
		}
		fmt.Fprintf(cfg.Log, "djsf: %s, seed %d: %d runs\n", c.label, seed, len(pairs))
		name := strings.TrimSpace(fmt.Sprintf("djsf-google --jobs 1000 %s --seed %d", c.flags, seed))
		done, err := compare(cfg, w, name, seed, pairs)
		if err != nil {
			return nil, fmt.Errorf("djsf: %s, seed %d: %w", c.label, seed, err)
		}
		if cfg.Partial() {
			continue
		}
		for _, r := range done {
			if k, ok := strings.CutPrefix(r.policy, "djsf:k="); ok {
				var kv int
				fmt.Sscan(k, &kv)
				s.k[kv] = append(s.k[kv], section.Deref(r.sum.JCTAvgS))
				continue
			}
			kk := key(r.policy, r.est)
			s.runs[kk] = append(s.runs[kk], r.sum)
			s.t50[kk] = append(s.t50[kk], timeTo(r.jobs, 0.5))
			s.t90[kk] = append(s.t90[kk], timeTo(r.jobs, 0.9))
			if seed == 1 && r.policy == "sjf" && r.est == exact {
				s.maxWaiting = maxWaiting(r.jobs)
			}
		}
	}
	return s, nil
}

// bound is the mean JCT of each seed's jobs with no contention at all: the
// same workload on a cluster 100 times larger, so that every job runs as
// soon as it arrives, with the same heartbeats and launch delays. No policy
// can beat it on the real cluster.
func bound(cfg section.Config, g scenario.DJSFGoogle) ([]float64, error) {
	var specs []runner.Spec
	for seed := uint64(1); seed <= uint64(cfg.Seeds); seed++ {
		g.Seed = seed
		w, err := g.Generate()
		if err != nil {
			return nil, err
		}
		big := *w
		big.Cluster.Nodes = append([]workload.NodeGroup(nil), w.Cluster.Nodes...)
		for i := range big.Cluster.Nodes {
			big.Cluster.Nodes[i].Count *= 100
		}
		specs = append(specs, runner.Spec{Workload: &big, Policy: "fifo", Seed: seed})
	}
	jcts, err := section.Simulate(cfg, specs, func(_ int, o *runner.Outcome) (*float64, error) {
		return o.Summary.JCTAvgS, nil
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("djsf: no-contention bound: %w", err)
	}
	out := make([]float64, len(jcts))
	for i, j := range jcts {
		out[i] = section.Deref(j)
	}
	return out, nil
}

// Run performs the experiment and returns the section's markdown body.
func Run(cfg section.Config) (string, error) {
	cases := settings()
	sets := make([]*runs, len(cases))
	for i, c := range cases {
		s, err := simulate(cfg, c)
		if err != nil {
			return "", err
		}
		sets[i] = s
	}
	b, err := bound(cfg, sets[mainSetting].c.g)
	if err != nil || cfg.Partial() {
		return "", err
	}
	return section.Render(templates, "section.md.tmpl", tables(cfg.Seeds, sets, b), funcs)
}

// timeTo is the time after the first submission by which the fraction q
// of the jobs had completed (NaN if they never did).
func timeTo(jobs []metrics.Job, q float64) float64 {
	first := math.Inf(1)
	var fin []float64
	for _, j := range jobs {
		first = math.Min(first, j.Submit)
		if j.Finish != nil {
			fin = append(fin, *j.Finish)
		}
	}
	need := int(math.Ceil(q * float64(len(jobs))))
	if need == 0 || need > len(fin) {
		return math.NaN()
	}
	sort.Float64s(fin)
	return fin[need-1] - first
}

// maxWaiting is the largest number of jobs submitted and not yet running
// at any instant.
func maxWaiting(jobs []metrics.Job) int {
	type ev struct {
		t float64
		d int
	}
	var evs []ev
	for _, j := range jobs {
		evs = append(evs, ev{j.Submit, 1})
		if j.FirstStart != nil {
			evs = append(evs, ev{*j.FirstStart, -1})
		}
	}
	// Starts before submissions at the same instant: a job that starts
	// the moment it arrives never waits.
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].d < evs[b].d
	})
	n, most := 0, 0
	for _, e := range evs {
		n += e.d
		most = max(most, n)
	}
	return most
}
