package dress

import (
	"math"
	"math/bits"

	"github.com/spindle-sched/spindle/resource"
)

// Total is the whole cluster in units. Units measure resources the way the
// paper counts containers, for clusters whose containers are vectors of
// mixed sizes: a container of request r is worth its dominant share of the
// cluster in units, rounded down, floor(max_d r_d·Total/cap_d). With uniform
// containers that tile the cluster in its dominant resource (the paper's 100
// containers of one vcore on 100 vcores) every container is worth exactly
// Total/100, so every count is the paper's container count times a constant.
//
// Integer units keep pool accounting exact however long the run: sums and
// differences of container values never drift.
const Total int64 = 1_000_000_000

// meter converts requests to units against one cluster capacity.
type meter struct {
	capacity resource.Vector
	// The last free vector converted by units, and its value.
	free      resource.Vector
	freeUnits int64
	freeSet   bool
}

func newMeter(capacity resource.Vector) *meter { return &meter{capacity: capacity} }

// size returns what a container of request r is worth in units.
func (m *meter) size(r resource.Vector) int64 {
	var u uint64
	for d := range r {
		c := m.capacity[d]
		if c <= 0 || r[d] <= 0 {
			continue
		}
		hi, lo := bits.Mul64(uint64(r[d]), uint64(Total))
		if hi >= uint64(c) {
			// Larger than the whole cluster in this dimension.
			return math.MaxInt64 / 4
		}
		q, _ := bits.Div64(hi, lo, uint64(c))
		u = max(u, q)
	}
	return int64(u)
}

// room returns the largest vector every request within which is worth at
// most u units: in each dimension the largest x with floor(x·Total/cap_d) ≤ u,
// that is floor(((u+1)·cap_d − 1)/Total). A request fits the vector exactly
// when its size is at most u, so vector fit tests enforce a limit in units
// without rounding slack.
func (m *meter) room(u int64) resource.Vector {
	var v resource.Vector
	if u < 0 {
		return v
	}
	for d := range v {
		c := m.capacity[d]
		if c <= 0 {
			continue
		}
		if u >= Total {
			v[d] = c
			continue
		}
		hi, lo := bits.Mul64(uint64(u+1), uint64(c))
		lo, borrow := bits.Sub64(lo, 1, 0)
		hi -= borrow
		q, _ := bits.Div64(hi, lo, uint64(Total))
		v[d] = int64(q)
	}
	return v
}

// units is the largest u whose room fits within free: the containers that
// still fit, in units. It bounds what the pools' accounting says is free by
// what the nodes report, which differ when other workloads take part of the
// machines.
func (m *meter) units(free resource.Vector) int64 {
	// The re-tune asks every interval, and the free resources seldom
	// moved since: the divisions are done once per change.
	if m.freeSet && free == m.free {
		return m.freeUnits
	}
	u := m.unitsOf(free)
	m.free, m.freeUnits, m.freeSet = free, u, true
	return u
}

func (m *meter) unitsOf(free resource.Vector) int64 {
	u := Total
	for d := range free {
		if m.capacity[d] <= 0 {
			continue
		}
		f := min(max(free[d], 0), m.capacity[d])
		hi, lo := bits.Mul64(uint64(f), uint64(Total))
		q, _ := bits.Div64(hi, lo, uint64(m.capacity[d]))
		u = min(u, int64(q))
	}
	return u
}
