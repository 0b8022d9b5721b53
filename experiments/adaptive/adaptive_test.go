package adaptive

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/experiments/internal/section"
	adaptivepolicy "github.com/spindle-sched/spindle/policy/adaptive"
	"github.com/spindle-sched/spindle/sim"
)

// The report's runs: through the runner with an exact forecast, through the
// simulator with a noisy one, measured the same way, with projections for
// the goal-driven schemes and the transactional demand for the unmet share.
func TestAdaptiveRuns(t *testing.T) {
	set := setting{exp: 2, load: 0.4}
	cs := []simCase{
		{set, "fifo", 0, sim.Estimates{}, 1},
		{set, "reverse-adaptive", 0, sim.Estimates{}, 1},
		{set, "reverse-adaptive", 0.5, sim.Estimates{}, 1},
		{set, "adaptive+", 0, sim.Estimates{Source: sim.EstimatesOracle, Error: 0.3}, 1},
		{setting{exp: 2, load: 0.4, preset: "paper"}, "adaptive+", 0, sim.Estimates{Source: sim.EstimatesHistory}, 1},
	}
	outs, err := runAll(section.Config{Parallel: 2, Log: io.Discard}, cs)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if o.total != 100 || o.completed != 100 || o.demand <= 0 || o.unmet < 0 || o.met <= 0 || o.met > 1 {
			t.Errorf("%+v: %d/%d jobs, met %v, unmet %v of %v", cs[i], o.completed, o.total, o.met, o.unmet, o.demand)
		}
	}
	if len(outs[0].est) != 0 || len(outs[1].est) == 0 || len(outs[2].est) == 0 || len(outs[3].est) == 0 {
		t.Errorf("projections: fifo %d, reverse-adaptive %d and %d", len(outs[0].est), len(outs[1].est), len(outs[2].est))
	}
	if outs[1].demand != outs[2].demand {
		t.Errorf("a noisy forecast changed the applied load: demand %v vs %v", outs[1].demand, outs[2].demand)
	}
}

func TestCompareWord(t *testing.T) {
	for _, tt := range []struct {
		a, b float64
		want string
	}{{0.5, 0.4, "beats"}, {0.4, 0.5, "trails"}, {0.4, 0.4, "ties"}} {
		if got := compareWord(tt.a, tt.b); got != tt.want {
			t.Errorf("compareWord(%v, %v) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

// The template renders every table from the numbers alone: synthetic runs
// of every case the report makes, with no simulation, so that a template
// and its data cannot drift apart unnoticed.
func TestSectionRenders(t *testing.T) {
	ss := allSettings()
	seeds := []uint64{1, 2}
	res := results{}
	for i, c := range cases(ss, seeds) {
		o := out{met: float64(i%10) / 10, lateAvg: float64(i % 7), lateP95: float64(i % 13), util: 0.5, completed: 100, total: 100}
		if c.set.exp > 1 {
			o.unmet, o.demand = float64(i%5), 100
		}
		if c.policy != "fifo" {
			o.est = []adaptivepolicy.Estimate{{Projected: clock.Time(i) * clock.Time(clock.Second), Actual: clock.Time(30 * clock.Second)}}
		}
		k := key{c.set, c.policy, c.forecast, c.est}
		res[k] = append(res[k], o)
	}
	md, err := section.Render(templates, "section.md.tmpl", tables(len(seeds), ss, res))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### The three experiments", "### The paper regime", "### adaptive+ against the target",
		"### Estimates as users have them", "### Experiment 3: burstiness", "### Experiment 2: MapReduce load", "### Larger jobs",
		"### Reverse-Adaptive's parts", "`reverse-adaptive, forecast error 0.5`", "### The target on seed 1", "### Findings", "### Why",
		"| 1: MapReduce only | fifo |", "| 3: bursty load, B = 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q", want)
		}
	}
	if strings.Contains(md, "NaN") {
		t.Errorf("section has undefined numbers:\n%s", md)
	}
}

// runAll runs the cases at most parallel at once and returns their outcomes
// in case order: the same outcomes whatever parallel is, so that the
// section does not depend on -j.
func TestRunAllIgnoresParallelism(t *testing.T) {
	var cs []simCase
	for _, pol := range []string{"fifo", "adaptive", "reverse-adaptive", "adaptive+"} {
		for seed := uint64(1); seed <= 2; seed++ {
			cs = append(cs, simCase{setting{exp: 3, load: 0.4, burst: 1}, pol, 0.2 * float64(seed-1), sim.Estimates{}, seed})
		}
	}
	one, err := runAll(section.Config{Parallel: 1, Log: io.Discard}, cs)
	if err != nil {
		t.Fatal(err)
	}
	four, err := runAll(section.Config{Parallel: 4, Log: io.Discard}, cs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, four) {
		t.Fatalf("outcomes differ with 1 and 4 at once:\n%+v\n%+v", one, four)
	}
}
