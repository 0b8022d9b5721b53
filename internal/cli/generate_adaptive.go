package cli

import (
	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/scenario"
)

func newGenerateAdaptiveShared() *cobra.Command {
	a := scenario.DefaultAdaptiveShared
	var out, preset string
	period, interval := a.Period.Seconds(), a.BurstInterval.Seconds()
	var slackMin, slackMax float64
	cmd := &cobra.Command{
		Use:   "adaptive-shared --exp N [--preset today|paper] [--burstiness B] [--seed S] -o FILE",
		Short: "MapReduce jobs with goals on machines shared with a transactional load (the Reverse-Adaptive paper's experiments)",
		Long:  scenario.AdaptiveSharedModel + "\n\n" + scenario.AdaptivePaperPreset,
		Example: `  spindle generate adaptive-shared --exp 2 --seed 1 -o exp2.json
  spindle compare -w exp2.json -p fifo,adaptive,reverse-adaptive
  spindle generate adaptive-shared --exp 3 --burstiness 3 -o exp3.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			var ok bool
			if a.Period, ok = clock.FromSeconds(period); !ok {
				return usagef("--period: %v is not a number of seconds", period)
			}
			if a.BurstInterval, ok = clock.FromSeconds(interval); !ok {
				return usagef("--burst-interval: %v is not a number of seconds", interval)
			}
			if a.SlackMin, ok = clock.FromSeconds(slackMin); !ok {
				return usagef("--slack-min: %v is not a number of seconds", slackMin)
			}
			if a.SlackMax, ok = clock.FromSeconds(slackMax); !ok {
				return usagef("--slack-max: %v is not a number of seconds", slackMax)
			}
			pre, err := scenario.AdaptivePreset(preset)
			if err != nil {
				return usageError{err}
			}
			if preset == "paper" {
				// The preset sets the knobs below; a flag given overrides it.
				fl := cmd.Flags()
				keep := func(name string, dst *float64, v float64) {
					if !fl.Changed(name) {
						*dst = v
					}
				}
				keep("waves", &a.Waves, pre.Waves)
				keep("tight-frac", &a.TightFrac, pre.TightFrac)
				keep("tight-min", &a.TightMin, pre.TightMin)
				keep("tight-max", &a.TightMax, pre.TightMax)
				if !fl.Changed("slack-min") {
					a.SlackMin = pre.SlackMin
				}
				if !fl.Changed("slack-max") {
					a.SlackMax = pre.SlackMax
				}
			}
			w, err := a.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&a.Exp, "exp", a.Exp, "experiment: 1 MapReduce only, 2 with a diurnal transactional load, 3 with that load made bursty")
	fl.IntVar(&a.Nodes, "nodes", a.Nodes, "number of nodes")
	fl.Int64Var(&a.NodeVCores, "node-vcores", a.NodeVCores, "vcores per node")
	fl.Int64Var(&a.NodeMemory, "node-memory-mb", a.NodeMemory, "memory per node, MiB")
	fl.IntVar(&a.Jobs, "jobs", a.Jobs, "number of jobs")
	fl.Float64Var(&a.TasksMean, "tasks-mean", a.TasksMean, "mean number of map tasks per job")
	fl.Float64Var(&a.Load, "load", a.Load, "MapReduce work offered over the arrival window, as a fraction of the task containers")
	fl.Float64Var(&a.GoalMin, "goal-min", a.GoalMin, "smallest goal, as a multiple of the job's standalone runtime")
	fl.Float64Var(&a.GoalMax, "goal-max", a.GoalMax, "largest goal, as a multiple of the job's standalone runtime")
	fl.Float64Var(&a.LoadLow, "load-low", a.LoadLow, "transactional load at its daily trough, as a fraction of each node (exps 2, 3)")
	fl.Float64Var(&a.LoadHigh, "load-high", a.LoadHigh, "transactional load at its daily peak, as a fraction of each node (exps 2, 3)")
	fl.Float64Var(&period, "period", period, "seconds in a day of the transactional load (exps 2, 3)")
	fl.Float64Var(&interval, "burst-interval", interval, "exp 3: seconds in a burst slot")
	fl.Float64Var(&a.Burstiness, "burstiness", a.Burstiness, "exp 3: the busy slots carry 1+B times the diurnal demand, with probability 1/(1+B)")
	fl.StringVar(&preset, "preset", "today", "today (the defaults) or paper (the regime stated below); flags given override it")
	fl.Float64Var(&a.Waves, "waves", 0, "mean tasks per job as a multiple of the cluster's task containers (overrides --tasks-mean; 0 off)")
	fl.Float64Var(&a.TightFrac, "tight-frac", 0, "fraction of jobs with tight goals, U[--tight-min, --tight-max] x standalone runtime")
	fl.Float64Var(&a.TightMin, "tight-min", 1.2, "smallest tight goal, as a multiple of the standalone runtime")
	fl.Float64Var(&a.TightMax, "tight-max", 1.5, "largest tight goal, as a multiple of the standalone runtime")
	fl.Float64Var(&slackMin, "slack-min", 0, "with --slack-max: the other jobs' goals are their standalone runtime plus U[--slack-min, --slack-max] seconds, independent of size")
	fl.Float64Var(&slackMax, "slack-max", 0, "see --slack-min; 0 keeps goals of U[--goal-min, --goal-max] x the standalone runtime")
	fl.StringVar(&a.LoadShape, "load-shape", "diurnal", "shape of the transactional load (exps 2, 3): diurnal, or square (--load-low for half of each period, --load-high for the other half)")
	fl.Uint64Var(&a.Seed, "seed", a.Seed, "random seed (the jobs depend on it alone, so the three experiments share them)")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}
