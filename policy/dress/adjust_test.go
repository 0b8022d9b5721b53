package dress

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Algorithm 3 on a 100-container cluster with δ = 0.1, every quantity in
// containers.
func TestAdjust(t *testing.T) {
	tests := []struct {
		name   string
		in     AdjustInput
		delta  float64
		branch Branch
	}{
		{
			// Lines 7-8: 8 + 2 ≥ 6, so the surplus of 4 goes to large
			// jobs: δ = 0.1 − 4/100.
			name:  "small jobs covered: their surplus goes to large jobs",
			in:    AdjustInput{A1: 8, F1: 2, SD: []float64{6}, A2: 0, LD: []float64{50}},
			delta: 0.06, branch: SDSurplus,
		},
		{
			name:  "covered exactly: δ stays",
			in:    AdjustInput{A1: 4, F1: 2, SD: []float64{6}, LD: []float64{50}},
			delta: 0.1, branch: SDSurplus,
		},
		{
			// With nothing pending the pool shrinks by all it has free
			// and is about to get back: 0.1 − (10 + 3)/100.
			name:  "no small job pending: the pool gives away even what it will release",
			in:    AdjustInput{A1: 10, F1: 3},
			delta: -0.03, branch: SDSurplus,
		},
		{
			// Lines 10-11: 1 + 0 < 9; large jobs have 5 + 10 ≥ 12, a
			// surplus of 3: δ = 0.1 + 3/100.
			name:  "small jobs short, large jobs covered: their surplus goes to small jobs",
			in:    AdjustInput{A1: 1, SD: []float64{4, 5}, A2: 5, F2: 10, LD: []float64{12}},
			delta: 0.13, branch: LDSurplus,
		},
		{
			// Lines 13-24. Small: 1 + 2 = 3 available; sorted 2, 6, 9:
			// 2 fits (1 left), 6 and 9 do not. Large: 0 + 12 available
			// (line 14 adds F2, not F1 as printed); sorted 5, 30: 5 fits
			// and takes its own 5 (line 20 subtracts r_j), leaving 7.
			// Then 6 ≤ 1 + 7: it takes the small leftover 1 and 5 from
			// large, δ += 5/100; 9 > 0 + 2 stops the loop.
			name:  "neither covered: pack smallest first, move large jobs' leftover to small",
			in:    AdjustInput{A1: 1, F1: 2, SD: []float64{6, 2, 9}, F2: 12, LD: []float64{30, 5}},
			delta: 0.15, branch: Packing,
		},
		{
			// As printed, line 14 would add F1 = 0 to A_c2 and nothing
			// could move; with F2 = 20 the 8-container job moves: δ +=
			// 8/100.
			name:  "line 14 adds F2 to the large jobs' resources",
			in:    AdjustInput{SD: []float64{8}, F2: 20, LD: []float64{25}},
			delta: 0.18, branch: Packing,
		},
		{
			// Large: 10 available, sorted 3, 4, 40: 3 and 4 fit, leaving
			// 3 (as printed, line 20 would subtract r_2 = 4 twice,
			// leaving 2). The 3-container small job fits the 3.
			name:  "line 20 subtracts each large job's own demand",
			in:    AdjustInput{SD: []float64{3}, A2: 10, LD: []float64{4, 3, 40}},
			delta: 0.13, branch: Packing,
		},
		{
			// Lines 15 and 18 as printed stop before the last job. Over
			// every job: 1 fits the 2.5 available (1.5 left), 2 does not
			// and then takes the 1.5 plus 0.5 of the large jobs' 1:
			// δ += 0.5/100. Stopping early would leave δ at 0.1.
			name:  "the loops cover every job of a category",
			in:    AdjustInput{A1: 2.5, SD: []float64{1, 2}, F2: 1, LD: []float64{20}},
			delta: 0.105, branch: Packing,
		},
		{
			// Small jobs 2, 5, 7 with 0 available; 6 left over by large
			// jobs: 2 moves (4 left), 5 does not fit 4 and stops the
			// loop, so 7 is not tried: δ += 2/100.
			name:  "leftovers move until the next small job does not fit",
			in:    AdjustInput{SD: []float64{7, 2, 5}, A2: 6, LD: []float64{10}},
			delta: 0.12, branch: Packing,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Delta, in.Total = 0.1, 100
			delta, branch := Adjust(in)
			if math.Abs(delta-tt.delta) > 1e-12 || branch != tt.branch {
				t.Errorf("δ = %v by %v, want %v by %v", delta, branch, tt.delta, tt.branch)
			}
			// The re-tune's form over sorted sets gives the same, bit
			// for bit.
			sd, ld := setOf(in.SD), setOf(in.LD)
			if d, b := adjustSets(in, &sd, &ld); d != delta || b != branch {
				t.Errorf("adjustSets: δ = %v by %v, Adjust %v by %v", d, b, delta, branch)
			}
		})
	}
}

func setOf(xs []float64) demandSet {
	var s demandSet
	for _, x := range xs {
		s.add(int64(x))
	}
	return s
}

// adjustSets equals Adjust bit for bit on random inputs: demands in units of
// a 1e9-unit cluster with many repeats, fractional forecasts, each branch.
func TestAdjustSetsEqualsAdjust(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	branches := map[Branch]int{}
	for range 20000 {
		sizes := []int64{1 + rng.Int64N(1e9), 1 + rng.Int64N(1e7), 1 + rng.Int64N(1e7), 1 + rng.Int64N(1e8)}
		draw := func() []float64 {
			xs := make([]float64, rng.IntN(12))
			for i := range xs {
				xs[i] = float64(sizes[rng.IntN(len(sizes))])
			}
			return xs
		}
		in := AdjustInput{Delta: rng.Float64(), Total: 1e9,
			A1: float64(rng.Int64N(3e8)), A2: float64(rng.Int64N(3e8)),
			F1: rng.Float64() * 1e8, F2: rng.Float64() * 1e8, SD: draw(), LD: draw()}
		want, wantB := Adjust(in)
		sd, ld := setOf(in.SD), setOf(in.LD)
		got, gotB := adjustSets(in, &sd, &ld)
		if got != want || gotB != wantB {
			t.Fatalf("%+v: adjustSets %v %v, Adjust %v %v", in, got, gotB, want, wantB)
		}
		branches[wantB]++
	}
	for b := range numBranches {
		if branches[b] < 100 {
			t.Errorf("only %d draws reached %v", branches[b], b)
		}
	}
}

func TestDemandSet(t *testing.T) {
	var s demandSet
	for _, v := range []int64{5, 3, 5, 9, 3, 5} {
		s.add(v)
	}
	s.remove(5)
	s.remove(9)
	if !slices.Equal(s.vals, []int64{3, 5}) || !slices.Equal(s.cnt, []int{2, 2}) || s.n != 4 || s.sum != 16 {
		t.Errorf("set %v %v, n %d, sum %d; want [3 5] [2 2], 4, 16", s.vals, s.cnt, s.n, s.sum)
	}
}
