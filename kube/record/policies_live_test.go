package record_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/whatif"
	"github.com/spindle-sched/spindle/workload"
)

// everyPolicyWorkload is the workload TestLiveEveryPolicyAsSimulated plays
// under each policy: the DRESS generator's stream of small jobs with two
// large ones in it (seed 34, as the closed loop's), about 45 s of wall time
// per policy at time scale 0.25. SPINDLE_EVERY_POLICY_WORKLOAD names
// another (generator arguments, or a workload file played as it is).
const everyPolicyWorkload = "dress-stream --span 60 --large 5,30 --seed 34"

// livePolicies are the policies 'spindle kube schedule' runs live
// (SPINDLE_POLICIES=all checks each against its simulation, about 13
// minutes: past go test's default -timeout of 10m); ciPolicies the ones checked by default, within the live
// suite's time: the three held to the strict bar and two baselines.
var (
	livePolicies = []string{"fifo", "capacity", "fair", "drf", "dress", "dress+", "sjf", "tetris", "djsf", "djsf+", "adaptive", "reverse-adaptive", "adaptive+"}
	ciPolicies   = []string{"fair", "dress", "dress+", "drf", "fifo"}
)

// strictPolicies are held to issue 34's bar (fair's agreement): makespan
// within 5 %, completion order >= 0.9; the others to issue 27's
// reproduceTolerance. dress joined them once it met the bar (-6.2 % at
// 40dff66 before every policy followed the cluster; -2.5 %, +2.2 % and
// +1.8 % since, BENCHMARKS.md).
var strictPolicies = map[string]bool{"fair": true, "dress": true, "dress+": true}

// strictRuns is how many replays a strict policy's bar is held to the mean
// of. One 30-second run at time scale 0.25 is close to the bar's width from
// the control plane's own jitter: dress+ gave -1.6, -1.9, -2.0 and -3.0 %
// in four runs in one sitting, and +6.2 % in one CI run (the recording
// simulated 2 s longer than the live run took). Each run's figure is still
// logged and kept in the table.
const strictRuns = 2

// livePolicyAgreement replays played under 'spindle kube schedule -p pol -a
// none' on a control plane of its own, records it, and compares the
// recording with its simulation under pol. A run outside span or order
// logs where the two part, even when the mean of several runs passes.
func livePolicyAgreement(t *testing.T, bin string, played *workload.Workload, pol, id string, scale, span, order float64) whatif.Agreement {
	t.Helper()
	c := kubetest.Start(t, kubetest.Options{Kwok: true})
	if _, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", pol, "-a", "none", "--http-address", "off"); err != nil {
		t.Fatal(err)
	}
	rec, res, _, _ := replayRecorded(t, c, bin, played, "spindle", id, scale)
	if s := res.Summary; s.Deadlocked || s.JobsCompleted != len(played.Jobs) {
		t.Fatalf("%d of %d jobs completed, deadlocked %v", s.JobsCompleted, len(played.Jobs), s.Deadlocked)
	}
	a, err := reproduce(rec, pol, "none")
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(a.MakespanError) <= span) || !(a.OrderCorr >= order) {
		t.Log(divergence(rec, pol, "none"))
	}
	return a
}

// Every policy, live as simulated: one workload replayed under 'spindle kube
// schedule -p P -a none' for each policy P while 'spindle kube record'
// records it; the recording simulated under P must reproduce it (the
// makespan and the jobs' completion order), as 'spindle whatif' checks its
// baseline. SPINDLE_POLICIES names others (comma-separated, or all).
func TestLiveEveryPolicyAsSimulated(t *testing.T) {
	kubetest.RequireBinaries(t)
	bin := buildSpindle(t)
	spec := everyPolicyWorkload
	if v := strings.TrimSpace(os.Getenv("SPINDLE_EVERY_POLICY_WORKLOAD")); v != "" {
		spec = v
	}
	played := playedWorkload(t, bin, spec)
	scale := 0.25
	if os.Getenv("SPINDLE_RECORD_TIME_SCALE") != "" {
		scale = scaleFor(t, "")
	}
	policies := ciPolicies
	switch v := os.Getenv("SPINDLE_POLICIES"); v {
	case "":
	case "all":
		policies = livePolicies
	default:
		policies = strings.Split(v, ",")
	}
	var table strings.Builder
	run := 0 // numbers the replays' job names, so that no two runs share one
	for _, pol := range policies {
		t.Run(pol, func(t *testing.T) {
			span, order := reproduceTolerance.makespan, reproduceTolerance.order
			runs := 1
			if strictPolicies[pol] {
				span, order, runs = 0.05, 0.9, strictRuns
			}
			var errs, orders []float64
			for i := range runs {
				// A subtest per run, so that each run's control plane is
				// stopped before the next starts.
				t.Run(fmt.Sprintf("run%d", i+1), func(t *testing.T) {
					run++
					a := livePolicyAgreement(t, bin, played, pol, fmt.Sprintf("every-%d", run-1), scale, span, order)
					row := fmt.Sprintf("%-18s makespan %+6.1f %%  order %.3f", pol, 100*a.MakespanError, a.OrderCorr)
					if runs > 1 {
						row += fmt.Sprintf("  (run %d of %d)", i+1, runs)
					}
					t.Log(row) // as it comes, so that a run cut short keeps it
					fmt.Fprintln(&table, row)
					if a.OnlyRecorded+a.OnlySimulated > 0 {
						t.Errorf("%d jobs only in the recording, %d only in its simulation", a.OnlyRecorded, a.OnlySimulated)
					}
					errs = append(errs, math.Abs(a.MakespanError))
					orders = append(orders, a.OrderCorr)
				})
			}
			if len(errs) < runs {
				return // a run failed before measuring, and said why
			}
			if e, o := mean(errs), mean(orders); !(e <= span) || !(o >= order) {
				what := ""
				if runs > 1 {
					what = fmt.Sprintf(" (mean of %d runs)", runs)
				}
				t.Errorf("%s live is not as simulated%s: makespan off by %.1f %% (want within %.0f %%), completion order %.3f (want >= %.1f)",
					pol, what, 100*e, 100*span, o, order)
			}
		})
	}
	t.Logf("%s at time scale %v, each recording simulated under its policy:\n%s", spec, scale, table.String())
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
