package adaptive

import (
	"math"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
)

func secs(s float64) clock.Time { return clock.Time(s * float64(clock.Second)) }

func TestUtility(t *testing.T) {
	tests := []struct {
		s, need, pend, want float64
	}{
		{0, 4, 8, -1},       // nothing: −1
		{2, 4, 8, -0.5},     // half the need
		{4, 4, 8, 0},        // exactly the need
		{6, 4, 8, 0.5},      // half way to all it could use
		{8, 4, 8, 1},        // all it could use
		{10, 4, 8, 1},       // more than it could use counts as all
		{0, 0, 6, 0},        // needs nothing, has nothing
		{3, 0, 6, 0.5},      // needs nothing: the share of what it could use
		{2, 4, 4, -0.5},     // could use exactly its need
		{4, 4, 4, 0},        // and has it
		{3, 5, 3, -0.4},     // needs more than it could use: below 0 even with all
		{1, 3, 3, -2.0 / 3}, // a third short of two thirds
	}
	for _, tt := range tests {
		if got := Utility(tt.s, tt.need, tt.pend); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("u(s=%v, need=%v, pend=%v) = %v, want %v", tt.s, tt.need, tt.pend, got, tt.want)
		}
	}
}

func TestSReq(t *testing.T) {
	tests := []struct {
		name             string
		work, left, pend float64
		known            bool
		want             float64
	}{
		{"80 task-s in 60 s: 1.33, rounded up", 80, 60, 8, true, 2},
		{"exactly one task at a time", 80, 80, 8, true, 1},
		{"rounding error forgiven", 60 + 1e-12, 60, 8, true, 1},
		{"more than it could run", 80, 5, 8, true, 16},
		{"no time left: everything", 80, 0, 8, true, 8},
		{"goal passed: everything", 80, -5, 8, true, 8},
		{"task length unknown: everything", 80, 60, 8, false, 8},
		{"nothing left", 0, 60, 0, true, 0},
	}
	for _, tt := range tests {
		if got := sReq(tt.work, tt.left, tt.pend, tt.known); got != tt.want {
			t.Errorf("%s: s_req = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWaterfill(t *testing.T) {
	tests := []struct {
		want     []float64
		capacity float64
		got      []float64
	}{
		{[]float64{5, 1, 3}, 6, []float64{2.5, 1, 2.5}}, // 1 is met; 5 and 3 share the rest
		{[]float64{5, 1, 3}, 100, []float64{5, 1, 3}},   // all met
		{[]float64{5, 1, 3}, 0, []float64{0, 0, 0}},     // nothing to share
		{[]float64{2, 2}, 3, []float64{1.5, 1.5}},       // equal wants, equal shares
		{[]float64{4, 1, 1}, 4.5, []float64{2.5, 1, 1}}, // two met, the third takes the rest
		{[]float64{}, 5, []float64{}},
	}
	for _, tt := range tests {
		got := waterfill(tt.want, tt.capacity)
		for i := range got {
			if math.Abs(got[i]-tt.got[i]) > 1e-12 {
				t.Errorf("waterfill(%v, %v) = %v, want %v", tt.want, tt.capacity, got, tt.got)
				break
			}
		}
	}
}

// The reverse placement of the paper's Figure 3, in task-slot units on a
// cluster of 4 slots: goals at 7, 15 and 23. J3 (32 task-s) fits its last
// period (15, 23] (32 slot-s). J2 (40) wants to run all of it in (7, 15]
// (32 slot-s, J3 leaves it all) and spills 8 into (0, 7]. J1 (12) and J2's 8
// share the first period (28 slot-s). s_fit is the first period's rate: J1
// ⌈12/7⌉ = 2, J2 ⌈8/7⌉ = 2, J3 0 (Adaptive's s_req would be 2, 3, 2).
//
// The variants:
//   - J1 has 24: the first period is short of 4 (32 asked of 28); max-min
//     gives J2 its 8 and J1 20, and J1's 4 left fit nowhere: its current
//     rate is (20 + 4)/7, s_fit 4.
//   - the other workload takes half of (7, 15]: J2 places only 16 there and
//     brings 24 to (0, 7], where with J1's 12 it is short of 8: J1 12, J2
//     16 + 8 overflow, s_fit ⌈24/7⌉ = 4.
//   - J3 can run only 2 tasks at once: 16 in (15, 23], 16 more in (7, 15],
//     where J2 gets the other 16; J2's 24 then meet J1's 12 in (0, 7]:
//     J1 12, J2 16 + 8 overflow.
//   - a job whose goal is past takes no capacity from the plan.
func TestReversePlace(t *testing.T) {
	full := func(a, b clock.Time) float64 { return 4 * b.Sub(a).Seconds() }
	halfMiddle := func(a, b clock.Time) float64 {
		c := full(a, b)
		if a >= secs(7) && b <= secs(15) {
			c /= 2
		}
		return c
	}
	fig3 := []demand{{secs(7), 12, 4}, {secs(15), 40, 4}, {secs(23), 32, 4}}
	tests := []struct {
		name     string
		jobs     []demand
		capacity capacityFunc
		placed   [][]float64 // by period
		overflow []float64
		sFit     []float64
	}{
		{"figure 3", fig3, full,
			[][]float64{{12, 8, 0}, {0, 32, 0}, {0, 0, 32}}, []float64{0, 0, 0}, []float64{2, 2, 0}},
		{"first period short", []demand{{secs(7), 24, 4}, fig3[1], fig3[2]}, full,
			[][]float64{{20, 8, 0}, {0, 32, 0}, {0, 0, 32}}, []float64{4, 0, 0}, []float64{4, 2, 0}},
		{"load halves (7, 15]", fig3, halfMiddle,
			[][]float64{{12, 16, 0}, {0, 16, 0}, {0, 0, 32}}, []float64{0, 8, 0}, []float64{2, 4, 0}},
		{"J3 runs 2 at once", []demand{fig3[0], fig3[1], {secs(23), 32, 2}}, full,
			[][]float64{{12, 16, 0}, {0, 16, 16}, {0, 0, 16}}, []float64{0, 8, 0}, []float64{2, 4, 0}},
		{"past goal", []demand{{secs(-5), 100, 4}, {secs(10), 20, 4}}, full,
			[][]float64{{0, 20}}, []float64{0, 0}, []float64{0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := reversePlace(0, tt.jobs, nil, tt.capacity)
			if len(pl.placed) != len(tt.placed) {
				t.Fatalf("%d periods %v, want %d", len(pl.placed), pl.bounds, len(tt.placed))
			}
			for p := range tt.placed {
				for i := range tt.jobs {
					if math.Abs(pl.placed[p][i]-tt.placed[p][i]) > 1e-9 {
						t.Errorf("period %d (to %v): placed %v, want %v", p, pl.bounds[p], pl.placed[p], tt.placed[p])
						break
					}
				}
			}
			for i := range tt.jobs {
				if math.Abs(pl.overflow[i]-tt.overflow[i]) > 1e-9 {
					t.Errorf("overflow %v, want %v", pl.overflow, tt.overflow)
					break
				}
			}
			for i := range tt.jobs {
				work, end, ok := pl.current(i)
				if !ok {
					t.Fatal("no current period")
				}
				if got := ceilTasks(work / end.Seconds()); got != tt.sFit[i] {
					t.Errorf("job %d: s_fit %v, want %v", i, got, tt.sFit[i])
				}
			}
		})
	}
}

// Cutting periods at the forecast's knots sees the load where it is. One
// job, 40 task-s due at 20 on 4 slots; the other workload rises over [9, 10]
// to the whole cluster. Uncut, (0, 20] has 38 slot-s and the job seems to
// need a rate of 40/20 = 2. Cut at 9 and 10, nothing fits in (10, 20], 2 in
// (9, 10], 36 in (0, 9] and 2 overflow: the job needs 38/9, that is 5 now.
func TestReversePlaceCuts(t *testing.T) {
	f, err := cluster.NewLoadCurve([]cluster.LoadPoint{{At: 9 * clock.Second, Frac: 0}, {At: 10 * clock.Second, Frac: 1}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	capacity := func(a, b clock.Time) float64 { return 4 * (b.Sub(a).Seconds() - f.Integral(a, b)) }
	jobs := []demand{{secs(20), 40, 4}}
	for _, tt := range []struct {
		cuts []clock.Time
		want float64
	}{{nil, 2}, {[]clock.Time{secs(9), secs(10)}, 5}} {
		pl := reversePlace(0, jobs, tt.cuts, capacity)
		work, end, _ := pl.current(0)
		if got := ceilTasks(work / end.Seconds()); got != tt.want {
			t.Errorf("cuts %v: s_fit %v (work %v by %v), want %v", tt.cuts, got, work, end, tt.want)
		}
	}
}
