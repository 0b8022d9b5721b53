package resource

import (
	"math/rand/v2"
	"testing"
)

func TestParseCalculator(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Calculator
		err  bool
	}{
		{"memory", MemoryCalculator, false},
		{"default", MemoryCalculator, false},
		{"dominant", DominantCalculator, false},
		{"drf", 0, true},
		{"", 0, true},
	} {
		got, err := ParseCalculator(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseCalculator(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && !got.Valid() {
			t.Errorf("%v is not valid", got)
		}
	}
	if Calculator(7).Valid() {
		t.Error("Calculator(7) is valid")
	}
}

// The cases are worked out by hand: on a cluster of <100 vcores, 200 GB> a
// vcore is a share of 0.01 and a GB 0.005.
func TestCalculatorCompare(t *testing.T) {
	cluster := New(100, 204800)
	none := Vector{}
	for _, tt := range []struct {
		name     string
		calc     Calculator
		cl, a, b Vector
		want     int
	}{
		{"memory: memory decides", MemoryCalculator, cluster, New(50, 1024), New(1, 2048), -1},
		{"memory: vcores are ignored", MemoryCalculator, cluster, New(50, 2048), New(1, 2048), 0},
		{"memory: more memory is more", MemoryCalculator, cluster, New(1, 4096), New(90, 2048), 1},
		{"memory: nothing is none", MemoryCalculator, cluster, New(3, 0), none, 0},
		// <10, 10 GB>: shares 0.1 and 0.05; <5, 30 GB>: 0.05 and 0.15.
		{"dominant: the largest shares decide", DominantCalculator, cluster, New(10, 10240), New(5, 30720), -1},
		// <10, 20 GB> and <20, 10 GB>: largest shares 0.1 and 0.2.
		{"dominant: the other way round", DominantCalculator, cluster, New(20, 10240), New(10, 20480), 1},
		// <10, 10 GB> (0.1, 0.05) against <2, 20 GB> (0.02, 0.1): the
		// largest tie at 0.1, the next decides: 0.05 > 0.02.
		{"dominant: a tie goes to the next share", DominantCalculator, cluster, New(10, 10240), New(2, 20480), 1},
		// <5, 20 GB> (0.05, 0.1) and <10, 10 GB> (0.1, 0.05) sort alike.
		{"dominant: shares are compared sorted, not by resource", DominantCalculator, cluster, New(5, 20480), New(10, 10240), 0},
		// <10, 20 GB> (0.1, 0.1) against <10, 10 GB> (0.1, 0.05).
		{"dominant: a proportional amount is the larger at a tie", DominantCalculator, cluster, New(10, 20480), New(10, 10240), 1},
		{"dominant: equal", DominantCalculator, cluster, New(3, 3), New(3, 3), 0},
		{"dominant: vcores count", DominantCalculator, cluster, New(3, 0), none, 1},
		{"dominant: a resource the cluster lacks is left out", DominantCalculator, cluster, Vector{VCores: 1000, GPU: 5}, Vector{VCores: 1000}, 0},
		{"dominant: an empty cluster compares each resource", DominantCalculator, none, New(2, 2), New(1, 1), 1},
		{"dominant: an empty cluster, neither larger", DominantCalculator, none, New(2, 1), New(1, 2), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.calc.Compare(tt.cl, tt.a, tt.b); got != tt.want {
				t.Errorf("Compare(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := tt.calc.Compare(tt.cl, tt.b, tt.a); got != -tt.want {
				t.Errorf("Compare(%v, %v) = %d, want %d (antisymmetry)", tt.b, tt.a, got, -tt.want)
			}
			if got := tt.calc.LessOrEqual(tt.cl, tt.a, tt.b); got != (tt.want <= 0) {
				t.Errorf("LessOrEqual = %v", got)
			}
		})
	}
}

func TestCalculatorMinMax(t *testing.T) {
	cluster := New(100, 204800)
	a, b := New(50, 1024), New(1, 2048) // a has more vcores, b more memory
	if got := MemoryCalculator.Max(cluster, a, b); got != b {
		t.Errorf("memory Max = %v, want %v: whole amounts, chosen by memory", got, b)
	}
	if got := MemoryCalculator.Min(cluster, a, b); got != a {
		t.Errorf("memory Min = %v, want %v", got, a)
	}
	if got := DominantCalculator.Max(cluster, a, b); got != a {
		t.Errorf("dominant Max = %v, want %v", got, a)
	}
	// Equal under the calculator: the first argument, as YARN's
	// Resources.max and min return.
	c := New(7, 1024)
	if MemoryCalculator.Max(cluster, a, c) != a || MemoryCalculator.Min(cluster, c, a) != c {
		t.Error("ties must return the first argument")
	}
}

func TestCalculatorRoom(t *testing.T) {
	cluster := New(100, 204800)
	limit := New(10, 20480) // 10 % of the cluster in both
	for _, tt := range []struct {
		name string
		calc Calculator
		used Vector
		want Vector
	}{
		{"memory: the limit's memory less what is used; vcores up to the cluster", MemoryCalculator, New(15, 10240), New(100, 10240)},
		{"memory: over the limit leaves a negative room", MemoryCalculator, New(1, 21504), New(100, -1024)},
		{"dominant: every share up to the limit's dominant share", DominantCalculator, New(4, 10240), New(6, 10240)},
		{"dominant: over in one resource", DominantCalculator, New(11, 1024), New(-1, 19456)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.calc.Room(cluster, tt.used, limit); got != tt.want {
				t.Errorf("Room = %v, want %v", got, tt.want)
			}
		})
	}
	// A limit that is not proportional: its dominant share (0.1, in
	// vcores) bounds every resource.
	if got := DominantCalculator.Room(cluster, Vector{}, New(10, 10240)); got != New(10, 20480) {
		t.Errorf("Room under a skewed limit = %v, want <10 vcores, 20480 MB>", got)
	}
}

// Room must admit exactly what LessOrEqual admits, apart from the tie case
// its doc names (a sum that reaches the dominant share of a limit that is
// not proportional to the cluster).
func TestCalculatorRoomAgreesWithCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cluster := New(64, 131072)
	for i := 0; i < 20000; i++ {
		calc := Calculator(r.IntN(2))
		limit := New(r.Int64N(65), 1024*r.Int64N(129))
		used := New(r.Int64N(40), 1024*r.Int64N(80))
		x := New(r.Int64N(16), 1024*r.Int64N(32))
		room := calc.Room(cluster, used, limit)
		fits := x.Fits(room)
		le := calc.LessOrEqual(cluster, used.Add(x), limit)
		if fits == le {
			continue
		}
		if calc == DominantCalculator && fits && !le && tie(cluster, used.Add(x), limit) {
			continue
		}
		t.Fatalf("%v: used %v + %v vs limit %v: fits room %v = %v, LessOrEqual = %v", calc, used, x, limit, room, fits, le)
	}
}

// tie reports whether a's dominant share equals limit's.
func tie(cluster, a, limit Vector) bool {
	return a.DominantShare(cluster) == limit.DominantShare(cluster)
}
