package replay

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/spindle-sched/spindle/metrics"
)

// Agreement says how closely a live run reproduces a simulated one: which
// jobs completed in only one of them, the Spearman rank correlation of the
// completion times (JCT) of the jobs both completed, and the live makespan
// over the simulated one.
type Agreement struct {
	Common           int      // jobs completed in both runs
	OnlySim          []string // completed in the simulator only
	OnlyLive         []string // completed live only
	RankCorr         float64  // Spearman's rho of the common jobs' JCTs; NaN when undefined
	SimMakespan      float64
	LiveMakespan     float64
	MakespanRatio    float64   // LiveMakespan / SimMakespan; NaN when SimMakespan is 0
	JCTSim, JCTLive  []float64 // the common jobs' JCTs, in the simulator's job order
	CommonIDs        []string
	simJobs, liveJob int
}

// Agree compares a simulated run (its per-job results and makespan) with a
// live one. Jobs are matched by ID; only completed jobs (JCT set) count.
func Agree(sim []metrics.Job, simMakespan float64, live []metrics.Job, liveMakespan float64) Agreement {
	a := Agreement{SimMakespan: simMakespan, LiveMakespan: liveMakespan, MakespanRatio: math.NaN(),
		simJobs: len(sim), liveJob: len(live)}
	if simMakespan > 0 {
		a.MakespanRatio = liveMakespan / simMakespan
	}
	liveJCT := map[string]float64{}
	for _, j := range live {
		if j.JCT != nil {
			liveJCT[j.ID] = *j.JCT
		}
	}
	simDone := map[string]bool{}
	for _, j := range sim {
		if j.JCT == nil {
			continue
		}
		simDone[j.ID] = true
		if l, ok := liveJCT[j.ID]; ok {
			a.CommonIDs = append(a.CommonIDs, j.ID)
			a.JCTSim = append(a.JCTSim, *j.JCT)
			a.JCTLive = append(a.JCTLive, l)
		} else {
			a.OnlySim = append(a.OnlySim, j.ID)
		}
	}
	for _, j := range live {
		if j.JCT != nil && !simDone[j.ID] {
			a.OnlyLive = append(a.OnlyLive, j.ID)
		}
	}
	a.Common = len(a.CommonIDs)
	a.RankCorr = Spearman(a.JCTSim, a.JCTLive)
	return a
}

// Tolerance bounds how far a live run may stray from the simulated one: its
// makespan at most Faster below and Slower above the simulator's (fractions:
// 0.1 is 10 %), and a JCT rank correlation of at least RankCorr.
type Tolerance struct {
	Faster, Slower float64
	RankCorr       float64
}

// Check returns an error naming every way the runs disagree beyond tol: a
// job completed in one run only, a makespan ratio outside
// [1-tol.Faster, 1+tol.Slower], a rank correlation below tol.RankCorr (or
// undefined).
func (a Agreement) Check(tol Tolerance) error {
	var errs []string
	if len(a.OnlySim) > 0 || len(a.OnlyLive) > 0 {
		errs = append(errs, fmt.Sprintf("completed jobs differ: simulator only %v, live only %v", a.OnlySim, a.OnlyLive))
	}
	// 1e-9: 110/100-1 is 0.1000...09 in floating point.
	if d := a.MakespanRatio - 1; !(d >= -tol.Faster-1e-9 && d <= tol.Slower+1e-9) {
		errs = append(errs, fmt.Sprintf("makespan live %.1fs vs simulator %.1fs (%+.1f %%), want within -%.0f %% .. +%.0f %%",
			a.LiveMakespan, a.SimMakespan, 100*d, 100*tol.Faster, 100*tol.Slower))
	}
	if !(a.RankCorr >= tol.RankCorr) {
		errs = append(errs, fmt.Sprintf("JCT rank correlation %.3f over %d jobs, want >= %.2f", a.RankCorr, a.Common, tol.RankCorr))
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "; "))
}

// String is a one-line account for logs.
func (a Agreement) String() string {
	return fmt.Sprintf("%d jobs completed in both (of %d simulated, %d live), only simulated %v, only live %v; "+
		"JCT Spearman %.3f; makespan live %.1fs / simulator %.1fs = %.3f (%+.1f %%)",
		a.Common, a.simJobs, a.liveJob, a.OnlySim, a.OnlyLive, a.RankCorr, a.LiveMakespan, a.SimMakespan,
		a.MakespanRatio, 100*(a.MakespanRatio-1))
}

// Spearman is the rank correlation of x and y (metrics.Spearman).
func Spearman(x, y []float64) float64 { return metrics.Spearman(x, y) }
