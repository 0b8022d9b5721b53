package cluster

import (
	"math"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

const sec = clock.Second

func at(s float64) clock.Time { return clock.Time(s * float64(sec)) }

func mustCurve(t *testing.T, period clock.Duration, pts ...LoadPoint) *LoadCurve {
	t.Helper()
	c, err := NewLoadCurve(pts, period)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The curves of these tests:
//
//	ramp:     0.2 until 10 s, rising to 0.6 at 20 s, then 0.6 for ever.
//	periodic: the same knots repeating every 30 s: 0.2 over [0, 10), up
//	          to 0.6 at 20, 0.6 until 30, where it drops back to 0.2.
func TestLoadCurveAt(t *testing.T) {
	pts := []LoadPoint{{10 * sec, 0.2}, {20 * sec, 0.6}}
	ramp := mustCurve(t, 0, pts...)
	periodic := mustCurve(t, 30*sec, pts...)
	tests := []struct {
		c    *LoadCurve
		t    float64
		want float64
	}{
		{ramp, -5, 0.2}, {ramp, 0, 0.2}, {ramp, 10, 0.2}, {ramp, 15, 0.4}, {ramp, 17.5, 0.5}, {ramp, 20, 0.6}, {ramp, 1e6, 0.6},
		{periodic, 15, 0.4}, {periodic, 29.999, 0.6}, {periodic, 30, 0.2}, {periodic, 45, 0.4}, {periodic, 75, 0.4}, {periodic, 80, 0.6},
	}
	for _, tt := range tests {
		if got := tt.c.At(at(tt.t)); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("period %v: f(%v s) = %v, want %v", tt.c.Period(), tt.t, got, tt.want)
		}
	}
}

// Integrals by hand: the ramp over [0, 20] is 10×0.2 + 10×0.4 = 6; over
// [15, 25] it is 5×0.5 + 5×0.6 = 5.5; over [0, 12] it is 10×0.2 + 2×0.24 =
// 2.48 (0.24 is the mean of 0.2 and 0.28 over [10, 12]). The periodic curve over one whole
// period [0, 30] is 2 + 4 + 6 = 12, over [25, 45] it is 5×0.6 + 10×0.2 +
// 5×0.3 = 6.5.
func TestLoadCurveIntegralAndMax(t *testing.T) {
	pts := []LoadPoint{{10 * sec, 0.2}, {20 * sec, 0.6}}
	ramp := mustCurve(t, 0, pts...)
	periodic := mustCurve(t, 30*sec, pts...)
	tests := []struct {
		c          *LoadCurve
		a, b       float64
		integ, max float64
	}{
		{ramp, 0, 20, 6, 0.6},
		{ramp, 15, 25, 5.5, 0.6},
		{ramp, 0, 12, 0.2*10 + 2*0.24, 0.28},
		{ramp, 5, 5, 0, 0.2},
		{periodic, 0, 30, 12, 0.6},
		{periodic, 25, 45, 6.5, 0.6},
		{periodic, 30, 40, 2, 0.2},
		{periodic, 60, 150, 36, 0.6},
	}
	for _, tt := range tests {
		if got := tt.c.Integral(at(tt.a), at(tt.b)); math.Abs(got-tt.integ) > 1e-9 {
			t.Errorf("period %v: integral over [%v, %v] = %v, want %v", tt.c.Period(), tt.a, tt.b, got, tt.integ)
		}
		if got := tt.c.Max(at(tt.a), at(tt.b)); math.Abs(got-tt.max) > 1e-9 {
			t.Errorf("period %v: max over [%v, %v] = %v, want %v", tt.c.Period(), tt.a, tt.b, got, tt.max)
		}
	}
}

// Samples come at knots, at period boundaries, and at the multiples of the
// step (4 s here) while the curve slopes; never once it is flat for good.
func TestLoadCurveNextStep(t *testing.T) {
	pts := []LoadPoint{{10 * sec, 0.2}, {20 * sec, 0.6}}
	ramp := mustCurve(t, 0, pts...)
	periodic := mustCurve(t, 30*sec, pts...)
	tests := []struct {
		c    *LoadCurve
		t    float64
		want clock.Time
	}{
		{ramp, 0, at(10)}, {ramp, 10, at(12)}, {ramp, 14, at(16)}, {ramp, 18, at(20)}, {ramp, 19.5, at(20)}, {ramp, 20, clock.Never},
		{periodic, 20, at(30)}, {periodic, 30, at(40)}, {periodic, 41, at(44)},
	}
	for _, tt := range tests {
		if got := tt.c.NextStep(at(tt.t), 4*sec); got != tt.want {
			t.Errorf("period %v: next step after %v s = %v, want %v", tt.c.Period(), tt.t, got, tt.want)
		}
	}
}

func TestNewLoadCurveErrors(t *testing.T) {
	for _, tt := range []struct {
		pts    []LoadPoint
		period clock.Duration
	}{
		{nil, 0},
		{[]LoadPoint{{0, 1.5}}, 0},
		{[]LoadPoint{{0, 0.1}, {0, 0.2}}, 0},
		{[]LoadPoint{{-sec, 0.1}}, 0},
		{[]LoadPoint{{0, 0.1}, {10 * sec, 0.2}}, 10 * sec},
		{[]LoadPoint{{0, math.NaN()}}, 0},
	} {
		if _, err := NewLoadCurve(tt.pts, tt.period); err == nil {
			t.Errorf("%v period %v: no error", tt.pts, tt.period)
		}
	}
}

// The external share rounds up, so the other workload gets at least its
// fraction: 30 % of 8 vcores is 2.4 vcores (2400 milli-vcores, exact), of
// 10000 MiB is 3000 MiB, of 3 GPUs is 0.9, rounded up to 1.
func TestExternalShare(t *testing.T) {
	cp := resource.Vector{8000, 10000, 3, 0}
	tests := []struct {
		frac float64
		want resource.Vector
	}{
		{0, resource.Vector{}},
		{0.3, resource.Vector{2400, 3000, 1, 0}},
		{0.5, resource.Vector{4000, 5000, 2, 0}},
		{1, cp},
	}
	for _, tt := range tests {
		if got := ExternalShare(cp, tt.frac); got != tt.want {
			t.Errorf("share %v of %v = %v, want %v", tt.frac, cp, got, tt.want)
		}
	}
}

// Usable capacity shrinks under external load without touching running
// containers: free is never negative, and the ledger refuses to allocate
// beyond what is usable.
func TestLedgerExternal(t *testing.T) {
	c, l := New([]resource.Vector{resource.New(4, 4096), resource.New(4, 4096)})
	if err := l.Allocate(0, resource.New(3, 3072), false); err != nil {
		t.Fatal(err)
	}
	if err := l.SetExternal(0, resource.New(2, 2048)); err != nil {
		t.Fatal(err)
	}
	n := c.Node(0)
	if n.Free() != (resource.Vector{}) || n.Usable() != resource.New(2, 2048) || n.External() != resource.New(2, 2048) {
		t.Fatalf("node 0: free %v usable %v external %v", n.Free(), n.Usable(), n.External())
	}
	// Node 0 has nothing free, node 1 all of its 4 vcores.
	if c.Usable() != resource.New(6, 6144) || c.Free() != resource.New(4, 4096) {
		t.Fatalf("cluster: usable %v free %v", c.Usable(), c.Free())
	}
	if err := l.Allocate(0, resource.New(1, 1024), false); err == nil {
		t.Fatal("allocated beyond the usable capacity")
	}
	if err := l.SetExternal(1, resource.New(5, 0)); err == nil {
		t.Fatal("external load above capacity accepted")
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(0, resource.New(3, 3072), false); err != nil {
		t.Fatal(err)
	}
	if n.Free() != resource.New(2, 2048) || c.Free() != resource.New(6, 6144) {
		t.Fatalf("free after release: node %v, cluster %v", n.Free(), c.Free())
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}
