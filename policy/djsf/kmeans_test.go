package djsf

import (
	"math"
	"reflect"
	"testing"
)

func TestKMeans1D(t *testing.T) {
	tests := []struct {
		name      string
		xs        []float64
		k         int
		group     []int
		centroids []float64
	}{
		// Sorted [1 2 10 11 30]; the initial centroids are the values of
		// rank ⌊(2i+1)·5/4⌋ = 1, 3: 2 and 11. The midpoint 6.5 splits
		// {1, 2} | {10, 11, 30}; means 1.5 and 17; midpoint 9.25 keeps
		// the split, so it has converged.
		{"two groups", []float64{10, 1, 30, 2, 11}, 2, []int{1, 0, 1, 0, 1}, []float64{1.5, 17}},
		// Ranks ⌊(2i+1)·5/6⌋ = 0, 2, 4: 1, 10, 30. Midpoints 5.5 and 20
		// split {1, 2} | {10, 11} | {30}: means 1.5, 10.5, 30, stable.
		{"three groups", []float64{10, 1, 30, 2, 11}, 3, []int{1, 0, 2, 0, 1}, []float64{1.5, 10.5, 30}},
		// Starts at 1 and 3: midpoint 2 puts 2 (a tie) low: {0 1 2} | {3
		// 100}, means 1 and 51.5; midpoint 26.25 moves 3 down: {0 1 2 3}
		// | {100}, means 1.5 and 100; then stable.
		{"Lloyd moves a value", []float64{0, 1, 2, 3, 100}, 2, []int{0, 0, 0, 0, 1}, []float64{1.5, 100}},
		// Every initial centroid after the first would repeat 5: one group.
		{"duplicates cap k", []float64{5, 5, 5}, 3, []int{0, 0, 0}, []float64{5}},
		{"k larger than n", []float64{4, 2}, 5, []int{1, 0}, []float64{2, 4}},
		{"k = 1 is the mean", []float64{1, 2, 6}, 1, []int{0, 0, 0}, []float64{3}},
		{"empty", nil, 3, []int{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, c := KMeans1D(tt.xs, tt.k)
			if !reflect.DeepEqual(g, tt.group) {
				t.Errorf("groups %v, want %v", g, tt.group)
			}
			if len(c) != len(tt.centroids) {
				t.Fatalf("centroids %v, want %v", c, tt.centroids)
			}
			for i := range c {
				if math.Abs(c[i]-tt.centroids[i]) > 1e-12 {
					t.Errorf("centroids %v, want %v", c, tt.centroids)
				}
			}
		})
	}
}

func TestKMeans1DDeterministic(t *testing.T) {
	xs := []float64{7, 3, 3, 9, 1, 12, 40, 41, 2, 8, 8, 100}
	g1, c1 := KMeans1D(xs, 4)
	for range 10 {
		g2, c2 := KMeans1D(xs, 4)
		if !reflect.DeepEqual(g1, g2) || !reflect.DeepEqual(c1, c2) {
			t.Fatal("KMeans1D is not deterministic")
		}
	}
	// Groups are numbered by ascending centroid and each group is an
	// interval of values.
	for i := range xs {
		for j := range xs {
			if xs[i] < xs[j] && g1[i] > g1[j] {
				t.Fatalf("%v in group %d above %v in group %d", xs[i], g1[i], xs[j], g1[j])
			}
		}
	}
}

func TestAutoK(t *testing.T) {
	for _, tt := range []struct{ n, k int }{{0, 0}, {1, 1}, {2, 1}, {5, 2}, {50, 5}, {1000, 23}} {
		if got := AutoK(tt.n); got != tt.k {
			t.Errorf("AutoK(%d) = %d, want %d", tt.n, got, tt.k)
		}
	}
}
