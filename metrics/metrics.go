// Package metrics turns a run's job timelines into the numbers spindle
// reports (docs/design.md, "Metrics") and writes them as JSON and CSV.
// Every policy is measured the same way on the same jobs: waiting time is
// submission to the first task RUNNING (the DRESS paper's definition),
// completion time is submission to the last task COMPLETED, and jobs are
// split into small and large by the DRESS rule for every policy, so
// categories compare like with like.
package metrics

import (
	"math"
	"sort"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Theta is the DRESS classification threshold: a job is large when its peak
// demand exceeds this share of the cluster.
const Theta = 0.1

// Category of a job by demand.
type Category string

// Categories.
const (
	Small Category = "small"
	Large Category = "large"
)

// Classify applies the DRESS rule: large when the job's peak demand (AM plus
// its largest phase, all at once) takes more than theta of the cluster in its
// dominant resource. With uniform containers this is "more than theta × the
// cluster's container count", the paper's wording.
func Classify(demand, capacity resource.Vector, theta float64) Category {
	if demand.DominantShare(capacity) > theta+1e-12 {
		return Large
	}
	return Small
}

// Job is one job's outcome in seconds; nil fields are undefined (the job never
// got there, or has no deadline).
type Job struct {
	ID         string
	Category   Category
	Submit     float64
	Admit      *float64
	FirstStart *float64
	Finish     *float64
	Wait       *float64
	JCT        *float64
	Deadline   *float64
	Met        *bool
}

// CategoryStats summarise one category over its completed jobs.
type CategoryStats struct {
	Jobs      int      `json:"jobs"`
	Completed int      `json:"jobs_completed"`
	WaitAvg   *float64 `json:"wait_avg_s"`
	JCTAvg    *float64 `json:"jct_avg_s"`
	JCTMedian *float64 `json:"jct_median_s"`
}

// Summary is the output contract of `simulate --json` (docs/design.md, "Output contract"). Averages
// are over completed jobs and null when there are none. In a deadlocked run
// every figure but span, utilization, deadline_met_frac and external_unmet
// covers the completed jobs only (makespan, throughput, waits, JCTs,
// lateness, completion efficiency); span_s and utilization cover the run from
// the first submission to where it stopped; deadline_met_frac counts a stuck
// job with a goal as missed; external_unmet runs to the end of the run.
type Summary struct {
	Policy        string  `json:"policy"`
	Admission     string  `json:"admission"`
	Estimates     string  `json:"estimates"`
	EstimateError float64 `json:"estimate_error"`
	// LoadForecastError is the relative error of the external-load
	// forecast policies were given (0: the exact curve).
	LoadForecastError float64    `json:"load_forecast_error"`
	Seed              uint64     `json:"seed"`
	Workload          string     `json:"workload"`
	Nodes             int        `json:"nodes"`
	Tasks             int        `json:"tasks"`
	JobsTotal         int        `json:"jobs_total"`
	JobsCompleted     int        `json:"jobs_completed"`
	Deadlocked        bool       `json:"deadlocked"`
	StuckJobs         []StuckJob `json:"stuck_jobs"`
	MakespanS         float64    `json:"makespan_s"`
	WaitAvgS          *float64   `json:"wait_avg_s"`
	WaitMedianS       *float64   `json:"wait_median_s"`
	JCTAvgS           *float64   `json:"jct_avg_s"`
	JCTMedianS        *float64   `json:"jct_median_s"`
	JCTP95S           *float64   `json:"jct_p95_s"`
	ThroughputPerH    float64    `json:"throughput_jobs_per_h"`
	// UtilizationAvg is the time-average dominant allocated share: over
	// the makespan when every job completed; in a deadlocked run over
	// SpanS, to where the run stopped; in a run stopped early (a live
	// replay) to the last task completion, which may be a task of an
	// unfinished job. Over an empty span: 0, or in a deadlocked run the
	// share held at the stop (the limit of the average as the span
	// shrinks). Always in [0, 1].
	UtilizationAvg float64 `json:"utilization_avg"`
	// SpanS is set in a deadlocked run only: the span it covered, from
	// the first submission to the moment it was found stuck (end_s less
	// the first submission), which UtilizationAvg covers. The makespan
	// covers only the completed jobs.
	SpanS           *float64                    `json:"span_s,omitempty"`
	Categories      map[Category]*CategoryStats `json:"categories"`
	DeadlineMetFrac *float64                    `json:"deadline_met_frac"`
	// Lateness is how far past its deadline a completed job with a goal
	// finished, 0 when on time; null when no completed job has a goal.
	LatenessAvgS *float64 `json:"lateness_avg_s"`
	LatenessP95S *float64 `json:"lateness_p95_s"`
	// ExternalUnmet is the external (non-YARN) demand that found no room,
	// in resource-seconds; null when the cluster has no external load.
	ExternalUnmet *Unmet `json:"external_unmet"`
	// ReducesPreempted counts the tasks MapReduce AMs killed to make room
	// for the phase before them (reduces preempted for maps), apart from
	// completions: their work was lost and done again. Absent when none.
	ReducesPreempted int     `json:"reduces_preempted,omitempty"`
	Events           uint64  `json:"events"`
	EndS             float64 `json:"end_s"`
	WallS            float64 `json:"wall_s"`

	// Reports holds policy and admission internals by section name; each
	// is written as a top-level key of the JSON object.
	Reports map[string]any `json:"-"`

	// ThroughputCurve is the jobs completed by each time, CurvePoints
	// samples up to the reference time named by ThroughputRef (the run's
	// own makespan, or in a comparison the slowest run's); CompletedBy
	// gives it at ThroughputFracs of that time (the DJSF paper's system
	// throughput).
	ThroughputCurve []CurvePoint  `json:"throughput_curve"`
	CompletedBy     []CompletedAt `json:"completed_by"`
	ThroughputRef   string        `json:"throughput_ref"`
	// CompletionEfficiency is the DJSF paper's job completion efficiency
	// over windows of EfficiencyWindow consecutive completions, in jobs per
	// second; null when no job completed.
	CompletionEfficiency *float64 `json:"completion_efficiency"`

	// finishes are the completed jobs' completion times after the first
	// submission, sorted, kept so CompareRuns can re-evaluate throughput
	// against a common reference time.
	finishes []float64
}

// Unmet is external demand that found no room, per resource.
type Unmet struct {
	VCoreS    float64 `json:"vcore_s"`
	MemoryMBS float64 `json:"memory_mb_s"`
}

// Run identifies a run for its summary.
type Run struct {
	Policy, Admission, Estimates, Workload string
	EstimateError, LoadForecastError       float64
	Seed                                   uint64
}

// Jobs derives per-job outcomes in workload order.
func Jobs(w *workload.Workload, r *Outcome) []Job {
	capacity := w.Cluster.Capacity()
	out := make([]Job, len(r.Jobs))
	for i, jr := range r.Jobs {
		wj := &w.Jobs[jr.Index]
		j := Job{ID: wj.ID, Category: Classify(jr.Demand, capacity, Theta), Submit: secs(jr.Submit)}
		j.Admit = opt(jr.Admit)
		j.FirstStart = opt(jr.FirstRun)
		if jr.Finish >= 0 {
			// A job's completion is its last task's; the AM unregisters
			// a heartbeat later, which no paper counts.
			j.Finish = opt(jr.LastDone)
			j.JCT = ptr(jr.LastDone.Sub(jr.Submit).Seconds())
		}
		if jr.FirstRun >= 0 {
			j.Wait = ptr(jr.FirstRun.Sub(jr.Submit).Seconds())
		}
		if wj.Deadline > 0 {
			j.Deadline = ptr(wj.Deadline.Seconds())
			met := j.JCT != nil && *j.JCT <= *j.Deadline+1e-9
			j.Met = &met
		}
		out[i] = j
	}
	return out
}

// Summarize computes the summary of a run.
func Summarize(w *workload.Workload, r *Outcome, jobs []Job, run Run) *Summary {
	s := &Summary{
		Policy: run.Policy, Admission: run.Admission, Estimates: run.Estimates, EstimateError: run.EstimateError,
		LoadForecastError: run.LoadForecastError,
		Seed:              run.Seed, Workload: run.Workload,
		Nodes: w.Cluster.NumNodes(), Tasks: w.TotalTasks(),
		JobsTotal: len(jobs), Deadlocked: r.Deadlocked, StuckJobs: r.Stuck,
		Events: r.Events, EndS: secs(r.End),
		Categories: map[Category]*CategoryStats{Small: {}, Large: {}},
	}
	if s.StuckJobs == nil {
		s.StuckJobs = []StuckJob{}
	}
	firstSubmit := math.Inf(1)
	lastDone := math.Inf(-1)
	var waits, jcts []float64
	cat := map[Category]*struct{ waits, jcts []float64 }{Small: {}, Large: {}}
	goals, met := 0, 0
	var late []float64
	for _, j := range jobs {
		firstSubmit = math.Min(firstSubmit, j.Submit)
		c := cat[j.Category]
		s.Categories[j.Category].Jobs++
		if j.Met != nil {
			goals++
			if *j.Met {
				met++
			}
		}
		if j.JCT == nil {
			continue
		}
		s.JobsCompleted++
		s.Categories[j.Category].Completed++
		if j.Deadline != nil {
			late = append(late, math.Max(0, *j.JCT-*j.Deadline))
		}
		lastDone = math.Max(lastDone, *j.Finish)
		jcts = append(jcts, *j.JCT)
		c.jcts = append(c.jcts, *j.JCT)
		if j.Wait != nil {
			waits = append(waits, *j.Wait)
			c.waits = append(c.waits, *j.Wait)
		}
	}
	if s.JobsCompleted > 0 {
		s.MakespanS = lastDone - firstSubmit
		if s.MakespanS > 0 {
			s.ThroughputPerH = float64(s.JobsCompleted) / s.MakespanS * 3600
		}
	}
	switch {
	case r.Deadlocked:
		// A deadlocked run covered the span from the first submission to
		// where it stopped, and what it held there counts: the
		// makespan (of the completed jobs, 0 when none completed) says
		// nothing of the stuck ones, which may hold the whole cluster.
		span := max(0, secs(r.End)-firstSubmit)
		s.SpanS = &span
		if span > 0 {
			s.UtilizationAvg = r.EndArea / float64(clock.Second) / span
		} else {
			// Stuck the instant it began (ideal mode has no delays to
			// wait out): the average over a span shrinking to nothing
			// is the share held then.
			s.UtilizationAvg = r.EndShare
		}
	case s.JobsCompleted > 0:
		if s.MakespanS > 0 {
			// Utilisation over the span its integral covers, from the
			// first submission (allocation before it is zero, so the
			// integral from time 0 serves) to the last task completion.
			// When every job completed that span is the makespan; in a
			// partial run (a live replay stopped early) tasks of
			// unfinished jobs may have completed after the last completed
			// job, and dividing their area by the makespan alone gave
			// figures above 1.
			span := max(s.MakespanS, secs(r.LastTaskDone)-firstSubmit)
			s.UtilizationAvg = r.UtilArea / float64(clock.Second) / span
		}
	}
	s.finishes = finishOffsets(jobs)
	s.setThroughput(s.MakespanS, RefOwnMakespan)
	s.CompletionEfficiency = CompletionEfficiency(jobs, EfficiencyWindow)
	s.WaitAvgS, s.WaitMedianS = mean(waits), quantile(waits, 0.5)
	s.JCTAvgS, s.JCTMedianS, s.JCTP95S = mean(jcts), quantile(jcts, 0.5), quantile(jcts, 0.95)
	for k, c := range cat {
		cs := s.Categories[k]
		cs.WaitAvg, cs.JCTAvg, cs.JCTMedian = mean(c.waits), mean(c.jcts), quantile(c.jcts, 0.5)
	}
	if goals > 0 {
		s.DeadlineMetFrac = ptr(float64(met) / float64(goals))
	}
	s.LatenessAvgS, s.LatenessP95S = mean(late), quantile(late, 0.95)
	if w.Cluster.ExternalLoad != nil || w.Cluster.Held() {
		s.ExternalUnmet = &Unmet{VCoreS: r.ExternalUnmet[0], MemoryMBS: r.ExternalUnmet[1]}
	}
	s.ReducesPreempted = r.ReducesPreempted
	return s
}

func secs(t clock.Time) float64 { return t.Seconds() }

func opt(t clock.Time) *float64 {
	if t < 0 {
		return nil
	}
	return ptr(t.Seconds())
}

func ptr[T any](x T) *T { return &x }

func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return ptr(sum / float64(len(xs)))
}

// quantile interpolates linearly between order statistics (the common
// "type 7" definition: the median of an even count is the mean of the two
// middle values).
func quantile(xs []float64, q float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	h := q * float64(len(s)-1)
	lo := int(math.Floor(h))
	hi := min(lo+1, len(s)-1)
	return ptr(s[lo] + (h-float64(lo))*(s[hi]-s[lo]))
}
