// Package whatif sets a recorded run beside simulated ones: it rebuilds the
// run as a recording saw it (the "as recorded" column of 'spindle whatif')
// from a recorded workload's times, measures how closely a simulation
// reproduces it, and says in a sentence per policy what would change for
// small jobs, large jobs, deadlines and utilization.
package whatif

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// PolicyName is what the recorded run is called in a comparison.
const PolicyName = "as recorded"

// Recorded reports whether w holds a recorded run (some job has recorded
// times).
func Recorded(w *workload.Workload) bool {
	for i := range w.Jobs {
		if w.Jobs[i].Recorded != nil {
			return true
		}
	}
	return false
}

// AsRecorded rebuilds the run a recording saw as an outcome, measured as a
// simulation is: each job's submission, admission (its AM bound), first
// task running and last task done, from the recorded times; utilisation
// from what each container held, a task from its start less the cluster's
// launch delay (when it was bound, as the simulator counts it) to its end,
// an AM from its admission to the job's end. like gives each job's demand
// as the simulator's core computes it (from a simulated run of the same
// workload, so that both classify jobs alike); nil leaves demands zero.
// A job still running when the recording stopped has no finish.
func AsRecorded(w *workload.Workload, like *metrics.Outcome) (*metrics.Outcome, error) {
	if !Recorded(w) {
		return nil, errors.New("the workload holds no recorded run (no job has recorded times): record one with 'spindle kube record' or 'spindle trace convert --from kube', or compare policies with 'spindle compare'")
	}
	o := &metrics.Outcome{Jobs: make([]metrics.JobResult, len(w.Jobs)), LastTaskDone: -1}
	launch := w.Cluster.LaunchDelay
	var cs []step
	var openAM []int // changes that end an AM still held when the recording stopped
	end := clock.Time(0)
	for i := range w.Jobs {
		j := &w.Jobs[i]
		jr := metrics.JobResult{Index: i, Submit: j.Submit, Admit: -1, AMStart: -1, FirstRun: -1, LastDone: -1, Finish: -1}
		if like != nil && i < len(like.Jobs) {
			jr.Demand, jr.DemandContainers = like.Jobs[i].Demand, like.Jobs[i].DemandContainers
		}
		r := j.Recorded
		if r == nil {
			o.Jobs[i] = jr
			o.Stuck = append(o.Stuck, metrics.StuckJob{ID: j.ID, State: "not recorded"})
			continue
		}
		jr.Admit, jr.AMStart = r.Admitted, r.AMStarted
		unfinished := false
		for k := range j.Phases {
			p := &j.Phases[k]
			if len(p.Started) != p.Tasks {
				return nil, fmt.Errorf("jobs[%d] (%s).phases[%d]: recorded, but without a start per task", i, j.ID, k)
			}
			unfinished = unfinished || p.Unfinished > 0
			for t, s := range p.Started {
				done := s.Add(p.Duration(t))
				if jr.FirstRun < 0 || s < jr.FirstRun {
					jr.FirstRun = s
				}
				if t < p.Tasks-p.Unfinished && done > jr.LastDone {
					jr.LastDone = done
				}
				end = max(end, done)
				from := max(s.Add(-launch), j.Submit)
				cs = append(cs, step{from, p.Request, true}, step{done, p.Request, false})
			}
		}
		if r.Finished >= 0 && !unfinished {
			jr.Finish = r.Finished
			if jr.LastDone < 0 {
				jr.LastDone = r.Finished
			}
			o.LastTaskDone = max(o.LastTaskDone, jr.LastDone)
		} else {
			o.Stuck = append(o.Stuck, metrics.StuckJob{ID: j.ID, State: "still running when the recording stopped"})
		}
		end = max(end, r.Finished, jr.LastDone)
		if !j.AM.IsZero() && r.Admitted >= 0 {
			cs = append(cs, step{r.Admitted, j.AM, true}, step{r.Finished, j.AM, false})
			if r.Finished < 0 {
				openAM = append(openAM, len(cs)-1)
			}
		}
		o.Jobs[i] = jr
	}
	// An AM still held at the end counts to the last time recorded.
	for _, i := range openAM {
		cs[i].at = end
	}
	o.End = end
	o.UtilArea, o.EndArea, o.Timeline = integrate(cs, w.Cluster.Capacity(), o.LastTaskDone)
	return o, nil
}

// step is a change of what the recorded run held: a container from at on
// (add), or no longer.
type step struct {
	at  clock.Time
	req resource.Vector
	add bool
}

// integrate sweeps the allocation changes in time order: the integral of
// the dominant share of capacity up to limit (share × µs, as the simulator
// counts utilisation) and up to the last change (the recorded span), and
// the allocation sampled per second (the last value in each second it
// changed in), as the simulator's timeline.
func integrate(cs []step, capacity resource.Vector, limit clock.Time) (float64, float64, []metrics.Sample) {
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].at < cs[b].at })
	var cur resource.Vector
	var out []metrics.Sample
	area, last := 0.0, clock.Time(0)
	all, lastAll := 0.0, clock.Time(0)
	for i := 0; i < len(cs); {
		at := cs[i].at
		share := cur.DominantShare(capacity)
		if c := min(at, limit); c > last {
			area += share * float64(c-last)
			last = c
		}
		if at > lastAll {
			all += share * float64(at-lastAll)
			lastAll = at
		}
		for ; i < len(cs) && cs[i].at == at; i++ {
			if cs[i].add {
				cur = cur.Add(cs[i].req)
			} else {
				cur = cur.Sub(cs[i].req)
			}
		}
		t := at / clock.Time(clock.Second) * clock.Time(clock.Second)
		if n := len(out); n > 0 && out[n-1].T == t {
			out[n-1].Allocated = cur
		} else {
			out = append(out, metrics.Sample{T: t, Allocated: cur})
		}
	}
	return area, all, out
}

// Agreement says how closely a simulation reproduces a recorded run: the
// makespans, and the rank correlation of the completion times (finish,
// from the first submission) of the jobs both completed.
type Agreement struct {
	Policy                      string
	Common                      int
	RecordedMakespan, Makespan  float64
	MakespanError               float64 // simulated / recorded − 1
	OrderCorr                   float64 // Spearman's rho of the completion times; NaN when undefined
	OnlyRecorded, OnlySimulated int
}

// Agree compares a simulation (its per-job results and summary) with the
// recorded run.
func Agree(rec []metrics.Job, recSum *metrics.Summary, sim []metrics.Job, simSum *metrics.Summary) Agreement {
	a := Agreement{Policy: simSum.Policy, RecordedMakespan: recSum.MakespanS, Makespan: simSum.MakespanS, MakespanError: math.NaN()}
	if recSum.MakespanS > 0 {
		a.MakespanError = simSum.MakespanS/recSum.MakespanS - 1
	}
	simFinish := map[string]float64{}
	for _, j := range sim {
		if j.Finish != nil {
			simFinish[j.ID] = *j.Finish
		}
	}
	var x, y []float64
	seen := map[string]bool{}
	for _, j := range rec {
		if j.Finish == nil {
			continue
		}
		seen[j.ID] = true
		if f, ok := simFinish[j.ID]; ok {
			x = append(x, *j.Finish)
			y = append(y, f)
		} else {
			a.OnlyRecorded++
		}
	}
	for id := range simFinish {
		if !seen[id] {
			a.OnlySimulated++
		}
	}
	a.Common = len(x)
	a.OrderCorr = metrics.Spearman(x, y)
	return a
}

// String is the agreement in one line.
func (a Agreement) String() string {
	e := "n/a"
	if !math.IsNaN(a.MakespanError) && !math.IsInf(a.MakespanError, 0) {
		e = fmt.Sprintf("%+.1f %%", 100*a.MakespanError)
	}
	s := fmt.Sprintf("%s against the recorded run: makespan %.1f s simulated, %.1f s recorded (%s)", a.Policy, a.Makespan, a.RecordedMakespan, e)
	if a.Common >= MinJobs && !math.IsNaN(a.OrderCorr) {
		s += fmt.Sprintf(", completion order rank correlation %.2f over %d jobs", a.OrderCorr, a.Common)
	} else {
		s += fmt.Sprintf(", %d jobs completed in both (too few for a rank correlation)", a.Common)
	}
	if a.OnlyRecorded+a.OnlySimulated > 0 {
		s += fmt.Sprintf(" (%d completed only as recorded, %d only simulated)", a.OnlyRecorded, a.OnlySimulated)
	}
	return s
}

// Sentence says, against the recorded run, what the simulated policy s
// would change for small jobs, large jobs, deadlines and utilization.
func Sentence(rec, s *metrics.Summary) string {
	var parts []string
	for _, c := range []metrics.Category{metrics.Small, metrics.Large} {
		parts = append(parts, category(c, rec.Categories[c], s.Categories[c]))
	}
	switch {
	case rec.DeadlineMetFrac == nil && s.DeadlineMetFrac == nil:
		parts = append(parts, "no job has a deadline")
	case rec.DeadlineMetFrac == nil || s.DeadlineMetFrac == nil:
		parts = append(parts, "deadlines cannot be compared")
	default:
		r, x := *rec.DeadlineMetFrac, *s.DeadlineMetFrac
		parts = append(parts, fmt.Sprintf("%s (%.0f %% of deadlines met against %.0f %%)", moreOrFewer(x-r, "deadlines met"), 100*x, 100*r))
	}
	du := s.UtilizationAvg - rec.UtilizationAvg
	verb := "utilization stays at"
	switch {
	case du > 0.005:
		verb = "utilization rises to"
	case du < -0.005:
		verb = "utilization falls to"
	}
	parts = append(parts, fmt.Sprintf("%s %.2f (%.2f as recorded)", verb, s.UtilizationAvg, rec.UtilizationAvg))
	if s.JobsCompleted < s.JobsTotal {
		parts = append(parts, fmt.Sprintf("and %d of %d jobs do not finish", s.JobsTotal-s.JobsCompleted, s.JobsTotal))
	}
	return fmt.Sprintf("%s: %s.", s.Policy, strings.Join(parts, "; "))
}

func category(c metrics.Category, rec, s *metrics.CategoryStats) string {
	if rec == nil || s == nil || rec.Jobs == 0 {
		return fmt.Sprintf("no %s jobs", c)
	}
	if rec.JCTAvg == nil || s.JCTAvg == nil {
		return fmt.Sprintf("%s jobs cannot be compared (none completed in one of the runs)", c)
	}
	r, x := *rec.JCTAvg, *s.JCTAvg
	if r <= 0 {
		return fmt.Sprintf("%s jobs take %.1f s on average (%.1f s as recorded)", c, x, r)
	}
	d := x/r - 1
	switch {
	case math.Abs(d) < 0.02:
		return fmt.Sprintf("%s jobs finish about as fast (%.1f s on average, %.1f s as recorded)", c, x, r)
	case d < 0:
		return fmt.Sprintf("%s jobs finish %.0f %% sooner (%.1f s on average, %.1f s as recorded)", c, -100*d, x, r)
	default:
		return fmt.Sprintf("%s jobs take %.0f %% longer (%.1f s on average, %.1f s as recorded)", c, 100*d, x, r)
	}
}

func moreOrFewer(d float64, what string) string {
	switch {
	case d > 0.005:
		return "more " + what
	case d < -0.005:
		return "fewer " + what
	}
	return "as many " + what
}
