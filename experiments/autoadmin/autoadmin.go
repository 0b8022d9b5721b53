package autoadmin

import (
	"embed"
	"fmt"
	"math"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

//go:embed section.md.tmpl
var templates embed.FS

// Run performs the experiment on the full plan and returns the section's
// markdown body.
func Run(cfg section.Config) (string, error) { return report(cfg, fullPlan) }

// report runs a plan and writes its section.
func report(cfg section.Config, plan runPlan) (string, error) {
	res, err := simulate(cfg, plan)
	if err != nil || cfg.Partial() {
		return "", err
	}
	return section.Render(templates, "section.md.tmpl", tables(cfg.Seeds, plan, res))
}

// basePolicy is the paper's baseline, YARN 2.2's Fair scheduler: memory-based
// fair share and no AM limit (maxAMShare came later). Node reservations are
// left out because static:<n> counts a killed AM reservation as a released
// AM (docs/autoadmin.md).
const basePolicy = "fair:max_am_share=-1"

// literal is the paper's rule as it states it: RRP and ARC in vcores, no
// deadlock guard.
const literal = "autoadmin:dims=vcores,guard=false"

// mainControllers are the three controllers of the main tables: the paper's literal
// rule, the default controller and autoadmin+.
var mainControllers = []struct{ spec, name string }{
	{literal, "literal"},
	{"autoadmin", "autoadmin"},
	{"autoadmin+", "autoadmin+"},
}

// controllers are scored against the best static point on every
// workload: the paper's literal rule, the default controller, each
// extension alone added to it, and autoadmin+.
var controllers = []struct{ spec, what string }{
	{literal, "the paper's literal rule: vcores only, no guard"},
	{"autoadmin", "the default: the paper's algorithm in vcores and memory, with the deadlock guard"},
	{"autoadmin:cold_start=true", "+ averages from declared requests while nothing runs"},
	{"autoadmin:floor=0", "− the 40 % floor"},
	{"autoadmin:floor=0,safe=true", "− the floor, + the deadlock bound"},
	{"autoadmin:hold_early=true", "+ reduces at slow-start held like AMs in the guard"},
	{"autoadmin:slots=true", "+ capacity in whole containers per node, one task beside each AM"},
	{"autoadmin:packing=true", "+ capacity as whole containers fill nodes (earlier autoadmin+)"},
	{"autoadmin:demand=true", "+ a job's task demand in place of one task (earlier autoadmin+)"},
	{"autoadmin+", "cold start, − floor + deadlock bound, whole containers, held reduces (the improved variant)"},
	{"autoadmin:scale_up=false", "− Eq. 3.3's scale-up (it cannot change a decision; see below)"},
	{perAM[0], "autoadmin+ with R_R ≥ Eq. 3.2 at 1.1 tasks beside each AM (fitted to the 16 settings; not adopted)"},
	{perAM[1], "autoadmin+ with R_R ≥ Eq. 3.2 at 1.3 tasks beside each AM, about what a terasort runs at once (not adopted)"},
	{backlog, "autoadmin+ admitting only while at most one task per node waits for allocation (not adopted: holds jobs back behind a large one)"},
}

// perAM are autoadmin+ with R_R kept at least at Eq. 3.2 with k tasks
// beside each AM: the experiment behind autoadmin+'s one loss to autoadmin
// (the Tasks per AM table).
var perAM = []string{"autoadmin+:tasks_per_am=1.1", "autoadmin+:tasks_per_am=1.3"}

// backlog is autoadmin+ that admits a job only while at most one task
// container per node waits for allocation (the Backlog section).
const backlog = "autoadmin+:backlog=true"

// limits are YARN's built-in AM limits, run without admission control.
var limits = []struct{ spec, what string }{
	{"fair:max_am_share=-1", "Fair, no AM limit (YARN 2.2)"},
	{"fair", "Fair, max_am_share 0.5 (memory)"},
	{"drf", "DRF, max_am_share 0.5 (every resource)"},
	{"capacity", "Capacity, max_am_percent 0.1"},
}

// The paper's numbers. Tables 3.1/3.2 and 4.1 are indexed [TC-1][AMC-1].
var (
	paperOptimum = [4][4]int{{32, 30, 27, 26}, {41, 34, 28, 27}, {46, 39, 32, 29}, {48, 40, 36, 32}}
	paperPredict = [4][4]int{{32, 22, 16, 13}, {43, 32, 26, 22}, {48, 39, 32, 31}, {52, 43, 37, 32}}
	paperFloored = [4][4]int{{32, 26, 26, 26}, {43, 32, 26, 26}, {48, 39, 32, 31}, {52, 43, 37, 32}}
	paperScore   = [4][4]float64{{90.4, 99.6, 89.3, 91.4}, {99.3, 95.6, 99.4, 91.7}, {97.6, 99.2, 96.9, 97.4}, {88.5, 90.5, 99.7, 98.5}}
	paperHetero  = [6]float64{100, 85.9, 94.2, 99.1, 90.6, 95.8}
)

// runPlan is what the report runs; tests run a smaller one.
type runPlan struct {
	Homogeneous [][2]int64 // (AMC, TC) in vcores
	Hetero      []int      // experiments of Table 4.2
	Reserves    []float64
	Jobs        int
	Burst       [2]int64 // the deadlock demonstration's (AMC, TC)
	Model       scenario.Model
	// BurstModel also runs the homogeneous settings in the burst model,
	// scoring autoadmin and autoadmin+ only.
	BurstModel bool
}

var fullPlan = func() runPlan {
	p := runPlan{Hetero: []int{1, 2, 3, 4, 5, 6}, Jobs: 72, Burst: [2]int64{2, 2}, Model: scenario.PaperModel, BurstModel: true}
	for tc := int64(1); tc <= 4; tc++ {
		for amc := int64(1); amc <= 4; amc++ {
			p.Homogeneous = append(p.Homogeneous, [2]int64{amc, tc})
		}
	}
	for r := 0; r <= 64; r++ {
		p.Reserves = append(p.Reserves, float64(r))
	}
	return p
}()

// workloadCase is one workload's results.
type workloadCase struct {
	label  string
	amc    int64 // 0 for the heterogeneous experiments
	tc     int64
	exp    int
	sweep  *StaticSweepResult
	limits []StaticPoint // by limits
}

// results are a plan's sweeps: the homogeneous settings in the plan's
// model and in the burst model, the heterogeneous experiments, and the
// deadlock demonstration's runs.
type results struct {
	homo, hetero, burstHomo []*workloadCase
	burst                   []burstRun
}

// simulate runs a plan.
func simulate(cfg section.Config, plan runPlan) (*results, error) {
	seeds := cfg.SeedList()
	var scored []string
	for _, c := range controllers {
		scored = append(scored, c.spec)
	}
	run := func(label string, w *workload.Workload, scored []string, withLimits bool) (*workloadCase, error) {
		fmt.Fprintf(cfg.Log, "autoadmin: %s\n", label)
		res, err := sweepCells(cfg, StaticSweepSpec{Workload: w, WorkloadName: label, Policy: basePolicy,
			Reserves: plan.Reserves, With: scored, Seeds: seeds, Parallel: cfg.Parallel})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		c := &workloadCase{label: label, sweep: res}
		for _, l := range limits {
			if !withLimits {
				break
			}
			p, err := runPolicy(cfg, w, label, l.spec, seeds)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", label, err)
			}
			c.limits = append(c.limits, p)
		}
		return c, nil
	}
	var homo, hetero, burstHomo []*workloadCase
	for _, s := range plan.Homogeneous {
		w, err := scenario.AutoAdminHomogeneous{AM: s[0], Task: s[1], Jobs: plan.Jobs, InputMB: 100, Model: plan.Model}.Generate()
		if err != nil {
			return nil, err
		}
		c, err := run(fmt.Sprintf("homogeneous AMC=%d TC=%d", s[0], s[1]), w, scored, true)
		if err != nil {
			return nil, err
		}
		c.amc, c.tc = s[0], s[1]
		homo = append(homo, c)
	}
	for _, s := range plan.Homogeneous {
		if !plan.BurstModel {
			break
		}
		w, err := scenario.AutoAdminHomogeneous{AM: s[0], Task: s[1], Jobs: plan.Jobs, InputMB: 100, Model: scenario.BurstModel}.Generate()
		if err != nil {
			return nil, err
		}
		c, err := run(fmt.Sprintf("homogeneous AMC=%d TC=%d, burst model", s[0], s[1]), w, append([]string{literal, "autoadmin", "autoadmin+", backlog}, perAM...), false)
		if err != nil {
			return nil, err
		}
		c.amc, c.tc = s[0], s[1]
		burstHomo = append(burstHomo, c)
	}
	for _, e := range plan.Hetero {
		w, err := scenario.AutoAdminHetero{Exp: e, Model: plan.Model}.Generate()
		if err != nil {
			return nil, err
		}
		c, err := run(fmt.Sprintf("heterogeneous Exp%d", e), w, scored, true)
		if err != nil {
			return nil, err
		}
		c.exp = e
		hetero = append(hetero, c)
	}
	burst, err := runBurst(cfg, plan, seeds)
	if err != nil {
		return nil, err
	}
	return &results{homo: homo, hetero: hetero, burstHomo: burstHomo, burst: burst}, nil
}

// runPolicy runs a workload under a policy without admission control, on
// every seed.
func runPolicy(cfg section.Config, w *workload.Workload, label, pol string, seeds []uint64) (StaticPoint, error) {
	p := StaticPoint{Admission: "none", Reserve: math.NaN(), JobsCompleted: math.MaxInt, JobsTotal: len(w.Jobs)}
	var specs []runner.Spec
	for _, s := range seeds {
		specs = append(specs, runner.Spec{Workload: w, WorkloadName: label, Policy: pol, Seed: s})
	}
	sums, err := section.Simulate(cfg, specs, plain, nil)
	if err != nil || cfg.Partial() {
		return p, err
	}
	for _, s := range sums {
		p.Makespans = append(p.Makespans, s.MakespanS)
		if s.Deadlocked {
			p.DeadlockedSeeds++
		}
		p.JobsCompleted = min(p.JobsCompleted, s.JobsCompleted)
	}
	return p, nil
}

// burstRun is one run of the deadlock demonstration.
type burstRun struct {
	policy, admission string
	sum               *metrics.Summary // seed 1
	deadlockedSeeds   int
}

func runBurst(cfg section.Config, plan runPlan, seeds []uint64) ([]burstRun, error) {
	w, err := scenario.AutoAdminHomogeneous{AM: plan.Burst[0], Task: plan.Burst[1], Jobs: plan.Jobs, InputMB: 100, Model: plan.Model}.Generate()
	if err != nil {
		return nil, err
	}
	var runs []burstRun
	var specs []runner.Spec
	for _, l := range limits {
		runs = append(runs, burstRun{policy: l.spec, admission: "none"})
	}
	for _, m := range mainControllers {
		runs = append(runs, burstRun{policy: basePolicy, admission: m.spec})
	}
	for _, r := range runs {
		for _, s := range seeds {
			specs = append(specs, runner.Spec{Workload: w, WorkloadName: "burst", Policy: r.policy, Admission: r.admission, Seed: s})
		}
	}
	sums, err := section.Simulate(cfg, specs, plain, nil)
	if err != nil || cfg.Partial() {
		return nil, err
	}
	for i, s := range sums {
		r := &runs[i/len(seeds)]
		if i%len(seeds) == 0 {
			r.sum = s
		}
		if s.Deadlocked {
			r.deadlockedSeeds++
		}
	}
	return runs, nil
}

// plain keeps a run's summary (section.Simulate), without reports.
func plain(_ int, o *runner.Outcome) (*metrics.Summary, error) { return section.Plain(o.Summary), nil }
