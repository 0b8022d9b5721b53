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
	// history: per job name, the sum and count of observed runtimes.
	sum   map[string]clock.Duration
	count map[string]int
}

func newEstimator(cfg Estimates, seed uint64, capacity []resource.Vector) *estimator {
	return &estimator{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x65737469)), // "esti"
		capacity: capacity, sum: map[string]clock.Duration{}, count: map[string]int{}}
}

// estimate returns the estimate for a job as it arrives.
func (e *estimator) estimate(j *workload.Job) clock.Duration {
	switch e.cfg.Source {
	case EstimatesHistory:
		if n := e.count[j.Name]; n > 0 && j.Name != "" {
			return e.sum[j.Name] / clock.Duration(n)
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
	if e.cfg.Source == EstimatesHistory && name != "" && runtime >= 0 {
		e.sum[name] += runtime
		e.count[name]++
	}
}
