package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// runFlags are shared by simulate and compare.
type runFlags struct {
	workload  string
	admission string
	seed      uint64
	out       string
	json      bool
	quiet     bool
	cpuprof   string

	adm admission.Factory // parsed from admission by prepare
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&f.workload, "workload", "w", "", "workload file (YAML or JSON, format v1; .gz accepted)")
	fl.StringVarP(&f.admission, "admission", "a", "none", "admission controller: none, or static:<vcores> to keep that many vcores for task containers")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for heartbeat phases and launch jitter; same workload and seed give the same result")
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

// job is one simulation to run.
type job struct {
	spec    string
	factory policy.Factory
	canon   string // canonical policy spec, for output
}

func parsePolicies(list []string) ([]job, error) {
	var jobs []job
	for _, s := range list {
		f, sp, err := policy.Parse(s)
		if err != nil {
			return nil, usageError{err}
		}
		jobs = append(jobs, job{spec: s, factory: f, canon: sp.String()})
	}
	if len(jobs) == 0 {
		return nil, usagef("no policy given (known: %s)", strings.Join(policy.Names(), ", "))
	}
	return jobs, nil
}

// outcome is one finished simulation.
type outcome struct {
	summary *metrics.Summary
	jobs    []metrics.Job
}

func loadWorkload(path string, stderr io.Writer) (*workload.Workload, error) {
	if path == "" {
		return nil, usagef("no workload: pass -w FILE (see examples/, or 'spindle generate')")
	}
	w, err := workload.Load(path)
	if err != nil {
		return nil, err
	}
	if w.Cluster.ExternalLoad != nil {
		fmt.Fprintf(stderr, "spindle: warning: %s: cluster.external_load is read but not yet applied by the simulator; the machines are treated as dedicated\n", path)
	}
	return w, nil
}

// prepare checks every policy and the admission controller before loading
// the workload, so that a typo fails at once, not after a long parse.
func (f *runFlags) prepare(policies []string, stderr io.Writer) ([]job, *workload.Workload, error) {
	jobs, err := parsePolicies(policies)
	if err != nil {
		return nil, nil, err
	}
	if f.adm, err = admission.Parse(f.admission); err != nil {
		return nil, nil, usageError{err}
	}
	w, err := loadWorkload(f.workload, stderr)
	if err != nil {
		return nil, nil, err
	}
	return jobs, w, nil
}

func simulateOne(w *workload.Workload, f *runFlags, j job, progress func(sim.Progress)) (*outcome, error) {
	opts := sim.Options{Seed: f.seed, Policy: j.factory, Progress: progress, ProgressEvery: 1 << 16}
	if f.adm != nil {
		opts.Admission = f.adm
	}
	start := time.Now()
	res, err := sim.Run(w, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.canon, err)
	}
	wall := time.Since(start)
	jobs := metrics.Jobs(w, res)
	s := metrics.Summarize(w, res, jobs, metrics.Run{
		Policy: j.canon, Admission: strings.TrimSpace(f.admission), Estimates: "declared",
		Workload: f.workload, Seed: f.seed,
	})
	s.WallS = wall.Seconds()
	return &outcome{summary: s, jobs: jobs}, nil
}

func newSimulate() *cobra.Command {
	var f runFlags
	var pol string
	cmd := &cobra.Command{
		Use:   "simulate -w WORKLOAD -p POLICY [-a ADMISSION] [--seed N] [-o DIR] [--json]",
		Short: "Simulate one workload under one policy",
		Long: `Simulate a workload on its YARN-like cluster under one scheduling policy and
print the summary: makespan, waiting and completion times (overall and for
small and large jobs, by the DRESS rule), throughput, utilisation.

POLICY is a name with optional parameters, e.g. fair:max_am_share=-1 (see
'spindle policies'). A run that can make no more progress (for example
ApplicationMasters holding every container) stops and reports
deadlocked: true with the stuck jobs.

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
			jobs, w, err := f.prepare([]string{pol}, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			stop, err := f.profile()
			if err != nil {
				return err
			}
			pr := newProgress(cmd.ErrOrStderr(), f.quiet, len(w.Jobs))
			o, err := simulateOne(w, &f, jobs[0], pr.update)
			pr.done()
			stop()
			if err != nil {
				return err
			}
			if f.out != "" {
				if err := metrics.WriteRunDir(f.out, o.summary, o.jobs); err != nil {
					return err
				}
			}
			if f.json {
				return metrics.WriteJSON(cmd.OutOrStdout(), o.summary)
			}
			printTable(cmd.OutOrStdout(), []*metrics.Summary{o.summary})
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
			jobs, w, err := f.prepare(list, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if parallel <= 0 {
				parallel = runtime.GOMAXPROCS(0)
			}
			stop, err := f.profile()
			if err != nil {
				return err
			}
			outs, err := compareRuns(w, &f, jobs, parallel, newProgress(cmd.ErrOrStderr(), f.quiet, len(w.Jobs)*len(jobs)))
			stop()
			if err != nil {
				return err
			}
			summaries := make([]*metrics.Summary, len(outs))
			for i, o := range outs {
				summaries[i] = o.summary
			}
			if f.out != "" {
				for i, o := range outs {
					if err := metrics.WriteRunDir(filepath.Join(f.out, dirNames(jobs)[i]), o.summary, o.jobs); err != nil {
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

// compareRuns runs every policy, at most parallel at a time, and returns the
// outcomes in the order given; the results do not depend on parallel.
func compareRuns(w *workload.Workload, f *runFlags, jobs []job, parallel int, pr *progress) ([]*outcome, error) {
	outs := make([]*outcome, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := make([]int, len(jobs))
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i], errs[i] = simulateOne(w, f, j, func(p sim.Progress) {
				mu.Lock()
				done[i] = p.JobsDone
				total := 0
				for _, d := range done {
					total += d
				}
				pr.update(sim.Progress{Now: p.Now, Events: p.Events, JobsDone: total, JobsAll: len(w.Jobs) * len(jobs)})
				mu.Unlock()
			})
		}()
	}
	wg.Wait()
	pr.done()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return outs, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._=-]+`)

// dirNames gives each run a directory name derived from its policy spec,
// unique within the comparison.
func dirNames(jobs []job) []string {
	names := make([]string, len(jobs))
	seen := map[string]int{}
	for i, j := range jobs {
		n := strings.Trim(unsafeName.ReplaceAllString(j.canon, "_"), "_")
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
	out     io.Writer
	on      bool
	start   time.Time
	last    time.Time
	drew    bool
	jobsAll int
}

func newProgress(out io.Writer, quiet bool, jobsAll int) *progress {
	return &progress{out: out, on: !quiet && isTerminal(out), start: time.Now(), jobsAll: jobsAll}
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
