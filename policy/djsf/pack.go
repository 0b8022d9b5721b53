package djsf

import (
	"sort"

	"github.com/spindle-sched/spindle/resource"
)

// Item is a job as the packing sees it: its predicted (remaining) completion
// time in seconds and its demand, the resources it would hold at its peak.
type Item struct {
	JCT    float64
	Demand resource.Vector
}

// Set is a job set: jobs packed to run side by side on the cluster.
type Set struct {
	Members []int // indexes into the items, in packing order
	Group   int   // the k-means group the set was packed from
	Demand  resource.Vector
	// Span is the largest predicted JCT in the set: the time, were its jobs
	// started together, until the last one completes.
	Span float64
	// Efficiency is the paper's job completion efficiency |S| / span(S).
	Efficiency float64
}

// Plan clusters the items by predicted JCT into k groups, packs each group
// into job sets (Pack), and returns the sets in the order they should run:
// descending efficiency, ties in packing order. With area, efficiency is
// AreaEfficiency instead of the paper's |S| / span.
func Plan(items []Item, k int, capacity resource.Vector, area bool) []Set {
	jcts := make([]float64, len(items))
	for i, it := range items {
		jcts[i] = it.JCT
	}
	group, centroids := KMeans1D(jcts, k)
	sets := Pack(items, group, len(centroids), capacity)
	if area {
		for i := range sets {
			sets[i].Efficiency = AreaEfficiency(items, sets[i].Members, capacity)
		}
	}
	Order(sets)
	return sets
}

// AreaEfficiency is djsf+'s density: jobs per unit of cluster-time, |S| over
// Σ dominant share of the cluster × predicted JCT. The paper's |S| / span is
// the right order for sets run one after another (a set delays every later
// job by its span); in a work-conserving cluster the jobs of later sets fill
// in as soon as a set's shorter jobs finish, so a set delays the others by
// the resources it holds over time rather than by its span. For a single job
// this is Smith's rule on the job's area.
func AreaEfficiency(items []Item, members []int, capacity resource.Vector) float64 {
	a := 0.0
	for _, m := range members {
		a += items[m].Demand.DominantShare(capacity) * items[m].JCT
	}
	if a <= 0 {
		return 0
	}
	return float64(len(members)) / a
}

// Pack packs items into job sets. Groups are taken in ascending order (the
// caller numbers them by ascending mean JCT, as KMeans1D does); inside a
// group the items go in ascending demand, measured as the dominant share of
// the cluster (ties: shorter predicted JCT, then the earlier item). Each job
// joins the open set while the set's total demand still fits the cluster's
// capacity in every resource; a job that does not fit closes the set and
// opens the next one. Every group starts a fresh set, so a set never mixes
// jobs of different lengths, which is what the clustering is for. A job
// larger than the whole cluster gets a set of its own.
func Pack(items []Item, group []int, groups int, capacity resource.Vector) []Set {
	byGroup := make([][]int, groups)
	for i, g := range group {
		byGroup[g] = append(byGroup[g], i)
	}
	var sets []Set
	for g, members := range byGroup {
		sort.SliceStable(members, func(a, b int) bool {
			x, y := items[members[a]], items[members[b]]
			sx, sy := x.Demand.DominantShare(capacity), y.Demand.DominantShare(capacity)
			if sx != sy {
				return sx < sy
			}
			if x.JCT != y.JCT {
				return x.JCT < y.JCT
			}
			return members[a] < members[b]
		})
		open := -1
		for _, m := range members {
			d := items[m].Demand
			if open >= 0 && !sets[open].Demand.Add(d).Fits(capacity) {
				open = -1
			}
			if open < 0 {
				sets = append(sets, Set{Group: g})
				open = len(sets) - 1
			}
			s := &sets[open]
			s.Members = append(s.Members, m)
			s.Demand = s.Demand.Add(d)
			s.Span = max(s.Span, items[m].JCT)
		}
	}
	for i := range sets {
		if s := &sets[i]; s.Span > 0 {
			s.Efficiency = float64(len(s.Members)) / s.Span
		}
	}
	return sets
}

// Order sorts sets by descending efficiency (Theorem 2 of the paper: the
// densest set first minimises the average JCT), keeping packing order among
// equals.
func Order(sets []Set) {
	sort.SliceStable(sets, func(a, b int) bool { return sets[a].Efficiency > sets[b].Efficiency })
}
