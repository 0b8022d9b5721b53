package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Estimate sources: where a job's runtime estimate, the only runtime a policy
// may see, comes from.
const (
	// EstimatesDeclared uses the job's own `estimate` field (0 when absent).
	EstimatesDeclared = "declared"
	// EstimatesHistory uses the mean observed runtime of earlier completed
	// jobs with the same name (first task RUNNING to last task COMPLETED,
	// as the resource manager saw them), falling back to the declared
	// estimate while none has completed.
	EstimatesHistory = "history"
	// EstimatesOracle uses the job's standalone runtime on the empty
	// cluster, computed from the true durations, with seeded relative error:
	// an explicit, labelled experimental mode for schemes that assume a
	// runtime predictor.
	EstimatesOracle = "oracle"
)

// EstimateSources lists the sources in a fixed order.
var EstimateSources = []string{EstimatesDeclared, EstimatesHistory, EstimatesOracle}

// Estimates selects the estimate source of a run.
type Estimates struct {
	Source string // one of EstimateSources; "" means declared
	// Error is the relative error of oracle estimates: each is multiplied by
	// 1 + U[−Error, Error], drawn from the run's seed. Error must be in
	// [0, 1) and is only allowed with the oracle source.
	Error float64
}

// Validate reports a bad source or error.
func (e Estimates) Validate() error {
	if e.Source != "" && !slices.Contains(EstimateSources, e.Source) {
		return fmt.Errorf("unknown estimate source %q (known: declared, history, oracle)", e.Source)
	}
	if !(e.Error >= 0 && e.Error < 1) {
		return fmt.Errorf("estimate error %v: must be in [0, 1)", e.Error)
	}
	if e.Error > 0 && e.Source != EstimatesOracle {
		return fmt.Errorf("estimate error applies to oracle estimates only")
	}
	return nil
}

// estimator produces each arriving job's estimate.
type estimator struct {
	cfg      Estimates
	rng      *rand.Rand
	capacity []resource.Vector // every node's capacity
	history  History
}

func newEstimator(cfg Estimates, seed uint64, capacity []resource.Vector) *estimator {
	return &estimator{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x65737469)), // "esti"
		capacity: capacity}
}

// History is the history source's rule, for any driver that learns from
// finished jobs (a live forecast too): a job's estimate is the mean
// observed runtime of the completed jobs of its name. The zero value is
// empty and ready; it is not safe for concurrent use.
type History struct {
	// Per job name, the sum and count of observed runtimes.
	sum   map[string]clock.Duration
	count map[string]int
}

// Observe records a completed job's runtime; a job without a name or a
// negative runtime teaches nothing.
func (h *History) Observe(name string, runtime clock.Duration) {
	if name == "" || runtime < 0 {
		return
	}
	if h.sum == nil {
		h.sum, h.count = map[string]clock.Duration{}, map[string]int{}
	}
	h.sum[name] += runtime
	h.count[name]++
}

// Estimate returns the mean runtime of the completed jobs named name, and
// false when none has completed (or name is "").
func (h *History) Estimate(name string) (clock.Duration, bool) {
	n := h.count[name]
	if n == 0 || name == "" {
		return 0, false
	}
	return h.sum[name] / clock.Duration(n), true
}

// Len returns the number of job names the history knows.
func (h *History) Len() int { return len(h.count) }

// estimate returns the estimate for a job as it arrives.
func (e *estimator) estimate(j *workload.Job) clock.Duration {
	switch e.cfg.Source {
	case EstimatesHistory:
		if d, ok := e.history.Estimate(j.Name); ok {
			return d
		}
		return j.Estimate
	case EstimatesOracle:
		d := float64(j.Standalone(e.capacity))
		if e.cfg.Error > 0 {
			d *= 1 + e.cfg.Error*(2*e.rng.Float64()-1)
		}
		return clock.Duration(d + 0.5)
	}
	return j.Estimate
}

// observe records a finished job's observed runtime for history estimates.
func (e *estimator) observe(name string, runtime clock.Duration) {
	if e.cfg.Source == EstimatesHistory {
		e.history.Observe(name, runtime)
	}
}
