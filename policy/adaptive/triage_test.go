package adaptive

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// finishAlone walks forward over the capacity: work in share × seconds,
// run at up to rate.
func TestFinishAlone(t *testing.T) {
	sec := func(s float64) clock.Time { d, _ := clock.FromSeconds(s); return clock.Time(d) }
	flat := func(f float64) capacityFunc {
		return func(a, b clock.Time) float64 { return f * b.Sub(a).Seconds() }
	}
	never := func(clock.Time) clock.Time { return clock.Never }
	// Nothing until 10 s, the whole cluster after.
	stepAt10 := func(a, b clock.Time) float64 {
		if b <= sec(10) {
			return 0
		}
		return b.Sub(max(a, sec(10))).Seconds()
	}
	knot10 := func(t clock.Time) clock.Time {
		if t < sec(10) {
			return sec(10)
		}
		return clock.Never
	}
	tests := []struct {
		name       string
		work, rate float64
		next       func(clock.Time) clock.Time
		c          capacityFunc
		want       clock.Time
	}{
		{"the job's own width binds", 10, 0.5, never, flat(1), sec(20)},
		{"the capacity binds", 10, 0.5, never, flat(0.25), sec(40)},
		{"nothing until a knot", 5, 1, knot10, stepAt10, sec(15)},
		{"no work", 0, 1, never, flat(1), 0},
		{"no width", 1, 0, never, flat(1), clock.Never},
		{"no capacity ever", 1, 1, never, flat(0), clock.Never},
	}
	for _, tt := range tests {
		if got := finishAlone(0, tt.work, tt.rate, tt.next, tt.c); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Triage by hand on two nodes of 4 one-vcore slots (a task is 1/8 of the
// cluster), every job 4 tasks in one wave:
//
//	A: goal 10 s, estimate 4 s: done alone at 4 s, laxity 6 s;
//	B: goal 2 s, estimate 8 s: done alone at 8 s, past its goal: it yields;
//	C: goal 30 s, estimate 4 s: done alone at 4 s, laxity 26 s.
//
// Reverse placement of A and C: C's 2 share-seconds go in (10, 30], A's in
// (0, 10], so A needs ⌈2/10/0.125⌉ = 2 tasks now and C none. Targets: A its
// 2, then all 4 it can use; C the 4 left; B nothing, though it came before
// C. Without triage B's goal cuts a period (0, 2] in which its s_fit is all
// 4 tasks (its overflow included) and A's and C's are 0: max-min utility
// serves B first, then splits the rest between A and C, 2 and 2.
func TestTriage(t *testing.T) {
	for _, tt := range []struct {
		name                string
		policy              string
		wantA, wantB, wantC int
	}{
		{"adaptive+", "triage=true", 4, 0, 4},
		{"reverse-adaptive", "", 2, 4, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := params.Parse("x:" + tt.policy)
			if tt.policy == "" {
				sp, err = params.Parse("x")
			}
			if err != nil {
				t.Fatal(err)
			}
			r := params.NewReader(sp)
			cfg := Params(r, Reverse)
			if err := r.Done(); err != nil {
				t.Fatal(err)
			}
			var p *Policy
			core, err := sched.NewCore(sched.Config{Nodes: []resource.Vector{node4, node4}, Driver: testDriver{},
				NewPolicy: func(v *sched.View) (sched.Policy, error) { p = New(v, cfg); return p, nil }})
			if err != nil {
				t.Fatal(err)
			}
			var js []*sched.Job
			for _, s := range []sched.JobSpec{goalJob("A", 4, 10, 4), goalJob("B", 4, 2, 8), goalJob("C", 4, 30, 4)} {
				j, err := core.Submit(0, &s)
				if err != nil {
					t.Fatal(err)
				}
				js = append(js, j)
			}
			if cfg.Triage {
				a, b, c := p.jobs[js[0].ID()], p.jobs[js[1].ID()], p.jobs[js[2].ID()]
				if !a.feasible || b.feasible || !c.feasible || a.prio != 6 || c.prio != 26 || b.prio != infeasiblePrio+8 {
					t.Fatalf("feasible A %v B %v C %v, priorities %v %v %v", a.feasible, b.feasible, c.feasible, a.prio, b.prio, c.prio)
				}
				if a.need != 2 || c.need != 0 || b.need != 0 {
					t.Fatalf("needs A %v B %v C %v, want 2 0 0", a.need, b.need, c.need)
				}
			}
			for id := range 2 {
				core.NodeUpdate(0, core.Cluster().Node(cluster.NodeID(id)))
			}
			if err := core.Check(); err != nil {
				t.Fatal(err)
			}
			got := []int{js[0].LiveContainers(), js[1].LiveContainers(), js[2].LiveContainers()}
			if got[0] != tt.wantA || got[1] != tt.wantB || got[2] != tt.wantC {
				t.Errorf("containers A %d, B %d, C %d; want %d, %d, %d", got[0], got[1], got[2], tt.wantA, tt.wantB, tt.wantC)
			}
		})
	}
}
