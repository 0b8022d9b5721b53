package metrics

import (
	"math"
	"reflect"
	"testing"
)

func done(submit, start, finish float64) Job {
	return Job{Submit: submit, FirstStart: &start, Finish: &finish, JCT: ptr(finish - submit)}
}

func TestCompletionEfficiency(t *testing.T) {
	tests := []struct {
		name string
		jobs []Job
		w    int
		want *float64
	}{
		// Fig. 1 of the DJSF paper as one window: four jobs from 0 to 4.2 s.
		{"one window", []Job{done(0, 0, 4.2), done(0, 0, 4.2), done(0, 0, 4.2), done(0, 0, 4.2)}, 4, ptr(4 / 4.2)},
		// Windows in completion order: {a, b} spans 0-2 (1 job/s), {c, d}
		// spans 1-5 (0.5): mean 0.75. The job listed first finishes last.
		{"two windows", []Job{done(0, 1, 5), done(0, 0, 1), done(0, 0, 2), done(0, 3, 4)}, 2, ptr(0.75)},
		// A trailing partial window is dropped.
		{"partial window dropped", []Job{done(0, 0, 1), done(0, 0, 2), done(0, 0, 10)}, 2, ptr(1.0)},
		// Fewer jobs than a window: they form the only window.
		{"fewer than a window", []Job{done(0, 0, 2), done(0, 1, 4)}, 10, ptr(0.5)},
		// Jobs that did not complete do not count; a job that never ran is
		// timed from its completion (it cannot have one, but stay safe).
		{"incomplete jobs ignored", []Job{done(0, 0, 2), {Submit: 0}}, 1, ptr(0.5)},
		{"nothing completed", []Job{{Submit: 0}}, 1, nil},
	}
	for _, tt := range tests {
		got := CompletionEfficiency(tt.jobs, tt.w)
		if (got == nil) != (tt.want == nil) || (got != nil && math.Abs(*got-*tt.want) > 1e-12) {
			t.Errorf("%s: %v, want %v", tt.name, deref(got), deref(tt.want))
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestThroughputPoints(t *testing.T) {
	// Submissions from 10 s; completions at 12, 15, 15 and 30 s, i.e. 2,
	// 5, 5 and 20 s after the first submission.
	jobs := []Job{done(10, 10, 15), done(11, 11, 12), done(10, 12, 30), done(12, 12, 15), {Submit: 13}}
	fin := finishOffsets(jobs)
	if want := []float64{2, 5, 5, 20}; !reflect.DeepEqual(fin, want) {
		t.Fatalf("finish offsets %v, want %v", fin, want)
	}
	got := CompletedByFracs(fin, 20)
	want := []CompletedAt{{0.25, 5, 3}, {0.5, 10, 3}, {0.75, 15, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("completed by %v, want %v", got, want)
	}
	curve := ThroughputCurve(fin, 20)
	if len(curve) != CurvePoints || curve[0] != (CurvePoint{1, 0}) || curve[1] != (CurvePoint{2, 1}) || curve[4] != (CurvePoint{5, 3}) || curve[19] != (CurvePoint{20, 4}) {
		t.Errorf("curve %v", curve)
	}
	if len(ThroughputCurve(fin, 0)) != 0 {
		t.Error("no reference time, no curve")
	}
}

// A comparison puts every run on the slowest run's time axis.
func TestCompareRuns(t *testing.T) {
	fast := &Summary{MakespanS: 10, JobsCompleted: 2, finishes: []float64{4, 10}}
	slow := &Summary{MakespanS: 40, JobsCompleted: 2, finishes: []float64{20, 40}}
	loaded := &Summary{MakespanS: 80, JobsCompleted: 3, CompletedBy: []CompletedAt{{0.25, 20, 1}}, ThroughputRef: RefOwnMakespan}
	fast.setThroughput(fast.MakespanS, RefOwnMakespan)
	CompareRuns([]*Summary{fast, slow, loaded})
	// The reference is the slowest makespan, 80 s: 25 % is 20 s.
	if fast.ThroughputRef != RefSlowestMakespan || fast.CompletedBy[0] != (CompletedAt{0.25, 20, 2}) {
		t.Errorf("fast: %s %v", fast.ThroughputRef, fast.CompletedBy)
	}
	if slow.CompletedBy[0].Jobs != 1 || slow.CompletedBy[1].Jobs != 2 {
		t.Errorf("slow: %v", slow.CompletedBy)
	}
	// A summary read back from JSON has no completion times: left alone.
	if loaded.ThroughputRef != RefOwnMakespan || loaded.CompletedBy[0].Jobs != 1 {
		t.Errorf("loaded summary changed: %s %v", loaded.ThroughputRef, loaded.CompletedBy)
	}
}

// A summary read back from JSON, given its jobs again, joins a comparison
// as the run in memory does: completion times measured from the first
// submission, unfinished jobs left out.
func TestRestoreFinishes(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	jobs := []Job{{Submit: 5, Finish: f(25)}, {Submit: 10, Finish: f(15)}, {Submit: 7}}
	loaded := &Summary{MakespanS: 20, JobsCompleted: 2}
	loaded.RestoreFinishes(jobs)
	if want := []float64{10, 20}; !reflect.DeepEqual(loaded.finishes, want) {
		t.Fatalf("finishes %v, want %v", loaded.finishes, want)
	}
	other := &Summary{MakespanS: 40, JobsCompleted: 1, finishes: []float64{40}}
	CompareRuns([]*Summary{loaded, other})
	// 25 % of the slowest makespan (40 s) is 10 s: one job done by then.
	if loaded.ThroughputRef != RefSlowestMakespan || loaded.CompletedBy[0] != (CompletedAt{0.25, 10, 1}) {
		t.Errorf("restored: %s %v", loaded.ThroughputRef, loaded.CompletedBy)
	}
}
