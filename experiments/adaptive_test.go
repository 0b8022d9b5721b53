package experiments

import (
	"testing"

	"github.com/spindle-sched/spindle/sim"
)

// The report's runs: through the runner with an exact forecast, through the
// simulator with a noisy one, measured the same way, with projections for
// the goal-driven schemes and the transactional demand for the unmet share.
func TestAdaptiveRuns(t *testing.T) {
	set := raSetting{exp: 2, load: 0.4}
	cases := []raCase{
		{set, "fifo", 0, sim.Estimates{}, 1},
		{set, "reverse-adaptive", 0, sim.Estimates{}, 1},
		{set, "reverse-adaptive", 0.5, sim.Estimates{}, 1},
		{set, "adaptive+", 0, sim.Estimates{Source: sim.EstimatesOracle, Error: 0.3}, 1},
		{raSetting{exp: 2, load: 0.4, preset: "paper"}, "adaptive+", 0, sim.Estimates{Source: sim.EstimatesHistory}, 1},
	}
	outs, err := raRunAll(cases, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if o.total != 100 || o.completed != 100 || o.demand <= 0 || o.unmet < 0 || o.met <= 0 || o.met > 1 {
			t.Errorf("%+v: %d/%d jobs, met %v, unmet %v of %v", cases[i], o.completed, o.total, o.met, o.unmet, o.demand)
		}
	}
	if len(outs[0].est) != 0 || len(outs[1].est) == 0 || len(outs[2].est) == 0 || len(outs[3].est) == 0 {
		t.Errorf("projections: fifo %d, reverse-adaptive %d and %d", len(outs[0].est), len(outs[1].est), len(outs[2].est))
	}
	if outs[1].demand != outs[2].demand {
		t.Errorf("a noisy forecast changed the applied load: demand %v vs %v", outs[1].demand, outs[2].demand)
	}
}

func TestRaCmp(t *testing.T) {
	for _, tt := range []struct {
		a, b float64
		want string
	}{{0.5, 0.4, "beats"}, {0.4, 0.5, "trails"}, {0.4, 0.4, "ties"}} {
		if got := raCmp(tt.a, tt.b); got != tt.want {
			t.Errorf("raCmp(%v, %v) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}
