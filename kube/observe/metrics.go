package observe

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The snapshot's gauges are computed at scrape time from the published
// snapshot rather than set by the event loop: a scrape then sees one
// consistent batch, queues that disappeared drop out without a Reset race,
// and the loop pays nothing for metrics nobody reads.
var (
	descPending = prometheus.NewDesc("spindle_pending_pods",
		"Pods spindle has not placed yet, by queue.", []string{"queue"}, nil)
	descRunning = prometheus.NewDesc("spindle_running_pods",
		"Pods spindle placed that have not ended, by queue.", []string{"queue"}, nil)
	descAMs = prometheus.NewDesc("spindle_application_masters",
		"AM (driver) pods by queue and admission state: admitted (placed or running) or waiting for admission.",
		[]string{"queue", "state"}, nil)
	descQueueCPU = prometheus.NewDesc("spindle_queue_usage_cpu_cores",
		"CPU the queue's pods hold, in cores.", []string{"queue"}, nil)
	descQueueMem = prometheus.NewDesc("spindle_queue_usage_memory_bytes",
		"Memory the queue's pods hold, in bytes.", []string{"queue"}, nil)
	descQueueShare = prometheus.NewDesc("spindle_queue_share",
		"The queue's dominant share of the capacity spindle may use, in [0,1].", []string{"queue"}, nil)
	descQueueWeight = prometheus.NewDesc("spindle_queue_weight",
		"The queue's configured weight.", []string{"queue"}, nil)
	descPreempted = prometheus.NewDesc("spindle_queue_preemptions_total",
		"Pods preemption took from the queue (direction=from) or for it (direction=for) and evicted, since the scheduler started; a parent counts its leaves'.",
		[]string{"queue", "direction"}, nil)
	descObserved = prometheus.NewDesc("spindle_queue_preemptions_observed_total",
		"Pods preemption in observe mode (preemption=observe) would have taken from the queue (direction=from) or for it (direction=for), "+
			"and did not, since the scheduler started; a parent counts its leaves'.",
		[]string{"queue", "direction"}, nil)
	descJobs = prometheus.NewDesc("spindle_jobs",
		"Jobs the scheduler tracks, by core job state.", []string{"state"}, nil)
	descNodes = prometheus.NewDesc("spindle_nodes",
		"Nodes by whether spindle may place pods on them.", []string{"schedulable"}, nil)
	descUtil = prometheus.NewDesc("spindle_cluster_utilization",
		"Spindle's allocation over the capacity it may use (allocatable less external load), by resource.",
		[]string{"resource"}, nil)
	descPolicy = prometheus.NewDesc("spindle_policy_value",
		"Policy and admission internals by name, e.g. dress_delta (DRESS's reserve ratio δ), autoadmin_rr_vcores and autoadmin_rr_memory_mib (AutoAdmin's R_R).",
		[]string{"policy", "admission", "name"}, nil)
	descPublished = prometheus.NewDesc("spindle_snapshot_timestamp_seconds",
		"Time of the last published state snapshot, in Unix seconds.", nil, nil)
	descLeader = prometheus.NewDesc("spindle_leader",
		"1 when this replica schedules (leader, or solo without leader election), 0 when standby.", nil, nil)
	descSynced = prometheus.NewDesc("spindle_synced",
		"1 once the driver has listed and adopted the cluster's nodes and pods.", nil, nil)
	descForecastWait = prometheus.NewDesc("spindle_forecast_wait_seconds",
		"The longest wait the last forecast expects among the queue's jobs that have not started, from the forecast's instant "+
			"(jobs not expected within the forecast's horizon are counted in spindle_forecast_waiting_jobs{beyond=\"true\"}, not here).",
		[]string{"queue"}, nil)
	descForecastWaiting = prometheus.NewDesc("spindle_forecast_waiting_jobs",
		"Jobs the last forecast saw waiting, by queue and whether they start beyond its horizon.", []string{"queue", "beyond"}, nil)
	descForecastAge = prometheus.NewDesc("spindle_forecast_age_seconds",
		"Age of the cluster state the last forecast started from, when the state snapshot was published.", nil, nil)
)

type snapshotCollector struct{ r *Recorder }

func (c snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPending, descRunning, descAMs, descQueueCPU, descQueueMem,
		descQueueShare, descQueueWeight, descPreempted, descObserved, descJobs, descNodes, descUtil, descPolicy, descPublished,
		descLeader, descSynced, descForecastWait, descForecastWaiting, descForecastAge} {
		ch <- d
	}
}

func (c snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	leader := 1.0
	if c.r.Role() == RoleStandby {
		leader = 0
	}
	g(descLeader, leader)
	synced := 0.0
	if c.r.Synced() {
		synced = 1
	}
	g(descSynced, synced)
	s := c.r.Latest()
	if s == nil {
		return
	}
	g(descPublished, float64(s.Time.UnixNano())/1e9)
	for _, q := range s.Queues {
		g(descPending, float64(q.PendingPods), q.Name)
		g(descRunning, float64(q.RunningPods), q.Name)
		g(descAMs, float64(q.AMsAdmitted), q.Name, AMAdmitted)
		g(descAMs, float64(q.AMsWaiting), q.Name, AMWaiting)
		g(descQueueCPU, float64(q.Usage.MilliCPU)/1000, q.Name)
		g(descQueueMem, float64(q.Usage.MemoryMiB)*(1<<20), q.Name)
		g(descQueueShare, q.Share, q.Name)
		g(descQueueWeight, q.Weight, q.Name)
		ch <- prometheus.MustNewConstMetric(descPreempted, prometheus.CounterValue, float64(q.PreemptedFrom), q.Name, "from")
		ch <- prometheus.MustNewConstMetric(descPreempted, prometheus.CounterValue, float64(q.PreemptedFor), q.Name, "for")
		ch <- prometheus.MustNewConstMetric(descObserved, prometheus.CounterValue, float64(q.WouldPreemptFrom), q.Name, "from")
		ch <- prometheus.MustNewConstMetric(descObserved, prometheus.CounterValue, float64(q.WouldPreemptFor), q.Name, "for")
	}
	jobs := map[string]int{}
	for _, j := range s.Jobs {
		jobs[j.State]++
	}
	for state, n := range jobs {
		g(descJobs, float64(n), state)
	}
	var yes, no int
	for _, n := range s.Nodes {
		if n.Schedulable {
			yes++
		} else {
			no++
		}
	}
	g(descNodes, float64(yes), "true")
	g(descNodes, float64(no), "false")
	u := utilization(s)
	g(descUtil, u.CPU, "cpu")
	g(descUtil, u.Memory, "memory")
	for name, v := range s.Gauges {
		g(descPolicy, v, s.Policy, s.Admission, name)
	}
	if f := s.Forecast; f != nil {
		g(descForecastAge, f.AgeSeconds)
		for _, w := range forecastWaits(s) {
			if w.counted > 0 {
				g(descForecastWait, w.longest.Seconds(), w.queue)
			}
			g(descForecastWaiting, float64(w.counted), w.queue, "false")
			g(descForecastWaiting, float64(w.beyond), w.queue, "true")
		}
	}
}

// queueWait sums up one queue's waiting jobs in the last forecast.
type queueWait struct {
	queue           string
	counted, beyond int
	longest         time.Duration
}

// forecastWaits returns, for every queue of s, its jobs the last forecast
// saw waiting (JobForecast.Waits); a parent queue holds no jobs of its
// own.
func forecastWaits(s *Snapshot) []queueWait {
	at := s.Forecast.At
	out := make([]queueWait, 0, len(s.Queues))
	idx := map[string]int{}
	for _, q := range s.Queues {
		idx[q.Name] = len(out)
		out = append(out, queueWait{queue: q.Name})
	}
	for _, j := range CurrentForecast(s).Jobs {
		i, ok := idx[j.Queue]
		if !ok || !j.Waits(at) {
			continue
		}
		w := &out[i]
		if j.Beyond {
			w.beyond++
			continue
		}
		w.counted++
		w.longest = max(w.longest, j.Start.Sub(at))
	}
	return out
}
