// Package cli implements spindle's command line: simulate, compare and
// generate, with the output contract of docs/design.md.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Version is the release; builds from a module version report that instead.
var Version = "0.1.0-dev"

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}

// usageError marks errors in how a command was called (exit status 2).
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// checkParallel refuses -j below 1 when it was given: leaving it out means
// one simulation per CPU, and 0 or less runs nothing.
func checkParallel(cmd *cobra.Command, n int) error {
	if cmd.Flags().Changed("parallel") && n < 1 {
		return usagef("-j/--parallel must be at least 1, got %d (leave it out for one per CPU)", n)
	}
	return nil
}

// Main runs the command line and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "spindle: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "Run 'spindle %s --help' for usage.\n", commandName(root, args))
		return 2
	}
	return 1
}

func commandName(root *cobra.Command, args []string) string {
	if c, _, err := root.Find(args); err == nil && c != root {
		// The full path, so a subcommand's hint reads 'spindle kube replay'.
		return strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
	}
	return "help"
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "spindle",
		Short: "Scheduling for shared, congested data-intensive clusters",
		Long: `spindle schedules shared, congested data-intensive clusters (the Hadoop
YARN / Spark world). It runs one scheduling core under many policies — the
DRESS, DJSF, Reverse-Adaptive and AutoAdmin schemes and the FIFO, Capacity,
Fair and DRF baselines — here in a deterministic, trace-driven simulation of a
YARN-like cluster: same workload and seed, same result, byte for byte.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// Every top-level command; adding one is adding it here.
	root.AddCommand(newSimulate(), newCompare(), newGenerate(), newSweep(), newTrace(), newReport(),
		newExperiments(), newPolicies(), newKube(), newWhatif(), newMerge())
	return root
}

// isTerminal reports whether f is an interactive terminal, for progress.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
