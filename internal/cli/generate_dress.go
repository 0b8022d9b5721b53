package cli

import (
	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/scenario"
)

// newGenerateDRESSPaper builds the three generators of the DRESS paper's
// evaluation workloads.
func newGenerateDRESSPaper() []*cobra.Command {
	return []*cobra.Command{
		newGenerateDRESS(scenario.DRESSSpark, "dress-spark",
			"DRESS §V: 20 Spark-on-YARN jobs on 5 nodes, 5 s apart",
			"20 Spark-on-YARN jobs (HiBench k-means, logistic regression, Bayes, PageRank,\nNWeight) on the DRESS paper's 5-node cluster, as in its Figures 6-7 and Table II."),
		newGenerateDRESS(scenario.DRESSMapReduce, "dress-mapreduce",
			"DRESS §V: 20 MapReduce jobs on 5 nodes, 5 s apart",
			"20 MapReduce jobs (HiBench's ten benchmarks) on the DRESS paper's 5-node\ncluster, as in its Figures 8-9."),
		newGenerateDRESS(scenario.DRESSMixed, "dress-mixed",
			"DRESS §V: MapReduce and Spark jobs mixed, a given fraction small",
			"MapReduce and Spark-on-YARN jobs mixed on the DRESS paper's 5-node cluster,\n--small-frac of them small, as in its Figures 10-13 (10% to 40%)."),
	}
}

func newGenerateDRESS(kind, name, short, intro string) *cobra.Command {
	s := scenario.DefaultDRESS
	s.Kind = kind
	var out string
	var gap float64
	cmd := &cobra.Command{
		Use:   name + " [--small-frac F] [--seed S] -o FILE",
		Short: short,
		Long: intro + `

The paper gives the cluster, the job count and spacing, the benchmarks and the
task-level effects its estimator relies on (starting-time variation, heading
and trailing tasks); it gives neither input sizes nor task lengths. The
model below fills them in from HiBench's and Hadoop's defaults, with one scale
calibrated against the paper's Capacity baseline and none against DRESS's
results. The simulator, not the workload, produces the starting-time
variation.

` + scenario.DRESSModel,
		Example: `  spindle generate ` + name + ` --seed 1 -o w.yaml
  spindle compare -w w.yaml -p capacity,dress,dress:estimator=off`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			d, ok := clock.FromSeconds(gap)
			if !ok || d < 0 {
				return usagef("--gap must be a non-negative number of seconds")
			}
			s.Gap = d
			w, err := s.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&s.SmallFrac, "small-frac", s.SmallFrac, "fraction of the jobs that are small (< 10 containers); the paper's mixed runs use 0.1 to 0.4, its Spark and MapReduce runs 6 of 20")
	fl.Float64Var(&s.MediumFrac, "medium-frac", s.MediumFrac, "fraction of the jobs that are not small which read a medium input (1.5-6 GB, under half the cluster) instead of a large one; 0 in the paper's setups")
	fl.BoolVar(&s.Hetero, "hetero", s.Hetero, "give each job task containers of 1, 2 or 4 x <1 vcore, 2 GB> (uniform draw) instead of the paper's uniform containers")
	fl.IntVar(&s.Jobs, "jobs", s.Jobs, "number of jobs")
	fl.IntVar(&s.Nodes, "nodes", s.Nodes, "number of nodes of <20 vcores, 160 GB>")
	fl.Float64Var(&gap, "gap", s.Gap.Seconds(), "seconds between submissions")
	fl.Uint64Var(&s.Seed, "seed", s.Seed, "random seed")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}

func newGenerateDRESSStream() *cobra.Command {
	s := scenario.DefaultDRESSStream
	var out string
	gap, span := s.Gap.Seconds(), s.Span.Seconds()
	var large []float64
	for _, t := range s.Large {
		large = append(large, clock.Duration(t).Seconds())
	}
	cmd := &cobra.Command{
		Use:   "dress-stream [--gap S] [--span S] [--large T1,T2,...] [--seed S] -o FILE",
		Short: "A stream of small jobs with a few large jobs in it (where DRESS starves large jobs)",
		Long: `A steady stream of small MapReduce jobs with a few large jobs submitted into
it: the workload on which DRESS's reservation starves the large jobs.

` + scenario.DRESSStreamModel,
		Example: `  spindle generate dress-stream --seed 1 -o stream.yaml
  spindle compare -w stream.yaml -p capacity,dress,dress+`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			var ok bool
			if s.Gap, ok = clock.FromSeconds(gap); !ok || s.Gap <= 0 {
				return usagef("--gap must be a positive number of seconds")
			}
			if s.Span, ok = clock.FromSeconds(span); !ok || s.Span < 0 {
				return usagef("--span must be a non-negative number of seconds")
			}
			s.Large = s.Large[:0]
			for _, t := range large {
				d, ok := clock.FromSeconds(t)
				if !ok || d < 0 {
					return usagef("--large: %v is not a non-negative number of seconds", t)
				}
				s.Large = append(s.Large, clock.Time(d))
			}
			w, err := s.Generate()
			if err != nil {
				return usageError{err}
			}
			return saveGenerated(cmd, out, w)
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&gap, "gap", gap, "mean seconds between small jobs (Poisson)")
	fl.Float64Var(&span, "span", span, "seconds during which small jobs arrive")
	fl.Float64SliceVar(&large, "large", large, "submit times of the large jobs, seconds")
	fl.IntVar(&s.Nodes, "nodes", s.Nodes, "number of nodes of <20 vcores, 40 GB>")
	fl.Uint64Var(&s.Seed, "seed", s.Seed, "random seed")
	fl.StringVarP(&out, "out", "o", "", "output file (.json for JSON, otherwise YAML)")
	return cmd
}
