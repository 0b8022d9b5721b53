package cli

import (
	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/scenario"
)

func newGenerateDJSFGoogle() *cobra.Command {
	g := scenario.DefaultDJSFGoogle
	var out, preset string
	cmd := &cobra.Command{
		Use:   "djsf-google --jobs N [--nodes N] [--load L] [--am] [--preset paper] [--corr C] [--short-wide F] [--arrivals MODE] [--seed S] -o FILE",
		Short: "A Google-2011-like batch workload (the DJSF paper's evaluation)",
		Long:  scenario.DJSFGoogleModel,
		Example: `  spindle generate djsf-google --jobs 1000 --seed 1 -o djsf.json
  spindle generate djsf-google --jobs 1000 --preset paper --seed 1 -o paper.json
  spindle generate djsf-google --jobs 1000 --preset paper --arrivals bursts --seed 1 -o bursts.json
  spindle compare -w djsf.json -p sjf,tetris,djsf --estimates oracle`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			switch preset {
			case "":
			case "paper":
				// The preset sets the regime; flags given explicitly win.
				p := scenario.DJSFPaperPreset(g)
				fl := cmd.Flags()
				if !fl.Changed("corr") {
					g.Corr = p.Corr
				}
				if !fl.Changed("short-wide") {
					g.ShortWide = p.ShortWide
				}
				if !fl.Changed("arrivals") {
					g.Arrivals = p.Arrivals
				}
			default:
				return usagef("--preset: unknown preset %q (known: paper)", preset)
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
	fl.Float64Var(&g.Corr, "corr", g.Corr, "correlation of log task duration and log task count, in [-1, 1]; negative: short jobs are wide")
	fl.Float64Var(&g.ShortWide, "short-wide", g.ShortWide, "share of jobs drawn short and wide (50+ tasks of typically under a minute)")
	fl.StringVar(&g.Arrivals, "arrivals", g.Arrivals, "arrival mode: poisson, bursts or batch (every job at time 0)")
	fl.IntVar(&g.Bursts, "bursts", g.Bursts, "with --arrivals bursts, how many bursts over the arrival window")
	fl.IntVar(&g.Apps, "apps", g.Apps, "make the jobs recurring runs of this many applications (named app-K), so that --estimates history has earlier runs to learn from; 0 = every job its own")
	fl.StringVar(&preset, "preset", "", "paper: the DJSF paper's regime, --corr -0.5 --short-wide 0.3 --arrivals batch (explicit flags win)")
	fl.Uint64Var(&g.Seed, "seed", g.Seed, "random seed")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}
