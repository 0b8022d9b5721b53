package djsf_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/policy/djsf"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/simtest"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// run simulates doc under pol with the given estimate source, checking the
// core's invariants after every event.
func run(t *testing.T, doc, pol string, est sim.Estimates) ([]metrics.Job, *metrics.Summary, *sim.Result) {
	t.Helper()
	o := simtest.Run(t, doc, runner.Spec{Policy: pol, Estimates: est})
	return o.Jobs, o.Summary, o.Result
}

func jcts(t *testing.T, jobs []metrics.Job) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, j := range jobs {
		if j.JCT == nil {
			t.Fatalf("job %s did not complete", j.ID)
		}
		out[j.ID] = *j.JCT
	}
	return out
}

// The DJSF paper's Fig. 1, on one 4-vcore node in ideal mode, every job
// submitted at 0 and no AMs. "wide" has 4 tasks of 1 vcore for 4 s: it fills
// the cluster. n1-n4 have one 1-vcore task of 4.2 s each. Oracle estimates:
// wide 4 s, each n 4.2 s.
//
//	SJF: wide is shortest and runs [0, 4]; n1-n4 run [4, 8.2].
//	     JCTs 4 and 4 × 8.2: average 36.8 / 5 = 7.36 s; one job done by 4.2 s.
//	DJSF: k-means (k = 3, but only two distinct values) groups {4} and
//	     {4.2 ×4}; packing gives sets {wide} (efficiency 1/4 = 0.25) and
//	     {n1..n4} (4 vcores, efficiency 4/4.2 ≈ 0.95), which runs first:
//	     n1-n4 [0, 4.2], wide [4.2, 8.2]. Average (4 × 4.2 + 8.2) / 5 = 5 s,
//	     32.07 % below SJF (the paper's Fig. 1 figure); four jobs done by
//	     4.2 s.
//	djsf+: area efficiency 4 / (4 × 0.25 × 4.2) = 0.95 against 1 / (1 × 4):
//	     the same order.
//	Tetris: equal alignment for every task; remaining work wide 4 × 4 s ×
//	     (1/4 + 1/4) = 8, each n 4.2 × 0.5 = 2.1, so the n jobs go first,
//	     one per pick as each leaves the candidates; the same schedule.
const fig1 = `
version: 1
cluster: {nodes: [{count: 1, vcores: 4, memory_mb: 4096}], ideal: true}
jobs:
  - {id: wide, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 4s}]}
  - {id: n1, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 4.2s}]}
  - {id: n2, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 4.2s}]}
  - {id: n3, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 4.2s}]}
  - {id: n4, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 4.2s}]}
`

func TestFigure1(t *testing.T) {
	oracle := sim.Estimates{Source: sim.EstimatesOracle}
	tests := []struct {
		pol       string
		wide, n   float64
		avg       float64
		doneBy4_2 int
	}{
		{"sjf", 4, 8.2, 7.36, 1},
		{"djsf", 8.2, 4.2, 5, 4},
		{"djsf:strict=true", 8.2, 4.2, 5, 4},
		{"djsf+", 8.2, 4.2, 5, 4},
		{"tetris", 8.2, 4.2, 5, 4},
	}
	for _, tt := range tests {
		t.Run(tt.pol, func(t *testing.T) {
			jobs, s, _ := run(t, fig1, tt.pol, oracle)
			got := jcts(t, jobs)
			for id, want := range map[string]float64{"wide": tt.wide, "n1": tt.n, "n2": tt.n, "n3": tt.n, "n4": tt.n} {
				if math.Abs(got[id]-want) > 1e-9 {
					t.Errorf("%s: JCT %v, want %v", id, got[id], want)
				}
			}
			if math.Abs(*s.JCTAvgS-tt.avg) > 1e-9 {
				t.Errorf("average JCT %v, want %v", *s.JCTAvgS, tt.avg)
			}
			done := 0
			for _, j := range jobs {
				if *j.Finish <= 4.2+1e-9 {
					done++
				}
			}
			if done != tt.doneBy4_2 {
				t.Errorf("%d jobs done by 4.2 s, want %d", done, tt.doneBy4_2)
			}
		})
	}
	// The reduction the paper reports for this example.
	if r := 1 - 5/7.36; math.Abs(r-0.3207) > 5e-5 {
		t.Errorf("reduction %v", r)
	}
}

// The djsf report of the Fig. 1 run: the sets as they launched, with the
// plan's prediction and what was observed.
func TestFigure1Report(t *testing.T) {
	_, s, _ := run(t, fig1, "djsf", sim.Estimates{Source: sim.EstimatesOracle})
	r, ok := s.Reports["djsf"].(djsf.Report)
	if !ok || len(r.Sets) != 2 || r.Plans < 1 {
		t.Fatalf("report %+v", s.Reports["djsf"])
	}
	first, second := r.Sets[0], r.Sets[1]
	if len(first.Jobs) != 4 || first.PredictedSpanS != 4.2 || math.Abs(first.PredictedEfficiency-4/4.2) > 1e-6 ||
		first.Efficiency == nil || math.Abs(*first.Efficiency-4/4.2) > 1e-9 {
		t.Errorf("first set %+v", first)
	}
	if len(second.Jobs) != 1 || second.Jobs[0] != "wide" || second.PredictedEfficiency != 0.25 ||
		second.Efficiency == nil || math.Abs(*second.Efficiency-0.25) > 1e-9 {
		t.Errorf("second set %+v", second)
	}
	if r.EfficiencyAvg == nil || math.Abs(*r.EfficiencyAvg-(4/4.2+0.25)/2) > 1e-9 {
		t.Errorf("average set efficiency %v", r.EfficiencyAvg)
	}
}

// The estimate source decides what SJF and DJSF see. One 1-vcore node; A
// runs 10 s but declares 1 s, B runs 2 s but declares 100 s.
//
//	declared: A looks shorter: A [0, 10], B [10, 12]: JCTs 10 and 12.
//	oracle:   the true standalone runtimes: B [0, 2], A [2, 12]: 12 and 2.
//	history:  no job has a name, so nothing is learnt and the declared
//	          estimates are used: as declared.
//
// DJSF agrees: with one vcore each job is a set of its own, and efficiency
// 1 / estimate orders them as SJF does.
const misdeclared = `
version: 1
cluster: {nodes: [{count: 1, vcores: 1, memory_mb: 1024}], ideal: true}
jobs:
  - {id: A, submit: 0s, estimate: 1s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 0s, estimate: 100s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 2s}]}
`

func TestEstimateSources(t *testing.T) {
	tests := []struct {
		est  sim.Estimates
		a, b float64
	}{
		{sim.Estimates{Source: sim.EstimatesDeclared}, 10, 12},
		{sim.Estimates{Source: sim.EstimatesHistory}, 10, 12},
		{sim.Estimates{Source: sim.EstimatesOracle}, 12, 2},
	}
	for _, pol := range []string{"sjf", "djsf", "djsf+", "tetris:f=0"} {
		for _, tt := range tests {
			jobs, s, _ := run(t, misdeclared, pol, tt.est)
			got := jcts(t, jobs)
			if got["A"] != tt.a || got["B"] != tt.b {
				t.Errorf("%s with %s estimates: A %v, B %v; want %v, %v", pol, tt.est.Source, got["A"], got["B"], tt.a, tt.b)
			}
			if s.Estimates != tt.est.Source {
				t.Errorf("summary records estimates %q, want %q", s.Estimates, tt.est.Source)
			}
		}
	}
}

// The schedules of SJF, Tetris and DJSF do not depend on heartbeat elision:
// delivering every node heartbeat gives every job the same timeline. DJSF
// re-plans only on arrivals, completions and ticks for this reason.
func TestElisionIsExact(t *testing.T) {
	var ws []*workload.Workload
	for seed := uint64(1); seed <= 2; seed++ {
		syn, err := scenario.Synthetic{Nodes: 10, NodeVCores: 8, NodeMemory: 16384, Jobs: 60, TasksPerJob: 8, Load: 1.5, Seed: seed}.Generate()
		if err != nil {
			t.Fatal(err)
		}
		g := scenario.DefaultDJSFGoogle
		g.Nodes, g.Jobs, g.Seed, g.AM = 8, 60, seed, seed == 2
		goog, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, syn, goog)
	}
	for i, w := range ws {
		for _, pol := range []string{"sjf", "sjf:strict=true", "tetris", "djsf", "djsf:strict=true,replan=3s", "djsf+"} {
			t.Run(fmt.Sprintf("w%d/%s", i, pol), func(t *testing.T) {
				t.Parallel()
				f, _, err := policy.Parse(pol)
				if err != nil {
					t.Fatal(err)
				}
				est := sim.Estimates{Source: sim.EstimatesOracle, Error: 0.3}
				a, err := sim.Run(w, sim.Options{Seed: 3, Policy: f, Estimates: est, Check: true})
				if err != nil {
					t.Fatal(err)
				}
				b, err := sim.Run(w, sim.Options{Seed: 3, Policy: f, Estimates: est, Check: true, EveryHeartbeat: true})
				if err != nil {
					t.Fatal(err)
				}
				if a.Deadlocked || b.Deadlocked {
					t.Fatalf("deadlocked: elided %v, every heartbeat %v", a.Deadlocked, b.Deadlocked)
				}
				for k := range a.Jobs {
					if a.Jobs[k] != b.Jobs[k] {
						t.Fatalf("job %d differs:\n elided:          %+v\n every heartbeat: %+v", k, a.Jobs[k], b.Jobs[k])
					}
				}
			})
		}
	}
}

// Same input and seed, same bytes: the whole summary, reports included.
func TestDeterministic(t *testing.T) {
	g := scenario.DefaultDJSFGoogle
	g.Nodes, g.Jobs = 10, 100
	w, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{"sjf", "tetris", "djsf", "djsf+"} {
		var outs [2][]byte
		for i := range outs {
			f, _, err := policy.Parse(pol)
			if err != nil {
				t.Fatal(err)
			}
			est := sim.Estimates{Source: sim.EstimatesOracle, Error: 0.5}
			r, err := sim.Run(w, sim.Options{Seed: 9, Policy: f, Estimates: est})
			if err != nil {
				t.Fatal(err)
			}
			jobs := metrics.Jobs(w, &r.Outcome)
			s := metrics.Summarize(w, &r.Outcome, jobs, metrics.Run{Policy: pol, Estimates: est.Source, EstimateError: est.Error})
			s.Reports = r.Reports()
			if outs[i], err = json.Marshal(s); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s: two runs differ", pol)
		}
	}
}

func TestParams(t *testing.T) {
	tests := []struct {
		spec, err string
	}{
		{"djsf:k=5,replan=30s,strict=true,progress=true,density=area", ""},
		{"djsf+:density=span", ""},
		{"djsf:k=-1", "k"},
		{"djsf:density=volume", "density"},
		{"djsf:replan=0s", "replan"},
		{"djsf:speed=2", "unknown parameter speed"},
		{"sjf:strict=maybe", "strict"},
		{"tetris:f=1", "f"},
		{"tetris:m=-2", "m"},
		{"tetris:max_am_share=2", "max_am_share"},
	}
	for _, tt := range tests {
		_, _, err := policy.Parse(tt.spec)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.spec, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one naming %q", tt.spec, err, tt.err)
		}
	}
}
