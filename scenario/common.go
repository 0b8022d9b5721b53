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
