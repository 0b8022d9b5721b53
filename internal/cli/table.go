package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// printTable prints summaries side by side, one column per run.
func printTable(out io.Writer, ss []*metrics.Summary) {
	if len(ss) == 0 {
		return
	}
	s0 := ss[0]
	fmt.Fprintf(out, "workload %s: %d jobs, %d tasks, %d nodes; seed %d; admission %s; estimates %s\n\n",
		s0.Workload, s0.JobsTotal, s0.Tasks, s0.Nodes, s0.Seed, s0.Admission, s0.Estimates)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(s *metrics.Summary) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, s := range ss {
			fmt.Fprintf(tw, "%s\t", cell(s))
		}
		fmt.Fprintln(tw)
	}
	row("policy", func(s *metrics.Summary) string { return s.Policy })
	row("jobs completed", func(s *metrics.Summary) string { return fmt.Sprintf("%d/%d", s.JobsCompleted, s.JobsTotal) })
	row("deadlocked", func(s *metrics.Summary) string { return strconv.FormatBool(s.Deadlocked) })
	row("makespan (s)", func(s *metrics.Summary) string {
		if s.JobsCompleted == 0 {
			return "-" // no job completed: there is no makespan, not one of 0 s
		}
		return num(&s.MakespanS)
	})
	if anyDeadlocked(ss) {
		// A deadlocked run's utilization covers the span to where it
		// stopped, not the makespan of the jobs that completed.
		row("span to the stop (s)", func(s *metrics.Summary) string {
			if s.SpanS == nil {
				return num(&s.MakespanS)
			}
			return num(s.SpanS)
		})
	}
	row("wait avg (s)", func(s *metrics.Summary) string { return num(s.WaitAvgS) })
	row("wait median (s)", func(s *metrics.Summary) string { return num(s.WaitMedianS) })
	row("JCT avg (s)", func(s *metrics.Summary) string { return num(s.JCTAvgS) })
	row("JCT median (s)", func(s *metrics.Summary) string { return num(s.JCTMedianS) })
	row("JCT p95 (s)", func(s *metrics.Summary) string { return num(s.JCTP95S) })
	for _, c := range []metrics.Category{metrics.Small, metrics.Large} {
		cat := func(s *metrics.Summary) *metrics.CategoryStats { return s.Categories[c] }
		row(fmt.Sprintf("%s jobs", c), func(s *metrics.Summary) string {
			return fmt.Sprintf("%d/%d", cat(s).Completed, cat(s).Jobs)
		})
		row(fmt.Sprintf("  %s wait avg (s)", c), func(s *metrics.Summary) string { return num(cat(s).WaitAvg) })
		row(fmt.Sprintf("  %s JCT avg (s)", c), func(s *metrics.Summary) string { return num(cat(s).JCTAvg) })
		row(fmt.Sprintf("  %s JCT median (s)", c), func(s *metrics.Summary) string { return num(cat(s).JCTMedian) })
	}
	row("throughput (jobs/h)", func(s *metrics.Summary) string { return num(&s.ThroughputPerH) })
	row("utilization", func(s *metrics.Summary) string { return fmt.Sprintf("%.3f", s.UtilizationAvg) })
	// System throughput as the DJSF paper reports it: jobs done by fractions
	// of a reference time (the slowest run's makespan in a comparison).
	for i, f := range metrics.ThroughputFracs {
		row(fmt.Sprintf("done by %.0f%% of T (jobs)", f*100), func(s *metrics.Summary) string {
			if i >= len(s.CompletedBy) {
				return "-"
			}
			return strconv.Itoa(s.CompletedBy[i].Jobs)
		})
	}
	row("  T (s)", func(s *metrics.Summary) string {
		if len(s.CompletedBy) == 0 || s.CompletedBy[0].Frac <= 0 {
			return "-"
		}
		t := s.CompletedBy[0].T / s.CompletedBy[0].Frac
		return num(&t)
	})
	row("completion efficiency (jobs/s)", func(s *metrics.Summary) string {
		if s.CompletionEfficiency == nil {
			return "-"
		}
		return fmt.Sprintf("%.4f", *s.CompletionEfficiency)
	})
	if s0.DeadlineMetFrac != nil {
		row("deadlines met", func(s *metrics.Summary) string { return fmt.Sprintf("%.3f", *s.DeadlineMetFrac) })
		row("lateness avg (s)", func(s *metrics.Summary) string { return num(s.LatenessAvgS) })
		row("lateness p95 (s)", func(s *metrics.Summary) string { return num(s.LatenessP95S) })
	}
	if s0.ExternalUnmet != nil {
		row("external unmet (vcore-s)", func(s *metrics.Summary) string { return num(&s.ExternalUnmet.VCoreS) })
	}
	if anyPreemption(ss) {
		pre := func(f func(r *sched.PreemptionSummary) string) func(s *metrics.Summary) string {
			return func(s *metrics.Summary) string {
				if r, ok := s.Reports[sched.PreemptionSection].(*sched.PreemptionSummary); ok {
					return f(r)
				}
				return "-"
			}
		}
		row("preempted containers", pre(func(r *sched.PreemptionSummary) string { return strconv.Itoa(r.Containers) }))
		row("  work lost (container-s)", pre(func(r *sched.PreemptionSummary) string { return fmt.Sprintf("%.1f", r.WorkLostS) }))
		if anyObserved(ss) {
			row("would preempt (observe)", pre(func(r *sched.PreemptionSummary) string {
				if r.Mode != "observe" {
					return "-"
				}
				return strconv.Itoa(r.WouldPreempt)
			}))
		}
	}
	if anyDRESS(ss) {
		// The release estimator's error, the issue a reader of DRESS's
		// δ needs first: predicted against observed releases per interval.
		acc := func(f func(a dress.Accuracy) string) func(s *metrics.Summary) string {
			return func(s *metrics.Summary) string {
				if r, ok := s.Reports["dress"].(dress.Report); ok && r.Accuracy.Intervals > 0 {
					return f(r.Accuracy)
				}
				return "-"
			}
		}
		row("dress releases/interval: predicted", acc(func(a dress.Accuracy) string { return fmt.Sprintf("%.2f", a.PredictedMean) }))
		row("  actual", acc(func(a dress.Accuracy) string { return fmt.Sprintf("%.2f", a.ActualMean) }))
		row("  error (MAE)", acc(func(a dress.Accuracy) string { return fmt.Sprintf("%.2f", a.MAE) }))
		row("  MAE of predicting the last", acc(func(a dress.Accuracy) string { return fmt.Sprintf("%.2f", a.MAEPersistence) }))
	}
	row("events", func(s *metrics.Summary) string { return strconv.FormatUint(s.Events, 10) })
	row("wall (s)", func(s *metrics.Summary) string { return fmt.Sprintf("%.3f", s.WallS) })
	tw.Flush()
	for _, s := range ss {
		if len(s.StuckJobs) == 0 {
			continue
		}
		if s.Deadlocked {
			fmt.Fprintf(out, "\n%s: deadlocked with %d unfinished jobs:\n", s.Policy, len(s.StuckJobs))
		} else {
			// Not stuck: a recording stopped, or a run cut short.
			fmt.Fprintf(out, "\n%s: %d jobs unfinished:\n", s.Policy, len(s.StuckJobs))
		}
		// Group by state so a thousand stuck jobs read as a few lines,
		// each saying what the group holds and still asks for.
		var states []string
		type group struct {
			ids                []string
			held               resource.Vector
			containers, asking int
		}
		byState := map[string]*group{}
		for _, j := range s.StuckJobs {
			g := byState[j.State]
			if g == nil {
				g = &group{}
				byState[j.State] = g
				states = append(states, j.State)
			}
			g.ids = append(g.ids, j.ID)
			g.held = g.held.Add(j.Held)
			g.containers += j.Containers
			g.asking += j.Asking
		}
		for _, st := range states {
			g := byState[st]
			ids, more := g.ids, ""
			if len(ids) > 5 {
				more = fmt.Sprintf(", ... (%d more)", len(ids)-5)
				ids = ids[:5]
			}
			holds := "holding nothing"
			if g.containers > 0 {
				holds = fmt.Sprintf("holding %v in %d containers", g.held, g.containers)
			}
			fmt.Fprintf(out, "  %d %s (%s, asking for %d more): %s%s\n", len(g.ids), st, holds, g.asking, strings.Join(ids, ", "), more)
		}
	}
}

// anyPreemption reports whether a run had preemption on.
func anyPreemption(ss []*metrics.Summary) bool {
	for _, s := range ss {
		if _, ok := s.Reports[sched.PreemptionSection].(*sched.PreemptionSummary); ok {
			return true
		}
	}
	return false
}

// anyObserved reports whether a run had preemption in observe mode.
func anyObserved(ss []*metrics.Summary) bool {
	for _, s := range ss {
		if r, ok := s.Reports[sched.PreemptionSection].(*sched.PreemptionSummary); ok && r.Mode == "observe" {
			return true
		}
	}
	return false
}

func anyDRESS(ss []*metrics.Summary) bool {
	for _, s := range ss {
		if _, ok := s.Reports["dress"].(dress.Report); ok {
			return true
		}
	}
	return false
}

func num(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

func anyDeadlocked(ss []*metrics.Summary) bool {
	for _, s := range ss {
		if s.Deadlocked {
			return true
		}
	}
	return false
}
