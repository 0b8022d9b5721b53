package resource

import (
	"fmt"
	"math"
)

// Calculator is how a YARN resource manager compares amounts of resource
// (yarn.scheduler.capacity.resource-calculator): whether a set of
// ApplicationMasters is within its limit, which of two amounts is larger. A
// run uses one calculator everywhere; the zero value is YARN's default.
type Calculator uint8

// The calculators.
const (
	// MemoryCalculator is YARN's DefaultResourceCalculator, its default:
	// amounts are compared by memory alone, every other resource ignored.
	MemoryCalculator Calculator = iota
	// DominantCalculator is YARN's DominantResourceCalculator: amounts
	// are compared by their shares of the cluster, the largest share
	// first, then the next largest, and so on (dominant resource
	// fairness, Ghodsi et al., NSDI 2011).
	DominantCalculator
	numCalculators
)

var calculatorNames = [numCalculators]string{"memory", "dominant"}

// String returns the name used in workload files and on the command line.
func (c Calculator) String() string {
	if c < numCalculators {
		return calculatorNames[c]
	}
	return fmt.Sprintf("Calculator(%d)", c)
}

// Valid reports whether c is one of the calculators.
func (c Calculator) Valid() bool { return c < numCalculators }

// CalculatorNames lists the accepted names, the default first.
func CalculatorNames() []string { return calculatorNames[:] }

// ParseCalculator reads a calculator's name: "memory" (YARN's
// DefaultResourceCalculator, also accepted as "default") or "dominant"
// (DominantResourceCalculator).
func ParseCalculator(s string) (Calculator, error) {
	switch s {
	case "memory", "default":
		return MemoryCalculator, nil
	case "dominant":
		return DominantCalculator, nil
	}
	return 0, fmt.Errorf("unknown resource calculator %q: want memory (YARN's DefaultResourceCalculator) or dominant (DominantResourceCalculator)", s)
}

// Compare returns -1, 0 or +1 as a is less than, equal to or greater than b
// on a cluster of the given capacity. The memory calculator compares
// memory. The dominant one compares the shares of the cluster each amount
// takes, sorted from largest to smallest, one by one, as YARN's
// DominantResourceCalculator does; a resource the cluster has none of is
// left out, and when the cluster has none of anything the amounts are
// compared resource by resource (+1 or -1 only when one is at least the
// other everywhere).
func (c Calculator) Compare(cluster, a, b Vector) int {
	if c == MemoryCalculator {
		return cmp64(a[Memory], b[Memory])
	}
	if a == b {
		return 0
	}
	var sa, sb [NumDims]float64
	n := 0
	for d := range cluster {
		if cluster[d] == 0 {
			continue
		}
		sa[n] = float64(a[d]) / float64(cluster[d])
		sb[n] = float64(b[d]) / float64(cluster[d])
		n++
	}
	if n == 0 {
		return componentwise(a, b)
	}
	sortDesc(sa[:n])
	sortDesc(sb[:n])
	for i := range n {
		switch {
		case sa[i] < sb[i]:
			return -1
		case sa[i] > sb[i]:
			return 1
		}
	}
	return 0
}

// LessOrEqual reports whether a is at most b under the calculator
// (YARN's Resources.lessThanOrEqual).
func (c Calculator) LessOrEqual(cluster, a, b Vector) bool { return c.Compare(cluster, a, b) <= 0 }

// Max returns whichever of a and b the calculator finds larger, a when they
// compare equal (YARN's Resources.max): a whole amount, not the larger of
// each resource.
func (c Calculator) Max(cluster, a, b Vector) Vector {
	if c.Compare(cluster, a, b) >= 0 {
		return a
	}
	return b
}

// Min returns whichever of a and b the calculator finds smaller, a when they
// compare equal (YARN's Resources.min).
func (c Calculator) Min(cluster, a, b Vector) Vector {
	if c.Compare(cluster, a, b) <= 0 {
		return a
	}
	return b
}

// Room returns what may be added to used while the sum stays within limit
// under the calculator: every request that fits the returned vector keeps
// used + request at most limit. Resources the calculator ignores are
// bounded by the cluster's capacity only, so that the vector can cap what a
// node offers (Vector.Min) and be tested with Fits.
//
// For the memory calculator the room is exact: limit's memory less used's.
// For the dominant calculator it is the amounts whose every share stays at
// most limit's dominant share, which is exact except in one case: when
// used + request reaches that share exactly in some resource and limit is
// not proportional to the cluster, YARN's tie-break on the next largest
// share may refuse what Room admits.
func (c Calculator) Room(cluster, used, limit Vector) Vector {
	room := cluster
	if c == MemoryCalculator {
		room[Memory] = limit[Memory] - used[Memory]
		return room
	}
	top := 0.0
	any := false
	for d := range cluster {
		if cluster[d] > 0 {
			top = max(top, float64(limit[d])/float64(cluster[d]))
			any = true
		}
	}
	if !any {
		return limit.Sub(used)
	}
	for d := range cluster {
		if cluster[d] > 0 {
			// The largest whole amount whose share is at most top,
			// with a relative slack for the rounding of the product.
			room[d] = int64(math.Floor(top*float64(cluster[d])*(1+1e-12))) - used[d]
		} else {
			room[d] = -used[d]
		}
	}
	return room
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// componentwise is YARN's comparison when no share can be computed: +1 when
// a exceeds b somewhere and is nowhere below it, -1 the other way round, 0
// otherwise.
func componentwise(a, b Vector) int {
	var greater, less bool
	for d := range a {
		switch {
		case a[d] > b[d]:
			greater = true
		case a[d] < b[d]:
			less = true
		}
	}
	switch {
	case greater && !less:
		return 1
	case less && !greater:
		return -1
	}
	return 0
}

// sortDesc sorts a handful of shares from largest to smallest.
func sortDesc(s []float64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] > s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
