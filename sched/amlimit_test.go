package sched_test

import (
	"testing"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

func TestAMLimit(t *testing.T) {
	for _, tt := range []struct {
		name   string
		usable resource.Vector
		frac   float64
		want   resource.Vector
	}{
		// 10 % of <100, 200 GB> is exact: no rounding past it.
		{"exact", resource.New(100, 204800), 0.1, resource.New(10, 20480)},
		// 10 % of 5 vcores is half a vcore, 500 milli-vcores: exact too.
		{"fractional vcores stay exact", resource.New(5, 10000), 0.1, resource.Vector{resource.VCores: 500, resource.Memory: 1000}},
		// 30 % of 1023 MB is 306.9 MB: up to 307 (YARN rounds up).
		{"rounds up", resource.New(1, 1023), 0.3, resource.Vector{resource.VCores: 300, resource.Memory: 307}},
		{"nothing", resource.New(8, 8192), 0, resource.Vector{}},
		{"everything", resource.New(8, 8192), 1, resource.New(8, 8192)},
		{"a negative fraction turns it off", resource.New(8, 8192), -1, sched.NoAMLimit},
	} {
		if got := sched.AMLimit(tt.usable, tt.frac); got != tt.want {
			t.Errorf("%s: AMLimit(%v, %v) = %v, want %v", tt.name, tt.usable, tt.frac, got, tt.want)
		}
	}
}

// AMRoom on a cluster of <20 vcores, 40 GB> with a limit of 10 % of it,
// <2 vcores, 4 GB>: the room under each calculator, and the "at least one
// AM" rule.
func TestAMRoom(t *testing.T) {
	node := resource.New(20, 40960)
	limit := sched.AMLimit(node, 0.1)
	for _, tt := range []struct {
		name string
		calc resource.Calculator
		used resource.Vector
		want resource.Vector
	}{
		{"no AM runs: one may start, however large", resource.MemoryCalculator, resource.Vector{}, node},
		{"no AM runs, dominant", resource.DominantCalculator, resource.Vector{}, node},
		// Memory only: 4096 − 1024 MB left; vcores bounded by the cluster.
		{"memory: room in memory only", resource.MemoryCalculator, resource.New(1, 1024), resource.New(20, 3072)},
		// Two AMs of <1, 512 MB> hold the whole vcore limit: no room
		// under the dominant calculator, plenty under memory.
		{"memory: vcores do not count", resource.MemoryCalculator, resource.New(2, 1024), resource.New(20, 3072)},
		{"dominant: vcores count", resource.DominantCalculator, resource.New(2, 1024), resource.New(0, 3072)},
		// An AM with no memory is none to the memory calculator: as in
		// YARN (AMUsed ≤ none), the next may start whatever its size.
		{"memory: an AM without memory counts as none", resource.MemoryCalculator, resource.New(2, 0), node},
		{"no limit: the whole cluster", resource.DominantCalculator, resource.New(20, 40960), node},
	} {
		t.Run(tt.name, func(t *testing.T) {
			limit := limit
			if tt.name == "no limit: the whole cluster" {
				limit = sched.NoAMLimit
			}
			h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node}, Policy: fifoPolicy, Calculator: tt.calc})
			v := h.Core.View()
			if v.Calculator() != tt.calc {
				t.Fatalf("view's calculator %v, want %v", v.Calculator(), tt.calc)
			}
			if got := v.AMRoom(limit, tt.used); got != tt.want {
				t.Errorf("AMRoom(%v, %v) = %v, want %v", limit, tt.used, got, tt.want)
			}
			if got := v.AMRoomIn(tt.calc, limit, tt.used); got != tt.want {
				t.Errorf("AMRoomIn(%v) = %v, want %v", tt.calc, got, tt.want)
			}
		})
	}
}

func TestCoreRefusesUnknownCalculator(t *testing.T) {
	_, err := sched.NewCore(sched.Config{Nodes: []resource.Vector{node4}, Driver: &schedtest.Harness{T: t}, NewPolicy: fifoPolicy, Calculator: 9})
	if err == nil {
		t.Fatal("a core with calculator 9 was built")
	}
}
