// Package resource defines the multi-dimensional resource vector that nodes
// offer and containers request, with the arithmetic every policy needs: fit
// tests, sums, differences and dominant shares.
//
// A Vector is a fixed-size array so that it is copied by value, compared with
// ==, and costs no allocation in the scheduler's hot path.
package resource

import (
	"fmt"
	"strings"
)

// Dim names one resource dimension.
type Dim int

// The dimensions. CPU is held in milli-vcores so that fractional requests from
// traces (a quarter of a core) are exact; the others are whole units.
const (
	VCores Dim = iota // milli-vcores (1000 = one vcore)
	Memory            // MiB
	GPU               // devices
	Disk              // MiB
	NumDims
)

// MilliPerVCore is how many stored units make one vcore.
const MilliPerVCore = 1000

var dimNames = [NumDims]string{"vcores", "memory_mb", "gpus", "disk_mb"}

// Name returns the dimension's name as used in workload files.
func (d Dim) Name() string { return dimNames[d] }

// Vector is an amount of each resource.
type Vector [NumDims]int64

// New returns a vector of whole vcores and memory in MiB.
func New(vcores, memoryMB int64) Vector {
	return Vector{VCores: vcores * MilliPerVCore, Memory: memoryMB}
}

// Add returns v+w.
func (v Vector) Add(w Vector) Vector {
	for i := range v {
		v[i] += w[i]
	}
	return v
}

// Sub returns v-w.
func (v Vector) Sub(w Vector) Vector {
	for i := range v {
		v[i] -= w[i]
	}
	return v
}

// Mul returns v scaled by the integer n.
func (v Vector) Mul(n int64) Vector {
	for i := range v {
		v[i] *= n
	}
	return v
}

// Fits reports whether v fits within free in every dimension.
func (v Vector) Fits(free Vector) bool {
	return v[0] <= free[0] && v[1] <= free[1] && v[2] <= free[2] && v[3] <= free[3]
}

// CountIn returns how many copies of v fit in c at once: the fewest over
// the dimensions v asks for, and 0 for a zero v.
func (v Vector) CountIn(c Vector) int {
	n := -1
	for d := range v {
		if v[d] > 0 {
			if q := int(c[d] / v[d]); n < 0 || q < n {
				n = q
			}
		}
	}
	return max(n, 0)
}

// IsZero reports whether every dimension is zero.
func (v Vector) IsZero() bool { return v == Vector{} }

// AnyNegative reports whether some dimension is below zero.
func (v Vector) AnyNegative() bool {
	for _, x := range v {
		if x < 0 {
			return true
		}
	}
	return false
}

// Min returns the component-wise minimum of v and w.
func (v Vector) Min(w Vector) Vector {
	for i := range v {
		v[i] = min(v[i], w[i])
	}
	return v
}

// Max returns the component-wise maximum of v and w.
func (v Vector) Max(w Vector) Vector {
	for i := range v {
		v[i] = max(v[i], w[i])
	}
	return v
}

// Share returns v[d]/capacity[d], or 0 when the capacity has none of d.
func (v Vector) Share(d Dim, capacity Vector) float64 {
	if capacity[d] == 0 {
		return 0
	}
	return float64(v[d]) / float64(capacity[d])
}

// DominantShare returns the largest fraction of capacity that v takes in any
// dimension the capacity offers (Ghodsi et al.'s dominant share).
func (v Vector) DominantShare(capacity Vector) float64 {
	s := 0.0
	for d := Dim(0); d < NumDims; d++ {
		s = max(s, v.Share(d, capacity))
	}
	return s
}

// VCoresFloat returns the CPU dimension in vcores.
func (v Vector) VCoresFloat() float64 { return float64(v[VCores]) / MilliPerVCore }

// String formats v as "<2 vcores, 4096 MiB>", leaving out empty GPU and
// disk: memory and disk are counted in MiB (the workload format's memory_mb
// is YARN's MB, which YARN counts in MiB).
func (v Vector) String() string {
	var b strings.Builder
	b.WriteString("<")
	b.WriteString(FormatVCores(v[VCores]))
	b.WriteString(" vcores, ")
	fmt.Fprintf(&b, "%d MiB", v[Memory])
	if v[GPU] != 0 {
		fmt.Fprintf(&b, ", %d gpus", v[GPU])
	}
	if v[Disk] != 0 {
		fmt.Fprintf(&b, ", %d MiB disk", v[Disk])
	}
	b.WriteString(">")
	return b.String()
}

// FormatVCores renders milli-vcores as a decimal number of vcores without
// trailing zeros ("1", "0.25").
func FormatVCores(milli int64) string {
	neg := milli < 0
	if neg {
		milli = -milli
	}
	s := fmt.Sprintf("%d", milli/MilliPerVCore)
	if frac := milli % MilliPerVCore; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}
