package experiments

import (
	"fmt"
	"math"
	"strings"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/scenario"
)

func init() {
	register(Experiment{Name: "dress", Title: "DRESS: reserving resources for small jobs",
		Summary: "DRESS §V: Capacity vs DRESS vs DRESS without its estimator on the Spark, MapReduce and mixed workloads",
		Run:     runDRESS})
}

// dressSetting is one of the paper's workloads with its reported small-job
// completion-time reduction (percent).
type dressSetting struct {
	label, kind string
	frac        float64
	paper       float64
}

var dressSettings = []dressSetting{
	{"Spark", scenario.DRESSSpark, 0.3, 27.6},
	{"MapReduce", scenario.DRESSMapReduce, 0.3, 25.7},
	{"Mixed, 10 % small", scenario.DRESSMixed, 0.1, 76.1},
	{"Mixed, 20 % small", scenario.DRESSMixed, 0.2, 36.2},
	{"Mixed, 30 % small", scenario.DRESSMixed, 0.3, 21.9},
	{"Mixed, 40 % small", scenario.DRESSMixed, 0.4, 23.7},
}

// dressPolicies are compared in every setting; the first is the baseline.
// The first three make the main tables; the others the sensitivity table.
var dressPolicies = []string{"capacity", "dress", "dress:estimator=off",
	"dress:delta_min=0.1", "dress:estimator=off,delta_min=0.1", "dress:interval=10s", "dress:horizon=10s",
	"dress:ts=2,te=2", "dress:classify=available"}

// dressMain is how many of dressPolicies the main tables show.
const dressMain = 3

// dressWhy says what each sensitivity variant changes.
var dressWhy = map[string]string{
	"dress":                             "the faithful defaults",
	"dress:estimator=off":               "F ≡ 0: the ablation",
	"dress:delta_min=0.1":               "δ never below its initial 0.1",
	"dress:estimator=off,delta_min=0.1": "both: a fixed floor, no estimate",
	"dress:interval=10s":                "Algorithm 3 every pw instead of every second",
	"dress:horizon=10s":                 "releases predicted over pw instead of one interval",
	"dress:ts=2,te=2":                   "lower phase thresholds: more phases detected",
	"dress:classify=available":          "the paper's literal X = A_c",
}

// The paper's Table II (Spark-on-YARN), seconds.
var dressTableII = map[string][5]float64{
	"capacity": {1028.6, 310.1, 381.0, 570.1, 542.8},
	"dress":    {1035.2, 264.5, 190.3, 532.2, 325.1},
}

// dressRun is one simulation's figures.
type dressRun struct {
	makespan, waitAvg, waitMed, jctAvg, jctMed float64
	smallJCT, largeJCT, smallWait              float64
	jct                                        map[string]float64 // small jobs' JCT by id
	acc                                        *dress.Report
	completed, total                           int
}

// dressCompare is a policy against Capacity on one workload, in percent.
type dressCompare struct {
	perJob   float64 // mean over small jobs of their JCT reduction (the paper's figure)
	ofAvg    float64 // reduction of the small jobs' average JCT
	makespan float64 // makespan change
	large    float64 // large jobs' average JCT change
}

func runDRESS(cfg Config) (string, error) {
	var specs []runner.Spec
	for _, st := range dressSettings {
		for seed := uint64(1); seed <= uint64(cfg.Seeds); seed++ {
			sc := scenario.DefaultDRESS
			sc.Kind, sc.SmallFrac, sc.Seed = st.kind, st.frac, seed
			w, err := sc.Generate()
			if err != nil {
				return "", fmt.Errorf("dress: %s seed %d: %w", st.label, seed, err)
			}
			name := fmt.Sprintf("dress-%s --small-frac %v --seed %d", st.kind, st.frac, seed)
			for _, p := range dressPolicies {
				specs = append(specs, runner.Spec{Workload: w, WorkloadName: name, Policy: p, Seed: seed})
			}
		}
	}
	fmt.Fprintf(cfg.Log, "dress: %d simulations\n", len(specs))
	outs, err := runner.RunAll(specs, cfg.Parallel, nil)
	if err != nil {
		return "", fmt.Errorf("dress: %w", err)
	}
	// runs[setting][seed][policy]
	runs := make([][][]dressRun, len(dressSettings))
	i := 0
	for s := range dressSettings {
		runs[s] = make([][]dressRun, cfg.Seeds)
		for k := range cfg.Seeds {
			for range dressPolicies {
				runs[s][k] = append(runs[s][k], dressFigures(outs[i]))
				i++
			}
		}
	}
	return dressMarkdown(cfg, runs), nil
}

func dressFigures(o *runner.Outcome) dressRun {
	s := o.Summary
	r := dressRun{makespan: s.MakespanS, waitAvg: deref(s.WaitAvgS), waitMed: deref(s.WaitMedianS),
		jctAvg: deref(s.JCTAvgS), jctMed: deref(s.JCTMedianS),
		smallJCT: deref(s.Categories[metrics.Small].JCTAvg), largeJCT: deref(s.Categories[metrics.Large].JCTAvg),
		smallWait: deref(s.Categories[metrics.Small].WaitAvg),
		jct:       map[string]float64{}, completed: s.JobsCompleted, total: s.JobsTotal}
	for _, j := range o.Jobs {
		if j.Category == metrics.Small && j.JCT != nil {
			r.jct[j.ID] = *j.JCT
		}
	}
	if rep, ok := s.Reports["dress"].(dress.Report); ok {
		r.acc = &rep
	}
	return r
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func compareDRESS(base, r dressRun) dressCompare {
	c := dressCompare{
		ofAvg:    100 * (1 - r.smallJCT/base.smallJCT),
		makespan: 100 * (r.makespan/base.makespan - 1),
		large:    100 * (r.largeJCT/base.largeJCT - 1),
	}
	sum, n := 0.0, 0
	for id, b := range base.jct {
		if x, ok := r.jct[id]; ok && b > 0 {
			sum += 1 - x/b
			n++
		}
	}
	c.perJob = math.NaN()
	if n > 0 {
		c.perJob = 100 * sum / float64(n)
	}
	return c
}

// dressMean averages f over seeds.
func dressMean(n int, f func(k int) float64) float64 {
	s := 0.0
	for k := range n {
		s += f(k)
	}
	return s / float64(n)
}

func dressRange(n int, f func(k int) float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for k := range n {
		lo, hi = math.Min(lo, f(k)), math.Max(hi, f(k))
	}
	return lo, hi
}

func dressMarkdown(cfg Config, runs [][][]dressRun) string {
	n := cfg.Seeds
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("Regenerate with `go run ./cmd/spindle experiments dress` (seeds 1 to %d; `--seeds N` for more). "+
		"Each setting is `spindle generate dress-KIND [--small-frac F] --seed S` simulated with `--seed S` "+
		"under `capacity`, `dress` and `dress:estimator=off`, for S = 1 to %d; every figure is the mean over those seeds. "+
		"The model behind the workloads is in `spindle generate dress-mixed --help` and docs/dress.md.\n\n", n, n)

	p("### Table II columns\n\nSeconds, means over seeds. The paper's rows are its Spark-on-YARN run (Table II); it gives no such table for the other workloads.\n\n")
	p("| workload | policy | makespan | avg wait | median wait | avg JCT | median JCT | jobs done |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for s, st := range dressSettings {
		if st.kind == scenario.DRESSSpark {
			for _, pol := range []string{"capacity", "dress"} {
				t := dressTableII[pol]
				p("| %s | **paper**: %s | %.1f | %.1f | %.1f | %.1f | %.1f | 20/20 |\n", st.label, pol, t[0], t[1], t[2], t[3], t[4])
			}
		}
		for q, pol := range dressPolicies[:dressMain] {
			f := func(get func(r dressRun) float64) float64 {
				return dressMean(n, func(k int) float64 { return get(runs[s][k][q]) })
			}
			done, total := 0, 0
			for k := range n {
				done += runs[s][k][q].completed
				total += runs[s][k][q].total
			}
			p("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %d/%d |\n", st.label, pol,
				f(func(r dressRun) float64 { return r.makespan }), f(func(r dressRun) float64 { return r.waitAvg }),
				f(func(r dressRun) float64 { return r.waitMed }), f(func(r dressRun) float64 { return r.jctAvg }),
				f(func(r dressRun) float64 { return r.jctMed }), done, total)
		}
	}

	p("\n### Small jobs\n\nSmall-job completion-time reduction against Capacity, in percent. *Per job* is the paper's figure: " +
		"the mean over small jobs of each one's reduction (its 76.1 %% is the mean of jobs 6 and 8). *Of the average* compares the small jobs' average JCT. " +
		"The last columns are the price: the change in makespan and in the large jobs' average JCT (positive is worse).\n\n")
	p("| workload | paper, per job | dress, per job (seed range) | dress, of the average | no estimator, per job | dress makespan | dress large JCT | paper makespan |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for s, st := range dressSettings {
		cmp := func(q int) func(k int) dressCompare {
			return func(k int) dressCompare { return compareDRESS(runs[s][k][0], runs[s][k][q]) }
		}
		d, off := cmp(1), cmp(2)
		lo, hi := dressRange(n, func(k int) float64 { return d(k).perJob })
		paperMS := "–"
		if st.kind == scenario.DRESSSpark {
			paperMS = "+0.6 %"
		}
		p("| %s | %.1f %% | %.1f %% (%.1f to %.1f) | %.1f %% | %.1f %% | %+.1f %% | %+.1f %% | %s |\n", st.label, st.paper,
			dressMean(n, func(k int) float64 { return d(k).perJob }), lo, hi,
			dressMean(n, func(k int) float64 { return d(k).ofAvg }),
			dressMean(n, func(k int) float64 { return off(k).perJob }),
			dressMean(n, func(k int) float64 { return d(k).makespan }),
			dressMean(n, func(k int) float64 { return d(k).large }), paperMS)
	}

	p("\n### Target: seed 1 of the mixed workloads\n\nThe issue's target: on `generate dress-mixed --small-frac F --seed 1`, " +
		"a small-job JCT reduction of at least 20 %% against Capacity with a makespan no more than 5 %% worse, for every F.\n\n")
	p("| F | dress, per job | dress, of the average | makespan change | met |\n|---|---:|---:|---:|---|\n")
	for s, st := range dressSettings {
		if st.kind != scenario.DRESSMixed {
			continue
		}
		c := compareDRESS(runs[s][0][0], runs[s][0][1])
		met := "yes"
		if c.perJob < 20 || c.ofAvg < 20 || c.makespan > 5 {
			met = "**no**"
		}
		p("| %.1f | %.1f %% | %.1f %% | %+.1f %% | %s |\n", st.frac, c.perJob, c.ofAvg, c.makespan, met)
	}

	p("\n### The release estimator and δ\n\nFor every adjustment interval (1 s) of `dress`, the task containers the estimator " +
		"predicted to be released over the next interval against those observed COMPLETED in it, over the intervals when tasks ran " +
		"(the `dress.estimator_accuracy` section of `simulate --json`). *Zero* is the error of predicting no release at all, " +
		"*last* that of predicting the previous interval's releases. Containers per interval; δ is time-averaged.\n\n")
	p("| workload | intervals | MAE | MAE, zero | MAE, last | predicted | actual | mean δ | max δ |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for s, st := range dressSettings {
		acc := func(get func(a *dress.Report) float64) float64 {
			return dressMean(n, func(k int) float64 {
				if a := runs[s][k][1].acc; a != nil {
					return get(a)
				}
				return math.NaN()
			})
		}
		p("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f |\n", st.label,
			acc(func(a *dress.Report) float64 { return float64(a.Accuracy.Intervals) }),
			acc(func(a *dress.Report) float64 { return a.Accuracy.MAE }),
			acc(func(a *dress.Report) float64 { return a.Accuracy.MAEZero }),
			acc(func(a *dress.Report) float64 { return a.Accuracy.MAEPersistence }),
			acc(func(a *dress.Report) float64 { return a.Accuracy.PredictedMean }),
			acc(func(a *dress.Report) float64 { return a.Accuracy.ActualMean }),
			acc(func(a *dress.Report) float64 { return a.Delta.Mean }),
			acc(func(a *dress.Report) float64 { return a.Delta.Max }))
	}

	// Sensitivity: every variant against Capacity over all settings.
	agg := map[string]dressAgg{}
	for q := 1; q < len(dressPolicies); q++ {
		var cs []dressCompare
		for s := range dressSettings {
			for k := range n {
				cs = append(cs, compareDRESS(runs[s][k][0], runs[s][k][q]))
			}
		}
		get := func(f func(c dressCompare) float64) func(int) float64 { return func(i int) float64 { return f(cs[i]) } }
		a := dressAgg{
			perJob:   dressMean(len(cs), get(func(c dressCompare) float64 { return c.perJob })),
			ofAvg:    dressMean(len(cs), get(func(c dressCompare) float64 { return c.ofAvg })),
			makespan: dressMean(len(cs), get(func(c dressCompare) float64 { return c.makespan })),
			large:    dressMean(len(cs), get(func(c dressCompare) float64 { return c.large })),
		}
		_, a.worst = dressRange(len(cs), get(func(c dressCompare) float64 { return c.makespan }))
		agg[dressPolicies[q]] = a
	}
	p("\n### Sensitivity\n\nEach variant against Capacity over all six workloads and %d seeds (%d runs each): "+
		"the small jobs' JCT reduction (per job and of the average), the makespan change (mean and worst) and the large jobs' JCT change.\n\n", n, n*len(dressSettings))
	p("| policy | what changes | small, per job | small, of the average | makespan | worst makespan | large JCT |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, pol := range dressPolicies[1:] {
		a := agg[pol]
		p("| `%s` | %s | %.1f %% | %.1f %% | %+.1f %% | %+.1f %% | %+.1f %% |\n", pol, dressWhy[pol], a.perJob, a.ofAvg, a.makespan, a.worst, a.large)
	}
	p("\n%s\n", dressDiscussion(runs, agg, n))
	return b.String()
}

// dressAgg is a variant against Capacity over every setting and seed.
type dressAgg struct{ perJob, ofAvg, makespan, worst, large float64 }

// dressDiscussion explains where and why the reproduction differs from the
// paper, quoting the figures just computed.
func dressDiscussion(runs [][][]dressRun, agg map[string]dressAgg, n int) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	spark := func(q int, get func(r dressRun) float64) float64 {
		return dressMean(n, func(k int) float64 { return get(runs[0][k][q]) })
	}
	wait := func(r dressRun) float64 { return r.waitAvg }
	med := func(r dressRun) float64 { return r.waitMed }
	ms := func(r dressRun) float64 { return r.makespan }
	// Over every setting and seed: small jobs' average wait, and the
	// estimator's error against the two yardsticks.
	var smallWait [2]float64
	lo, hi, worseThanLast := math.Inf(1), math.Inf(-1), 0
	cells := 0
	for s := range runs {
		for k := range n {
			smallWait[0] += runs[s][k][0].smallWait
			smallWait[1] += runs[s][k][1].smallWait
			cells++
			if a := runs[s][k][1].acc; a != nil && a.Accuracy.MAEZero > 0 {
				r := 1 - a.Accuracy.MAE/a.Accuracy.MAEZero
				lo, hi = math.Min(lo, r), math.Max(hi, r)
				if a.Accuracy.MAE > a.Accuracy.MAEPersistence {
					worseThanLast++
				}
			}
		}
	}
	d, off, floor, floorOff, avail := agg["dress"], agg["dress:estimator=off"], agg["dress:delta_min=0.1"],
		agg["dress:estimator=off,delta_min=0.1"], agg["dress:classify=available"]
	p("### What reproduces and what does not\n\n")
	p("**The setup.** The paper gives the cluster, the job count and spacing and the benchmarks, not the input sizes or task "+
		"lengths. The generators fill them in from HiBench and Hadoop defaults; one scale, the large jobs' input range, was set so "+
		"that Capacity on the Spark workload is as congested as the paper's Capacity row (here %.0f s makespan and %.0f s average "+
		"wait, against 1028.6 s and 310.1 s). It was never set against DRESS's results.\n\n", spark(0, ms), spark(0, wait))
	p("**The claim reproduces.** DRESS cuts small jobs' completion times on every workload while the makespan stays put: "+
		"%+.1f %% on average and %+.1f %% at worst over all runs (the paper: +0.6 %%). Large jobs pay %+.1f %% on average; the paper "+
		"reports a few large jobs delayed by 6 to 32 %%. On the Spark workload DRESS cuts the median wait from %.0f s to %.0f s "+
		"(the paper: 381.0 s to 190.3 s) and the average wait from %.0f s to %.0f s (310.1 s to 264.5 s).\n\n",
		d.makespan, d.worst, d.large, spark(0, med), spark(1, med), spark(0, wait), spark(1, wait))
	p("**Our reductions are larger than the paper's**, %.1f %% per job over all runs against its 21.9 to 36.2 %% outside the "+
		"10 %% mixed run (where it reports 76.1 %%). Reasons, by weight: (1) the per-job mean counts every small job, and in the "+
		"paper's runs several small jobs arrived while the cluster was still idle and gained little (its Spark jobs 4 and 5, "+
		"among the first six that ran at once); where small jobs land matters, as the seed ranges show; (2) under DRESS our small jobs barely wait, %.0f s "+
		"on average against %.0f s under Capacity, as the reserved pool is sized to their demand when they arrive, while the "+
		"paper's still waited (its job 7: 28.9 s); (3) a "+
		"simulated ApplicationMaster or Spark driver is up in about a second, a real one in tens of seconds, so a small job's "+
		"completion time has a lower floor here and the same wait saved is a larger share of it; (4) each paper figure is one run, "+
		"ours are means over %d seeds of reconstructed workloads.\n\n", d.perJob, smallWait[1]/float64(cells), smallWait[0]/float64(cells), n)
	p("**The estimator is what makes the reservation cheap.** Without it (`estimator=off`) small jobs fare %s: %.1f %% per "+
		"job, %.1f %% of the average. Algorithm 3 shrinks δ to its floor whenever no small job is pending (line 8 gives away even what small jobs are "+
		"about to release), and in a congested cluster the only way back up is the leftover of lines 21-24, which without F is "+
		"what is free at the adjustment: next to nothing, since every release is handed out at once. Small jobs then wait until "+
		"the large jobs' backlog clears. With the estimator, the releases predicted for large jobs are that leftover, and a "+
		"small job's demand moves into its pool as soon as large jobs are about to free it. A fixed floor protects small jobs too "+
		"(`delta_min=0.1`: %.1f %%, or %.1f %% without the estimator) but the reserved pool idles and the makespan grows %+.1f %%; "+
		"the estimator gets the same protection for %+.1f %%.\n\n",
		map[bool]string{true: "worse than under Capacity", false: "much worse than with it"}[off.perJob < 0], off.perJob, off.ofAvg,
		floor.perJob, floorOff.perJob, floor.makespan, d.makespan)
	p("**Its accuracy** (the table above): the error is %.0f to %.0f %% smaller than that of predicting no releases, but in %d "+
		"of %d runs larger than that of predicting the last interval's releases. Equation 9 predicts only phases whose release has begun "+
		"(Algorithm 2 needs more than t_e completions within pw before it sets γ), so the first releases of every phase are "+
		"missed and the predictions fall short of the actual releases on average. Algorithm 3 needs only the coming releases of "+
		"phases already under way, which is what it gets.\n\n", 100*lo, 100*hi, worseThanLast, cells)
	p("**The paper's literal classification** (`classify=available`, X = A_c) makes almost every job large in a congested "+
		"cluster, where little is free when a job arrives, and DRESS then behaves like Capacity: %.1f %% per job. That is why "+
		"the default compares demand with the whole cluster (DESIGN §5), which is also the paper's own reading of \"small\" "+
		"(fewer than 10 containers) in its evaluation.", avail.perJob)
	return b.String()
}
