package adaptive

import (
	"math"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

var (
	node4 = resource.New(4, 4096)
	unit  = resource.New(1, 1024)
)

// goalJob is a job without an AM: tasks of one vcore, a goal and an
// estimate, both in seconds (0 for none).
func goalJob(key string, tasks int, goal, estimate float64) sched.JobSpec {
	d := func(s float64) clock.Duration { return clock.Duration(s * float64(clock.Second)) }
	return sched.JobSpec{Key: key, Queue: "default", Deadline: d(goal), Estimate: d(estimate),
		Phases: []sched.PhaseSpec{{Name: "map", Tasks: tasks, Request: unit, StartAfter: 1}}}
}

func factory(cfg Config) func(v *sched.View) (sched.Policy, error) {
	return func(v *sched.View) (sched.Policy, error) { return New(v, cfg), nil }
}

// cfgOf reads a configuration as the command line would, defaults
// included.
func cfgOf(t *testing.T, mode Mode, spec string) Config {
	t.Helper()
	sp, err := params.Parse("x:" + spec)
	if err != nil {
		t.Fatal(err)
	}
	r := params.NewReader(sp)
	cfg := Params(r, mode)
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Parameters: names, defaults, and errors that name the key.
func TestParams(t *testing.T) {
	read := func(mode Mode, spec string) (Config, error) {
		sp, err := params.Parse(spec)
		if err != nil {
			return Config{}, err
		}
		r := params.NewReader(sp)
		cfg := Params(r, mode)
		return cfg, r.Done()
	}
	cfg, err := read(Reverse, "x")
	if err != nil || cfg.Cycle != DefaultCycle || cfg.Lookahead != DefaultCycle || !cfg.Project {
		t.Fatalf("defaults: %+v, %v", cfg, err)
	}
	cfg, err = read(Reverse, "x:cycle=30s,lookahead=0")
	if err != nil || cfg.Cycle != 30*clock.Second || cfg.Lookahead != 0 {
		t.Fatalf("cycle 30s, lookahead 0: %+v, %v", cfg, err)
	}
	if _, err := read(Adaptive, "x:lookahead=5"); err == nil {
		t.Fatal("adaptive accepted lookahead, which it does not have")
	}
	if _, err := read(Reverse, "x:cycle=-1s"); err == nil {
		t.Fatal("negative cycle accepted")
	}
}

// The Job Status Updater: the mean task length is the estimate spread over
// the waves the job would run in alone, until tasks complete; then the
// observed mean of COMPLETED − RUNNING. Remaining work counts unstarted tasks
// at the mean and running ones at what is left of it.
func TestJobStatus(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4}, Policy: factory(cfgOf(t, Adaptive, ""))})
	p := h.Policy().(*Policy)
	// 8 tasks on 4 slots: 2 waves, so an estimate of 20 s means 10 s tasks.
	j := h.Submit(goalJob("J", 8, 100, 20))
	// With a 1-vcore AM only 3 slots are left beside it: 3 waves.
	withAM := goalJob("K", 8, 100, 30)
	withAM.AM = unit
	k := h.Submit(withAM)
	ji := p.jobs[j.ID()]
	if ji.mu0 != 10 || p.jobs[k.ID()].mu0 != 10 {
		t.Fatalf("mu0 %v and %v, want 10 and 10", ji.mu0, p.jobs[k.ID()].mu0)
	}
	c1 := h.Place(j, 0, 0)
	c2 := h.Place(j, 0, 0)
	h.Now = secs(4)
	// 6 unstarted × 10 + 2 running × (10 − 4).
	if work, _, _, _, _ := ji.remaining(h.Now); work != 72 {
		t.Fatalf("remaining work %v at 4 s, want 72", work)
	}
	if ji.held != 2 || ji.pend() != 8 {
		t.Fatalf("held %d, pend %d; want 2 and 8", ji.held, ji.pend())
	}
	h.Now = secs(8)
	h.Complete(c2)
	h.Now = secs(12)
	h.Complete(c1)
	if mu, ok := ji.mu(0); !ok || mu != 10 {
		t.Fatalf("observed mean %v, want (8 + 12)/2 = 10", mu)
	}
	if ji.held != 0 || ji.tasksLeft() != 6 || ji.pend() != 6 {
		t.Fatalf("held %d, left %d, pend %d", ji.held, ji.tasksLeft(), ji.pend())
	}
}

// The Placement Algorithm and the Task Scheduler under Adaptive, on one
// 4-slot node with 10 s tasks.
//
// Large jobs: X (goal 100 s, 2 tasks) needs ⌈20/100⌉ = 1 and could use 2;
// Y (goal 40 s, 8 tasks) needs ⌈80/40⌉ = 2. Handing out 4 containers to the
// lowest utility (ties to the earlier goal): Y, X, Y (its −0.5 below X's 0),
// Y (tie at 0): targets Y 3, X 1.
//
// Small jobs: P (goal 100 s, 1 task) needs 1, Q (goal 40 s, 2 tasks) 1 of
// 2: Q, P, Q: targets P 1, Q 2, and one container is left to Z, which has
// no goal (best effort).
func TestPickOrder(t *testing.T) {
	x, y := goalJob("X", 2, 100, 10), goalJob("Y", 8, 40, 20)
	pj, q := goalJob("P", 1, 100, 10), goalJob("Q", 2, 40, 10)
	z := goalJob("Z", 4, 0, 0)
	cases := []schedtest.PickCase{
		{Name: "furthest below its placement: the lowest utility, ties to the earlier goal", Jobs: []sched.JobSpec{x, y}, Want: "Y"},
		{Name: "Y at its target: X is behind", Jobs: []sched.JobSpec{x, y}, Setup: schedtest.PlaceN(1, 0, 3), Want: "X"},
		{Name: "a job behind comes before best effort", Jobs: []sched.JobSpec{z, x, y}, Setup: schedtest.PlaceN(2, 0, 3), Want: "X"},
		{Name: "no room, nothing", Jobs: []sched.JobSpec{x, y},
			Setup: schedtest.Steps(schedtest.PlaceN(1, 0, 3), schedtest.PlaceN(0, 0, 1)), Want: ""},
		{Name: "small jobs: the earlier goal first", Jobs: []sched.JobSpec{z, pj, q}, Want: "Q"},
		{Name: "targets met: best effort gets what is left", Jobs: []sched.JobSpec{z, pj, q},
			Setup: schedtest.Steps(schedtest.PlaceN(1, 0, 1), schedtest.PlaceN(2, 0, 2)), Want: "Z"},
	}
	for _, c := range cases {
		c.Nodes = []resource.Vector{node4}
		t.Run(c.Name, func(t *testing.T) { c.Run(t, factory(cfgOf(t, Adaptive, ""))) })
	}
}

// ApplicationMasters go first, the earliest goal first and jobs without
// goals last, while AMs hold less than max_am_share of the cluster: here
// 0.25 of 8 vcores, two 1-vcore AMs. Y (goal 50 s) before X (goal 100 s)
// before Z (no goal); with two AMs running the next container goes to a
// task, Y's (both utilities are −1, Y's goal is earlier); without the
// limit, to Z's AM.
func TestAMOrder(t *testing.T) {
	withAM := func(s sched.JobSpec) sched.JobSpec { s.AM = unit; return s }
	x, y, z := withAM(goalJob("X", 8, 100, 20)), withAM(goalJob("Y", 8, 50, 20)), withAM(goalJob("Z", 8, 0, 0))
	jobs := []sched.JobSpec{x, y, z}
	two := schedtest.Steps(schedtest.PlaceN(1, sched.AMPhase, 1), schedtest.PlaceN(0, sched.AMPhase, 1))
	for _, tt := range []struct {
		spec string
		c    schedtest.PickCase
	}{
		{"max_am_share=0.25", schedtest.PickCase{Name: "earliest goal first", Want: "Y", WantAM: true}},
		{"max_am_share=0.25", schedtest.PickCase{Name: "then the next goal", Setup: schedtest.PlaceN(1, sched.AMPhase, 1), Want: "X", WantAM: true}},
		{"max_am_share=0.25", schedtest.PickCase{Name: "limit reached: a task", Setup: two, Want: "Y"}},
		{"max_am_share=-1", schedtest.PickCase{Name: "no limit: the job without a goal's AM", Setup: two, Want: "Z", WantAM: true}},
	} {
		tt.c.Nodes, tt.c.Jobs = []resource.Vector{node4, node4}, jobs
		t.Run(tt.c.Name, func(t *testing.T) { tt.c.Run(t, factory(cfgOf(t, Adaptive, tt.spec))) })
	}
}

// The placement's targets, and how they follow what jobs hold. X (goal
// 100 s, 8 tasks) needs ⌈80/100⌉ = 1, Y (goal 40 s, 8 tasks) 2: on 4 slots
// Y, X, Y, Y, targets X 1, Y 3. Once X holds 2 and Y 1, the one free slot
// goes to Y (utility −0.5, X's is 1/7): X 2, Y 2.
func TestPlacementTargets(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4}, Policy: factory(cfgOf(t, Adaptive, ""))})
	p := h.Policy().(*Policy)
	x, y := h.Submit(goalJob("X", 8, 100, 20)), h.Submit(goalJob("Y", 8, 40, 20))
	check := func(tx, ty int) {
		t.Helper()
		if gx, gy := p.jobs[x.ID()].target, p.jobs[y.ID()].target; gx != tx || gy != ty {
			t.Fatalf("targets X %d, Y %d; want %d, %d", gx, gy, tx, ty)
		}
	}
	check(1, 3)
	h.Place(x, 0, 0)
	h.Place(x, 0, 0)
	h.Place(y, 0, 0)
	p.Tick(h.Now)
	check(2, 2)
}

// testDriver is a driver that does nothing, for cores built by hand with a
// load forecast.
type testDriver struct{}

func (testDriver) Launch(*sched.Container) {}
func (testDriver) Stop(*sched.Container)   {}
func (testDriver) WakeAM(*sched.Job)       {}
func (testDriver) Reconsider()             {}
func (testDriver) AcceptLowered()          {}

func forecastCore(t *testing.T, cfg Config, pts ...cluster.LoadPoint) (*sched.Core, *Policy) {
	t.Helper()
	var f *cluster.LoadCurve
	if len(pts) > 0 {
		var err error
		if f, err = cluster.NewLoadCurve(pts, 0); err != nil {
			t.Fatal(err)
		}
	}
	var p *Policy
	core, err := sched.NewCore(sched.Config{Nodes: []resource.Vector{node4}, Driver: testDriver{}, Forecast: f,
		NewPolicy: func(v *sched.View) (sched.Policy, error) { p = New(v, cfg); return p, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return core, p
}

// The Workload Estimator on the jobs of Figure 3 (TestReversePlace) made
// real: 1-second tasks on 4 slots, J1 12 tasks due at 7 s, J2 40 at 15 s, J3
// 32 at 23 s. Adaptive's s_req: ⌈12/7⌉ = 2, ⌈40/15⌉ = 3, ⌈32/23⌉ = 2.
// Reverse-Adaptive's s_fit: 2, 2, 0; and 2, 4, 0 when the forecast gives
// half the cluster to the other workload over (7, 15].
func TestNeeds(t *testing.T) {
	half := []cluster.LoadPoint{{At: 0, Frac: 0}, {At: 7 * clock.Second, Frac: 0}, {At: 7*clock.Second + clock.Millisecond, Frac: 0.5},
		{At: 15 * clock.Second, Frac: 0.5}, {At: 15*clock.Second + clock.Millisecond, Frac: 0}}
	tests := []struct {
		name string
		mode Mode
		load []cluster.LoadPoint
		want []float64
	}{
		{"adaptive s_req", Adaptive, nil, []float64{2, 3, 2}},
		{"adaptive ignores the load", Adaptive, half, []float64{2, 3, 2}},
		{"reverse-adaptive s_fit", Reverse, nil, []float64{2, 2, 0}},
		{"reverse-adaptive under load", Reverse, half, []float64{2, 4, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, p := forecastCore(t, cfgOf(t, tt.mode, ""), tt.load...)
			var js []*sched.Job
			for _, s := range []sched.JobSpec{goalJob("J1", 12, 7, 3), goalJob("J2", 40, 15, 10), goalJob("J3", 32, 23, 8)} {
				j, err := core.Submit(0, &s)
				if err != nil {
					t.Fatal(err)
				}
				js = append(js, j)
			}
			for i, j := range js {
				if got := p.jobs[j.ID()].need; got != tt.want[i] {
					t.Errorf("%s: need %v, want %v", j.Key(), got, tt.want[i])
				}
			}
		})
	}
}

// Reverse-Adaptive keeps room for the forecast's peak over the lookahead:
// with the other workload forecast to take 3 of 4 vcores from 5 s, a cycle
// starting at 0 with a 10 s lookahead places only one task; with lookahead
// 0 it places all four.
func TestLookaheadRoom(t *testing.T) {
	load := []cluster.LoadPoint{{At: 4 * clock.Second, Frac: 0}, {At: 5 * clock.Second, Frac: 0.75}}
	for _, tt := range []struct {
		lookahead clock.Duration
		want      int
	}{{10 * clock.Second, 1}, {0, 4}} {
		cfg := cfgOf(t, Reverse, "")
		cfg.Lookahead = tt.lookahead
		core, p := forecastCore(t, cfg, load...)
		s := goalJob("J", 8, 100, 20)
		j, err := core.Submit(0, &s)
		if err != nil {
			t.Fatal(err)
		}
		core.NodeUpdate(0, core.Cluster().Node(0))
		if got := p.jobs[j.ID()].held; got != tt.want {
			t.Errorf("lookahead %v: %d tasks placed, want %d", tt.lookahead, got, tt.want)
		}
	}
}

// Completion projections. One job of 8 ten-second tasks on 4 slots, goal
// 100 s; the other workload ramps from nothing at 10 s to half the cluster
// at 20 s. Adaptive believes the 4 slots it sees last: 40 task-s per cycle,
// done at 20. Reverse-Adaptive believes the forecast: 4 slots over [0, 10]
// (40 done), 3 on average over [10, 20] (30 done), and 2 over [20, 30],
// where the last 10 task-s take 5 s as a fluid: done at 25.
func TestProjection(t *testing.T) {
	load := []cluster.LoadPoint{{At: 10 * clock.Second, Frac: 0}, {At: 20 * clock.Second, Frac: 0.5}}
	for _, tt := range []struct {
		mode Mode
		want float64
	}{{Adaptive, 20}, {Reverse, 25}} {
		cfg := cfgOf(t, tt.mode, "")
		cfg.Lookahead = 0
		core, p := forecastCore(t, cfg, load...)
		s := goalJob("J", 8, 100, 20)
		j, err := core.Submit(0, &s)
		if err != nil {
			t.Fatal(err)
		}
		core.Tick(0)
		if got := p.jobs[j.ID()].forecast.Seconds(); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("mode %d: projected completion %v s, want %v", tt.mode, got, tt.want)
		}
	}
}

// The projection's fluid placement: every live job at the utility level
// the capacity allows. One job needing 1 of 8 quarter-share tasks gets the
// whole cluster, 4; two alike jobs (need 2 of 4, share 1) split 6 as 3 and
// 3 (utility 0.5 each), 2 as 1 and 1 (utility −0.5 each); a job needing
// more than it could use gets all it could use before the other passes
// −0.5.
func TestFluidPlace(t *testing.T) {
	tests := []struct {
		need, pend, share []float64
		k                 float64
		want              []float64
	}{
		{[]float64{1}, []float64{8}, []float64{0.25}, 1, []float64{4}},
		{[]float64{2, 2}, []float64{4, 4}, []float64{1, 1}, 6, []float64{3, 3}},
		{[]float64{2, 2}, []float64{4, 4}, []float64{1, 1}, 2, []float64{1, 1}},
		{[]float64{2, 2}, []float64{4, 4}, []float64{1, 1}, 100, []float64{4, 4}},
		{[]float64{10, 2}, []float64{4, 4}, []float64{1, 1}, 5, []float64{4, 1}},
	}
	for _, tt := range tests {
		js := make([]projected, len(tt.need))
		for i := range js {
			js[i] = projected{share: tt.share[i], done: -1}
		}
		got := fluidPlace(tt.need, tt.pend, js, tt.k, nil)
		for i := range got {
			if math.Abs(got[i]-tt.want[i]) > 1e-6 {
				t.Errorf("need %v pend %v k %v: %v, want %v", tt.need, tt.pend, tt.k, got, tt.want)
				break
			}
		}
	}
}

func TestSummarizeEstimates(t *testing.T) {
	es := []Estimate{
		{Submit: 0, Projected: secs(90), Actual: secs(100)},       // 10 early: |10|/100
		{Submit: secs(50), Projected: secs(80), Actual: secs(70)}, // 10 late: |10|/20
	}
	st := SummarizeEstimates(es)
	if st.Jobs != 2 || *st.AbsErrorAvgS != 10 || *st.ErrorAvgS != 0 || math.Abs(*st.AbsErrorRelAvg-0.3) > 1e-12 {
		t.Fatalf("stats %+v: abs %v, signed %v, rel %v", st, *st.AbsErrorAvgS, *st.ErrorAvgS, *st.AbsErrorRelAvg)
	}
	if st := SummarizeEstimates(nil); st.Jobs != 0 || st.AbsErrorAvgS != nil {
		t.Fatalf("empty: %+v", st)
	}
}
