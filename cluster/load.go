package cluster

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// LoadPoint is one knot of a load curve: the fraction of each node's
// capacity that other (non-YARN) workloads use at a time.
type LoadPoint struct {
	At   clock.Duration
	Frac float64
}

// LoadCurve is the external load of the Reverse-Adaptive paper, f(t): the
// fraction of every node's capacity taken by workloads the resource manager
// does not schedule, piecewise-linear between knots. Before the first knot
// the first value holds and after the last knot the last value holds; with a
// period the curve so defined over [0, period) repeats. The simulator applies
// it; policies may read a forecast of it through their view.
type LoadCurve struct {
	pts    []LoadPoint
	period clock.Duration // 0: not periodic
}

// NewLoadCurve checks and builds a curve: knots strictly increasing in time,
// at or after 0 (and before the period when there is one, except a last
// knot at the period that repeats a knot at 0, which closes the cycle and
// is dropped), fractions in [0, 1].
func NewLoadCurve(points []LoadPoint, period clock.Duration) (*LoadCurve, error) {
	if len(points) == 0 {
		return nil, errors.New("load curve: no points")
	}
	if period < 0 {
		return nil, fmt.Errorf("load curve: negative period %v", period)
	}
	if n := len(points); period > 0 && n > 1 && points[n-1].At == period && points[0].At == 0 && points[n-1].Frac == points[0].Frac {
		// A closing point repeats t = 0: the cycle needs it once.
		points = points[:n-1]
	}
	for i, p := range points {
		switch {
		case !(p.Frac >= 0 && p.Frac <= 1):
			return nil, fmt.Errorf("load curve: point %d: fraction %v outside [0, 1]", i, p.Frac)
		case p.At < 0:
			return nil, fmt.Errorf("load curve: point %d: negative time %v", i, p.At)
		case i > 0 && p.At <= points[i-1].At:
			return nil, fmt.Errorf("load curve: point %d: time %v not after the previous point", i, p.At)
		case period > 0 && p.At >= period:
			return nil, fmt.Errorf("load curve: point %d: time %v not before the period %v", i, p.At, period)
		}
	}
	return &LoadCurve{pts: append([]LoadPoint(nil), points...), period: period}, nil
}

// Points returns the knots. Callers must not modify them.
func (c *LoadCurve) Points() []LoadPoint { return c.pts }

// Period returns the period, or 0 when the curve does not repeat.
func (c *LoadCurve) Period() clock.Duration { return c.period }

// local maps t to its offset within the period and the period's start.
func (c *LoadCurve) local(t clock.Time) (off clock.Duration, base clock.Time) {
	if c.period <= 0 || t < 0 {
		return clock.Duration(t), 0
	}
	p := clock.Time(c.period)
	base = t / p * p
	return clock.Duration(t - base), base
}

// segment returns the index i of the last knot at or before off, or -1
// when off is before the first knot.
func (c *LoadCurve) segment(off clock.Duration) int {
	return sort.Search(len(c.pts), func(i int) bool { return c.pts[i].At > off }) - 1
}

// valueAt is the curve within one period (or over all time without one).
func (c *LoadCurve) valueAt(off clock.Duration) float64 {
	i := c.segment(off)
	switch {
	case i < 0:
		return c.pts[0].Frac
	case i == len(c.pts)-1:
		return c.pts[i].Frac
	}
	a, b := c.pts[i], c.pts[i+1]
	return a.Frac + (b.Frac-a.Frac)*float64(off-a.At)/float64(b.At-a.At)
}

// At returns f(t).
func (c *LoadCurve) At(t clock.Time) float64 {
	off, _ := c.local(t)
	return c.valueAt(off)
}

// Integral returns the integral of f over [a, b] in seconds (the mean load
// over the span times its length); 0 when b <= a.
func (c *LoadCurve) Integral(a, b clock.Time) float64 {
	if b <= a {
		return 0
	}
	sum := 0.0
	for t := a; t < b; {
		next := min(b, c.NextKnot(t))
		fa, fb := c.At(t), c.valueBefore(next)
		sum += (fa + fb) / 2 * next.Sub(t).Seconds()
		t = next
	}
	return sum
}

// Max returns the largest value of f over [a, b]: since the curve is linear
// between knots, the largest of its values at a, b and the knots between.
func (c *LoadCurve) Max(a, b clock.Time) float64 {
	m := c.At(a)
	for t := a; t < b; {
		next := min(b, c.NextKnot(t))
		m = max(m, c.valueBefore(next))
		if next < b {
			m = max(m, c.At(next))
		}
		t = next
	}
	return m
}

// valueBefore is the limit of f from the left at t: it differs from At(t)
// only at a period boundary, where a periodic curve may jump.
func (c *LoadCurve) valueBefore(t clock.Time) float64 {
	off, base := c.local(t)
	if c.period > 0 && off == 0 && base > 0 {
		return c.valueAt(c.period)
	}
	return c.valueAt(off)
}

// NextKnot returns the first time after t at which the curve's slope may
// change: the next knot, or the next period boundary; clock.Never when the
// curve is constant from t on.
func (c *LoadCurve) NextKnot(t clock.Time) clock.Time {
	off, base := c.local(t)
	i := c.segment(off)
	if i+1 < len(c.pts) {
		return base.Add(c.pts[i+1].At)
	}
	if c.period > 0 {
		return base.Add(c.period)
	}
	return clock.Never
}

// Sloped reports whether the curve changes continuously just after t (t
// lies on a segment between two knots with different values).
func (c *LoadCurve) Sloped(t clock.Time) bool {
	off, _ := c.local(t)
	i := c.segment(off)
	return i >= 0 && i+1 < len(c.pts) && c.pts[i].Frac != c.pts[i+1].Frac
}

// NextStep returns when a driver that holds the load constant between
// samples should sample it next after t: at the next knot or period
// boundary, and every step in between while the curve slopes. It returns
// clock.Never when the load never changes after t.
func (c *LoadCurve) NextStep(t clock.Time, step clock.Duration) clock.Time {
	next := c.NextKnot(t)
	if c.Sloped(t) && step > 0 {
		next = min(next, (t/clock.Time(step)+1)*clock.Time(step))
	}
	return next
}

// ExternalShare returns what a load of frac takes of a node of capacity
// cp: frac of each resource, rounded up, so that other workloads get at
// least their fraction.
func ExternalShare(cp resource.Vector, frac float64) resource.Vector {
	var v resource.Vector
	if frac <= 0 {
		return v
	}
	if frac >= 1 {
		return cp
	}
	for d := range cp {
		x := int64(math.Ceil(frac*float64(cp[d]) - 1e-9))
		v[d] = min(max(x, 0), cp[d])
	}
	return v
}
