package observe

import (
	"fmt"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Options size the Recorder's history. Zero values take the defaults.
type Options struct {
	// Decisions is how many recent placements /api/v1/decisions keeps
	// (default 200).
	Decisions int
	// UtilPoints is how many utilization samples the ring keeps (default
	// 720: an hour at the default spacing).
	UtilPoints int
	// UtilEvery is the least time between two utilization samples (default
	// 5s), so that a burst of event batches does not flush the history.
	UtilEvery time.Duration
}

func (o Options) withDefaults() Options {
	if o.Decisions <= 0 {
		o.Decisions = 200
	}
	if o.UtilPoints <= 0 {
		o.UtilPoints = 720
	}
	if o.UtilEvery <= 0 {
		o.UtilEvery = 5 * time.Second
	}
	return o
}

// Recorder collects what the driver reports and serves it. Attempt, Decide
// and Publish belong to the driver's event-loop goroutine (they share the
// history rings without a lock); Bind, SetSynced and SetRole may be called
// from any goroutine; everything the HTTP side reads goes through atomics.
type Recorder struct {
	opts Options
	reg  *prometheus.Registry

	attempts        *prometheus.CounterVec
	decisionLatency *prometheus.HistogramVec
	bindLatency     *prometheus.HistogramVec

	// Owned by the event loop.
	decisions []Decision // ring of the last opts.Decisions placements
	decNext   int        // where the next decision goes once the ring is full
	decView   []Decision // oldest-first copy for the next Publish; nil when stale
	util      []UtilPoint
	seq       uint64

	cur    atomic.Pointer[Snapshot]
	synced atomic.Bool
	role   atomic.Pointer[Role]

	forecastRuns     *prometheus.CounterVec
	forecastSkips    prometheus.Counter
	forecastDuration prometheus.Histogram
	whatIf           atomic.Pointer[WhatIf]
	whatIfBusy       chan struct{}
}

// NewRecorder returns a Recorder with its own Prometheus registry, holding
// spindle's metrics and the standard Go and process collectors.
func NewRecorder(o Options) *Recorder {
	r := &Recorder{opts: o.withDefaults(), reg: prometheus.NewRegistry()}
	r.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "spindle_schedule_attempts_total",
		Help: "Scheduling attempts for pods, by result (scheduled, unschedulable, waiting_admission, error).",
	}, []string{"result"})
	r.decisionLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "spindle_scheduling_decision_duration_seconds",
		Help: "Time the core took to decide one scheduling attempt, by result.",
		// 10µs to about 2.6s: the core decides in microseconds; the tail
		// shows a pathological cluster or policy.
		Buckets: prometheus.ExponentialBuckets(1e-5, 4, 10),
	}, []string{"result"})
	r.bindLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "spindle_bind_duration_seconds",
		Help: "Duration of pods/binding calls, by result (ok, conflict, error).",
		// 1ms to about 16s: an apiserver round trip up to a client timeout.
		Buckets: prometheus.ExponentialBuckets(1e-3, 2, 15),
	}, []string{"result"})
	for _, res := range Results {
		r.attempts.WithLabelValues(string(res))
		r.decisionLatency.WithLabelValues(string(res))
	}
	for _, res := range BindResults {
		r.bindLatency.WithLabelValues(string(res))
	}
	r.forecastRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "spindle_forecast_runs_total",
		Help: "Forecasts run (forward simulations of the cluster off the scheduling loop), by result (ok, error).",
	}, []string{"result"})
	r.forecastRuns.WithLabelValues("ok")
	r.forecastRuns.WithLabelValues("error")
	r.forecastSkips = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "spindle_forecast_skipped_total",
		Help: "Forecasts not started because the previous one was still running (they are skipped, never queued).",
	})
	r.forecastDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "spindle_forecast_duration_seconds",
		Help: "Wall time of one forecast, from the snapshot to the result.",
		// 1ms to about 65s: a small cluster takes milliseconds; past
		// the forecast period, forecasts are skipped.
		Buckets: prometheus.ExponentialBuckets(1e-3, 2, 17),
	})
	r.whatIfBusy = make(chan struct{}, 1)
	solo := RoleSolo
	r.role.Store(&solo)
	r.reg.MustRegister(r.attempts, r.decisionLatency, r.bindLatency, snapshotCollector{r},
		r.forecastRuns, r.forecastSkips, r.forecastDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Registry returns the Recorder's private registry, for a caller that
// wants to add its own collectors (client-go's, say).
func (r *Recorder) Registry() *prometheus.Registry { return r.reg }

// Attempt counts one scheduling attempt and the time the core took on it.
// Event loop only.
func (r *Recorder) Attempt(res Result, took time.Duration) {
	r.attempts.WithLabelValues(string(res)).Inc()
	r.decisionLatency.WithLabelValues(string(res)).Observe(took.Seconds())
}

// Decide records one placement in the recent-decisions history. Event loop
// only; the placement shows in the next published Snapshot.
func (r *Recorder) Decide(d Decision) {
	if len(r.decisions) < r.opts.Decisions {
		r.decisions = append(r.decisions, d)
	} else {
		r.decisions[r.decNext] = d
		r.decNext = (r.decNext + 1) % len(r.decisions)
	}
	r.decView = nil
}

// Bind records one pods/binding call. Safe from any goroutine, so bind
// workers call it directly.
func (r *Recorder) Bind(res BindResult, took time.Duration) {
	r.bindLatency.WithLabelValues(string(res)).Observe(took.Seconds())
}

// ForecastRan counts one forecast and how long it took. Any goroutine.
func (r *Recorder) ForecastRan(took time.Duration, err error) {
	res := "ok"
	if err != nil {
		res = "error"
	}
	r.forecastRuns.WithLabelValues(res).Inc()
	r.forecastDuration.Observe(took.Seconds())
}

// ForecastSkipped counts a forecast not started because the last one was
// still running. Any goroutine.
func (r *Recorder) ForecastSkipped() { r.forecastSkips.Inc() }

// SetSynced tells the probes whether the driver has listed and adopted the
// cluster's nodes and pods (its informers have synced). Any goroutine.
func (r *Recorder) SetSynced(ok bool) { r.synced.Store(ok) }

// SetRole tells the probes and the page the replica's leader-election
// role. Any goroutine.
func (r *Recorder) SetRole(role Role) { r.role.Store(&role) }

// Role returns the role last set (RoleSolo until SetRole is called).
func (r *Recorder) Role() Role { return *r.role.Load() }

// Synced reports what SetSynced last said.
func (r *Recorder) Synced() bool { return r.synced.Load() }

// Ready reports whether /readyz answers 200, and why not. A standby is
// ready: it is healthy and waits only for the lease, and a standby that
// never became ready would stall every rolling update of a two-replica
// Deployment. A leader or a solo replica is ready once synced.
func (r *Recorder) Ready() (bool, string) {
	switch role := r.Role(); {
	case role == RoleStandby:
		return true, "standby: waiting for the leader lease"
	case !r.Synced():
		return false, "informers have not synced"
	default:
		return true, string(role)
	}
}

var gaugeName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Publish makes s the snapshot every reader sees from now on. It fills s's
// Decisions, Utilization, Role, Synced and Seq; s must not be changed
// afterwards. Event loop only. It fails, publishing nothing, on a gauge
// name that is not a valid metric label (so a typo shows at once).
func (r *Recorder) Publish(s *Snapshot) error {
	for name := range s.Gauges {
		if !gaugeName.MatchString(name) {
			return fmt.Errorf("observe: snapshot gauge %q: name must match %s", name, gaugeName)
		}
	}
	if r.decView == nil {
		r.decView = make([]Decision, 0, len(r.decisions))
		r.decView = append(r.decView, r.decisions[r.decNext:]...)
		r.decView = append(r.decView, r.decisions[:r.decNext]...)
	}
	s.Decisions = r.decView
	r.sampleUtil(s)
	s.Utilization = r.util
	s.Role, s.Synced = r.Role(), r.Synced()
	r.seq++
	s.Seq = r.seq
	r.cur.Store(s)
	return nil
}

// sampleUtil appends a utilization point when UtilEvery has passed since
// the last one. The ring is rebuilt rather than appended in place, because
// the previous snapshot's readers still hold the old slice.
func (r *Recorder) sampleUtil(s *Snapshot) {
	if n := len(r.util); n > 0 && s.Time.Sub(r.util[n-1].Time) < r.opts.UtilEvery {
		return
	}
	p := utilization(s)
	keep := r.util
	if len(keep) >= r.opts.UtilPoints {
		keep = keep[len(keep)-r.opts.UtilPoints+1:]
	}
	next := make([]UtilPoint, 0, len(keep)+1)
	r.util = append(append(next, keep...), p)
}

// utilization is spindle's allocation over the capacity spindle may use
// (allocatable less external load), summed over all nodes.
func utilization(s *Snapshot) UtilPoint {
	var usable, alloc Resources
	for _, n := range s.Nodes {
		usable = usable.Add(Resources{MilliCPU: n.Capacity.MilliCPU - n.External.MilliCPU, MemoryMiB: n.Capacity.MemoryMiB - n.External.MemoryMiB})
		alloc = alloc.Add(n.Allocated)
	}
	p := UtilPoint{Time: s.Time, CPU: ratio(alloc.MilliCPU, usable.MilliCPU), Memory: ratio(alloc.MemoryMiB, usable.MemoryMiB)}
	for _, q := range s.Queues {
		p.PendingPods += q.PendingPods
		p.RunningPods += q.RunningPods
	}
	return p
}

func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Latest returns the snapshot last published, or nil before the first.
// Any goroutine; the result must not be changed.
func (r *Recorder) Latest() *Snapshot { return r.cur.Load() }
