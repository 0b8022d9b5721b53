package replay

import (
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
)

// Spearman's rho, computed by hand for each case.
func TestSpearman(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order", []float64{10, 20, 30, 40}, []float64{1, 2, 3, 4}, 1},
		{"reversed", []float64{10, 20, 30}, []float64{9, 5, 1}, -1},
		// ranks (1,2,3,4) vs (2,1,3,4): sum d^2 = 2, rho = 1 - 6*2/(4*15) = 0.8
		{"one swap of four", []float64{1, 2, 3, 4}, []float64{20, 10, 30, 40}, 0.8},
		// ranks (1,2,3,4,5) vs (5,2,3,4,1): sum d^2 = 16+0+0+0+16 = 32,
		// rho = 1 - 6*32/(5*24) = -0.6
		{"ends swapped of five", []float64{1, 2, 3, 4, 5}, []float64{50, 20, 30, 40, 10}, -0.6},
		// x ranks (1, 2.5, 2.5, 4), y ranks (1,2,3,4), both means 2.5:
		// cov 2.25+0+0+2.25 = 4.5, var_x 4.5, var_y 5, rho = 4.5/sqrt(22.5) = sqrt(0.9)
		{"tie", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, math.Sqrt(0.9)},
		{"unsorted input", []float64{30, 10, 20}, []float64{3, 1, 2}, 1},
		{"one pair", []float64{1}, []float64{1}, nan},
		{"constant", []float64{5, 5, 5}, []float64{1, 2, 3}, nan},
		{"lengths differ", []float64{1, 2}, []float64{1, 2, 3}, nan},
	} {
		got := Spearman(c.x, c.y)
		if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-12) {
			t.Errorf("%s: Spearman = %v, want %v", c.name, got, c.want)
		}
	}
}

func jobsWith(jct map[string]float64, ids ...string) []metrics.Job {
	var js []metrics.Job
	for _, id := range ids {
		j := metrics.Job{ID: id}
		if v, ok := jct[id]; ok {
			j.JCT = &v
		}
		js = append(js, j)
	}
	return js
}

func TestAgree(t *testing.T) {
	sim := jobsWith(map[string]float64{"a": 10, "b": 20, "c": 30, "d": 40}, "a", "b", "c", "d")
	for _, c := range []struct {
		name              string
		live              []metrics.Job
		simMS, liveMS     float64
		common            int
		onlySim, onlyLive string
		rho, ratio        float64
		tol               Tolerance // zero: 10 % either way, rank correlation 0.8
		errs              []string  // substrings of Check's error; none: nil
	}{
		{name: "agree", live: jobsWith(map[string]float64{"a": 11, "b": 22, "c": 29, "d": 45}, "a", "b", "c", "d"),
			simMS: 100, liveMS: 95, common: 4, rho: 1, ratio: 0.95},
		// b and a swapped: rho 0.8 as above, exactly the bound; makespan +10 % exactly.
		{name: "at the bounds", live: jobsWith(map[string]float64{"a": 21, "b": 12, "c": 30, "d": 40}, "a", "b", "c", "d"),
			simMS: 100, liveMS: 110, common: 4, rho: 0.8, ratio: 1.1},
		{name: "too slow", live: jobsWith(map[string]float64{"a": 10, "b": 20, "c": 30, "d": 40}, "a", "b", "c", "d"),
			simMS: 100, liveMS: 111, common: 4, rho: 1, ratio: 1.11, errs: []string{"makespan live 111.0s vs simulator 100.0s (+11.0 %), want within -10 % .. +10 %"}},
		// Asymmetric: 15 % faster passes when 20 % faster is allowed, and
		// fails when only 10 % is.
		{name: "faster, allowed", live: jobsWith(map[string]float64{"a": 10, "b": 20, "c": 30, "d": 40}, "a", "b", "c", "d"),
			simMS: 100, liveMS: 85, common: 4, rho: 1, ratio: 0.85, tol: Tolerance{Faster: 0.2, Slower: 0.1, RankCorr: 0.8}},
		{name: "faster, not allowed", live: jobsWith(map[string]float64{"a": 10, "b": 20, "c": 30, "d": 40}, "a", "b", "c", "d"),
			simMS: 100, liveMS: 85, common: 4, rho: 1, ratio: 0.85, errs: []string{"(-15.0 %)"}},
		{name: "slower than an asymmetric bound", live: jobsWith(map[string]float64{"a": 10, "b": 20, "c": 30, "d": 40}, "a", "b", "c", "d"),
			simMS: 100, liveMS: 115, common: 4, rho: 1, ratio: 1.15, tol: Tolerance{Faster: 0.2, Slower: 0.1, RankCorr: 0.8},
			errs: []string{"want within -20 % .. +10 %"}},
		// live order of common a,b,c: (30,20,10): rho -1; d not completed live.
		{name: "one job missing, order reversed", live: jobsWith(map[string]float64{"a": 30, "b": 20, "c": 10}, "a", "b", "c", "d"),
			simMS: 100, liveMS: 100, common: 3, onlySim: "d", rho: -1, ratio: 1,
			errs: []string{"simulator only [d]", "rank correlation -1.000 over 3 jobs"}},
		{name: "a job only live", live: jobsWith(map[string]float64{"a": 10, "b": 20, "c": 30, "d": 40, "e": 5}, "a", "b", "c", "d", "e"),
			simMS: 100, liveMS: 100, common: 4, onlyLive: "e", rho: 1, ratio: 1, errs: []string{"live only [e]"}},
	} {
		a := Agree(sim, c.simMS, c.live, c.liveMS)
		if a.Common != c.common || strings.Join(a.OnlySim, ",") != c.onlySim || strings.Join(a.OnlyLive, ",") != c.onlyLive {
			t.Errorf("%s: common %d only-sim %v only-live %v", c.name, a.Common, a.OnlySim, a.OnlyLive)
		}
		if math.Abs(a.RankCorr-c.rho) > 1e-12 || math.Abs(a.MakespanRatio-c.ratio) > 1e-12 {
			t.Errorf("%s: rho %v ratio %v, want %v %v", c.name, a.RankCorr, a.MakespanRatio, c.rho, c.ratio)
		}
		tol := c.tol
		if tol == (Tolerance{}) {
			tol = Tolerance{Faster: 0.1, Slower: 0.1, RankCorr: 0.8}
		}
		err := a.Check(tol)
		if len(c.errs) == 0 && err != nil {
			t.Errorf("%s: Check: %v", c.name, err)
		}
		if len(c.errs) > 0 && err == nil {
			t.Errorf("%s: Check passed, want %q", c.name, c.errs)
		}
		for _, s := range c.errs {
			if err != nil && !strings.Contains(err.Error(), s) {
				t.Errorf("%s: Check: %v, want it to say %q", c.name, err, s)
			}
		}
	}
	if a := Agree(sim, 0, sim, 10); !math.IsNaN(a.MakespanRatio) || a.Check(Tolerance{0.1, 0.1, 0.8}) == nil {
		t.Errorf("zero simulated makespan: ratio %v, Check passed", a.MakespanRatio)
	}
}
