package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
	"github.com/spindle-sched/spindle/sim"
)

// runFlags are shared by simulate and compare.
type runFlags struct {
	workload  string
	trace     string
	admission string
	seed      uint64
	estimates string
	estError  float64
	out       string
	json      bool
	quiet     bool
	cpuprof   string
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&f.workload, "workload", "w", "", "workload file (YAML or JSON, format v1; .gz accepted)")
	fl.StringVar(&f.trace, "trace", "", "simulate straight from a trace: FORMAT:INPUT[,INPUT...] (see 'spindle trace convert --help')")
	fl.StringVarP(&f.admission, "admission", "a", "none", "admission controller: none, static:<vcores>, ... (see 'spindle policies')")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for heartbeat phases, launch jitter and estimate error; same workload and seed give the same result")
	fl.StringVar(&f.estimates, "estimates", sim.EstimatesDeclared, "where the runtime estimates policies see come from: declared (the job's estimate field), history (mean observed runtime of earlier jobs with the same name) or oracle (standalone runtime from the true durations; experimental)")
	fl.Float64Var(&f.estError, "estimate-error", 0, "relative error of oracle estimates: each is multiplied by 1 + U[-E, E]")
	fl.StringVarP(&f.out, "out", "o", "", "write summary.json and jobs.csv into this directory")
	fl.BoolVar(&f.json, "json", false, "print the summary as JSON instead of a table")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress display on stderr")
	fl.StringVar(&f.cpuprof, "cpuprofile", "", "write a CPU profile of the run to this file (for 'go tool pprof')")
}

// profile starts CPU profiling when asked and returns the function that
// stops it.
func (f *runFlags) profile() (stop func(), err error) {
	if f.cpuprof == "" {
		return func() {}, nil
	}
	out, err := os.Create(f.cpuprof)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); out.Close() }, nil
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
			Estimates: sim.Estimates{Source: f.estimates, Error: f.estError}}
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
except wall_s, the host time the run took.`,
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
			stop, err := f.profile()
			if err != nil {
				return err
			}
			pr := newProgress(cmd.ErrOrStderr(), f.quiet)
			spec := specs[0]
			spec.Workload, spec.WorkloadName, spec.Progress = w, name, pr.update
			if f.out != "" {
				spec.TimelineStep = timelineStep
			}
			o, err := runner.Run(spec)
			pr.done()
			stop()
			if err != nil {
				return err
			}
			if f.out != "" {
				if err := metrics.WriteRunDir(f.out, o.Summary, o.Jobs, o.Result.Timeline, w.Cluster.Capacity()); err != nil {
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
	cmd := &cobra.Command{
		Use:   "compare -w WORKLOAD [-p p1,p2,...] [-a ADMISSION] [--seed N] [-o DIR] [--json]",
		Short: "Simulate one workload under several policies, side by side",
		Long: `Run the same workload and seed under each policy and print the summaries side
by side. Without -p every registered policy runs. Policy parameters may be
given inline: -p fifo,fair:max_am_share=-1,drf (a piece with "=" and no ":"
continues the previous policy's parameters).

--json prints a JSON array of the 'simulate --json' objects, in -p order.
-o DIR writes DIR/<policy>/summary.json and jobs.csv for each run.`,
		Example: `  spindle compare -w examples/mixed.yaml -p fifo,capacity,fair,drf
  spindle compare -w examples/am-burst.yaml -p capacity,fair,fair:max_am_share=-1 -o out/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var list []string
			for _, p := range pols {
				list = append(list, params.SplitList(p)...)
			}
			if len(list) == 0 {
				list = policy.Names()
			}
			specs, err := f.specs(list)
			if err != nil {
				return err
			}
			w, name, err := f.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
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
			outs, err := runner.RunAll(specs, parallel, nil)
			pr.done()
			stop()
			if err != nil {
				return err
			}
			summaries := make([]*metrics.Summary, len(outs))
			for i, o := range outs {
				summaries[i] = o.Summary
			}
			metrics.CompareRuns(summaries)
			if f.out != "" {
				names := dirNames(summaries)
				for i, o := range outs {
					if err := metrics.WriteRunDir(filepath.Join(f.out, names[i]), o.Summary, o.Jobs, o.Result.Timeline, w.Cluster.Capacity()); err != nil {
						return err
					}
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
	return cmd
}

// timelineStep is the resolution of timeline.csv in run directories.
const timelineStep = clock.Second

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._=-]+`)

// dirNames gives each run a directory name derived from its policy spec,
// unique within the comparison.
func dirNames(ss []*metrics.Summary) []string {
	names := make([]string, len(ss))
	seen := map[string]int{}
	for i, s := range ss {
		n := strings.Trim(unsafeName.ReplaceAllString(s.Policy, "_"), "_")
		if n == "" {
			n = "run"
		}
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s_%d", n, seen[n])
		}
		names[i] = n
	}
	return names
}

// progress draws a one-line progress display on a terminal.
type progress struct {
	out   io.Writer
	on    bool
	start time.Time
	last  time.Time
	drew  bool
}

func newProgress(out io.Writer, quiet bool) *progress {
	return &progress{out: out, on: !quiet && isTerminal(out), start: time.Now()}
}

func (p *progress) update(s sim.Progress) {
	if !p.on {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	frac := float64(s.JobsDone) / float64(max(1, s.JobsAll))
	eta := ""
	if frac > 0.01 {
		eta = fmt.Sprintf(", ETA %.0fs", el/frac-el)
	}
	fmt.Fprintf(p.out, "\r\033[K%d/%d jobs done, simulated %.0fs, %.1fM events/s%s", s.JobsDone, s.JobsAll, s.Now.Seconds(), float64(s.Events)/el/1e6, eta)
	p.drew = true
}

func (p *progress) done() {
	if p.drew {
		fmt.Fprint(p.out, "\r\033[K")
		p.drew = false
	}
}
