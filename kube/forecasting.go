package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/spindle-sched/spindle/kube/forecast"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/workload"
)

// This file is the driver's side of forecasts: every ForecastEvery it
// hands package forecast a snapshot of the cluster (the informers' objects,
// read only, and the configuration) and runs the forward simulation on a
// goroutine of its own, never on the event loop's and never on the binding
// path. At most one runs at a time: one still running when the next falls
// due makes that one skipped (counted), not queued, so a slow forecast
// costs freshness and never piles up. The loop only publishes the results:
// the jobs' forecast fields in /api/v1/jobs, the waiting pods' condition
// messages, the gauges.

// DefaultForecastEvery is the command line's default forecast period.
const DefaultForecastEvery = 5 * time.Second

// ForecastFunc forecasts every job of a snapshot; forecast.Run is the one
// the scheduler uses unless Options.Forecast replaces it (tests do).
type ForecastFunc func(*forecast.Snapshot, forecast.Options) (*forecast.Result, error)

// PolicyResolver turns a policy name, as `spindle kube schedule -p` takes
// it, into a factory, for what-if forecasts. The command line passes the
// policy registry in: package kube imports no scheme.
type PolicyResolver func(name string) (sched.PolicyFactory, error)

// forecaster owns the forecasts. Its fields belong to the event loop but
// for done, which the running forecast's goroutine sends its outcome on,
// and run, opts and resolve, which never change.
type forecaster struct {
	every   time.Duration
	run     ForecastFunc
	opts    forecast.Options
	resolve PolicyResolver
	obs     *observe.Recorder
	log     *slog.Logger
	history *forecast.History
	queues  []workload.Queue // the configuration's, in the workload format

	next    time.Time // when the next forecast falls due
	running bool
	done    chan forecastOutcome
	skipped int
	began   time.Time        // when the running (or last) forecast was due
	last    *forecast.Result // the last that succeeded
	byJob   map[string]*forecast.Job
	lastErr error
}

type forecastOutcome struct {
	res  *forecast.Result
	err  error
	took time.Duration
}

// newForecaster returns the scheduler's forecaster, nil when it does not
// forecast (ForecastEvery 0). o has New's defaults (a Config).
func newForecaster(o Options) *forecaster {
	if o.ForecastEvery <= 0 {
		return nil
	}
	run := o.Forecast
	if run == nil {
		run = forecast.Run
	}
	qs := make([]workload.Queue, len(o.Config.Queues))
	for i, q := range o.Config.Queues {
		qs[i] = workload.Queue{Name: q.Name, Capacity: q.Capacity, MaxCapacity: q.MaxCapacity, Weight: q.Weight, DisablePreemption: q.DisablePreemption}
	}
	return &forecaster{
		every: o.ForecastEvery, run: run, resolve: o.ResolvePolicy, obs: o.Observe, log: o.Log,
		opts:    forecast.Options{PolicyName: o.PolicyName, Policy: o.Policy, Admission: o.Admission, Horizon: o.ForecastHorizon},
		history: forecast.NewHistory(), queues: qs,
		done: make(chan forecastOutcome, 1),
	}
}

// outcomes is the channel the loop hears finished forecasts on (nil, never
// ready, without a forecaster).
func (f *forecaster) outcomes() <-chan forecastOutcome {
	if f == nil {
		return nil
	}
	return f.done
}

// forecastShare is the most of one core forecasts may take: the next is
// due no sooner than the CPU the last took, divided by forecastShare,
// after it was due. On a large cluster, where one forecast costs more than
// every × forecastShare, they come less often rather than take CPU from
// binding.
const forecastShare = 0.1

// due reports whether a forecast should start now. When one falls due
// while the last still runs, it is skipped: counted, and the next is due a
// period later.
func (f *forecaster) due(now time.Time) bool {
	if f == nil || now.Before(f.next) {
		return false
	}
	f.next = now.Add(f.every)
	if f.running {
		f.skipped++
		if f.obs != nil {
			f.obs.ForecastSkipped()
		}
		return false
	}
	f.began = now
	return true
}

// start runs the forecast of snap on a goroutine of its own; its outcome
// comes back on done. The history learns the snapshot's finished jobs
// there first (before their pods are deleted), so that the loop never
// pays for it.
func (f *forecaster) start(snap *forecast.Snapshot) {
	f.running = true
	go func() {
		t0 := time.Now()
		var res *forecast.Result
		_, err := f.history.Learn(snap)
		if err == nil {
			res, err = f.run(snap, f.opts)
		}
		f.done <- forecastOutcome{res: res, err: err, took: time.Since(t0)}
	}()
}

// finish takes a forecast's outcome, on the loop.
func (f *forecaster) finish(o forecastOutcome) {
	f.running = false
	if o.res != nil {
		if next := f.began.Add(time.Duration(float64(o.res.CPU) / forecastShare)); next.After(f.next) {
			f.next = next
		}
	}
	if o.err == nil && o.res == nil {
		o.err = errors.New("the forecast returned no result")
	}
	if f.obs != nil {
		f.obs.ForecastRan(o.took, o.err)
	}
	if o.err != nil {
		if f.lastErr == nil || f.lastErr.Error() != o.err.Error() {
			f.log.Warn("forecast failed", "err", o.err)
		}
		f.lastErr = o.err
		return
	}
	f.lastErr = nil
	f.last = o.res
	f.byJob = make(map[string]*forecast.Job, len(o.res.Jobs))
	for i := range o.res.Jobs {
		f.byJob[o.res.Jobs[i].Key] = &o.res.Jobs[i]
	}
}

// job returns the last forecast of the job with key, or nil.
func (f *forecaster) job(key string) *forecast.Job {
	if f == nil {
		return nil
	}
	return f.byJob[key]
}

// info says which forecast the published jobs carry, at now; nil before
// the first.
func (f *forecaster) info(now time.Time) *observe.ForecastInfo {
	if f == nil || f.last == nil {
		return nil
	}
	in := &observe.ForecastInfo{At: f.last.At, AgeSeconds: now.Sub(f.last.At).Seconds(), Policy: f.last.Policy, CPUSeconds: f.last.CPU.Seconds()}
	if f.lastErr != nil {
		in.Error = f.lastErr.Error()
	}
	return in
}

// expectation is what the pod's condition message says of its job's
// forecast start, at now: "expected to start in about 4 min", or "" when
// there is nothing to say (no forecast, or the job has started).
func (f *forecaster) expectation(js *jobState, now time.Time) string {
	if js == nil {
		return ""
	}
	fj := f.job(js.key)
	switch {
	case fj == nil || !fj.Waiting:
		return ""
	case fj.Beyond:
		h := f.opts.Horizon
		if h <= 0 {
			h = forecast.DefaultHorizon
		}
		return "not expected to start within " + roundedSpan(h)
	}
	return "expected to start " + AboutIn(fj.Start.Sub(now))
}

// AboutIn says in words how far ahead d is, rounded so that the words
// change seldom (each change is a write of the pod's condition): to the
// minute below 10 min, to 5 min below an hour, to 10 min below 2 h, then
// to the hour. A forecast start that has passed (the job is late on its
// forecast) reads as "shortly".
func AboutIn(d time.Duration) string {
	switch {
	case d < 30*time.Second:
		return "shortly"
	case d < 90*time.Second:
		return "in about 1 min"
	}
	return "in about " + roundedSpan(d)
}

// roundedSpan is d rounded as AboutIn rounds it: "4 min", "25 min",
// "1 h 20 min", "5 h".
func roundedSpan(d time.Duration) string {
	round := func(step time.Duration) time.Duration {
		return time.Duration(math.Round(float64(d)/float64(step))) * step
	}
	switch {
	case d < 10*time.Minute-30*time.Second:
		return fmt.Sprintf("%d min", max(1, int(round(time.Minute)/time.Minute)))
	case d < time.Hour-150*time.Second:
		return fmt.Sprintf("%d min", int(round(5*time.Minute)/time.Minute))
	case d < 2*time.Hour-5*time.Minute:
		r := round(10 * time.Minute)
		h, m := int(r/time.Hour), int(r%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	return fmt.Sprintf("%d h", int(round(time.Hour)/time.Hour))
}

// forecastSnapshot is the cluster as the scheduler sees it now, for a
// forecast: the informers' nodes and pods (shared, read only: a forecast
// never changes them), the configuration and the history. The loop, or a
// function it runs (OnLoop), builds it; the forecast reads it on its own
// goroutine.
func (s *Scheduler) forecastSnapshot() (*forecast.Snapshot, error) {
	nodes, err := s.nodeLister.List(everything())
	if err != nil {
		return nil, fmt.Errorf("forecast: list nodes: %w", err)
	}
	pods, err := s.podLister.List(everything())
	if err != nil {
		return nil, fmt.Errorf("forecast: list pods: %w", err)
	}
	c := s.o.Config
	snap := &forecast.Snapshot{Now: s.o.Now(), Nodes: nodes, Pods: pods, SchedulerName: s.o.SchedulerName,
		DefaultQueue: c.DefaultQueue, Calculator: c.Calculator()}
	if s.fc != nil {
		snap.Queues, snap.History = s.fc.queues, s.fc.history
	}
	return snap, nil
}

// maybeForecast starts a forecast when one is due.
func (s *Scheduler) maybeForecast() {
	if s.core == nil || !s.fc.due(s.o.Now()) {
		return
	}
	snap, err := s.forecastSnapshot()
	if err != nil {
		s.fc.finish(forecastOutcome{err: err})
		return
	}
	s.fc.start(snap)
}

// whatIf forecasts the scheduler's current state under each named policy
// (and its own admission controller), for /api/v1/forecast?policy=P. It
// runs on the HTTP request's goroutine: snapshot takes the state (on the
// loop), the simulations run here.
func (f *forecaster) whatIf(ctx context.Context, names []string, snapshot func(context.Context) (*forecast.Snapshot, error)) ([]observe.Forecast, error) {
	if f.resolve == nil {
		return nil, errors.New("this scheduler was started without a policy registry for what-if forecasts")
	}
	opts := make([]forecast.Options, len(names))
	for i, name := range names {
		pf, err := f.resolve(name)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", observe.ErrUnknownPolicy, name, err)
		}
		opts[i] = forecast.Options{PolicyName: name, Policy: pf, Admission: f.opts.Admission, Horizon: f.opts.Horizon}
	}
	snap, err := snapshot(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]observe.Forecast, 0, len(names))
	for _, o := range opts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := f.run(snap, o)
		if err != nil {
			return nil, fmt.Errorf("forecast under %s: %w", o.PolicyName, err)
		}
		out = append(out, toObserved(res))
	}
	return out, nil
}

// toObserved is a forecast as the API serves it.
func toObserved(r *forecast.Result) observe.Forecast {
	out := observe.Forecast{Policy: r.Policy, At: r.At, CPUSeconds: r.CPU.Seconds(), Jobs: make([]observe.JobForecast, len(r.Jobs))}
	for i, j := range r.Jobs {
		out.Jobs[i] = observe.JobForecast{Name: j.Key, Namespace: j.Namespace, Queue: j.Queue, Beyond: j.Beyond, Source: string(j.Source), Position: j.Position}
		if !j.Beyond {
			out.Jobs[i].Start, out.Jobs[i].Finish = apiTime(j.Start), apiTime(j.Finish)
		}
	}
	return out
}

// apiTime is t as the API gives it: to the second, UTC (RFC 3339).
func apiTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Second)
}

// serveWhatIf makes the recorder's /api/v1/forecast?policy=P answer
// through the running loop; the returned function stops it.
func (s *Scheduler) serveWhatIf() func() {
	if s.fc == nil || s.o.Observe == nil {
		return func() {}
	}
	s.o.Observe.SetWhatIf(func(ctx context.Context, names []string) ([]observe.Forecast, error) {
		return s.fc.whatIf(ctx, names, func(ctx context.Context) (*forecast.Snapshot, error) {
			var snap *forecast.Snapshot
			var err error
			if !s.OnLoop(ctx, func() { snap, err = s.forecastSnapshot() }) {
				return nil, errors.New("the scheduler has stopped")
			}
			return snap, err
		})
	})
	return func() { s.o.Observe.SetWhatIf(nil) }
}

// forecastFields fills st's forecast fields from the job's last forecast.
func (f *forecaster) forecastFields(st *observe.JobStatus) {
	fj := f.job(st.Name)
	if fj == nil {
		return
	}
	st.ForecastSource, st.ForecastBeyond = string(fj.Source), fj.Beyond
	if !fj.Beyond {
		st.ForecastStart, st.ForecastFinish = apiTime(fj.Start), apiTime(fj.Finish)
	}
}
