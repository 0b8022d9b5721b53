package kubescheduler

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
)

// kube-scheduler's client-side rate limit on its calls to the apiserver:
// its KubeSchedulerConfiguration's clientConnection.qps and .burst (the
// deprecated --kube-api-qps and --kube-api-burst flags), 50 and 100 by
// default (pkg/scheduler/apis/config/v1/defaults.go). client-go enforces it
// with a token bucket before each request leaves. The scheduler's one
// client binds every pod it places (DefaultBinder's POST of a Binding, from
// a goroutine of its own, so that the next pod is scheduled meanwhile) and
// patches the PodScheduled condition of a pod it could not place; its
// events go through a second client with a bucket of its own.
const (
	DefaultQPS   = 50.0
	DefaultBurst = 100
)

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
