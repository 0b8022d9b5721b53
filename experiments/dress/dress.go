// Package dress is the DRESS paper's evaluation (Mao et al., §V): Capacity
// against DRESS, its ablations and dress+ on the paper's Spark, MapReduce
// and mixed workloads and on three it was not run on. Run simulates every
// setting, tables.go reduces the runs to the section's tables and quoted
// figures, and section.md.tmpl writes the text around them.
package dress

import (
	"embed"
	"fmt"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

//go:embed section.md.tmpl
var templates embed.FS

// setting is one of the paper's workloads with its reported small-job
// completion-time reduction (percent), or (beyond) one it was not run on.
type setting struct {
	label, kind string
	frac        float64
	paper       float64
	// beyond marks a workload outside the paper's setups: medium jobs
	// (medium > 0), heterogeneous containers, or the small-job stream.
	beyond bool
	medium float64
	hetero bool
	stream bool
}

var settings = []setting{
	{label: "Spark", kind: scenario.DRESSSpark, frac: 0.3, paper: 27.6},
	{label: "MapReduce", kind: scenario.DRESSMapReduce, frac: 0.3, paper: 25.7},
	{label: "Mixed, 10 % small", kind: scenario.DRESSMixed, frac: 0.1, paper: 76.1},
	{label: "Mixed, 20 % small", kind: scenario.DRESSMixed, frac: 0.2, paper: 36.2},
	{label: "Mixed, 30 % small", kind: scenario.DRESSMixed, frac: 0.3, paper: 21.9},
	{label: "Mixed, 40 % small", kind: scenario.DRESSMixed, frac: 0.4, paper: 23.7},
	{label: "Mixed, 30 % small, half the rest medium", kind: scenario.DRESSMixed, frac: 0.3, beyond: true, medium: 0.5},
	{label: "Mixed, 30 % small, heterogeneous containers", kind: scenario.DRESSMixed, frac: 0.3, beyond: true, hetero: true},
	{label: "Stream of small jobs", beyond: true, stream: true},
}

// paperSettings is how many of settings are the paper's; the three after
// them are the medium mix, the heterogeneous mix and the stream.
const (
	paperSettings = 6
	medium        = paperSettings
	hetero        = paperSettings + 1
	stream        = paperSettings + 2
)

// command is the generate command of the setting on a seed.
func (st setting) command(seed uint64) string {
	switch {
	case st.stream:
		return fmt.Sprintf("dress-stream --seed %d", seed)
	case st.medium > 0:
		return fmt.Sprintf("dress-%s --small-frac %v --medium-frac %v --seed %d", st.kind, st.frac, st.medium, seed)
	case st.hetero:
		return fmt.Sprintf("dress-%s --small-frac %v --hetero --seed %d", st.kind, st.frac, seed)
	}
	return fmt.Sprintf("dress-%s --small-frac %v --seed %d", st.kind, st.frac, seed)
}

func (st setting) generate(seed uint64) (*workload.Workload, error) {
	if st.stream {
		sc := scenario.DefaultDRESSStream
		sc.Seed = seed
		return sc.Generate()
	}
	sc := scenario.DefaultDRESS
	sc.Kind, sc.SmallFrac, sc.Seed, sc.MediumFrac, sc.Hetero = st.kind, st.frac, seed, st.medium, st.hetero
	return sc.Generate()
}

// policies are compared in every setting; the first is the baseline.
// mainPolicies make the main tables, baselines the table over every
// workload, estimates the estimator comparison; every policy but the
// baselines is in the sensitivity table.
var policies = []string{"capacity", "dress", "dress:estimator=off", "dress+", "fifo", "fair",
	"dress:delta_min=0.1", "dress:estimator=off,delta_min=0.1", "dress:interval=10s", "dress:horizon=10s",
	"dress:ts=2,te=2", "dress:classify=available",
	"dress:release=phase", "dress:release=const",
	"dress+:release=paper", "dress+:release=const", "dress+:estimator=off",
	"dress+:demand=all", "dress+:lend=off", "dress+:floor=0", "dress+:lend_am=on",
	"capacity:max_am_percent=0.5", "dress:max_am_percent=0.5", "dress+:max_am_percent=0.5",
	"dress+:max_am_percent=0.5,floor=0.4"}

// am50 are the stream's policies with a five times larger AM limit, under
// which the stream congests the cluster itself.
var am50 = []string{"capacity:max_am_percent=0.5", "dress:max_am_percent=0.5", "dress+:max_am_percent=0.5", "dress+:max_am_percent=0.5,floor=0.4"}

var (
	mainPolicies = []string{"capacity", "dress", "dress:estimator=off", "dress+"}
	baselines    = []string{"fifo", "capacity", "fair", "dress", "dress+"}
	estimates    = []string{"dress", "dress:release=phase", "dress:release=const"}
)

// index returns the index of a policy in policies.
func index(pol string) int {
	for i, p := range policies {
		if p == pol {
			return i
		}
	}
	panic("experiments/dress: policy " + pol + " is not run")
}

// why says what each sensitivity variant changes.
var why = map[string]string{
	"dress":                             "the faithful defaults",
	"dress:estimator=off":               "F ≡ 0: the ablation",
	"dress:delta_min=0.1":               "δ never below its initial 0.1",
	"dress:estimator=off,delta_min=0.1": "both: a fixed floor, no estimate",
	"dress:interval=10s":                "Algorithm 3 every pw instead of every second",
	"dress:horizon=10s":                 "releases predicted over pw instead of one interval",
	"dress:ts=2,te=2":                   "lower phase thresholds: more phases detected",
	"dress:classify=available":          "the paper's literal X = A_c",
	"dress:release=phase":               "releases from observed per-phase task durations",
	"dress:release=const":               "a constant 5 releases per second",
	"dress+":                            "dress+: usable demand, lending, floor 0.2, per-phase releases",
	"dress+:release=paper":              "dress+ with the paper's estimator",
	"dress+:release=const":              "dress+ with 5 releases per second",
	"dress+:estimator=off":              "dress+ with F ≡ 0",
	"dress+:demand=all":                 "dress+ counting AM-blocked jobs' demand",
	"dress+:lend=off":                   "dress+ with hard pools",
	"dress+:floor=0":                    "dress+ with no floor",
	"dress+:lend_am=on":                 "dress+ letting large jobs' AMs borrow",
}

// estimateName names each release estimate in its table.
var estimateName = map[string]string{"dress": "paper (Algorithms 1-2)", "dress:release=phase": "per-phase durations", "dress:release=const": "5 per second"}

// The paper's Table II (Spark-on-YARN), seconds: makespan, average wait,
// median wait, average JCT, median JCT.
var tableII = map[string][5]float64{
	"capacity": {1028.6, 310.1, 381.0, 570.1, 542.8},
	"dress":    {1035.2, 264.5, 190.3, 532.2, 325.1},
}

// paperMakespanSpark is the paper's makespan change of DRESS against
// Capacity on the Spark workload, in percent; it gives none for the others.
const paperMakespanSpark = 0.6

// Run performs the experiment and returns the section's markdown body.
func Run(cfg section.Config) (string, error) {
	runs, err := simulate(cfg)
	if err != nil || cfg.Partial() {
		return "", err
	}
	return section.Render(templates, "section.md.tmpl", tables(cfg.Seeds, runs))
}

// simulate runs every setting under every policy on every seed and returns
// the runs by setting, seed and policy.
func simulate(cfg section.Config) ([][][]run, error) {
	var specs []runner.Spec
	for _, st := range settings {
		for seed := uint64(1); seed <= uint64(cfg.Seeds); seed++ {
			w, err := st.generate(seed)
			if err != nil {
				return nil, fmt.Errorf("dress: %s seed %d: %w", st.label, seed, err)
			}
			name := st.command(seed)
			for _, p := range policies {
				specs = append(specs, runner.Spec{Workload: w, WorkloadName: name, Policy: p, Seed: seed})
			}
		}
	}
	fmt.Fprintf(cfg.Log, "dress: %d simulations\n", len(specs))
	kept, err := section.Simulate(cfg, specs, keep, nil)
	if err != nil {
		return nil, fmt.Errorf("dress: %w", err)
	}
	if cfg.Partial() {
		return nil, nil
	}
	runs := make([][][]run, len(settings))
	i := 0
	for s := range settings {
		runs[s] = make([][]run, cfg.Seeds)
		for k := range cfg.Seeds {
			for range policies {
				runs[s][k] = append(runs[s][k], figures(kept[i]))
				i++
			}
		}
	}
	return runs, nil
}
