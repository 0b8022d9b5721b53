package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	aaexp "github.com/spindle-sched/spindle/experiments/autoadmin"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/shard"
	"github.com/spindle-sched/spindle/trace"
	"github.com/spindle-sched/spindle/whatif"
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
	if len(keys) > 6 {
		keys = append(keys[:3:3], "...", keys[len(keys)-1])
	}
	fmt.Fprintf(out, "shard %s: %d of %d cells: %s\n", s, len(m.Ran), len(m.Cells), strings.Join(keys, " "))
}

func newMerge() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge -o OUT DIR...",
		Short: "Join the parts of a run made with --shard into what one run writes",
		Long: `Join the output directories of the shards of one run ('compare', 'whatif',
'sweep' or 'experiments' with --shard I/N -o DIR) into OUT, which then holds
what the run without --shard writes: every run directory (summary.json,
jobs.csv, timeline.csv), runs.json and report.html, or sweep.json for a
sweep. The summaries' measures that span the whole comparison (throughput
against the slowest run) are computed again over every run; wall_s stays
each run's own. For an experiment OUT is the markdown file (EXPERIMENTS.md)
whose section is written in place, as 'spindle experiments -o' does.

merge refuses, naming the shard, when one of 0..N-1 is missing or given
twice, or when a shard ran another command, workload (compared by content),
cell list (policies, admissions, seeds), option or spindle version. A shard
that failed before its end wrote no shard.json and is refused as missing.`,
		Example: `  spindle compare -w w.yaml -p fifo,fair,drf,dress+ --shard 0/2 -o part0 &
  spindle compare -w w.yaml -p fifo,fair,drf,dress+ --shard 1/2 -o part1
  wait; spindle merge -o out part0 part1
  spindle merge -o out parts/*
  spindle merge -o EXPERIMENTS.md dress-part*`,
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
			case "experiments":
				err = mergeExperiments(cmd, out, parts)
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

// sweepFile is the sweep's JSON in its -o directory; sweepCellsFile holds
// a shard's cells.
const (
	sweepFile      = "sweep.json"
	sweepCellsFile = "cells.json"
)

func writeSweepFile(dir string, res *aaexp.StaticSweepResult) error {
	var buf bytes.Buffer
	if err := writeSweepJSON(&buf, res); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	path := filepath.Join(dir, sweepFile)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// sweepOptions are what every shard of one sweep shares, for the manifest;
// merge reads the settings back from them.
func sweepOptions(spec aaexp.StaticSweepSpec, static string) []string {
	with, _ := json.Marshal(spec.With)
	return []string{"policy=" + spec.Policy, "static=" + static, "with=" + string(with),
		"seeds=" + strconv.Itoa(len(spec.Seeds)), "seed=" + strconv.FormatUint(spec.Seeds[0], 10)}
}

// runSweepShard runs one shard of a sweep and writes its cells.
func runSweepShard(cmd *cobra.Command, f *runFlags, spec aaexp.StaticSweepSpec, static string, s shard.Spec, out string) error {
	id, err := f.workloadID()
	if err != nil {
		return err
	}
	keys := aaexp.SweepCellKeys(spec)
	cells := make([]shard.Cell, len(keys))
	for i, k := range keys {
		cells[i] = shard.Cell{Key: k}
	}
	m := shard.NewManifest("sweep", version(), id, sweepOptions(spec, static), cells, s)
	noteShard(cmd.ErrOrStderr(), s, m)
	var got []aaexp.SweepCell
	if len(m.Ran) > 0 {
		w, name, err := f.load(cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		spec.Workload, spec.WorkloadName = w, name
		if got, err = aaexp.RunSweepCells(spec, m.Ran); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	var buf bytes.Buffer
	if err := metrics.WriteJSON(&buf, append([]aaexp.SweepCell{}, got...)); err != nil {
		return err
	}
	path := filepath.Join(out, sweepCellsFile)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return m.Write(out)
}

// optionMap reads a manifest's KEY=VALUE options.
func optionMap(m *shard.Manifest) map[string]string {
	opt := map[string]string{}
	for _, o := range m.Options {
		k, v, _ := strings.Cut(o, "=")
		opt[k] = v
	}
	return opt
}

// mergeSweep joins the shards of a sweep into out/sweep.json.
func mergeSweep(out string, parts []shard.Part) error {
	m := parts[0].Manifest
	opt := optionMap(m)
	reserves, err := aaexp.ParseReserveRange(opt["static"])
	if err != nil {
		return fmt.Errorf("merge: shard %s: static %w", parts[0].Dir, err)
	}
	var with []string
	if err := json.Unmarshal([]byte(opt["with"]), &with); err != nil {
		return fmt.Errorf("merge: shard %s: with: %w", parts[0].Dir, err)
	}
	seeds, err := strconv.Atoi(opt["seeds"])
	if err != nil {
		return fmt.Errorf("merge: shard %s: seeds: %w", parts[0].Dir, err)
	}
	all := make([]aaexp.SweepCell, len(m.Cells))
	for _, p := range parts {
		path := filepath.Join(p.Dir, sweepCellsFile)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("merge: shard %s: %w", p.Manifest.Shard, err)
		}
		var cells []aaexp.SweepCell
		if err := json.Unmarshal(b, &cells); err != nil {
			return fmt.Errorf("merge: %s: %w", path, err)
		}
		if len(cells) != len(p.Manifest.Ran) {
			return fmt.Errorf("merge: %s holds %d cells, shard %s ran %d", path, len(cells), p.Manifest.Shard, len(p.Manifest.Ran))
		}
		for i, k := range p.Manifest.Ran {
			all[k] = cells[i]
		}
	}
	res, err := aaexp.AggregateSweep(reserves, with, seeds, all)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return writeSweepFile(out, res)
}

// runWhatifShard runs one shard of whatif: its cells are the policies, the
// baseline first; the baseline's cell also writes the recorded run, which
// is read off the baseline's simulation. merge joins the parts into the
// directory 'whatif -o' writes (the reproduction check and the sentences
// are printed by the run without --shard only).
func runWhatifShard(cmd *cobra.Command, f *runFlags, ordered []string, specs []runner.Spec, parallel int, s shard.Spec) error {
	names, err := dirNamesOf(ordered)
	if err != nil {
		return err
	}
	id, err := f.workloadID()
	if err != nil {
		return err
	}
	cells := make([]shard.Cell, len(ordered))
	for i, p := range ordered {
		cells[i] = shard.Cell{Key: "policy=" + p, Runs: []string{names[i]}}
	}
	cells[0].Runs = []string{"as-recorded", names[0]}
	m := shard.NewManifest("whatif", version(), id, append(f.runOptions(), "baseline="+ordered[0]), cells, s)
	noteShard(cmd.ErrOrStderr(), s, m)
	if len(m.Ran) == 0 {
		return m.Write(f.out)
	}
	w, name, err := f.load(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if !whatif.Recorded(w) {
		return usagef("%s holds no recorded run: record one with 'spindle kube record' (or 'spindle trace convert --from kube'), or compare policies with 'spindle compare'", name)
	}
	var mine []runner.Spec
	for _, k := range m.Ran {
		sp := specs[k]
		sp.Workload, sp.WorkloadName, sp.TimelineStep = w, name, timelineStep
		mine = append(mine, sp)
	}
	noteEstimates(cmd.ErrOrStderr(), mine, w)
	pr := newProgress(cmd.ErrOrStderr(), f.quiet)
	pr.runs = len(mine)
	outs, err := runner.RunAll(mine, parallel, pr.runDone)
	pr.done()
	if err != nil {
		return err
	}
	for i, k := range m.Ran {
		o := outs[i]
		if k == 0 {
			rec, err := whatif.AsRecorded(w, &o.Result.Outcome)
			if err != nil {
				return err
			}
			recJobs := metrics.Jobs(w, rec)
			sum := metrics.Summarize(w, rec, recJobs, metrics.Run{Policy: whatif.PolicyName, Admission: "as it ran", Estimates: "-", Workload: name})
			if err := metrics.WriteRunDir(filepath.Join(f.out, "as-recorded"), sum, recJobs, rec.Timeline, w.Cluster.Capacity()); err != nil {
				return err
			}
		}
		if err := metrics.WriteRunDir(filepath.Join(f.out, names[k]), o.Summary, o.Jobs, o.Result.Timeline, w.Cluster.Capacity()); err != nil {
			return err
		}
	}
	return m.Write(f.out)
}
