package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/scenario"
)

func init() {
	scenarioCommands = append(scenarioCommands, newGenerateAutoAdminHomogeneous, newGenerateAutoAdminHetero)
}

func newGenerateAutoAdminHomogeneous() *cobra.Command {
	h := scenario.DefaultAutoAdminHomogeneous
	var out string
	cmd := &cobra.Command{
		Use:   "autoadmin-homogeneous --am A --task T [--jobs 72] [--input-mb 100] -o FILE",
		Short: "AutoAdmin's homogeneous burst: identical terasort jobs (paper §2.3, §4.2.1)",
		Long: `A burst of identical terasort jobs on the AutoAdmin paper's 64-vcore
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
	fl.IntVar(&h.Jobs, "jobs", h.Jobs, "number of jobs in the burst")
	fl.IntVar(&h.InputMB, "input-mb", h.InputMB, "input size of each job, MB")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}

func newGenerateAutoAdminHetero() *cobra.Command {
	h := scenario.AutoAdminHetero{Exp: 1}
	var out string
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
		Use:   "autoadmin-hetero --exp N -o FILE",
		Short: "AutoAdmin's heterogeneous bursts: Table 4.2's benchmark mixes (paper §4.2.2)",
		Long: `One of the six heterogeneous experiments of the AutoAdmin paper (Table 4.2):
a burst mixing terasort, wordcount, wordmean and pi jobs, each benchmark with
its own AM, map and reduce sizes (vcores) and input size. The benchmarks'
jobs are submitted in turn in the table's row order (e.g. terasort, wordmean,
wordcount, pi, terasort, ...), all at time 0.

` + table.String() + "\n" + scenario.AutoAdminModel,
		Example: `  spindle generate autoadmin-hetero --exp 2 -o exp2.yaml
  spindle sweep -w exp2.yaml -p fair:max_am_share=-1 --static 0:62:2 --with autoadmin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			w, err := h.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&h.Exp, "exp", h.Exp, "experiment of Table 4.2, 1 to 6")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}
