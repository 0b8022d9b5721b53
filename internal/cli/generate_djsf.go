package cli

import (
	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/scenario"
)

func init() { scenarioCommands = append(scenarioCommands, newGenerateDJSFGoogle) }

func newGenerateDJSFGoogle() *cobra.Command {
	g := scenario.DefaultDJSFGoogle
	var out string
	cmd := &cobra.Command{
		Use:   "djsf-google --jobs N [--nodes N] [--load L] [--am] [--seed S] -o FILE",
		Short: "A Google-2011-like batch workload (the DJSF paper's evaluation)",
		Long:  scenario.DJSFGoogleModel,
		Example: `  spindle generate djsf-google --jobs 1000 --seed 1 -o djsf.json
  spindle compare -w djsf.json -p sjf,tetris,djsf --estimates oracle`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			w, err := g.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&g.Jobs, "jobs", g.Jobs, "number of jobs")
	fl.IntVar(&g.Nodes, "nodes", g.Nodes, "number of nodes")
	fl.Int64Var(&g.NodeVCores, "node-vcores", g.NodeVCores, "vcores per node")
	fl.Int64Var(&g.NodeMemory, "node-memory-mb", g.NodeMemory, "memory per node, MiB")
	fl.Int64Var(&g.NodeDisk, "node-disk-mb", g.NodeDisk, "disk per node, MiB")
	fl.Float64Var(&g.Load, "load", g.Load, "offered load over the arrival window, as a fraction of cluster capacity")
	fl.BoolVar(&g.AM, "am", g.AM, "give every job a YARN ApplicationMaster of <1 vcore, 1 GiB>")
	fl.Uint64Var(&g.Seed, "seed", g.Seed, "random seed")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}
