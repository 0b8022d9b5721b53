// Package runner runs simulations of a workload under policy specs and turns
// each into its summary: the one place the command line and the experiment
// reports go from "workload, policy, admission, seed" to results, so both
// measure runs the same way.
package runner

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// Spec is one simulation to run.
type Spec struct {
	Workload     *workload.Workload
	WorkloadName string // recorded in the summary
	Policy       string // "fair", "fair:max_am_share=-1"
	Admission    string // "", "none", "static:32"
	Seed         uint64
	Estimates    sim.Estimates
	// ForecastError makes the external-load forecast policies see noisy
	// (sim.Options.ForecastError).
	ForecastError float64
	// TimelineStep, when positive, records the allocation over time.
	TimelineStep clock.Duration
	// Progress, when set, is called now and then during the run.
	Progress func(sim.Progress)
	// Check verifies the core's invariants after every event (tests).
	Check bool
	// MaxEvents, when positive, fails a run past that many events (tests).
	MaxEvents uint64
	// DropDurations lets the run free the workload's task durations as
	// its jobs finish (sim.Options.DropDurations): for a workload
	// simulated once, never one shared with other runs.
	DropDurations bool
	// SummaryOnly drops the run's per-job results once the summary is
	// made, for callers that keep many outcomes of large workloads.
	SummaryOnly bool
	// wrap, when set (tests), wraps the policy once it is built.
	wrap func(v *sched.View, p sched.Policy) sched.Policy
}

// Outcome is a finished simulation.
type Outcome struct {
	Spec    Spec
	Result  *sim.Result
	Jobs    []metrics.Job
	Summary *metrics.Summary
}

// Check parses the spec's policy, admission and estimates without running,
// so that a typo fails before a long workload is loaded.
func Check(s Spec) error {
	_, _, _, err := parse(s)
	return err
}

func parse(s Spec) (sched.PolicyFactory, string, sched.AdmissionFactory, error) {
	pf, ps, err := policy.Parse(s.Policy)
	if err != nil {
		return nil, "", nil, err
	}
	af, err := admission.Parse(s.Admission)
	if err != nil {
		return nil, "", nil, err
	}
	if err := s.Estimates.Validate(); err != nil {
		return nil, "", nil, err
	}
	if !(s.ForecastError >= 0 && s.ForecastError <= 1) {
		return nil, "", nil, fmt.Errorf("load forecast error %v: must be in [0, 1]", s.ForecastError)
	}
	return pf, ps.String(), af, nil
}

// Run simulates one spec.
func Run(s Spec) (*Outcome, error) {
	pf, canon, af, err := parse(s)
	if err != nil {
		return nil, err
	}
	if wrap := s.wrap; wrap != nil {
		inner := pf
		pf = func(v *sched.View) (sched.Policy, error) {
			p, err := inner(v)
			if err != nil {
				return nil, err
			}
			return wrap(v, p), nil
		}
	}
	opts := sim.Options{Seed: s.Seed, Policy: pf, Estimates: s.Estimates, ForecastError: s.ForecastError, TimelineStep: s.TimelineStep, Check: s.Check, MaxEvents: s.MaxEvents,
		Progress: s.Progress, ProgressEvery: 1 << 16, DropDurations: s.DropDurations}
	if af != nil {
		opts.Admission = af
	}
	start := time.Now()
	res, err := sim.Run(s.Workload, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", canon, err)
	}
	wall := time.Since(start)
	jobs := metrics.Jobs(s.Workload, &res.Outcome)
	adm := strings.TrimSpace(s.Admission)
	if adm == "" {
		adm = "none"
	}
	est := s.Estimates.Source
	if est == "" {
		est = sim.EstimatesDeclared
	}
	sum := metrics.Summarize(s.Workload, &res.Outcome, jobs, metrics.Run{
		Policy: canon, Admission: adm, Estimates: est, EstimateError: s.Estimates.Error, LoadForecastError: s.ForecastError,
		Workload: s.WorkloadName, Seed: s.Seed,
	})
	sum.Reports = res.Reports()
	sum.WallS = wall.Seconds()
	if s.SummaryOnly {
		s.Workload = nil
		return &Outcome{Spec: s, Summary: sum}, nil
	}
	return &Outcome{Spec: s, Result: res, Jobs: jobs, Summary: sum}, nil
}

// RunAll simulates every spec, at most parallel at once (0: one per CPU),
// and returns the outcomes in the order given; the results do not depend on
// parallel. done, when set, is called after each run with the count so far.
func RunAll(specs []Spec, parallel int, done func(n int)) ([]*Outcome, error) {
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	outs := make([]*Outcome, len(specs))
	errs := make([]error, len(specs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	finished := 0
	for i := range specs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i], errs[i] = Run(specs[i])
			if done != nil {
				mu.Lock()
				finished++
				done(finished)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// EstimateNote says, for a run whose policy reads runtime estimates from the
// declared source, how many jobs of w have no estimate and what the policy
// does with them, with the sources that would give every job one; "" when
// the policy reads no estimates, the source is not declared, or every job
// has one. Without it such a run quietly degrades (sjf and djsf to FIFO).
func EstimateNote(s Spec, w *workload.Workload) string {
	e, ok := policy.Lookup(s.Policy)
	if !ok || e.WithoutEstimate == "" || (s.Estimates.Source != "" && s.Estimates.Source != sim.EstimatesDeclared) {
		return ""
	}
	missing := 0
	for i := range w.Jobs {
		if w.Jobs[i].Estimate <= 0 {
			missing++
		}
	}
	if missing == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d jobs have no estimate field, and with --estimates declared %s %s; "+
		"--estimates history (learned from completed jobs of the same name) or --estimates oracle (experimental) gives every job one",
		missing, len(w.Jobs), e.Name, e.WithoutEstimate)
}
