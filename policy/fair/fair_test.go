package fair_test

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/policy/fair"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

func prio(j sched.JobSpec, p int32) sched.JobSpec { j.Priority = p; return j }

func job(key, queue string, am resource.Vector, tasks int, req resource.Vector) sched.JobSpec {
	if queue == "" {
		queue = "default"
	}
	return sched.JobSpec{Key: key, Queue: queue, AM: am, Phases: []sched.PhaseSpec{{Tasks: tasks, Request: req, StartAfter: 1}}}
}

var (
	none   = resource.Vector{}
	small  = resource.New(1, 1024)
	mem2   = resource.New(1, 2048)
	mem4   = resource.New(1, 4096)
	cpu6   = resource.New(6, 2048)
	amBig  = resource.New(1, 4096)
	node16 = resource.New(16, 16384)
)

func TestFairAndDRFOrdering(t *testing.T) {
	place, steps := schedtest.PlaceN, schedtest.Steps
	type row = struct {
		schedtest.PickCase
		mode  fair.Mode
		amShr float64
	}
	tests := []row{
		{PickCase: schedtest.PickCase{Name: "lowest memory usage first",
			Jobs:  []sched.JobSpec{job("a", "", none, 9, mem2), job("b", "", none, 9, small)},
			Setup: steps(place(0, 0, 2), place(1, 0, 1)), Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "a higher priority first, whatever its share",
			Jobs:  []sched.JobSpec{job("a", "", none, 9, small), prio(job("b", "", none, 9, small), 1)},
			Setup: place(1, 0, 3), Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "equal usage goes to the earlier job",
			Jobs:  []sched.JobSpec{job("a", "", none, 9, small), job("b", "", none, 9, small)},
			Setup: steps(place(1, 0, 1), place(0, 0, 1)), Want: "a"}},
		{PickCase: schedtest.PickCase{Name: "a job waiting for its AM has the lowest share",
			Jobs:  []sched.JobSpec{job("a", "", none, 9, small), job("c", "", small, 1, small)},
			Setup: place(0, 0, 1), Want: "c", WantAM: true}},
		{PickCase: schedtest.PickCase{Name: "max_am_share holds back the AM that would exceed it",
			Jobs:  []sched.JobSpec{job("a", "", amBig, 3, small), job("b", "", amBig, 3, small), job("c", "", amBig, 3, small)},
			Setup: steps(place(0, -1, 1), place(1, -1, 1), place(0, 0, 1)), Want: "b"}, amShr: 0.5},
		{PickCase: schedtest.PickCase{Name: "max_am_share -1 disables the limit",
			Jobs:  []sched.JobSpec{job("a", "", amBig, 3, small), job("b", "", amBig, 3, small), job("c", "", amBig, 3, small)},
			Setup: steps(place(0, -1, 1), place(1, -1, 1), place(0, 0, 1)), Want: "c", WantAM: true}, amShr: -1},
		{PickCase: schedtest.PickCase{Name: "the first AM of a queue is always allowed",
			Jobs: []sched.JobSpec{job("a", "", amBig, 3, small)}, Want: "a", WantAM: true}, amShr: 0.1},
		{PickCase: schedtest.PickCase{Name: "fair measures memory",
			Jobs:  []sched.JobSpec{job("a", "", none, 9, mem4), job("b", "", none, 9, cpu6)},
			Setup: steps(place(0, 0, 1), place(1, 0, 1)), Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "drf measures the dominant resource",
			Jobs:  []sched.JobSpec{job("a", "", none, 9, mem4), job("b", "", none, 9, cpu6)},
			Setup: steps(place(0, 0, 1), place(1, 0, 1)), Want: "a"}, mode: fair.DRF},
		{PickCase: schedtest.PickCase{Name: "the queue furthest below its share first", Queues: []sched.QueueSpec{{Name: "x", Capacity: 0.5, MaxCapacity: 1}, {Name: "y", Capacity: 0.5, MaxCapacity: 1}},
			Jobs:  []sched.JobSpec{job("a", "x", none, 9, small), job("b", "x", none, 9, small), job("c", "y", none, 9, small)},
			Setup: steps(place(0, 0, 1), place(1, 0, 1), place(2, 0, 1)), Want: "c"}},
		{PickCase: schedtest.PickCase{Name: "queue shares are weighted by capacity", Queues: []sched.QueueSpec{{Name: "x", Capacity: 0.8, MaxCapacity: 1}, {Name: "y", Capacity: 0.2, MaxCapacity: 1}},
			Jobs:  []sched.JobSpec{job("a", "x", none, 9, mem2), job("c", "y", none, 9, small)},
			Setup: steps(place(0, 0, 2), place(1, 0, 1)), Want: "a"}},
		// prod (0.2 of weight 0.6) is further below its share than batch
		// (0.3 of 0.4); within prod, adhoc (0) than etl (0.2 of 0.5).
		{PickCase: schedtest.PickCase{Name: "the tree: the parent, then the child, furthest below its share",
			Queues: []sched.QueueSpec{{Name: "prod", Capacity: 0.6, MaxCapacity: 1}, {Name: "prod.etl", Capacity: 0.5, MaxCapacity: 1},
				{Name: "prod.adhoc", Capacity: 0.5, MaxCapacity: 1}, {Name: "batch", Capacity: 0.4, MaxCapacity: 1}},
			Jobs:  []sched.JobSpec{job("e", "prod.etl", none, 9, mem2), job("a", "prod.adhoc", none, 9, mem2), job("b", "batch", none, 9, mem2)},
			Setup: steps(place(2, 0, 3), place(0, 0, 2)), Want: "a"}},
		// Above their minimum shares (capacities 0.1), with weights 1
		// and 3, y (share 0.25 over weight 3) is further below its share
		// than x (0.125 over 1).
		{PickCase: schedtest.PickCase{Name: "weights order queues above their minimum shares",
			Queues: []sched.QueueSpec{{Name: "x", Capacity: 0.1, MaxCapacity: 1, Weight: 1}, {Name: "y", Capacity: 0.1, MaxCapacity: 1, Weight: 3}},
			Jobs:   []sched.JobSpec{job("a", "x", none, 9, mem2), job("c", "y", none, 9, mem2)},
			Setup:  steps(place(0, 0, 1), place(1, 0, 2)), Want: "c"}},
		// x (0.375) is below its minimum share (0.5), y (0.25) above its
		// (0.1): x first, as YARN's FairSharePolicy puts needy queues
		// first, though by weight y is further below its share.
		{PickCase: schedtest.PickCase{Name: "a queue below its minimum share first",
			Queues: []sched.QueueSpec{{Name: "x", Capacity: 0.5, MaxCapacity: 1, Weight: 1}, {Name: "y", Capacity: 0.1, MaxCapacity: 1, Weight: 3}},
			Jobs:   []sched.JobSpec{job("a", "x", none, 9, mem2), job("c", "y", none, 9, mem2)},
			Setup:  steps(place(0, 0, 3), place(1, 0, 2)), Want: "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			amShare := tt.amShr
			if amShare == 0 {
				amShare = 0.5
			}
			tt.Nodes = []resource.Vector{node16}
			tt.Run(t, func(v *sched.View) (sched.Policy, error) {
				// Setup places containers outside any node update, so the
				// ordering is tested with one-per-heartbeat off.
				return fair.New(v, fair.Config{Mode: tt.mode, MaxAMShare: amShare, AssignMultiple: true}), nil
			})
		})
	}
}

// The textbook DRF case (Ghodsi et al., NSDI 2011): 9 CPUs and 18 GB, user A
// runs tasks of <1 CPU, 4 GB>, user B tasks of <3 CPUs, 1 GB>. DRF gives A
// three tasks and B two, equalising their dominant shares at 2/3.
func TestDRFTextbook(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{
		Nodes: []resource.Vector{resource.New(9, 18*1024)},
		Policy: func(v *sched.View) (sched.Policy, error) {
			return fair.New(v, fair.Config{Mode: fair.DRF, MaxAMShare: 0.5, AssignMultiple: true}), nil
		},
	})
	a := h.Submit(job("A", "default", none, 10, resource.New(1, 4*1024)))
	b := h.Submit(job("B", "default", none, 10, resource.New(3, 1024)))
	h.Core.NodeUpdate(h.Now, h.Node(0))
	capacity := h.Core.Cluster().Capacity()
	if a.LiveContainers() != 3 || b.LiveContainers() != 2 {
		t.Fatalf("A runs %d tasks and B %d, want 3 and 2", a.LiveContainers(), b.LiveContainers())
	}
	for _, j := range []*sched.Job{a, b} {
		if s := j.Usage().DominantShare(capacity); s < 2.0/3-1e-12 || s > 2.0/3+1e-12 {
			t.Errorf("%s dominant share %v, want 2/3", j.Key(), s)
		}
	}
	if err := h.Core.Check(); err != nil {
		t.Fatal(err)
	}
}

// yarn.scheduler.fair.assignmultiple: Hadoop's default (false) assigns one
// container per node update, AM or task; true fills the node in one update.
func TestAssignMultiple(t *testing.T) {
	for _, tt := range []struct {
		multiple bool
		want     []int // live containers after each node update
	}{
		{false, []int{1, 2, 3, 4, 5, 5}},
		{true, []int{1, 5, 5}}, // the tasks are asked once the AM runs
	} {
		h := schedtest.New(t, schedtest.Config{
			Nodes: []resource.Vector{resource.New(8, 8192)},
			Policy: func(v *sched.View) (sched.Policy, error) {
				return fair.New(v, fair.Config{Mode: fair.Memory, MaxAMShare: -1, AssignMultiple: tt.multiple}), nil
			},
		})
		// An AM and four tasks of <1 vcore, 512 MiB>: the node holds all
		// five.
		j := h.Submit(sched.JobSpec{Key: "a", Queue: "default", AM: resource.New(1, 512),
			Phases: []sched.PhaseSpec{{Tasks: 4, Request: resource.New(1, 512), StartAfter: 1}}})
		var got []int
		for range tt.want {
			h.Core.NodeUpdate(h.Now, h.Node(0))
			if j.AM() != nil && j.State() == sched.Admitted {
				h.Core.AMStarted(h.Now, j)
			}
			got = append(got, j.LiveContainers())
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("assign_multiple=%v: live containers after each update %v, want %v", tt.multiple, got, tt.want)
		}
		if err := h.Core.Check(); err != nil {
			t.Fatal(err)
		}
	}
}

// Shares are fractions of the cluster's capacity, so on a live cluster a
// node joining can reorder DRF's jobs. On <8 vcores, 16 GB>, A holding three
// <1 vcore, 256 MiB> tasks has the dominant share 3/8 and B holding one
// <1 vcore, 4 GB> task 1/4, so B is served first; once a <24 vcores, 0 GB>
// node joins, A's share is 3/32 and B's still 1/4, so A is.
func TestSharesFollowTheCluster(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{
		Nodes: []resource.Vector{resource.New(8, 16*1024)},
		Policy: func(v *sched.View) (sched.Policy, error) {
			return fair.New(v, fair.Config{Mode: fair.DRF, MaxAMShare: 0.5, AssignMultiple: true}), nil
		},
	})
	a := h.Submit(job("A", "default", none, 8, resource.New(1, 256)))
	b := h.Submit(job("B", "default", none, 4, resource.New(1, 4096)))
	for range 3 {
		h.Place(a, 0, 0)
	}
	h.Place(b, 0, 0)
	if got := h.Pick(0); got == nil || got.Job() != b {
		t.Fatalf("before the node joins: picked %v, want B", got)
	}
	if _, err := h.Core.AddNode(h.Now, "wide", resource.New(24, 0)); err != nil {
		t.Fatal(err)
	}
	if got := h.Pick(0); got == nil || got.Job() != a {
		t.Fatalf("after a <24 vcores, 0 GB> node joined: picked %v, want A", got)
	}
	if err := h.Core.Check(); err != nil {
		t.Fatal(err)
	}
}
