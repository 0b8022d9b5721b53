package djsf

import (
	"math"
	"sort"
)

// maxIterations bounds Lloyd's iterations; in one dimension they converge
// in far fewer on any realistic input, the bound only guards against a
// cycle caused by rounding.
const maxIterations = 100

// KMeans1D groups xs into at most k clusters by Lloyd's algorithm in one
// dimension and returns each value's group and the groups' centroids (their
// means), both numbered in ascending centroid order.
//
// The initialisation is deterministic: centroid i starts at the value of
// rank ⌊(i + ½)·n/k⌋ of the sorted data, the midpoint of the i-th of k
// equal-count slices, moved up to the next distinct value when it would
// repeat the previous centroid. So k never exceeds the number of distinct
// values, and a cluster that empties is dropped. In one dimension a cluster
// is an interval of the sorted values and the assignment step is a sweep
// over the midpoints between consecutive centroids; a value exactly on a
// midpoint joins the lower cluster.
func KMeans1D(xs []float64, k int) (group []int, centroids []float64) {
	n := len(xs)
	group = make([]int, n)
	if n == 0 || k <= 0 {
		return group, nil
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return xs[order[a]] < xs[order[b]] })
	sorted := make([]float64, n)
	for i, o := range order {
		sorted[i] = xs[o]
	}
	for i := 0; i < k; i++ {
		c := sorted[(2*i+1)*n/(2*k)]
		if len(centroids) > 0 && c <= centroids[len(centroids)-1] {
			prev := centroids[len(centroids)-1]
			j := sort.Search(n, func(j int) bool { return sorted[j] > prev })
			if j == n {
				break
			}
			c = sorted[j]
		}
		centroids = append(centroids, c)
	}
	// rank[i] is the cluster of sorted[i]; clusters are contiguous runs.
	rank := make([]int, n)
	for iter := 0; iter < maxIterations; iter++ {
		changed := assign(sorted, centroids, rank)
		centroids = means(sorted, rank, len(centroids))
		if !changed && iter > 0 {
			break
		}
	}
	for i, o := range order {
		group[o] = rank[i]
	}
	return group, centroids
}

// assign puts each sorted value into the cluster of its nearest centroid
// (ties to the lower) and reports whether any assignment changed.
func assign(sorted, centroids []float64, rank []int) bool {
	changed := false
	c := 0
	for i, x := range sorted {
		for c+1 < len(centroids) && x > (centroids[c]+centroids[c+1])/2 {
			c++
		}
		if rank[i] != c {
			rank[i] = c
			changed = true
		}
	}
	return changed
}

// means recomputes centroids from the assignment, dropping empty clusters
// and renumbering rank to match.
func means(sorted []float64, rank []int, k int) []float64 {
	sum := make([]float64, k)
	cnt := make([]int, k)
	for i, x := range sorted {
		sum[rank[i]] += x
		cnt[rank[i]]++
	}
	renum := make([]int, k)
	var out []float64
	for c := range k {
		renum[c] = len(out)
		if cnt[c] > 0 {
			out = append(out, sum[c]/float64(cnt[c]))
		}
	}
	if len(out) < k {
		for i := range rank {
			rank[i] = renum[rank[i]]
		}
	}
	return out
}

// AutoK is the default number of groups for n jobs, ⌈√(n/2)⌉: the common
// rule of thumb for k-means when nothing else fixes k (Mardia, Kent and Bibby,
// Multivariate Analysis, 1979). The DJSF paper's value was lost; this rule
// grows with the backlog, so a few jobs are not split into singletons and a
// long queue still gets groups of similar length.
func AutoK(n int) int {
	if n <= 0 {
		return 0
	}
	return int(math.Ceil(math.Sqrt(float64(n) / 2)))
}
