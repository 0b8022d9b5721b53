package metrics

import (
	"math"
	"sort"
)

// Spearman is the rank correlation of x and y: Pearson's correlation of
// their ranks, tied values sharing the mean of the ranks they span. It is NaN
// when the lengths differ, there are fewer than two pairs, or either side
// has every value equal (no order to compare).
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	rx, ry := ranks(x), ranks(y)
	n := float64(len(x))
	mean := (n + 1) / 2 // ranks 1..n sum to n(n+1)/2, ties included
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mean, ry[i]-mean
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// ranks gives each value its 1-based rank, ties the mean rank of their run.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mid
		}
		i = j + 1
	}
	return r
}
