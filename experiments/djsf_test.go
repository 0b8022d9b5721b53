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
