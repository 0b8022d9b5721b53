package forecast

import (
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/kube/record"
)

func TestHistoryAdd(t *testing.T) {
	h := NewHistory()
	if !h.Add("ns/etl-1#u1", "etl", 10*time.Second, []time.Duration{5 * time.Second}) {
		t.Fatal("a new job is not added")
	}
	if h.Add("ns/etl-1#u1", "etl", 99*time.Second, nil) {
		t.Error("a job added twice")
	}
	h.Add("ns/etl-2#u2", "etl", 30*time.Second, nil)
	h.Add("pod:ns/x#u3", "", 7*time.Second, []time.Duration{7 * time.Second, 9 * time.Second})
	if h.Len() != 3 {
		t.Errorf("Len %d, want 3 (a job without a name counts in the cluster's runtimes)", h.Len())
	}
	e := newEstimates(h, &record.Instant{})
	if d, ok := e.byName.Estimate("etl"); !ok || d != micros(20*time.Second) {
		t.Errorf("etl's estimate %v %v, want the mean, 20 s", d, ok)
	}
	if _, ok := e.byName.Estimate(""); ok {
		t.Error("a job without a name has an estimate by name")
	}
	if m := median(e.tasks); m != 7*time.Second {
		t.Errorf("median task %v, want 7 s of 5, 7, 9", m)
	}
	if m := median(e.runtimes); m != 10*time.Second {
		t.Errorf("median runtime %v, want 10 s of 7, 10, 30", m)
	}
}

func TestHistoryBounds(t *testing.T) {
	h := NewHistory()
	for i := range MaxRuns + 10 {
		h.Add(string(rune('a'+i%26))+time.Duration(i).String(), "k", time.Duration(i)*time.Second, []time.Duration{time.Second})
	}
	if h.Len() != MaxRuns || len(h.tasks) != MaxTasks {
		t.Errorf("Len %d, tasks %d: want %d, %d", h.Len(), len(h.tasks), MaxRuns, MaxTasks)
	}
	// The oldest runs (0 s .. 9 s) went: the mean is of 10 .. MaxRuns+9.
	e := newEstimates(h, &record.Instant{})
	want := micros(time.Duration(10+MaxRuns+9) * time.Second / 2)
	if d, _ := e.byName.Estimate("k"); d != want {
		t.Errorf("mean %v, want %v", d, want)
	}
}

func TestHistoryLearn(t *testing.T) {
	// etl-000001 finished: tasks 20 s and 40 s, from the first start to
	// the last end 50 s. etl-000002 still runs: not learned.
	s := snapshot([]*v1.Node{mkNode("n1", 4)}, pods(
		[]pb{{job: "etl-000001", name: "a", cpu: 1, created: -100, node: "n1", started: ip(-100), ended: ip(-80)},
			{job: "etl-000001", name: "b", cpu: 1, created: -100, node: "n1", started: ip(-90), ended: ip(-50)},
			{job: "etl-000002", name: "c", cpu: 1, created: -10, node: "n1", started: ip(-10)}}), nil)
	h := NewHistory()
	n, err := h.Learn(s)
	if err != nil || n != 1 {
		t.Fatalf("learned %d (%v), want 1", n, err)
	}
	if n, _ := h.Learn(s); n != 0 {
		t.Errorf("learned %d again, want 0", n)
	}
	e := newEstimates(h, &record.Instant{})
	if d, ok := e.byName.Estimate("etl"); !ok || d != micros(50*time.Second) {
		t.Errorf("etl %v %v, want 50 s", d, ok)
	}
	if m := median(e.tasks); m != 20*time.Second {
		t.Errorf("median %v, want 20 s (the lower middle of 20 and 40)", m)
	}
	// The snapshot's finished job counts once, whether or not the
	// history has it: Run forecasts etl-000002's task, 10 s in, by its
	// tasks' mean (30 s) either way.
	for _, hh := range []*History{nil, h} {
		s.History = hh
		r := forecastOf(t, s, "fifo")
		j := byKey(r)["team/etl-000002"]
		if j.Source != SourceHistory || !j.Finish.Equal(at(20)) {
			t.Errorf("history %v: etl-000002 %+v, want history, finishing at 20 s (30 − 10)", hh != nil, j)
		}
	}
}

// TestHistoryConcurrent has a writer and readers at once; run with -race.
func TestHistoryConcurrent(t *testing.T) {
	h := NewHistory()
	s := snapshot([]*v1.Node{mkNode("n1", 4)}, pods(tasks(2, pb{job: "w", cpu: 1, created: -5})), h)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 200 {
			h.Add(time.Duration(i).String(), "w", time.Duration(i)*time.Second, []time.Duration{time.Second})
		}
	}()
	go func() {
		defer wg.Done()
		for range 20 {
			if _, err := Run(s, Options{Policy: factory(t, "fifo")}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	if h.Len() != 200 {
		t.Errorf("Len %d, want 200", h.Len())
	}
}
