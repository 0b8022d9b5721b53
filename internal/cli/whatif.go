package cli

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/whatif"
)

// reproduceTolerance is how closely the baseline must reproduce the
// recorded run before whatif calls the other columns trustworthy: the
// issue's bar for a live run against its simulation.
var reproduceTolerance = struct{ makespan, order float64 }{0.10, 0.8}

// whatifReport is whatif's --json output.
type whatifReport struct {
	Runs         []*metrics.Summary `json:"runs"`
	Reproduction whatifAgreement    `json:"reproduction"`
	// BaselineCheck is the baseline against the recording, class by
	// class; Comparisons each policy against the simulated baseline (the
	// baseline's own first), whose sentences are Sentences.
	BaselineCheck whatif.Check        `json:"baseline_check"`
	Comparisons   []whatif.Comparison `json:"comparisons"`
	// Contended is false when every policy gives every job the same
	// finish: nothing waited for room, and policies cannot differ.
	Contended bool     `json:"contended"`
	Sentences []string `json:"sentences"`
	Warnings  []string `json:"warnings"`
}

type whatifAgreement struct {
	Policy             string   `json:"policy"`
	RecordedMakespanS  float64  `json:"recorded_makespan_s"`
	SimulatedMakespanS float64  `json:"simulated_makespan_s"`
	MakespanError      *float64 `json:"makespan_error"`
	OrderCorrelation   *float64 `json:"completion_order_spearman"`
	Jobs               int      `json:"jobs_compared"`
	Reproduced         bool     `json:"reproduced"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func newWhatif() *cobra.Command {
	var f runFlags
	var pols []string
	var baseline string
	var parallel int
	var sh shardFlag
	cmd := &cobra.Command{
		Use:   "whatif -w RECORDED [-p p1,p2,...] [--baseline POLICY] [-o DIR] [--json]",
		Short: "Which policy for my cluster: a recorded run beside each policy simulated",
		Long: `whatif answers "which policy, on my cluster?". It reads a workload recorded from
a running cluster ('spindle kube record', or 'spindle trace convert --from
kube' on a snapshot) and prints, side by side, the run as it happened ("as
recorded") and the same workload simulated under each policy, with the
cluster's own timing (the recording's Kubernetes preset: no heartbeats, its
measured pod start latency, every pod bound through the scheduler's
client-side rate limit, api_qps and api_burst in the recording's cluster
section, 50 and 100 unless edited) and what other workloads held on its
nodes.

Before the other columns are worth reading, the simulator must reproduce the
recorded run under the scheduler that ran it: --baseline names it
(kube-scheduler, spindle's model of Kubernetes' default scheduler, unless
the cluster ran 'spindle kube schedule -p POLICY'). whatif prints how close
that simulation comes: makespan, the rank correlation of the jobs'
completion order, the median per-job JCT error, and for each class (small
and large jobs, jobs with deadlines) the mean JCT and wait simulated against
recorded. It warns when the makespan is off by more than 10 %, the rank
correlation is below 0.8, or any class is off by more than 15 %, and says
when the recording is too small to check (fewer than 3 jobs completed).

Then one sentence per policy says what it would change against the
simulated baseline (so that the model's own error cancels), over the same
jobs, with the recorded figure beside it, for small jobs, large jobs (by
the DRESS rule), deadlines (spindle.io/deadline on the driver) and
utilization; the baseline's own sentence states its error and claims no
effect. Jobs still running when the recording stopped are left out of the
comparisons and counted. When every policy gives every job the same finish,
nothing contended and whatif says so.

-o DIR writes the recorded run into DIR/as-recorded/ and each policy's into
DIR/<policy>/ (summary.json, jobs.csv, timeline.csv), and DIR/report.html
with every column side by side. --json prints the summaries, the
reproduction check and the sentences as one object.

--shard I/N -o DIR runs only shard I (from 0) of N of the policies (the
baseline, with the recorded run, is cell 0); 'spindle merge' joins the parts
into what -o DIR writes.`,
		Example: `  spindle kube record -A --duration 2h -o cluster.json.gz
  spindle whatif -w cluster.json.gz -p fair,drf,dress+,sjf
  spindle whatif --trace kube:pods.json,nodes.json -p fair --baseline kube-scheduler -o out/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list := params.SplitList(strings.Join(pols, ","))
			if len(list) == 0 {
				list = policy.Names()
			}
			if _, ok := policy.Lookup(baseline); !ok {
				return usagef("--baseline %q: unknown policy (known: %s)", baseline, strings.Join(policy.Names(), ", "))
			}
			// The baseline runs first, whether listed or not.
			ordered := []string{baseline}
			for _, p := range list {
				if p != baseline {
					ordered = append(ordered, p)
				}
			}
			specs, err := f.specs(ordered)
			if err != nil {
				return err
			}
			if err := sh.parse(f.out); err != nil {
				return err
			}
			if sh.on() {
				return runWhatifShard(cmd, &f, ordered, specs, parallel, sh.spec)
			}
			w, name, err := f.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if !whatif.Recorded(w) {
				return usagef("%s holds no recorded run: record one with 'spindle kube record' (or 'spindle trace convert --from kube'), or compare policies with 'spindle compare'", name)
			}
			noteEstimates(cmd.ErrOrStderr(), specs, w)
			pr := newProgress(cmd.ErrOrStderr(), f.quiet)
			for i := range specs {
				specs[i].Workload, specs[i].WorkloadName = w, name
				if f.out != "" {
					specs[i].TimelineStep = timelineStep
				}
			}
			pr.runs = len(specs)
			outs, err := runner.RunAll(specs, parallel, pr.runDone)
			pr.done()
			if err != nil {
				return err
			}
			o, err := whatif.AsRecorded(w, &outs[0].Result.Outcome)
			if err != nil {
				return err
			}
			recJobs := metrics.Jobs(w, o)
			rec := whatif.Summarize(w, o, recJobs, metrics.Run{Policy: whatif.PolicyName, Admission: "as it ran", Estimates: "-", Workload: name})
			summaries := []*metrics.Summary{rec}
			for _, out := range outs {
				summaries = append(summaries, out.Summary)
			}
			metrics.CompareRuns(summaries)
			a := whatif.Agree(recJobs, rec, outs[0].Jobs, outs[0].Summary)
			check := whatif.CheckBaseline(outs[0].Summary.Policy, recJobs, outs[0].Jobs)
			reproduced := math.Abs(a.MakespanError) <= reproduceTolerance.makespan && a.OrderCorr >= reproduceTolerance.order &&
				!check.TooFew && len(check.Warnings) == 0
			var sentences []string
			var comparisons []whatif.Comparison
			runs := make([][]metrics.Job, len(outs))
			for i, out := range outs {
				c := whatif.Compare(recJobs, outs[0].Jobs, out.Jobs, rec, outs[0].Summary, out.Summary)
				comparisons = append(comparisons, c)
				sentences = append(sentences, c.Sentence)
				runs[i] = out.Jobs
			}
			contended := whatif.Contended(runs...)
			warnings := append([]string{}, check.Warnings...)
			if w := reproductionWarning(a); w != "" && !check.TooFew {
				warnings = append(warnings, w)
			}
			if check.TooFew {
				warnings = append(warnings, fmt.Sprintf("the recording is too small to check the baseline (%d jobs completed both as recorded and simulated): no sentence below is backed by a check", check.Jobs))
			}
			if !contended {
				warnings = append(warnings, whatif.NotContended)
			}
			if f.out != "" {
				names := append([]string{"as-recorded"}, dirNames(summaries[1:])...)
				for i, s := range summaries {
					jobs, timeline := recJobs, o.Timeline
					if i > 0 {
						jobs, timeline = outs[i-1].Jobs, outs[i-1].Result.Timeline
					}
					dir := filepath.Join(f.out, names[i])
					if err := metrics.WriteRunDir(dir, s, jobs, timeline, w.Cluster.Capacity()); err != nil {
						return err
					}
				}
				if err := writeCompareReport(f.out, names); err != nil {
					return err
				}
			}
			if f.json {
				return metrics.WriteJSON(cmd.OutOrStdout(), whatifReport{Runs: summaries, Sentences: sentences, Reproduction: whatifAgreement{
					Policy: a.Policy, RecordedMakespanS: a.RecordedMakespan, SimulatedMakespanS: a.Makespan,
					MakespanError: finite(a.MakespanError), OrderCorrelation: finite(a.OrderCorr), Jobs: a.Common, Reproduced: reproduced},
					BaselineCheck: check, Comparisons: comparisons, Contended: contended, Warnings: warnings})
			}
			out := cmd.OutOrStdout()
			// The table's header states the comparison's settings, which
			// are the simulations'.
			shown := *rec
			shown.Seed, shown.Admission, shown.Estimates = outs[0].Summary.Seed, outs[0].Summary.Admission, outs[0].Summary.Estimates
			printTable(out, append([]*metrics.Summary{&shown}, summaries[1:]...))
			printWhatif(out, a, check, warnings, sentences)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringSliceVarP(&pols, "policy", "p", nil, "policies to simulate beside the recorded run, comma-separated (default: all)")
	cmd.Flags().StringVar(&baseline, "baseline", "kube-scheduler", "the policy that ran the recorded cluster, which must reproduce it (kube-scheduler for Kubernetes' default scheduler)")
	cmd.Flags().IntVarP(&parallel, "parallel", "j", 0, "simulations to run at once (default: number of CPUs)")
	sh.register(cmd)
	return cmd
}

// reproductionWarning says which of the run-wide checks the baseline
// fails, with the figure, or "" when it passes both: a makespan off by
// more than reproduceTolerance.makespan, a completion order whose rank
// correlation is below reproduceTolerance.order. It is given whatever the
// per-class check says, since a class can be close while the order is not.
func reproductionWarning(a whatif.Agreement) string {
	var off []string
	if e := a.MakespanError; math.IsNaN(e) || math.IsInf(e, 0) {
		off = append(off, "its makespan cannot be compared")
	} else if math.Abs(e) > reproduceTolerance.makespan {
		off = append(off, fmt.Sprintf("its makespan is %+.1f %% off (more than %.0f %%)", 100*e, 100*reproduceTolerance.makespan))
	}
	if c := a.OrderCorr; !math.IsNaN(c) && c < reproduceTolerance.order {
		off = append(off, fmt.Sprintf("its completion order's rank correlation is %.2f (below %.1f)", c, reproduceTolerance.order))
	}
	if len(off) == 0 {
		return ""
	}
	return "the baseline does not reproduce the recorded run: " + strings.Join(off, " and ") +
		": read the other columns with care (docs/record.md, \"When the baseline does not reproduce\")"
}

func printWhatif(out io.Writer, a whatif.Agreement, check whatif.Check, warnings, sentences []string) {
	fmt.Fprintf(out, "\nreproduction: %s.\n", a)
	fmt.Fprint(out, check)
	for _, w := range warnings {
		fmt.Fprintf(out, "warning: %s.\n", w)
	}
	fmt.Fprintln(out)
	for _, s := range sentences {
		fmt.Fprintln(out, s)
	}
}
