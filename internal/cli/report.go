package cli

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/report"
)

func newReport() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR [-o FILE]",
		Short: "Render report.html again from a saved run or comparison directory",
		Long: `Render the HTML report of a run directory ('simulate -o DIR') or a
comparison directory ('compare -o DIR') from its saved results, without
re-simulating. The report is one self-contained file (inline SVG and CSS, no
scripts, fonts or network access): a summary table with the best value per
row highlighted, per-job waiting and completion times, the completion-time
distribution, jobs completed over time, cluster utilisation over time, goals
met and missed when jobs have goals, and each policy's internals.

A comparison directory's runs are shown in the order of its runs.json, or
by name when it has none. The same directory always gives the same bytes.

The report is written to DIR/report.html unless -o names another file;
-o - writes it to stdout.`,
		Example: `  spindle compare -w examples/mixed.yaml -p fifo,capacity,fair,drf -o out
  spindle report out
  spindle report out/fair -o fair.html`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("report wants one directory, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := report.Load(args[0])
			if err != nil {
				return err
			}
			opt := reportOptions()
			if out == "-" {
				var buf bytes.Buffer
				if err := report.Render(&buf, runs, opt); err != nil {
					return err
				}
				_, err := cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			if out == "" {
				out = filepath.Join(args[0], report.FileName)
			}
			if err := report.WriteFile(out, runs, opt); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the report to this file (default DIR/report.html; - for stdout)")
	return cmd
}

func reportOptions() report.Options {
	return report.Options{Generator: "spindle " + version()}
}

// writeRunReport renders DIR/report.html for the run directory dir.
func writeRunReport(dir string) error {
	r, err := report.LoadRun(dir)
	if err != nil {
		return err
	}
	return report.WriteFile(filepath.Join(dir, report.FileName), []*report.Run{r}, reportOptions())
}

// writeCompareReport records the order of a comparison's run directories
// and renders DIR/report.html with every run side by side.
func writeCompareReport(dir string, names []string) error {
	if err := report.WriteIndex(dir, names); err != nil {
		return err
	}
	runs, err := report.LoadRuns(dir, names)
	if err != nil {
		return err
	}
	return report.WriteFile(filepath.Join(dir, report.FileName), runs, reportOptions())
}
