package djsf

import (
	"math"
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/resource"
)

func vc(n int64) resource.Vector { return resource.New(n, n*1024) }

func members(sets []Set) [][]int {
	out := make([][]int, len(sets))
	for i, s := range sets {
		out[i] = s.Members
	}
	return out
}

func TestPack(t *testing.T) {
	capacity := resource.New(4, 4096)
	tests := []struct {
		name    string
		items   []Item
		group   []int
		groups  int
		members [][]int
		effs    []float64
	}{
		// One group, demands 1, 1, 3, 1 vcores: ascending demand packs
		// 0, 1, 3 (3 vcores); job 2 (3 more) does not fit and opens the
		// next set.
		{"a job that does not fit opens the next set",
			[]Item{{10, vc(1)}, {10, vc(1)}, {10, vc(3)}, {10, vc(1)}}, []int{0, 0, 0, 0}, 1,
			[][]int{{0, 1, 3}, {2}}, []float64{0.3, 0.1}},
		// Capacity is a vector: the second job fits in vcores but not in
		// memory (3 + 2 GB > 4 GB). Ascending demand is by dominant share:
		// 0.5 (2 GB) before 0.75 (3 GB).
		{"fit in every resource",
			[]Item{{5, resource.New(1, 3072)}, {5, resource.New(1, 2048)}}, []int{0, 0}, 1,
			[][]int{{1}, {0}}, []float64{0.2, 0.2}},
		// A job larger than the cluster gets a set of its own; the next
		// job does not join it.
		{"a job larger than the cluster",
			[]Item{{2, vc(8)}, {4, vc(1)}}, []int{0, 0}, 1,
			[][]int{{1}, {0}}, []float64{0.25, 0.5}},
		// Groups are packed in order, each into fresh sets, even when the
		// open set has room.
		{"each group starts a new set",
			[]Item{{100, vc(1)}, {1, vc(1)}, {2, vc(1)}}, []int{1, 0, 0}, 2,
			[][]int{{1, 2}, {0}}, []float64{1, 0.01}},
		// Equal demand: the shorter predicted JCT first, then the earlier.
		{"ties: shorter JCT, then earlier",
			[]Item{{3, vc(2)}, {2, vc(2)}, {2, vc(2)}}, []int{0, 0, 0}, 1,
			[][]int{{1, 2}, {0}}, []float64{1, 1.0 / 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sets := Pack(tt.items, tt.group, tt.groups, capacity)
			if got := members(sets); !reflect.DeepEqual(got, tt.members) {
				t.Fatalf("sets %v, want %v", got, tt.members)
			}
			for i, s := range sets {
				if math.Abs(s.Efficiency-tt.effs[i]) > 1e-12 {
					t.Errorf("set %d efficiency %v, want %v", i, s.Efficiency, tt.effs[i])
				}
			}
		})
	}
}

func TestOrder(t *testing.T) {
	sets := []Set{{Members: []int{0}, Efficiency: 0.3}, {Members: []int{1}, Efficiency: 0.1},
		{Members: []int{2}, Efficiency: 0.5}, {Members: []int{3}, Efficiency: 0.3}}
	Order(sets)
	// Descending efficiency; the two sets of 0.3 keep their packing order.
	if got, want := members(sets), [][]int{{2}, {0}, {3}, {1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// The paper's Fig. 1: job 0 takes the whole cluster for 4 s, jobs 1-4 take a
// quarter each for 4.2 s. SJF runs job 0 first (efficiency 1/4 = 0.25); the
// packing puts jobs 1-4 in one set of efficiency 4/4.2 ≈ 0.95, which runs
// first. With k = 2 the groups are {4} and {4.2 ×4}; with k = 1 ascending
// demand packs jobs 1-4 first and job 0 does not fit: the same sets.
func TestPlanFigure1(t *testing.T) {
	items := []Item{{4, vc(4)}, {4.2, vc(1)}, {4.2, vc(1)}, {4.2, vc(1)}, {4.2, vc(1)}}
	for _, k := range []int{1, 2, 3} {
		sets := Plan(items, k, resource.New(4, 4096), false)
		if got, want := members(sets), [][]int{{1, 2, 3, 4}, {0}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("k=%d: sets %v, want %v", k, got, want)
		}
		if math.Abs(sets[0].Efficiency-4/4.2) > 1e-12 || sets[1].Efficiency != 0.25 || sets[0].Span != 4.2 {
			t.Errorf("k=%d: efficiencies %v and %v, span %v", k, sets[0].Efficiency, sets[1].Efficiency, sets[0].Span)
		}
	}
}
