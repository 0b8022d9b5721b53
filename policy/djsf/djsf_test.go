package djsf

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

const s = clock.Second

var (
	none = resource.Vector{}
	one  = resource.New(1, 1024)
	four = []resource.Vector{resource.New(4, 4096)}
)

func job(key string, est clock.Duration, tasks int, req resource.Vector) sched.JobSpec {
	return sched.JobSpec{Key: key, Queue: "default", Estimate: est,
		Phases: []sched.PhaseSpec{{Tasks: tasks, Request: req, StartAfter: 1}}}
}

// fig1 is the paper's Fig. 1 on one 4-vcore node: "wide" fills it for 4 s,
// four narrow jobs take a vcore each for 4.2 s.
func fig1() []sched.JobSpec {
	return []sched.JobSpec{job("wide", 4*s, 4, one), job("n1", 4200*clock.Millisecond, 1, one),
		job("n2", 4200*clock.Millisecond, 1, one), job("n3", 4200*clock.Millisecond, 1, one), job("n4", 4200*clock.Millisecond, 1, one)}
}

func newPolicy(cfg Config) func(v *sched.View) (sched.Policy, error) {
	return func(v *sched.View) (sched.Policy, error) { return New(v, cfg), nil }
}

var defaults = Faithful

func TestDJSFPicks(t *testing.T) {
	tests := []struct {
		schedtest.PickCase
		cfg Config
	}{
		{PickCase: schedtest.PickCase{Name: "the densest set first, not the shortest job", Jobs: fig1(), Want: "n1"}, cfg: defaults},
		{PickCase: schedtest.PickCase{Name: "the set runs in packing order", Jobs: fig1(), Setup: schedtest.PlaceN(1, 0, 1), Want: "n2"}, cfg: defaults},
		{PickCase: schedtest.PickCase{Name: "jobs without an estimate come last",
			Jobs: []sched.JobSpec{job("unknown", 0, 1, one), job("long", 1000*s, 4, one)}, Want: "long"}, cfg: defaults},
		{PickCase: schedtest.PickCase{Name: "work-conserving: a later set uses what the first cannot",
			Jobs:  []sched.JobSpec{job("big", 2*s, 1, resource.New(4, 1024)), job("small", 100*s, 1, one), job("filler", 1000*s, 2, one)},
			Setup: schedtest.PlaceN(2, 0, 2), Want: "small"}, cfg: Config{K: 1, Replan: 10 * s}},
		{PickCase: schedtest.PickCase{Name: "strict: a later set waits for the first",
			Jobs:  []sched.JobSpec{job("big", 2*s, 1, resource.New(4, 1024)), job("small", 100*s, 1, one), job("filler", 1000*s, 2, one)},
			Setup: schedtest.PlaceN(2, 0, 2)}, cfg: Config{K: 1, Replan: 10 * s, Strict: true}},
		{PickCase: schedtest.PickCase{Name: "strict: jobs of the first set share the node",
			Jobs: fig1(), Setup: schedtest.PlaceN(1, 0, 1), Want: "n2"}, cfg: Config{K: 3, Replan: 10 * s, Strict: true}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			tt.Nodes = four
			tt.Run(t, newPolicy(tt.cfg))
		})
	}
}

// In the work-conserving case above, with k = 1 the sets are {small} (1 job
// over 100 s) and {big} (it does not fit beside small; 1 job over 2 s): big is
// denser, so it is the first set, but it needs the whole node and only 2
// vcores are free. Check that plan directly.
func TestDJSFPlanOrder(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: four, Policy: newPolicy(Config{K: 1, Replan: 10 * s})})
	big := h.Submit(job("big", 2*s, 1, resource.New(4, 1024)))
	small := h.Submit(job("small", 100*s, 1, one))
	p := h.Policy().(*Policy)
	if k := p.keys[big.ID()]; k.set != 0 {
		t.Errorf("big in set %d, want the first", k.set)
	}
	if k := p.keys[small.ID()]; k.set != 1 {
		t.Errorf("small in set %d, want the second", k.set)
	}
}

// A job arriving within the replan interval of the last plan counts as a set
// of its own (efficiency 1 / estimate) until the next tick plans it.
func TestDJSFReplanRateLimit(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: four, Policy: newPolicy(Config{K: 3, Replan: 10 * s})})
	h.Submit(job("planned", 100*s, 8, one)) // one set: efficiency 1/100
	if a := h.Pick(0); a == nil || a.Job().Key() != "planned" {
		t.Fatalf("first pick %v", a)
	}
	p := h.Policy().(*Policy)
	h.Now = clock.Time(5 * s)
	late := h.Submit(job("late", 1000*s, 1, one))
	early := h.Submit(job("quick", 1*s, 1, one))
	// Efficiencies: quick 1, planned 0.01, late 0.001.
	if a := h.Pick(0); a.Job().Key() != "quick" {
		t.Errorf("at 5 s picked %s, want quick", a.Job().Key())
	}
	if p.plans != 1 || p.keys[late.ID()].set != unplanned || p.keys[early.ID()].set != unplanned {
		t.Errorf("plans %d; want 1 plan, the new jobs outside it", p.plans)
	}
	h.Place(early, 0, 0)
	if a := h.Pick(0); a.Job().Key() != "planned" {
		t.Errorf("at 5 s picked %s, want planned before the sparse late job", a.Job().Key())
	}
	h.Now = clock.Time(10 * s)
	h.Core.Tick(h.Now)
	if p.plans != 2 || p.keys[late.ID()].set == unplanned {
		t.Errorf("plans %d, late in set %d; want a second plan that places it", p.plans, p.keys[late.ID()].set)
	}
}

func TestRemaining(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: four, Policy: newPolicy(defaults)})
	j := h.Submit(sched.JobSpec{Key: "j", Queue: "default", Estimate: 100 * s, Phases: []sched.PhaseSpec{
		{Tasks: 4, Request: one, StartAfter: 1}, {Tasks: 2, Request: resource.New(2, 1024), StartAfter: 1}}})
	check := func(name string, rem clock.Duration, demand resource.Vector) {
		t.Helper()
		if got := remaining(j); got != rem {
			t.Errorf("%s: remaining %v, want %v", name, got, rem)
		}
		if got := remainingDemand(j); got != demand {
			t.Errorf("%s: demand %v, want %v", name, got, demand)
		}
	}
	// Not started: the whole estimate; the demand is the largest phase,
	// 4 × <1, 1 GB> (2 × <2, 1 GB> is less in its dominant share).
	check("not started", 100*s, resource.New(4, 4096))
	// Two tasks run from 0; at 30 s one completes: 5 of 6 tasks left, so
	// 100 × 5/6 s. The job holds <1, 1 GB>; the unallocated phase-1 tasks
	// <4, 2 GB> outweigh phase 0's two <2, 2 GB>: <5, 3 GB>, capped by the
	// declared demand <4, 4 GB>.
	h.Place(j, 0, 0)
	c := h.Place(j, 0, 0)
	h.Now = clock.Time(30 * s)
	h.Complete(c)
	check("one task done", 100*s*5/6, resource.New(4, 3072))
	if !hasWork(j) {
		t.Error("a job with unallocated tasks has work")
	}
	// A live application that declares no phases has no progress to
	// measure: its whole estimate stands (not 0/0).
	open := h.Submit(sched.JobSpec{Key: "open", Queue: "default", Open: true, Estimate: 40 * s})
	if got := remaining(open); got != 40*s {
		t.Errorf("open job: remaining %v, want its estimate 40s", got)
	}
}

func TestReportSets(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: four, Policy: newPolicy(defaults)})
	var js []*sched.Job
	for _, spec := range fig1() {
		js = append(js, h.Submit(spec))
	}
	h.Pick(0)
	var cs []*sched.Container
	for i := 1; i <= 4; i++ {
		cs = append(cs, h.Place(js[i], 0, 0))
	}
	h.Now = clock.Time(4200 * clock.Millisecond)
	for _, c := range cs {
		h.Complete(c)
	}
	name, data := h.Policy().(*Policy).Report()
	r := data.(Report)
	// One plan per arrival: the five jobs arrive at the same instant,
	// where the rate limit does not apply.
	if name != "djsf" || r.Plans != 5 || len(r.Sets) != 1 {
		t.Fatalf("report %s: %+v", name, r)
	}
	set := r.Sets[0]
	if len(set.Jobs) != 4 || set.Plan != 5 || set.Index != 0 || set.PredictedSpanS != 4.2 || set.Efficiency == nil || *set.Efficiency != 4/4.2 {
		t.Errorf("set %+v", set)
	}
}
