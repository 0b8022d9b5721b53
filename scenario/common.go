package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/workload"
)

// poissonArrivals submits the jobs in order as a Poisson process: the first
// at 0, then gaps drawn from an exponential with the given mean (seconds),
// each submit time rounded to the millisecond to keep files short and exact.
func poissonArrivals(jobs []workload.Job, meanGap float64, rng *rand.Rand) {
	t := 0.0
	for i := range jobs {
		if i > 0 {
			t += rng.ExpFloat64() * meanGap
		}
		sub, _ := clock.FromSeconds(math.Round(t*1000) / 1000)
		jobs[i].Submit = clock.Time(sub)
	}
}

// MaxJobs and MaxTasks bound what a generator builds in memory: four times
// the largest run documented (25M tasks in 500,000 jobs) is allowed, and
// more is refused with an error before anything is allocated, not left to
// run the machine out of memory.
const (
	MaxJobs  = 2_000_000
	MaxTasks = 100_000_000
)

// checkSize refuses a workload larger than MaxJobs jobs or, on average,
// MaxTasks tasks; tasksPerJob is the mean number of tasks a job gets.
func checkSize(name string, jobs int, tasksPerJob float64) error {
	if jobs > MaxJobs {
		return fmt.Errorf("%s: --jobs %d is more than the %d a generated workload may have", name, jobs, MaxJobs)
	}
	if t := float64(jobs) * tasksPerJob; t > MaxTasks || math.IsNaN(t) {
		return fmt.Errorf("%s: %d jobs of %g tasks on average is %.3g tasks, more than the %d a generated workload may have", name, jobs, tasksPerJob, t, MaxTasks)
	}
	return nil
}

// finish applies the format's defaults and holds a generated workload to the
// rules a file would be held to: a generator that writes an invalid workload
// is a bug, reported under its name.
func finish(name string, w *workload.Workload) (*workload.Workload, error) {
	w.ApplyDefaults()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("%s: generated an invalid workload: %w", name, err)
	}
	return w, nil
}
