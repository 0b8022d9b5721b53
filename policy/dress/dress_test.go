package dress_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

// One node of 100 one-vcore containers: every container is 1 % of the
// cluster, as in the paper's 100-container testbed.
var (
	node100 = []resource.Vector{resource.New(100, 102400)}
	one     = resource.New(1, 1024)
	none    = resource.Vector{}
)

func job(key string, am resource.Vector, tasks int) sched.JobSpec {
	return sched.JobSpec{Key: key, Queue: "default", AM: am, Phases: []sched.PhaseSpec{{Tasks: tasks, Request: one, StartAfter: 1}}}
}

func build(cfg dress.Config) func(v *sched.View) (sched.Policy, error) {
	return func(v *sched.View) (sched.Policy, error) { return dress.New(v, cfg) }
}

func TestPick(t *testing.T) {
	place, steps := schedtest.PlaceN, schedtest.Steps
	big := resource.New(5, 5120)
	type row struct {
		schedtest.PickCase
		amPct float64
	}
	tests := []row{
		{PickCase: schedtest.PickCase{Name: "a small job gets the reserved pool while large jobs fill theirs",
			Jobs:  []sched.JobSpec{job("L", none, 95), job("S", none, 5)},
			Setup: place(0, 0, 90), Want: "S"}},
		{PickCase: schedtest.PickCase{Name: "a large job waits at its pool's limit although the node has room",
			Jobs:  []sched.JobSpec{job("L", none, 95)},
			Setup: place(0, 0, 90), Want: ""}},
		{PickCase: schedtest.PickCase{Name: "small jobs first when both pools have room",
			Jobs: []sched.JobSpec{job("L", none, 95), job("S", none, 5)}, Want: "S"}},
		{PickCase: schedtest.PickCase{Name: "first in, first out inside a pool",
			Jobs:  []sched.JobSpec{job("S1", none, 5), job("S2", none, 5)},
			Setup: place(1, 0, 2), Want: "S1"}},
		{PickCase: schedtest.PickCase{Name: "a small job's container past the pool's limit waits",
			Jobs:  []sched.JobSpec{job("S1", none, 9), job("S2", none, 9)},
			Setup: steps(place(0, 0, 9), place(1, 0, 1)), Want: ""}},
		{PickCase: schedtest.PickCase{Name: "an earlier job's AM before a later job's tasks in its pool",
			Jobs:  []sched.JobSpec{job("L1", one, 50), job("L2", none, 50)},
			Setup: nil, Want: "L1", WantAM: true}},
		{PickCase: schedtest.PickCase{Name: "the AM limit holds an AM back",
			Jobs:  []sched.JobSpec{job("a", big, 20), job("b", big, 20), job("c", big, 20)},
			Setup: steps(place(0, -1, 1), place(0, 0, 20), place(1, -1, 1), place(1, 0, 20)), Want: ""}, amPct: 0.1},
		{PickCase: schedtest.PickCase{Name: "a larger AM limit lets it through",
			Jobs:  []sched.JobSpec{job("a", big, 20), job("b", big, 20), job("c", big, 20)},
			Setup: steps(place(0, -1, 1), place(0, 0, 20), place(1, -1, 1), place(1, 0, 20)), Want: "c", WantAM: true}, amPct: 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			cfg := dress.Defaults
			if tt.amPct > 0 {
				cfg.MaxAMPercent = tt.amPct
			}
			tt.Nodes = node100
			tt.Run(t, build(cfg))
		})
	}
}

// Classification: by the whole cluster by default, by what is free at
// submission with classify=available.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		name      string
		available bool
		want      dress.Category
	}{
		{"a 9-container job is small against the cluster", false, dress.SD},
		{"and large against the 20 containers free", true, dress.LD},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := dress.Defaults
			cfg.ClassifyAvailable = tt.available
			h := schedtest.New(t, schedtest.Config{Nodes: node100, Policy: build(cfg)})
			l := h.Submit(job("L", none, 80))
			schedtest.PlaceN(0, 0, 80)(h, []*sched.Job{l})
			s := h.Submit(job("S", none, 9))
			p := h.Policy().(*dress.Policy)
			if p.CategoryOf(l) != dress.LD || p.CategoryOf(s) != tt.want {
				t.Errorf("L is %v, S is %v; want LD, %v", p.CategoryOf(l), p.CategoryOf(s), tt.want)
			}
		})
	}
}

// Algorithm 3 through the core: the inputs measured from the pools, one
// tick, the resulting δ. Estimator off, so F = 0 and every δ is checked by
// hand; 1 unit = 1 container. δ starts at 0.1; changed is whether the tick
// raised the limit of a pool with a job waiting (TickChanged), after which
// the core reconsiders the nodes.
func TestTick(t *testing.T) {
	place, steps := schedtest.PlaceN, schedtest.Steps
	tests := []struct {
		name    string
		jobs    []sched.JobSpec
		setup   schedtest.Step
		delta   float64
		changed bool
	}{
		{
			// A_c1 = 10, P1 = 0: δ = 0.1 − 10/100 = 0, clamped to 0.01.
			name: "no small job: the pool shrinks to its floor",
			jobs: []sched.JobSpec{job("L", none, 95)}, setup: place(0, 0, 90), delta: 0.01, changed: true,
		},
		{
			// As above, but L has all it wants: the large pool's limit
			// rises with nobody waiting in it, which changes no answer.
			name: "no small job, nobody waiting: the tick changes nothing Pick reads",
			jobs: []sched.JobSpec{job("L", none, 90)}, setup: place(0, 0, 90), delta: 0.01,
		},
		{
			// S wants 6, the pool has 10 free: δ = 0.1 − 4/100.
			name: "a small job pending: the pool shrinks to its demand",
			jobs: []sched.JobSpec{job("L", none, 95), job("S", none, 6)}, setup: place(0, 0, 90), delta: 0.06, changed: true,
		},
		{
			// S1 fills the pool (A_c1 = 0) and S2 wants 8; L holds 40 of
			// its 90 and wants nothing more: A_c2 = 50 ≥ P2 = 0, so δ =
			// 0.1 + 50/100.
			name:  "large jobs satisfied: their free share goes to small jobs",
			jobs:  []sched.JobSpec{job("S1", none, 10), job("S2", none, 8), job("L", none, 40)},
			setup: steps(place(0, 0, 10), place(2, 0, 40)), delta: 0.6, changed: true,
		},
		{
			// The pool is full (A_c1 = 0) and S2 wants 2. L holds 88 and
			// wants 7 more; 2 are free in its pool: A_c2 = 2 < 7. Packing:
			// S2 does not fit 0, L does not fit 2, and S2 takes the 2
			// left over: δ = 0.1 + 2/100.
			name:  "both short: large jobs' leftover moves to a small job",
			jobs:  []sched.JobSpec{job("S1", none, 10), job("S2", none, 2), job("L", none, 95)},
			setup: steps(place(0, 0, 10), place(2, 0, 88)), delta: 0.12, changed: true,
		},
		{
			// As above but S2 wants 3: nothing moves.
			name:  "both short: a small job larger than the leftover waits",
			jobs:  []sched.JobSpec{job("S1", none, 10), job("S2", none, 3), job("L", none, 95)},
			setup: steps(place(0, 0, 10), place(2, 0, 88)), delta: 0.1,
		},
		{
			// S1 fills the pool and S2's AM runs too (A_c1 = 0). S2 has
			// no task yet, so it wants its declared demand less its AM:
			// r = 8 − 1 = 7. L holds 80 and wants 15; 9 are free. Packing
			// moves 7 from large jobs: δ = 0.1 + 7/100.
			name:  "a job not yet started counts its declared demand",
			jobs:  []sched.JobSpec{job("S1", none, 10), job("S2", one, 7), job("L", none, 95)},
			setup: steps(place(0, 0, 10), place(1, -1, 1), place(2, 0, 80)), delta: 0.17, changed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := dress.Defaults
			cfg.Estimator = false
			h := schedtest.New(t, schedtest.Config{Nodes: node100, Policy: build(cfg)})
			var js []*sched.Job
			for _, s := range tt.jobs {
				js = append(js, h.Submit(s))
			}
			tt.setup(h, js)
			h.Now = clock.Time(clock.Second)
			h.Core.Tick(h.Now)
			p := h.Policy().(*dress.Policy)
			if d := p.Delta(); math.Abs(d-tt.delta) > 1e-9 {
				t.Errorf("δ = %v, want %v", d, tt.delta)
			}
			if c := p.TickChanged(); c != tt.changed {
				t.Errorf("TickChanged = %v, want %v", c, tt.changed)
			}
		})
	}
}

// The estimator is fed from the core's container transitions, and its
// prediction reaches Algorithm 3 and the report.
func TestEstimatorThroughCore(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: node100, Policy: build(dress.Defaults)})
	l := h.Submit(job("L", none, 95))
	js := []*sched.Job{l}
	// Ten tasks start one a second over [0, 9], the rest at 9.
	var cs []*sched.Container
	for i := range 10 {
		h.Now = clock.Time(i) * clock.Time(clock.Second)
		cs = append(cs, h.Place(l, 0, 0))
	}
	schedtest.PlaceN(0, 0, 80)(h, js)
	// Six of the first ten complete at 30: γ = 30.
	h.Now = clock.Time(30 * clock.Second)
	for _, c := range cs[:6] {
		h.Complete(c)
	}
	p := h.Policy().(*dress.Policy)
	ph := p.Estimator().Phases(0)
	if len(ph) != 1 || ph[0].Gamma != h.Now || ph[0].Containers != 90 || ph[0].Variation != 9*clock.Second {
		t.Fatalf("phases %+v, want one of 90 containers, Δps 9 s, γ 30 s", ph)
	}
	// At 31 s, Equation 9 expects 90 × 1/9 = 10 releases in (31, 32].
	h.Now = clock.Time(31 * clock.Second)
	h.Core.Tick(h.Now)
	h.Now = clock.Time(32 * clock.Second)
	h.Complete(cs[6])
	h.Core.Tick(h.Now)
	_, data := p.Report()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Series []dress.Point `json:"series"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Series) != 1 || rep.Series[0].T != 31 || math.Abs(rep.Series[0].Predicted-10) > 1e-9 || rep.Series[0].Actual != 1 {
		t.Fatalf("series %+v, want one interval at 31 s predicting 10 and seeing 1", rep.Series)
	}
}

// Bad combinations are refused with a message naming the parameters.
func TestValidate(t *testing.T) {
	for _, c := range []dress.Config{
		{Variant: "dress", Theta: 0.1, Delta0: 0.1, DeltaMin: 0, DeltaMax: 0.9},
		{Variant: "dress", Theta: 0.1, Delta0: 0.1, DeltaMin: 0.1, DeltaMax: 1},
		{Variant: "dress", Theta: 0.1, Delta0: 0.05, DeltaMin: 0.1, DeltaMax: 0.9},
		{Variant: "dress", Theta: 0, Delta0: 0.1, DeltaMin: 0.1, DeltaMax: 0.9},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := dress.Defaults.Validate(); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
}
