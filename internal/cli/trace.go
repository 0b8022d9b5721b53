package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/trace"
	"github.com/spindle-sched/spindle/workload"
)

func newTrace() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace convert --from FORMAT INPUT... -o FILE",
		Short: "Convert public cluster traces into workloads",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return usagef("name a subcommand: convert")
		},
	}
	cmd.AddCommand(newTraceConvert())
	return cmd
}

// formatList describes the formats for --help.
func formatList() string {
	var b strings.Builder
	for _, f := range trace.Formats() {
		fmt.Fprintf(&b, "  %-12s %s\n  %-12s inputs: %s\n", f.Name, f.Summary, "", f.Inputs)
	}
	return b.String()
}

// optionValue binds a trace option to a flag, so that the flag and the
// --trace spec key are the same option with the same checks.
type optionValue struct {
	opt  *trace.Options
	o    trace.Option
	text string
}

func (v *optionValue) String() string { return v.text }

func (v *optionValue) Set(s string) error {
	if err := v.opt.Set(v.o.Key, s); err != nil {
		return err
	}
	v.text = s
	return nil
}

func (v *optionValue) Type() string {
	if v.o.Arg == "" {
		return "bool"
	}
	return v.o.Arg
}

func newTraceConvert() *cobra.Command {
	var opt trace.Options
	var format, out string
	cmd := &cobra.Command{
		Use:   "convert --from FORMAT INPUT... -o FILE",
		Short: "Convert a trace into a workload file (format v1)",
		Long: `Convert a cluster trace into a workload file (format v1): JSON when FILE ends
in .json (before an optional .gz), YAML otherwise. Inputs may be gzipped; a
directory stands for its part-* shards, in name order.

Formats:
` + formatList() + `
Every malformed record stops the conversion with FILE:LINE: what is wrong;
--skip-bad skips such records instead, and counts them. For kube, malformed
objects are always skipped and counted, each named as FILE: items[N]; kube reads
JSON or YAML files and directories as kubectl cluster-info dump and
must-gather lay them out (docs/record.md), with kube record's selection
(--namespace, --selector, --scheduler-name, --single-queue). What a format leaves
out by design (records with no run time, tasks that never finished, ...) is
counted on stderr. docs/traces.md gives each mapping and its assumptions.

The same options work for 'simulate --trace FORMAT:INPUT,KEY=VALUE', e.g.
--trace swf:log.swf.gz,cores-per-node=2.`,
		Example: `  spindle trace convert --from swf NASA-iPSC-1993-3.1-cln.swf.gz -o nasa.yaml
  spindle trace convert --from google2011 task_events/ job_events/ machine_events/ -o google.json.gz
  spindle trace convert --from alibaba2018 batch_task.csv batch_instance.csv --end 86400 -o ali.json
  spindle trace convert --from sls inputsls.json -o sls.yaml
  kubectl get pods -A -o json >pods.json; kubectl get nodes -o json >nodes.json
  spindle trace convert --from kube pods.json nodes.json -o cluster.json
  kubectl cluster-info dump -A --output-directory=dump
  spindle trace convert --from kube dump/ -l app=etl --scheduler-name default-scheduler -o etl.json
  spindle trace convert --from kube must-gather.local.1234/ -o cluster.yaml`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, inputs []string) error {
			if format == "" {
				return usagef("no format: pass --from FORMAT (%s)", formatNames())
			}
			if !knownFormat(format) {
				return usagef("unknown trace format %q (known: %s)", format, formatNames())
			}
			if len(inputs) == 0 {
				return usagef("no input: give the trace files after the flags")
			}
			if out == "" {
				return usagef("no output file: pass -o FILE")
			}
			start := time.Now()
			w, rep, err := trace.Convert(format, inputs, opt)
			stderr := cmd.ErrOrStderr()
			if rep != nil {
				rep.WriteWarnings(stderr, "spindle: ")
			}
			if err != nil {
				var re *trace.RecordError
				if errors.As(err, &re) && !opt.SkipBad {
					return fmt.Errorf("%w\n(--skip-bad skips malformed records and counts them)", err)
				}
				return err
			}
			elapsed := time.Since(start)
			if err := workload.Save(out, w); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			printConversion(stderr, rep, elapsed)
			fmt.Fprintf(stderr, "wrote %s: %d jobs, %d tasks, %d nodes\n", out, rep.Jobs, rep.Tasks, rep.Nodes)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "from", "", "trace format: "+formatNames())
	fl.StringVarP(&out, "out", "o", "", "output workload file (.json for JSON, otherwise YAML; .gz to compress)")
	for _, o := range trace.OptionKeys {
		fl.VarP(&optionValue{opt: &opt, o: o}, o.Key, o.Short, o.Help)
		if o.Arg == "" {
			fl.Lookup(o.Key).NoOptDefVal = "true"
		}
	}
	return cmd
}

// printConversion says what was read, how fast, and how the cluster and
// times were derived.
func printConversion(w io.Writer, rep *trace.Report, elapsed time.Duration) {
	secs := max(elapsed.Seconds(), 1e-9)
	if rep.Format == "kube" {
		fmt.Fprintf(w, "read %d objects from %d file(s) in %.2f s: %.0f objects/s\n",
			rep.Objects, rep.Files, elapsed.Seconds(), float64(rep.Objects)/secs)
		for _, n := range rep.Notes {
			fmt.Fprintf(w, "%s\n", n)
		}
		return
	}
	fmt.Fprintf(w, "read %d lines (%d records) from %d file(s) in %.2f s: %.0f lines/s\n",
		rep.Lines, rep.Records, rep.Files, elapsed.Seconds(), float64(rep.Lines)/secs)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "%s\n", n)
	}
}

func formatNames() string {
	var names []string
	for _, f := range trace.Formats() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

func knownFormat(name string) bool {
	for _, f := range trace.Formats() {
		if f.Name == name {
			return true
		}
	}
	return false
}
