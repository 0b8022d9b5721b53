package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

// scenarioCommands builds the 'generate' subcommands, in the order the
// usage error lists them. Adding a scenario is adding it here.
func scenarioCommands() []*cobra.Command {
	cmds := []*cobra.Command{
		newGenerateSynthetic(),
		newGenerateAdaptiveShared(),
		newGenerateAutoAdminHomogeneous(),
		newGenerateAutoAdminHetero(),
		newGenerateDJSFGoogle(),
	}
	cmds = append(cmds, newGenerateDRESSPaper()...)
	return append(cmds, newGenerateDRESSStream())
}

func newGenerate() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "generate SCENARIO [flags] -o FILE",
		Short: "Generate a workload file",
		Long: `Generate a workload file for a scenario. The file is JSON when its name ends
in .json, YAML otherwise. The same flags and --seed always give the same file.`,
		Args: cobra.NoArgs,
	}
	var names []string
	for _, sub := range scenarioCommands() {
		cmd.AddCommand(sub)
		names = append(names, sub.Name())
	}
	cmd.RunE = func(*cobra.Command, []string) error {
		return usagef("name a scenario: %s", strings.Join(names, ", "))
	}
	return cmd
}

// saveGenerated writes a generated workload and says what it wrote.
func saveGenerated(cmd *cobra.Command, out string, w *workload.Workload) error {
	if out == "" {
		return usagef("no output file: pass -o FILE")
	}
	if err := workload.Save(out, w); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d jobs, %d tasks, %d nodes\n", out, len(w.Jobs), w.TotalTasks(), w.Cluster.NumNodes())
	return nil
}

func newGenerateSynthetic() *cobra.Command {
	s := scenario.DefaultSynthetic
	var out string
	cmd := &cobra.Command{
		Use:   "synthetic --nodes N --jobs J --tasks-per-job T [--load L] [--seed S] -o FILE",
		Short: "A synthetic batch workload for scale and sanity tests",
		Long:  "A synthetic batch workload on N identical nodes.\n\n" + scenario.SyntheticModel,
		Example: `  spindle generate synthetic --nodes 2000 --jobs 20000 --tasks-per-job 50 --seed 1 -o w.json
  spindle generate synthetic --nodes 10 --jobs 50 --tasks-per-job 20 -o small.yaml
  spindle generate synthetic --nodes 2000 --jobs 20000 --tasks-per-job 50 --load 1.5 --queue-tree -o tree.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			w, err := s.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&s.Nodes, "nodes", s.Nodes, "number of nodes")
	fl.Int64Var(&s.NodeVCores, "node-vcores", s.NodeVCores, "vcores per node")
	fl.Int64Var(&s.NodeMemory, "node-memory-mb", s.NodeMemory, "memory per node, MiB")
	fl.IntVar(&s.Jobs, "jobs", s.Jobs, "number of jobs")
	fl.Float64Var(&s.TasksPerJob, "tasks-per-job", s.TasksPerJob, "mean number of tasks per job")
	fl.Float64Var(&s.Load, "load", s.Load, "offered load over the arrival window, as a fraction of cluster capacity")
	fl.Uint64Var(&s.Seed, "seed", s.Seed, "random seed")
	fl.BoolVar(&s.QueueTree, "queue-tree", false, "put the jobs in a queue tree (prod.etl, prod.adhoc, batch) with priorities")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}
