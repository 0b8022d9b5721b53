package capacity_test

import (
	"testing"

	"github.com/spindle-sched/spindle/policy/capacity"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

func prio(j sched.JobSpec, p int32) sched.JobSpec { j.Priority = p; return j }

func job(key, queue string, am resource.Vector, tasks int) sched.JobSpec {
	if queue == "" {
		queue = "default"
	}
	return sched.JobSpec{Key: key, Queue: queue, AM: am, Phases: []sched.PhaseSpec{{Tasks: tasks, Request: one, StartAfter: 1}}}
}

var (
	none = resource.Vector{}
	one  = resource.New(1, 1024)
	two  = resource.New(2, 2048)
)

func TestCapacityOrdering(t *testing.T) {
	place, steps := schedtest.PlaceN, schedtest.Steps
	twoQueues := func(yMax float64) []sched.QueueSpec {
		return []sched.QueueSpec{{Name: "x", Capacity: 0.5, MaxCapacity: 1}, {Name: "y", Capacity: min(0.5, yMax), MaxCapacity: yMax}}
	}
	type row = struct {
		schedtest.PickCase
		amPct float64
	}
	cpuAM := resource.New(2, 512) // within 10 % of 20 GB, not of 20 vcores
	// A tree: root → prod (60 %) → etl, adhoc (half each); batch (40 %).
	tree := func(prodCap, prodMax float64) []sched.QueueSpec {
		return []sched.QueueSpec{{Name: "prod", Capacity: prodCap, MaxCapacity: prodMax}, {Name: "prod.etl", Capacity: 0.5, MaxCapacity: 1},
			{Name: "prod.adhoc", Capacity: 0.5, MaxCapacity: 1}, {Name: "batch", Capacity: 0.4, MaxCapacity: 1}}
	}
	treeJobs := []sched.JobSpec{job("e", "prod.etl", none, 9), job("a", "prod.adhoc", none, 9), job("b", "batch", none, 9)}
	tests := []row{
		{PickCase: schedtest.PickCase{Name: "the most under-served queue first", Queues: twoQueues(1),
			Jobs:  []sched.JobSpec{job("a", "x", none, 9), job("b", "y", none, 9)},
			Setup: steps(place(0, 0, 3), place(1, 0, 1)), Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "a queue at its ceiling is passed over", Queues: twoQueues(0.3),
			Jobs:  []sched.JobSpec{job("a", "x", none, 9), job("b", "y", none, 9)},
			Setup: steps(place(0, 0, 4), place(1, 0, 3)), Want: "a"}},
		// Flat, the empty adhoc (used 0) would come first; in the tree
		// prod (0.2 of its 0.6) is further served than batch (0.1 of 0.4).
		{PickCase: schedtest.PickCase{Name: "the tree: the parent most under-served first", Queues: tree(0.6, 1),
			Jobs: treeJobs, Setup: steps(place(2, 0, 1), place(0, 0, 2)), Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "the tree: then the child most under-served within it", Queues: tree(0.6, 1),
			Jobs: treeJobs, Setup: steps(place(2, 0, 3), place(0, 0, 2)), Want: "a"}},
		// etl may grow to the whole cluster, but prod, its parent, only
		// to 30 %.
		{PickCase: schedtest.PickCase{Name: "the tree: a parent's ceiling caps its children", Queues: tree(0.3, 0.3),
			Jobs: treeJobs, Setup: steps(place(2, 0, 4), place(0, 0, 3)), Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "a higher priority first inside a queue",
			Jobs: []sched.JobSpec{job("a", "", none, 9), prio(job("b", "", none, 9), 2)}, Want: "b"}},
		{PickCase: schedtest.PickCase{Name: "a higher priority's AM before an earlier job's tasks",
			Jobs: []sched.JobSpec{job("a", "", none, 9), prio(job("b", "", one, 9), 2)}, Want: "b", WantAM: true}},
		// Priority orders jobs within a leaf, never queues: y's job waits
		// for the under-served x although its priority is higher.
		{PickCase: schedtest.PickCase{Name: "priority does not order queues", Queues: twoQueues(1),
			Jobs:  []sched.JobSpec{job("a", "x", none, 9), prio(job("b", "y", none, 9), 9)},
			Setup: place(1, 0, 2), Want: "a"}},
		{PickCase: schedtest.PickCase{Name: "first in, first out inside a queue",
			Jobs:  []sched.JobSpec{job("a", "", none, 9), job("b", "", none, 9)},
			Setup: steps(place(1, 0, 2), place(0, 0, 1)), Want: "a"}},
		{PickCase: schedtest.PickCase{Name: "an earlier job's AM before a later job's tasks",
			Jobs: []sched.JobSpec{job("a", "", one, 2), job("b", "", none, 2)}, Want: "a", WantAM: true}},
		{PickCase: schedtest.PickCase{Name: "the AM limit holds back AMs past max_am_percent",
			Jobs:  []sched.JobSpec{job("a", "", one, 9), job("b", "", one, 9)},
			Setup: place(0, -1, 1), Want: "a"}, amPct: 0.1},
		{PickCase: schedtest.PickCase{Name: "the first AM of a queue always runs",
			Jobs: []sched.JobSpec{job("a", "", one, 9)}, Want: "a", WantAM: true}, amPct: 0.05},
		{PickCase: schedtest.PickCase{Name: "an AM too big for the limit lets a smaller one through",
			Nodes: []resource.Vector{resource.New(20, 20480)},
			Jobs:  []sched.JobSpec{job("a", "", one, 9), job("b", "", two, 9), job("c", "", one, 9)},
			Setup: steps(place(0, -1, 1), place(0, 0, 9)), Want: "c", WantAM: true}, amPct: 0.1},
		{PickCase: schedtest.PickCase{Name: "the AM limit is checked in memory (DefaultResourceCalculator)",
			Nodes: []resource.Vector{resource.New(20, 20480)},
			Jobs:  []sched.JobSpec{job("a", "", one, 1), job("b", "", cpuAM, 9)},
			Setup: steps(place(0, -1, 1), place(0, 0, 1)), Want: "b", WantAM: true}, amPct: 0.1},
		{PickCase: schedtest.PickCase{Name: "the dominant calculator checks every resource",
			Nodes: []resource.Vector{resource.New(20, 20480)},
			Jobs:  []sched.JobSpec{job("a", "", one, 1), job("b", "", cpuAM, 9)},
			Setup: steps(place(0, -1, 1), place(0, 0, 1)), Want: "", Calculator: resource.DominantCalculator}, amPct: 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			pct := tt.amPct
			if pct == 0 {
				pct = 0.1
			}
			if tt.Nodes == nil {
				tt.Nodes = []resource.Vector{resource.New(10, 10240)}
			}
			tt.Run(t, func(v *sched.View) (sched.Policy, error) {
				return capacity.New(v, capacity.Config{MaxAMPercent: pct}), nil
			})
		})
	}
}
