package record

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestReadStampsRestarts: a restarted pod starts with its first run. The
// issue's case: a pod that ran from 1 s to 100 s with a restart at 70 s
// is a 99 s task, not a 30 s one.
func TestReadStampsRestarts(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(s) * time.Second)) }
	pod := func(restarts int32, last *v1.ContainerStateTerminated, cur v1.ContainerState) *v1.Pod {
		p := &v1.Pod{}
		p.Status.Phase = v1.PodSucceeded
		st := at(0)
		p.Status.StartTime = &st
		p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", RestartCount: restarts, State: cur,
			LastTerminationState: v1.ContainerState{Terminated: last}}}
		return p
	}
	ended := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: at(70), FinishedAt: at(100)}}
	for _, c := range []struct {
		name     string
		p        *v1.Pod
		start    int
		restarts int64
		lost     time.Duration
		approx   bool
	}{
		{"no restart", pod(0, nil, v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: at(1), FinishedAt: at(100)}}), 1, 0, 0, false},
		{"one restart", pod(1, &v1.ContainerStateTerminated{StartedAt: at(1), FinishedAt: at(69)}, ended), 1, 1, 69 * time.Second, false},
		{"three restarts: the pod's start", pod(3, &v1.ContainerStateTerminated{StartedAt: at(40), FinishedAt: at(69)}, ended), 0, 3, 70 * time.Second, true},
		{"running after a restart", pod(1, &v1.ContainerStateTerminated{StartedAt: at(1), FinishedAt: at(69)},
			v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(70)}}), 1, 1, 69 * time.Second, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := readStamps(c.p)
			if !s.started.Equal(at(c.start).Time) || s.restarts != c.restarts || s.lost != c.lost || s.approxStart != c.approx {
				t.Errorf("start %s, restarts %d, lost %s, approx %v; want %ds, %d, %s, %v",
					s.started.Sub(t0), s.restarts, s.lost, s.approxStart, c.start, c.restarts, c.lost, c.approx)
			}
		})
	}
}

// TestLatencyCap: latencies of two minutes or more are counted, and the
// summary says so.
func TestLatencyCap(t *testing.T) {
	var l latencies
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 2 * time.Minute, 10 * time.Minute} {
		l.add(d)
	}
	if l.capped != 2 || l.quantile(1) != maxLatency {
		t.Errorf("capped %d, max %s", l.capped, l.quantile(1))
	}
	s := &Summary{LatencyCapped: 2, Restarts: 3, RestartedPods: 2, RestartLost: 90 * time.Second}
	notes := s.Notes()
	if len(notes) != 2 || notes[0] != "restarts: 2 pods restarted containers 3 times; each is timed from its first start, so its task includes 1m30s of restarted runs in all" ||
		notes[1] != "pod start latency: 2 pods took 2m0s or more from binding to start, counted as 2m0s in the median" {
		t.Errorf("%q", notes)
	}
}
