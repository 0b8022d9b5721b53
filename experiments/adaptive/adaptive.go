// Package adaptive is the Reverse-Adaptive paper's evaluation (Adaptive
// MapReduce Scheduling in Shared Environments, IJERT NCRTS 2015): FIFO,
// the Adaptive Scheduler, Reverse-Adaptive and adaptive+ on its three
// experiments, the paper regime, estimates as users have them, burstiness,
// load, larger jobs and Reverse-Adaptive's parts. Run simulates every case,
// tables.go reduces the runs to the section's tables and quoted figures,
// and section.md.tmpl writes the text.
package adaptive

import (
	"embed"
	"fmt"
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	adaptivepolicy "github.com/spindle-sched/spindle/policy/adaptive"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

//go:embed section.md.tmpl
var templates embed.FS

// policies are the schemes of the main tables.
var policies = []string{"fifo", "adaptive", "reverse-adaptive", "adaptive+"}

// goalPolicies are the schemes that read estimates.
var goalPolicies = []string{"adaptive", "reverse-adaptive", "adaptive+"}

// estimates are the estimate sources of the estimates table: exact
// standalone runtimes (the declared ones), off by up to 30 %, and history.
var estimates = []struct {
	est  sim.Estimates
	what string
}{
	{sim.Estimates{}, "declared: the exact standalone runtime"},
	{sim.Estimates{Source: sim.EstimatesOracle, Error: 0.3}, "the standalone runtime × (1 + U[−0.3, 0.3])"},
	{sim.Estimates{Source: sim.EstimatesHistory}, "history: the mean runtime of earlier jobs of the same name (here every job, all being map-only)"},
}

// variants are Reverse-Adaptive's parts, each against the defaults.
var variants = []struct{ policy, why string }{
	{"adaptive", "s_req, no forecast (reference)"},
	{"reverse-adaptive", "the defaults: s_fit, room for the forecast peak over one cycle (10 s)"},
	{"reverse-adaptive:lookahead=0", "s_fit only: no room kept for the load to come"},
	{"reverse-adaptive:lookahead=60", "room for the forecast peak over 60 s, about a task's length"},
}

var (
	bursts    = []float64{0, 1, 3}
	loads     = []float64{0.3, 0.4, 0.5, 0.6}
	forecasts = []float64{0.2, 0.5}
)

// bigTasks is the mean tasks per job of the larger-jobs experiment.
const bigTasks = 160

// setting is one workload of the report: an experiment of the
// adaptive-shared generator with its MapReduce load and burstiness.
type setting struct {
	exp         int
	load, burst float64
	tasks       float64 // mean tasks per job; 0 for the default
	preset      string  // generator preset; "" for today's
}

func (s setting) workload(seed uint64) (*workload.Workload, error) {
	a, err := scenario.AdaptivePreset(s.preset)
	if err != nil {
		return nil, err
	}
	a.Exp, a.Load, a.Burstiness, a.Seed = s.exp, s.load, s.burst, seed
	if s.tasks > 0 {
		a.TasksMean = s.tasks
	}
	return a.Generate()
}

// label names an experiment in the tables.
func label(exp int) string {
	switch exp {
	case 1:
		return "1: MapReduce only"
	case 2:
		return "2: diurnal load"
	}
	return fmt.Sprintf("3: bursty load, B = %g", scenario.DefaultAdaptiveShared.Burstiness)
}

// settings are the workloads: today's three experiments, the same on the
// paper preset and with larger jobs, and the ablation's two.
type settings struct {
	exps, paper, bigs, ablation []setting
}

func allSettings() settings {
	def := scenario.DefaultAdaptiveShared
	var s settings
	s.exps = []setting{{1, def.Load, 0, 0, ""}, {2, def.Load, 0, 0, ""}, {3, def.Load, def.Burstiness, 0, ""}}
	for _, e := range s.exps {
		e.preset = "paper"
		s.paper = append(s.paper, e)
	}
	for _, e := range s.exps {
		e.tasks = bigTasks
		s.bigs = append(s.bigs, e)
	}
	s.ablation = []setting{s.exps[1], s.exps[2]}
	return s
}

func burstSetting(b float64) setting {
	return setting{3, scenario.DefaultAdaptiveShared.Load, b, 0, ""}
}
func loadSetting(l float64) setting { return setting{2, l, 0, 0, ""} }

// simCase is one simulation: a setting, a policy, a forecast error, a seed.
type simCase struct {
	set      setting
	policy   string
	forecast float64 // relative error of the load forecast
	est      sim.Estimates
	seed     uint64
}

// out is what the report keeps of a run.
type out struct {
	met, lateAvg, lateP95, util float64
	unmet, demand               float64 // vcore-s: external demand unmet, and all of it over the run
	est                         []adaptivepolicy.Estimate
	completed, total            int
}

// key groups runs over seeds.
type key struct {
	set      setting
	policy   string
	forecast float64
	est      sim.Estimates
}

// cases lists every simulation of the report.
func cases(ss settings, seeds []uint64) []simCase {
	def := scenario.DefaultAdaptiveShared
	var cs []simCase
	addEst := func(s setting, pol string, fe float64, est sim.Estimates) {
		for _, seed := range seeds {
			cs = append(cs, simCase{s, pol, fe, est, seed})
		}
	}
	add := func(s setting, pol string, fe float64) { addEst(s, pol, fe, sim.Estimates{}) }
	for _, s := range ss.paper {
		for _, p := range policies {
			add(s, p, 0)
		}
	}
	for _, s := range append(ss.exps[1:], ss.paper[1:]...) {
		for _, e := range estimates[1:] {
			for _, p := range goalPolicies {
				addEst(s, p, 0, e.est)
			}
		}
	}
	for _, s := range ss.exps {
		for _, p := range policies {
			add(s, p, 0)
		}
	}
	for _, b := range bursts {
		if b != def.Burstiness {
			for _, p := range policies {
				add(burstSetting(b), p, 0)
			}
		}
	}
	for _, l := range loads {
		if l != def.Load {
			for _, p := range policies {
				add(loadSetting(l), p, 0)
			}
		}
	}
	for _, s := range ss.bigs {
		for _, p := range policies {
			add(s, p, 0)
		}
	}
	for _, s := range ss.ablation {
		for _, v := range variants[2:] {
			add(s, v.policy, 0)
		}
		for _, fe := range forecasts {
			add(s, "reverse-adaptive", fe)
		}
	}
	return cs
}

// Run performs the experiment and returns the section's markdown body.
func Run(cfg section.Config) (string, error) {
	ss := allSettings()
	cs := cases(ss, cfg.SeedList())
	fmt.Fprintf(cfg.Log, "adaptive: %d simulations\n", len(cs))
	outs, err := runAll(cfg, cs)
	if err != nil || cfg.Partial() {
		return "", err
	}
	res := results{}
	for i, c := range cs {
		k := key{c.set, c.policy, c.forecast, c.est}
		res[k] = append(res[k], outs[i])
	}
	return section.Render(templates, "section.md.tmpl", tables(cfg.Seeds, ss, res))
}

// kept is what the section keeps of a simulation (section.Simulate): the
// summary and, for the goal-driven schemes, their completion projections.
type kept struct {
	Summary   *metrics.Summary          `json:"summary"`
	Estimates []adaptivepolicy.Estimate `json:"estimates,omitempty"`
}

// runAll runs every case, at most cfg.Parallel at once; the outcomes are
// in case order and do not depend on the parallelism. A share of the
// cases (cfg.Partial) returns no outcomes.
func runAll(cfg section.Config, cases []simCase) ([]out, error) {
	// Workloads are shared by the policies of a setting and seed.
	type wkey struct {
		set  setting
		seed uint64
	}
	wls := map[wkey]*workload.Workload{}
	specs := make([]runner.Spec, len(cases))
	for i, c := range cases {
		k := wkey{c.set, c.seed}
		if wls[k] == nil {
			w, err := c.set.workload(c.seed)
			if err != nil {
				return nil, err
			}
			wls[k] = w
		}
		name := fmt.Sprintf("adaptive-shared exp %d load %g B %g tasks %g seed %d", c.set.exp, c.set.load, c.set.burst, c.set.tasks, c.seed)
		specs[i] = runner.Spec{Workload: wls[k], WorkloadName: name, Policy: c.policy, Seed: c.seed, ForecastError: c.forecast, Estimates: c.est}
	}
	ks, err := section.Simulate(cfg, specs, func(i int, o *runner.Outcome) (kept, error) {
		k := kept{Summary: section.Plain(o.Summary)}
		if p, ok := o.Result.Policy.(*adaptivepolicy.Policy); ok {
			k.Estimates = p.Estimates()
		}
		if o.Summary.Deadlocked {
			c := cases[i]
			return k, fmt.Errorf("exp %d, %s, seed %d: deadlocked with %d jobs stuck", c.set.exp, c.policy, c.seed, len(o.Summary.StuckJobs))
		}
		return k, nil
	}, nil)
	if err != nil || cfg.Partial() {
		return nil, err
	}
	outs := make([]out, len(cases))
	for i, c := range cases {
		if outs[i], err = reduce(wls[wkey{c.set, c.seed}], ks[i]); err != nil {
			return nil, fmt.Errorf("exp %d, %s, seed %d: %w", c.set.exp, c.policy, c.seed, err)
		}
	}
	return outs, nil
}

// reduce is what the report keeps of a run on w: goals met, lateness,
// utilisation, the external demand unmet and all of it over the run.
func reduce(w *workload.Workload, k kept) (out, error) {
	sum := k.Summary
	o := out{util: sum.UtilizationAvg, completed: sum.JobsCompleted, total: sum.JobsTotal, est: k.Estimates}
	if sum.DeadlineMetFrac != nil {
		o.met = *sum.DeadlineMetFrac
	}
	if sum.LatenessAvgS != nil {
		o.lateAvg, o.lateP95 = *sum.LatenessAvgS, *sum.LatenessP95S
	}
	if sum.ExternalUnmet != nil {
		o.unmet = sum.ExternalUnmet.VCoreS
	}
	if l := w.Cluster.ExternalLoad; l != nil {
		pts := make([]cluster.LoadPoint, len(l.Points))
		for i, p := range l.Points {
			pts[i] = cluster.LoadPoint{At: p.At, Frac: p.Frac}
		}
		curve, err := cluster.NewLoadCurve(pts, l.Period)
		if err != nil {
			return out{}, err
		}
		end := clock.Time(math.Round(sum.MakespanS * float64(clock.Second)))
		o.demand = curve.Integral(0, end) * w.Cluster.Capacity().VCoresFloat()
	}
	return o, nil
}
