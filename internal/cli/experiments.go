package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/experiments"
)

func newExperiments() *cobra.Command {
	cfg := experiments.Config{Seeds: 5}
	var out string
	var print bool
	cmd := &cobra.Command{
		Use:   "experiments NAME [--seeds N] [-o EXPERIMENTS.md]",
		Short: "Regenerate a reproduction report section of EXPERIMENTS.md",
		Long: `Run one paper's evaluation over several seeds and write its section of
EXPERIMENTS.md in place (other sections are kept), next to the paper's own
numbers. --print writes the section to stdout instead.

Experiments:
` + experimentList(),
		Example: `  spindle experiments dress --seeds 5
  spindle experiments djsf --seeds 1 --print`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkParallel(cmd, cfg.Parallel); err != nil {
				return err
			}
			e, ok := experiments.Lookup(args[0])
			if !ok {
				var names []string
				for _, x := range experiments.All() {
					names = append(names, x.Name)
				}
				return usagef("unknown experiment %q (known: %s)", args[0], strings.Join(names, ", "))
			}
			if cfg.Seeds < 1 {
				return usagef("--seeds must be at least 1")
			}
			cfg.Log = cmd.ErrOrStderr()
			body, err := e.Run(cfg)
			if err != nil {
				return err
			}
			if print {
				fmt.Fprintln(cmd.OutOrStdout(), body)
				return nil
			}
			if err := experiments.WriteSection(out, e, body); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote section %q of %s\n", e.Name, out)
			return nil
		},
	}
	cmd.Flags().IntVar(&cfg.Seeds, "seeds", cfg.Seeds, "seeds per setting")
	cmd.Flags().IntVarP(&cfg.Parallel, "parallel", "j", 0, "simulations at once (default: one per CPU)")
	cmd.Flags().StringVarP(&out, "out", "o", "EXPERIMENTS.md", "the markdown file to update")
	cmd.Flags().BoolVar(&print, "print", false, "print the section instead of writing the file")
	return cmd
}

// experimentList is the registry's experiments, one a line, for --help.
func experimentList() string {
	var b strings.Builder
	for _, e := range experiments.All() {
		fmt.Fprintf(&b, "  %-10s %s\n", e.Name, e.Title)
	}
	return strings.TrimRight(b.String(), "\n")
}
