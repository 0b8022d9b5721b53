package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/shard"
	"github.com/spindle-sched/spindle/trace"
)

// shardFlag is --shard I/N on the commands that run many independent
// simulations.
type shardFlag struct {
	raw  string
	spec shard.Spec
}

func (s *shardFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.raw, "shard", "", "run only shard I of N (I counts from 0) of the cells and write that part to -o DIR, with DIR/shard.json; join the parts with 'spindle merge'")
}

// on reports whether --shard was given.
func (s *shardFlag) on() bool { return s.raw != "" }

// parse checks --shard and that -o names where the part goes.
func (s *shardFlag) parse(out string) error {
	if !s.on() {
		s.spec = shard.Whole
		return nil
	}
	sp, err := shard.Parse(s.raw)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	if out == "" {
		return usagef("--shard %s needs -o DIR: a shard's part is only of use merged with the others ('spindle merge')", s.raw)
	}
	s.spec = sp
	return nil
}

// workloadID names the workload of -w or --trace and hashes the bytes it
// is read from, so that merge can tell shards of another workload.
func (f *runFlags) workloadID() (shard.Workload, error) {
	var files []string
	name := f.workload
	switch {
	case f.workload != "" && f.trace != "":
		return shard.Workload{}, usagef("give -w or --trace, not both")
	case f.trace != "":
		_, inputs, _, err := trace.ParseSpec(f.trace)
		if err != nil {
			return shard.Workload{}, usageError{err}
		}
		name, files = f.trace, inputs
	case f.workload != "":
		files = []string{f.workload}
	default:
		return shard.Workload{}, usagef("no workload: pass -w FILE or --trace FORMAT:INPUT")
	}
	sum, err := shard.Fingerprint(files...)
	if err != nil {
		return shard.Workload{}, err
	}
	return shard.Workload{Name: name, SHA256: sum}, nil
}

// runOptions are the settings that shape every run of a comparison, for
// the shard manifest.
func (f *runFlags) runOptions() []string {
	return []string{
		"admission=" + f.admission,
		"seed=" + strconv.FormatUint(f.seed, 10),
		"estimates=" + f.estimates,
		"estimate-error=" + strconv.FormatFloat(f.estError, 'g', -1, 64),
		"load-forecast-error=" + strconv.FormatFloat(f.forecastErr, 'g', -1, 64),
	}
}

// noteShard tells what a shard is about to run.
func noteShard(out io.Writer, s shard.Spec, m *shard.Manifest) {
	keys := make([]string, len(m.Ran))
	for i, k := range m.Ran {
		keys[i] = m.Cells[k].Key
	}
	if len(keys) == 0 {
		fmt.Fprintf(out, "shard %s: no cells (%d cells over %d shards); writing only its manifest\n", s, len(m.Cells), s.Count)
		return
	}
	fmt.Fprintf(out, "shard %s: %d of %d cells: %s\n", s, len(keys), len(m.Cells), strings.Join(keys, " "))
}

func newMerge() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge -o OUT DIR...",
		Short: "Join the parts of a run made with --shard into what one run writes",
		Long: `Join the output directories of the shards of one run ('compare', 'whatif' or
'sweep' with --shard I/N -o DIR) into OUT, which then holds what the run
without --shard writes: every run directory (summary.json, jobs.csv,
timeline.csv), runs.json and report.html, or sweep.json for a sweep. The
summaries' measures that span the whole comparison (throughput against the
slowest run) are computed again over every run; wall_s stays each run's own.

merge refuses, naming the shard, when one of 0..N-1 is missing or given
twice, or when a shard ran another command, workload (compared by content),
cell list (policies, admissions, seeds), option or spindle version. A shard
that failed before its end wrote no shard.json and is refused as missing.`,
		Example: `  spindle compare -w w.yaml -p fifo,fair,drf,dress+ --shard 0/2 -o part0 &
  spindle compare -w w.yaml -p fifo,fair,drf,dress+ --shard 1/2 -o part1
  wait; spindle merge -o out part0 part1
  spindle merge -o out parts/*`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge wants the shards' directories, e.g. spindle merge -o out part0 part1")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("no output: pass -o OUT")
			}
			parts, err := shard.Check(args)
			if err != nil {
				return err
			}
			m := parts[0].Manifest
			switch m.Command {
			case "compare", "whatif":
				err = shard.MergeRuns(out, parts, reportOptions())
			case "sweep":
				err = mergeSweep(out, parts)
			default:
				err = fmt.Errorf("merge: shards of %q cannot be merged by this spindle", m.Command)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "merged %d shards (%d cells) of %s into %s\n", len(parts), len(m.Cells), m.Command, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the directory to write the merged run into")
	return cmd
}

// mergeSweep joins the shards of a sweep.
func mergeSweep(out string, parts []shard.Part) error {
	return fmt.Errorf("merge: sweep shards are not supported yet")
}
