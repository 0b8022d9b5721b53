package sim

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
)

// A Kubernetes scheduler talks to the apiserver through a client with a
// client-side rate limit: kube-scheduler's clientConnection.qps and .burst
// (the deprecated --kube-api-qps and --kube-api-burst flags), 50 and 100
// by default (pkg/scheduler/apis/config/v1/defaults.go), and 'spindle kube
// schedule' --qps and --burst, the same by default. client-go enforces it
// with a token bucket before each request leaves. Every pod the scheduler
// places costs one call, its Binding (sent while the next pod is
// scheduled), so past a burst no more pods are bound a second than the
// limit lets through, whatever room the cluster has: on Spark-shaped
// bursts of thousands of executors with second-long tasks this limit, not
// the cluster, paced the recorded runs (docs/record.md, "The scheduler's
// rate limit"). Under the Kubernetes timing preset the simulator binds
// every placed container through the cluster's bucket (cluster api_qps,
// api_burst), whatever the policy: the pod holds its node from its
// placement, as the scheduler's assumed pod does, and its start latency
// runs from its binding.

// apiLimit is that token bucket as a generic cell rate: tat is the
// instant the bucket would be full again, each call moves it on by every,
// and a call leaves once tat is at most slack ahead. Calls reserve their
// turn in the order they are made, as client-go's limiter grants its
// waiters. Integer microseconds keep every run, on every machine, the
// same.
type apiLimit struct {
	every clock.Duration // 1/qps
	slack clock.Duration // (burst-1)·every: the burst saved beyond one call
	tat   clock.Time
}

// newAPILimit returns the bucket for qps calls a second, burst at most at
// once; nil when qps is 0 (no limit).
func newAPILimit(qps float64, burst int) *apiLimit {
	if qps <= 0 {
		return nil
	}
	every := clock.Duration(math.Max(1, math.Round(float64(clock.Second)/qps)))
	return &apiLimit{every: every, slack: clock.Duration(max(burst, 1)-1) * every}
}

// reserve takes the next call's turn, made at now, and returns when it
// leaves.
func (l *apiLimit) reserve(now clock.Time) clock.Time {
	at := max(now, l.tat.Add(-l.slack))
	l.tat = max(l.tat, now).Add(l.every)
	return at
}
