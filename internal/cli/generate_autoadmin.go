package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/scenario"
)

func newGenerateAutoAdminHomogeneous() *cobra.Command {
	h := scenario.DefaultAutoAdminHomogeneous
	var out string
	var mf modelFlags
	cmd := &cobra.Command{
		Use:   "autoadmin-homogeneous --am A --task T [--jobs 72] [--input-mb 100] [--model paper|burst] -o FILE",
		Short: "AutoAdmin's homogeneous batch: identical terasort jobs (paper §2.3, §4.2.1)",
		Long: `A batch of identical terasort jobs on the AutoAdmin paper's 64-vcore
cluster: AMs of --am vcores, map and reduce tasks of --task vcores. §4.2.1
runs 72 jobs for each of the 16 settings of --am and --task from 1 to 4;
§2.3 runs 66 (--jobs 66).

` + scenario.AutoAdminModel,
		Example: `  spindle generate autoadmin-homogeneous --am 2 --task 1 -o aa-2-1.yaml
  spindle sweep -w aa-2-1.yaml -p fair:max_am_share=-1 --static 0:62:2 --with autoadmin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			m, err := mf.model(cmd)
			if err != nil {
				return usageError{err}
			}
			h.Model = m
			w, err := h.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	fl := cmd.Flags()
	fl.Int64Var(&h.AM, "am", h.AM, "vcores of each ApplicationMaster")
	fl.Int64Var(&h.Task, "task", h.Task, "vcores of each map and reduce task")
	fl.IntVar(&h.Jobs, "jobs", h.Jobs, "number of jobs in the batch")
	fl.IntVar(&h.InputMB, "input-mb", h.InputMB, "input size of each job, MB")
	mf.add(cmd)
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}

func newGenerateAutoAdminHetero() *cobra.Command {
	h := scenario.AutoAdminHetero{Exp: 1}
	var out string
	var mf modelFlags
	var table strings.Builder
	fmt.Fprintln(&table, "  exp  benchmark  jobs  AM  map  reduce  input")
	for i, rows := range scenario.HeteroExperiments {
		for _, r := range rows {
			in := "-"
			if r.InputMB > 0 {
				in = fmt.Sprintf("%d MB", r.InputMB)
			}
			fmt.Fprintf(&table, "  %3d  %-9s  %4d  %2d  %3d  %6d  %s\n", i+1, r.Bench, r.Jobs, r.AM, r.Map, r.Reduce, in)
		}
	}
	cmd := &cobra.Command{
		Use:   "autoadmin-hetero --exp N [--model paper|burst] -o FILE",
		Short: "AutoAdmin's heterogeneous batches: Table 4.2's benchmark mixes (paper §4.2.2)",
		Long: `One of the six heterogeneous experiments of the AutoAdmin paper (Table 4.2):
a batch mixing terasort, wordcount, wordmean and pi jobs, each benchmark with
its own AM, map and reduce sizes (vcores) and input size. The benchmarks'
jobs are submitted in turn in the table's row order (e.g. terasort, wordmean,
wordcount, pi, terasort, ...).

` + table.String() + "\n" + scenario.AutoAdminModel,
		Example: `  spindle generate autoadmin-hetero --exp 2 -o exp2.yaml
  spindle sweep -w exp2.yaml -p fair:max_am_share=-1 --static 0:62:2 --with autoadmin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			m, err := mf.model(cmd)
			if err != nil {
				return usageError{err}
			}
			h.Model = m
			w, err := h.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	mf.add(cmd)
	fl := cmd.Flags()
	fl.IntVar(&h.Exp, "exp", h.Exp, "experiment of Table 4.2, 1 to 6")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}

// modelFlags are the workload-model flags both AutoAdmin generators share:
// --model names a model, and the other flags override its fields.
type modelFlags struct {
	name      string
	files     int
	slowStart float64
	gap       float64
}

func (f *modelFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "model", "paper", "workload model: paper (Hadoop 2.2 defaults, spaced submissions) or burst (all at time 0, one input file, slow-start 1.0)")
	fl.IntVar(&f.files, "teragen-files", 0, "files of terasort's input (teragen's mapreduce.job.maps); 0 reads it as one file; unset: the model's (paper 2, burst 0)")
	fl.Float64Var(&f.slowStart, "slowstart", 0, "fraction of maps completed before the reduce is requested, in (0, 1]; unset: the model's (paper 0.05, burst 1)")
	fl.Float64Var(&f.gap, "gap", 0, "seconds between submissions, 0 for all at time 0; unset: the model's (paper 1, burst 0)")
}

// model is the named model with the flags the user set applied over it.
func (f *modelFlags) model(cmd *cobra.Command) (scenario.Model, error) {
	m, err := scenario.ModelNamed(f.name)
	if err != nil {
		return m, err
	}
	fl := cmd.Flags()
	if fl.Changed("teragen-files") {
		m.TeragenFiles = f.files
	}
	if fl.Changed("slowstart") {
		if !(f.slowStart > 0 && f.slowStart <= 1) {
			return m, fmt.Errorf("--slowstart must be in (0, 1], got %v", f.slowStart)
		}
		m.SlowStart = f.slowStart
	}
	if fl.Changed("gap") {
		d, ok := clock.FromSeconds(f.gap)
		if !ok || d < 0 {
			return m, fmt.Errorf("--gap must be a non-negative number of seconds, got %v", f.gap)
		}
		m.Gap = d
	}
	return m, nil
}
