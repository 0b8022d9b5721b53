package experiments

import (
	"math"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
)

func djJob(submit, start, finish float64) metrics.Job {
	j := metrics.Job{Submit: submit, FirstStart: &start}
	if finish >= 0 {
		j.Finish = &finish
	}
	return j
}

func TestDJSFHelpers(t *testing.T) {
	// Submitted at 1, 2, 2, 5 and started at 1, 4, 3, 5: from 2 to 3 the
	// second and third jobs both wait.
	jobs := []metrics.Job{djJob(1, 1, 10), djJob(2, 4, 6), djJob(2, 3, -1), djJob(5, 5, 8)}
	if got := djMaxWaiting(jobs); got != 2 {
		t.Errorf("max waiting %d, want 2", got)
	}
	// A job that starts the moment it arrives never waits.
	if got := djMaxWaiting([]metrics.Job{djJob(0, 0, 1), djJob(1, 1, 2)}); got != 0 {
		t.Errorf("max waiting %d, want 0", got)
	}
	// Completions at 6, 8 and 10 (one job never completes), the first
	// submission at 1: half of the 4 jobs are done at 8 - 1 = 7; 90 %
	// needs all 4.
	if got := djTimeTo(jobs, 0.5); got != 7 {
		t.Errorf("half done at %v, want 7", got)
	}
	if got := djTimeTo(jobs, 0.9); !math.IsNaN(got) {
		t.Errorf("90 %% done at %v, want never", got)
	}
	if got := djRel(90, 100); math.Abs(got+10) > 1e-12 {
		t.Errorf("relative change %v", got)
	}
}

func TestDJSFSpreadAndCurve(t *testing.T) {
	// Spread of 90, 100, 110: (110 - 90) / 100.
	if got := djSpread([]float64{90, 100, 110}); math.Abs(got-20) > 1e-9 {
		t.Errorf("spread %v, want 20", got)
	}
	if got := djSpread([]float64{5, 5}); got != 0 {
		t.Errorf("spread of equal values %v, want 0", got)
	}
	a := &metrics.Summary{ThroughputCurve: []metrics.CurvePoint{{T: 1, Jobs: 3}, {T: 2, Jobs: 7}}}
	b := &metrics.Summary{ThroughputCurve: []metrics.CurvePoint{{T: 1, Jobs: 5}, {T: 2, Jobs: 9}}}
	if got := djMeanCurve([]*metrics.Summary{a, b}, 1); got != 8 {
		t.Errorf("mean jobs at point 1: %v, want 8", got)
	}
	if got := djMeanCurve([]*metrics.Summary{a}, 5); !math.IsNaN(got) {
		t.Errorf("a point past the curve: %v, want NaN", got)
	}
	// The tenths read from the curve are 10, 20, 30 and 50 % of T.
	for k, i := range djCurveTenths {
		want := []float64{0.1, 0.2, 0.3, 0.5}[k]
		if got := float64(i+1) / metrics.CurvePoints; math.Abs(got-want) > 1e-12 {
			t.Errorf("curve point %d is at %v of T, want %v", i, got, want)
		}
	}
}
