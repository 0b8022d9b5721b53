package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/shard"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// runFlags are shared by simulate and compare.
type runFlags struct {
	workload    string
	trace       string
	admission   string
	seed        uint64
	estimates   string
	estError    float64
	forecastErr float64
	out         string
	json        bool
	quiet       bool
	cpuprof     string
	memprof     string
	gcPercent   int
	gcGiven     func() bool // nil when the flags were not registered
}

// defaultGCPercent is the collector's target when neither --gc-percent nor
// GOGC is given. A run's heap is mostly what lives to its end (the workload,
// its jobs, their results) and the event loop allocates almost nothing, so
// collecting when the heap has grown by 15 %, not doubled, costs few
// collections and keeps peak memory near the live data (on the 25M-task
// run: 0.95 GB against 1.03 GB at 25 and 1.4 GB at Go's 100, with no
// measurable difference in CPU time).
const defaultGCPercent = 15

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&f.workload, "workload", "w", "", "workload file (YAML or JSON, format v1; .gz accepted)")
	fl.StringVar(&f.trace, "trace", "", "simulate straight from a trace: FORMAT:INPUT[,INPUT...][,KEY=VALUE...] (see 'spindle trace convert --help')")
	fl.StringVarP(&f.admission, "admission", "a", "none", "admission controller: none, static:<vcores>, ... (see 'spindle policies')")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for heartbeat phases, launch jitter and estimate error; same workload and seed give the same result")
	fl.StringVar(&f.estimates, "estimates", sim.EstimatesDeclared, "where the runtime estimates policies see come from: declared (the job's estimate field), history (mean observed runtime of earlier jobs with the same name) or oracle (standalone runtime from the true durations; experimental)")
	fl.Float64Var(&f.estError, "estimate-error", 0, "relative error of oracle estimates: each is multiplied by 1 + U[-E, E]")
	fl.Float64Var(&f.forecastErr, "load-forecast-error", 0, "relative error of the external-load forecast policies see: each point of the curve is scaled by 1 + U[-E, E] (the load applied is unchanged)")
	fl.StringVarP(&f.out, "out", "o", "", "write the results (summary.json, jobs.csv, timeline.csv) and report.html into this directory")
	fl.BoolVar(&f.json, "json", false, "print the summary as JSON instead of a table")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress display on stderr")
	fl.StringVar(&f.cpuprof, "cpuprofile", "", "write a CPU profile of the run to this file (for 'go tool pprof')")
	fl.IntVar(&f.gcPercent, "gc-percent", defaultGCPercent, "collect garbage once the heap has grown this many percent over the data still in use (Go's GOGC; GOGC in the environment wins over the default, not over this flag). Lower holds less memory for more collections; 100 is Go's default")
	f.gcGiven = func() bool { return fl.Changed("gc-percent") }
	fl.StringVar(&f.memprof, "memprofile", "", "write a memory profile to this file when the runs end: what was allocated, loading included, and what is still in use (for 'go tool pprof -sample_index=alloc_space')")
}

// profile starts CPU profiling when asked and returns the function that
// stops it and writes the memory profile, if one is asked for.
func (f *runFlags) profile() (stop func() error, err error) {
	stopCPU := func() {}
	if f.cpuprof != "" {
		out, err := os.Create(f.cpuprof)
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(out); err != nil {
			out.Close()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		stopCPU = func() { pprof.StopCPUProfile(); out.Close() }
	}
	if f.memprof == "" {
		return func() error { stopCPU(); return nil }, nil
	}
	// Created now, so that a bad path fails before a long run, not after.
	out, err := os.Create(f.memprof)
	if err != nil {
		stopCPU()
		return nil, fmt.Errorf("memory profile: %w", err)
	}
	return func() error {
		stopCPU()
		defer out.Close()
		// The in-use view is as of the last collection; one now makes it
		// what the finished runs and their results still hold.
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(out, 0); err != nil {
			return fmt.Errorf("memory profile: %w", err)
		}
		return out.Close()
	}, nil
}

// specs checks every policy, the admission controller and the estimates
// before the workload is loaded, so that a typo fails at once, not after a
// long parse, and returns one spec per policy.
func (f *runFlags) specs(policies []string) ([]runner.Spec, error) {
	if len(policies) == 0 {
		return nil, usagef("no policy given (known: %s)", strings.Join(policy.Names(), ", "))
	}
	var out []runner.Spec
	for _, p := range policies {
		s := runner.Spec{Policy: p, Admission: f.admission, Seed: f.seed,
			Estimates: sim.Estimates{Source: f.estimates, Error: f.estError}, ForecastError: f.forecastErr}
		if err := runner.Check(s); err != nil {
			return nil, usageError{err}
		}
		out = append(out, s)
	}
	return out, nil
}

func newSimulate() *cobra.Command {
	var f runFlags
	var pol string
	cmd := &cobra.Command{
		Use:   "simulate -w WORKLOAD -p POLICY [-a ADMISSION] [--seed N] [-o DIR] [--json]",
		Short: "Simulate one workload under one policy",
		Long: `Simulate a workload on its YARN-like cluster under one scheduling policy and
print the summary: makespan, waiting and completion times (overall and for
small and large jobs, by the DRESS rule), throughput, utilisation, deadlines.

POLICY is a name with optional parameters, e.g. fair:max_am_share=-1 (see
'spindle policies'). A run that can make no more progress (for example
ApplicationMasters holding every container) stops and reports
deadlocked: true with the stuck jobs.

Policies never see task durations. Those that need a runtime estimate get it
from --estimates, and every output records which source was used.

Output is deterministic: the same workload and --seed give identical bytes,
except wall_s, the host time the run took.

-o DIR writes summary.json, jobs.csv and timeline.csv into DIR, and
report.html: the run's charts in one self-contained page (see 'spindle
report'). While the run goes, a progress bar on stderr counts finished jobs
when stderr is a terminal; -q turns it off.`,
		Example: `  spindle simulate -w examples/mixed.yaml -p capacity
  spindle simulate -w examples/am-burst.yaml -p fair:max_am_share=-1 --json
  spindle simulate -w w.json -p drf -a static:16 -o out/drf`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pol == "" {
				return usagef("no policy: pass -p POLICY (known: %s)", strings.Join(policy.Names(), ", "))
			}
			specs, err := f.specs([]string{pol})
			if err != nil {
				return err
			}
			w, name, err := f.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			noteEstimates(cmd.ErrOrStderr(), specs, w)
			stop, err := f.profile()
			if err != nil {
				return err
			}
			pr := newProgress(cmd.ErrOrStderr(), f.quiet)
			spec := specs[0]
			spec.Workload, spec.WorkloadName, spec.Progress = w, name, pr.update
			// One run of a workload loaded for it alone: what a finished
			// job's tasks took is not needed again.
			spec.DropDurations = true
			if f.out != "" {
				spec.TimelineStep = timelineStep
			}
			o, err := runner.Run(spec)
			pr.done()
			if perr := stop(); err == nil {
				err = perr
			}
			if err != nil {
				return err
			}
			if f.out != "" {
				if err := metrics.WriteRunDir(f.out, o.Summary, o.Jobs, o.Result.Timeline, w.Cluster.Capacity()); err != nil {
					return err
				}
				if err := metrics.WriteExternalLoadFile(f.out, w.Cluster.ExternalLoad); err != nil {
					return err
				}
				if err := writeRunReport(f.out); err != nil {
					return err
				}
			}
			if f.json {
				return metrics.WriteJSON(cmd.OutOrStdout(), o.Summary)
			}
			printTable(cmd.OutOrStdout(), []*metrics.Summary{o.Summary})
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&pol, "policy", "p", "", "scheduling policy, e.g. fifo, capacity, fair, drf, fair:max_am_share=-1")
	return cmd
}

func newCompare() *cobra.Command {
	var f runFlags
	var pols []string
	var parallel int
	var sh shardFlag
	cmd := &cobra.Command{
		Use:   "compare -w WORKLOAD [-p p1,p2,...] [-a ADMISSION] [--seed N] [-o DIR] [--shard I/N] [--json]",
		Short: "Simulate one workload under several policies, side by side",
		Long: `Run the same workload and seed under each policy and print the summaries side
by side. Without -p every registered policy runs. Policy parameters may be
given inline: -p fifo,fair:max_am_share=-1,drf (a piece with "=" and no ":"
continues the previous policy's parameters).

--json prints a JSON array of the 'simulate --json' objects, in -p order.
-o DIR writes each run's results into DIR/<policy>/ (summary.json, jobs.csv,
timeline.csv), their order into DIR/runs.json, and DIR/report.html: one
self-contained page with every policy side by side (see 'spindle report').
A run's directory is its policy as written, with every character other than
a letter, digit or . _ = + , - written as %XX: dress+ is DIR/dress+/,
fair:max_am_share=-1 is DIR/fair%3Amax_am_share=-1/.

--shard I/N runs only shard I (from 0) of N: the policies at positions k
(in -p order) with k mod N = I. It writes their run directories and
DIR/shard.json, and no runs.json or report.html; 'spindle merge -o OUT
DIR...' joins the N parts into exactly what the run without --shard writes
(wall_s apart). See README, "Sweeps at scale".`,
		Example: `  spindle compare -w examples/mixed.yaml -p fifo,capacity,fair,drf
  spindle compare -w examples/am-burst.yaml -p capacity,fair,fair:max_am_share=-1 -o out/
  spindle compare -w examples/mixed.yaml -p fifo,capacity,fair,drf --shard 1/2 -o part1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// pflag splits -p on commas; join first so that parameters, which
			// also use commas, stay with their policy.
			list := params.SplitList(strings.Join(pols, ","))
			if len(list) == 0 {
				if cmd.Flags().Changed("policy") {
					return usagef("-p: no policy named (leave -p out to compare every policy)")
				}
				list = policy.Names()
			}
			if err := checkParallel(cmd, parallel); err != nil {
				return err
			}
			all, err := dirNamesOf(list)
			if err != nil {
				return err
			}
			if err := sh.parse(f.out); err != nil {
				return err
			}
			specs, err := f.specs(list)
			if err != nil {
				return err
			}
			var manifest *shard.Manifest
			if sh.on() {
				id, err := f.workloadID()
				if err != nil {
					return err
				}
				cells := make([]shard.Cell, len(list))
				for i, p := range list {
					cells[i] = shard.Cell{Key: "policy=" + p, Runs: []string{all[i]}}
				}
				manifest = shard.NewManifest("compare", version(), id, f.runOptions(), cells, sh.spec)
				noteShard(cmd.ErrOrStderr(), sh.spec, manifest)
				if len(manifest.Ran) == 0 {
					return manifest.Write(f.out)
				}
				var mine []runner.Spec
				for _, k := range manifest.Ran {
					mine = append(mine, specs[k])
				}
				specs = mine
			}
			w, name, err := f.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			noteEstimates(cmd.ErrOrStderr(), specs, w)
			stop, err := f.profile()
			if err != nil {
				return err
			}
			pr := newProgress(cmd.ErrOrStderr(), f.quiet)
			var mu sync.Mutex
			latest := make([]sim.Progress, len(specs))
			for i := range specs {
				specs[i].Workload, specs[i].WorkloadName = w, name
				if f.out != "" {
					specs[i].TimelineStep = timelineStep
				}
				specs[i].Progress = func(p sim.Progress) {
					mu.Lock()
					defer mu.Unlock()
					latest[i] = p
					var sum sim.Progress
					for _, l := range latest {
						sum.Events += l.Events
						sum.JobsDone += l.JobsDone
						sum.Now = max(sum.Now, l.Now)
					}
					sum.JobsAll = len(w.Jobs) * len(specs)
					pr.update(sum)
				}
			}
			pr.runs = len(specs)
			outs, err := runner.RunAll(specs, parallel, pr.runDone)
			pr.done()
			if perr := stop(); err == nil {
				err = perr
			}
			if err != nil {
				return err
			}
			summaries := make([]*metrics.Summary, len(outs))
			for i, o := range outs {
				summaries[i] = o.Summary
			}
			if manifest == nil {
				// A shard's measures across the comparison are made by
				// merge, over every run.
				metrics.CompareRuns(summaries)
			}
			if f.out != "" {
				names := dirNames(summaries)
				for i, o := range outs {
					dir := filepath.Join(f.out, names[i])
					if err := metrics.WriteRunDir(dir, o.Summary, o.Jobs, o.Result.Timeline, w.Cluster.Capacity()); err != nil {
						return err
					}
					if err := metrics.WriteExternalLoadFile(dir, w.Cluster.ExternalLoad); err != nil {
						return err
					}
				}
				// The manifest goes last: a shard that failed before it is
				// missing to merge, not half there.
				if manifest != nil {
					err = manifest.Write(f.out)
				} else {
					err = writeCompareReport(f.out, names)
				}
				if err != nil {
					return err
				}
			}
			if f.json {
				return metrics.WriteJSON(cmd.OutOrStdout(), summaries)
			}
			printTable(cmd.OutOrStdout(), summaries)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringSliceVarP(&pols, "policy", "p", nil, "policies to compare, comma-separated (default: all)")
	cmd.Flags().IntVarP(&parallel, "parallel", "j", 0, "simulations to run at once (default: number of CPUs)")
	sh.register(cmd)
	return cmd
}

// timelineStep is the resolution of timeline.csv in run directories.
const timelineStep = clock.Second

// dirNames names each run's directory after its policy as written.
func dirNames(ss []*metrics.Summary) []string {
	specs := make([]string, len(ss))
	for i, s := range ss {
		specs[i] = s.Policy
	}
	names, _ := dirNamesOf(specs) // checked before the runs
	return names
}

// dirNamesOf maps each policy spec to a directory name: the spec as written,
// with every byte other than a letter, digit or one of . _ = + , - written
// as %XX (so dress+ is dress+, and fair:max_am_share=-1 is
// fair%3Amax_am_share=-1). The mapping is one to one, so two runs share a
// directory only when the same spec is given twice, which is refused.
func dirNamesOf(specs []string) ([]string, error) {
	names := make([]string, len(specs))
	seen := map[string]bool{}
	for i, spec := range specs {
		var b strings.Builder
		for _, c := range []byte(spec) {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._=+,-", c) >= 0 {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
		n := b.String()
		if n == "." || n == ".." {
			n = strings.ReplaceAll(n, ".", "%2E")
		}
		if seen[n] {
			return nil, usagef("-p: policy %q is given twice", spec)
		}
		seen[n] = true
		names[i] = n
	}
	return names, nil
}

// progress draws a one-line progress bar on stderr while runs go, when
// stderr is a terminal and -q is not given. The bar counts finished jobs
// out of all jobs: simulated time has no known end (a run ends when its
// last job does, and that depends on the policy), while every job counts
// toward the end. The simulated clock, the event rate and an ETA from the
// jobs' rate so far are shown beside it.
type progress struct {
	mu       sync.Mutex
	out      io.Writer
	on       bool
	now      func() time.Time
	start    time.Time
	last     time.Time
	drew     bool
	runs     int // runs in a comparison; 0 for one run
	runsDone int
}

// progressEvery is the least time between two redraws.
const progressEvery = 200 * time.Millisecond

// progressBar is the width of the bar in characters, short enough that
// the numbers beside it usually fit in 80 columns.
const progressBar = 14

func newProgress(out io.Writer, quiet bool) *progress {
	return newProgressTo(out, !quiet && isTerminal(out), time.Now)
}

func newProgressTo(out io.Writer, on bool, now func() time.Time) *progress {
	return &progress{out: out, on: on, now: now, start: now()}
}

// update redraws the line, at most every progressEvery.
func (p *progress) update(s sim.Progress) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.drew && now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	fmt.Fprintf(p.out, "\r\033[K%s", p.line(s, now.Sub(p.start)))
	p.drew = true
}

// runDone counts a finished run of a comparison.
func (p *progress) runDone(n int) {
	p.mu.Lock()
	p.runsDone = n
	p.mu.Unlock()
}

// line formats one progress line. It stays under 80 columns: when the
// numbers are long, the job counts go first (the bar shows the fraction).
func (p *progress) line(s sim.Progress, elapsed time.Duration) string {
	frac := 0.0
	if s.JobsAll > 0 {
		frac = min(1, float64(s.JobsDone)/float64(s.JobsAll))
	}
	filled := int(frac * progressBar)
	parts := []string{
		fmt.Sprintf("[%s%s] %.0f%%", strings.Repeat("#", filled), strings.Repeat("-", progressBar-filled), frac*100),
		fmt.Sprintf("%d/%d jobs", s.JobsDone, s.JobsAll),
	}
	if p.runs > 1 {
		parts = append(parts, fmt.Sprintf("runs %d/%d", p.runsDone, p.runs))
	}
	parts = append(parts, "sim "+shortDuration(s.Now.Seconds()))
	el := elapsed.Seconds()
	if el > 0 {
		parts = append(parts, shortCount(float64(s.Events)/el)+" ev/s")
	}
	// Before a few percent of the jobs are done the rate says little.
	if frac >= 0.02 && el >= 0.5 {
		parts = append(parts, "ETA "+shortDuration(el*(1-frac)/frac))
	} else {
		parts = append(parts, "ETA --")
	}
	l := strings.Join(parts, "  ")
	if len(l) >= 80 {
		l = strings.Join(append(parts[:1:1], parts[2:]...), "  ")
	}
	return l
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drew {
		fmt.Fprint(p.out, "\r\033[K")
		p.drew = false
	}
}

// shortDuration formats seconds compactly: 42s, 3m05s, 2h10m.
func shortDuration(s float64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%.0fs", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
	}
}

// shortCount formats a rate to about three digits: 950, 12.3k, 777k, 4.1M.
func shortCount(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e5:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// noteEstimates prints, once per policy, how many jobs lack the estimate the
// policy reads and what it does with them (runner.EstimateNote).
func noteEstimates(out io.Writer, specs []runner.Spec, w *workload.Workload) {
	seen := map[string]bool{}
	for _, s := range specs {
		if n := runner.EstimateNote(s, w); n != "" && !seen[n] {
			seen[n] = true
			fmt.Fprintf(out, "note: %s\n", n)
		}
	}
}
