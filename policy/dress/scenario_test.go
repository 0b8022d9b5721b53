package dress_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

func mixed(t *testing.T, frac float64, seed uint64) *workload.Workload {
	t.Helper()
	s := scenario.DefaultDRESS
	s.Kind, s.SmallFrac, s.Seed = scenario.DRESSMixed, frac, seed
	w, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func simulate(t *testing.T, w *workload.Workload, pol string, seed uint64, check bool) *metrics.Summary {
	t.Helper()
	f, _, err := policy.Parse(pol)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(w, sim.Options{Seed: seed, Policy: f, Check: check})
	if err != nil {
		t.Fatal(err)
	}
	jobs := metrics.Jobs(w, &r.Outcome)
	s := metrics.Summarize(w, &r.Outcome, jobs, metrics.Run{Policy: pol, Seed: seed})
	s.Reports = r.Reports()
	if s.Deadlocked || s.JobsCompleted != len(w.Jobs) {
		t.Fatalf("%s: deadlocked %v, %d of %d jobs completed", pol, s.Deadlocked, s.JobsCompleted, len(w.Jobs))
	}
	return s
}

// A realistic run (heartbeats, launch jitter) with the core's invariants
// checked after every event; the same seed gives the same bytes.
func TestMixedRunIsSoundAndDeterministic(t *testing.T) {
	w := mixed(t, 0.2, 3)
	a := simulate(t, w, "dress", 3, true)
	b := simulate(t, w, "dress", 3, false)
	a.WallS, b.WallS = 0, 0
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("two runs of the same workload and seed differ")
	}
}

// The estimator's predicted releases track the observed ones better than
// predicting none at all, on every DRESS workload (seed 1).
func TestEstimatorAccuracy(t *testing.T) {
	for _, kind := range []string{scenario.DRESSSpark, scenario.DRESSMapReduce, scenario.DRESSMixed} {
		s := scenario.DefaultDRESS
		s.Kind = kind
		w, err := s.Generate()
		if err != nil {
			t.Fatal(err)
		}
		rep := simulate(t, w, "dress", 1, false).Reports["dress"].(dress.Report)
		a := rep.Accuracy
		t.Logf("%s: %d intervals, MAE %.2f containers (predicting zero: %.2f, the last interval: %.2f)", kind, a.Intervals, a.MAE, a.MAEZero, a.MAEPersistence)
		if a.Intervals < 100 || !(a.MAE < 0.85*a.MAEZero) || a.PredictedMean <= 0 {
			t.Errorf("%s: %+v; want the error well below that of predicting no releases", kind, a)
		}
	}
}

// The target on the mixed workloads, seed 1: small jobs' average
// JCT at least 20 % below Capacity's, makespan at most 5 % above.
func TestMixedTarget(t *testing.T) {
	for _, frac := range []float64{0.1, 0.2, 0.3, 0.4} {
		t.Run(fmt.Sprint(frac), func(t *testing.T) {
			w := mixed(t, frac, 1)
			c := simulate(t, w, "capacity", 1, false)
			d := simulate(t, w, "dress", 1, false)
			red := 1 - *d.Categories[metrics.Small].JCTAvg / *c.Categories[metrics.Small].JCTAvg
			ms := d.MakespanS/c.MakespanS - 1
			if red < 0.2 || ms > 0.05 {
				t.Errorf("small-job JCT reduction %.1f %%, makespan change %+.1f %%", 100*red, 100*ms)
			}
		})
	}
}
