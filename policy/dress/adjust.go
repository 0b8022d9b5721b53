package dress

import "sort"

// Branch says which case of Algorithm 3 set the reserve ratio.
type Branch int

// The cases of Algorithm 3.
const (
	// SDSurplus: small jobs' available and expected resources cover their
	// pending demand; the surplus goes to large jobs (lines 7-8).
	SDSurplus Branch = iota
	// LDSurplus: small jobs are short but large jobs have a surplus,
	// which goes to small jobs (lines 10-11).
	LDSurplus
	// Packing: neither category is covered; jobs are packed smallest
	// first and what large jobs leave over moves to small jobs (lines
	// 13-24).
	Packing
	numBranches
)

var branchNames = [numBranches]string{"sd_surplus", "ld_surplus", "packing"}

func (b Branch) String() string { return branchNames[b] }

// AdjustInput is what Algorithm 3 works from, every quantity in one unit
// (containers in the paper; any unit in which Total is the cluster).
type AdjustInput struct {
	Delta float64 // the current reserve ratio δ
	Total float64 // Tot_R
	// A1 and A2 are the resources available now to small (category 1)
	// and large (category 2) jobs; F1 and F2 what their running jobs are
	// expected to release over the horizon (Equation 1).
	A1, A2, F1, F2 float64
	// SD and LD are the resource demands r_i of the pending jobs of each
	// category, in submission order.
	SD, LD []float64
}

// Adjust is Algorithm 3 with the errata of docs/design.md ("DRESS"): line 14 adds F2 to
// A_c2; line 20 subtracts the LD job's own r_j; the loops run over every job
// of a category; and lines 21-24 continue with the small jobs that did not
// fit, in ascending order, moving what large jobs left over to them while the
// next one fits the combined leftovers. A job "fits" when its demand is at
// most what is left: the text assigns "as many jobs as possible" and stops
// "until the next job request is larger than A_c1 + A_c2". A small job that
// takes part of its room from small jobs' own leftover enlarges δ only by
// the part it takes from large jobs, which is what moving the leftover from
// LD to SD means. The returned ratio is not clamped.
func Adjust(in AdjustInput) (float64, Branch) {
	var p1, p2 float64
	for _, r := range in.SD {
		p1 += r
	}
	for _, r := range in.LD {
		p2 += r
	}
	delta := in.Delta
	if in.A1+in.F1 >= p1 {
		return delta - (in.A1+in.F1-p1)/in.Total, SDSurplus
	}
	if in.A2+in.F2 >= p2 {
		return delta + (in.A2+in.F2-p2)/in.Total, LDSurplus
	}
	sd := append([]float64(nil), in.SD...)
	ld := append([]float64(nil), in.LD...)
	sort.Float64s(sd)
	sort.Float64s(ld)
	a1, a2 := in.A1+in.F1, in.A2+in.F2
	var unfit []float64
	for _, r := range sd {
		if r <= a1 {
			a1 -= r
		} else {
			unfit = append(unfit, r)
		}
	}
	for _, r := range ld {
		if r <= a2 {
			a2 -= r
		}
	}
	for _, r := range unfit {
		if r > a1+a2 {
			break
		}
		fromLD := r - a1
		a1 = 0
		a2 -= fromLD
		delta += fromLD / in.Total
	}
	return delta, Packing
}
