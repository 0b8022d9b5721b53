package scenario

import (
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/workload"
)

// logStats returns the correlation of log typical duration (mean of the
// first phase) and log task count over the jobs with more than one task,
// and how many jobs are short and wide (>= 50 tasks, first-phase mean
// under a minute).
func logStats(w *workload.Workload) (corr float64, shortWide int) {
	var xs, ys []float64
	for _, j := range w.Jobs {
		p := j.Phases[0]
		sum := 0.0
		for t := range p.Tasks {
			sum += p.Duration(t).Seconds()
		}
		mean := sum / float64(p.Tasks)
		if p.Tasks >= 50 && mean < 60 {
			shortWide++
		}
		if p.Tasks > 1 {
			xs = append(xs, math.Log(float64(p.Tasks)))
			ys = append(ys, math.Log(mean))
		}
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var sxy, sxx, syy float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
		syy += (ys[i] - my) * (ys[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy), shortWide
}

func TestDJSFGoogleKnobs(t *testing.T) {
	gen := func(f func(g *DJSFGoogle)) *workload.Workload {
		t.Helper()
		g := DefaultDJSFGoogle
		f(&g)
		w, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	def := gen(func(*DJSFGoogle) {})
	cDef, swDef := logStats(def)
	neg := gen(func(g *DJSFGoogle) { g.Corr = -0.5 })
	cNeg, _ := logStats(neg)
	if !(cDef > 0.05 && cNeg < -0.2) {
		t.Errorf("duration-width correlation %.3f by default and %.3f with --corr -0.5; want positive, then clearly negative", cDef, cNeg)
	}
	sw := gen(func(g *DJSFGoogle) { g.ShortWide = 0.3 })
	_, swN := logStats(sw)
	// 30 % of 1000 drawn short and wide: a binomial of mean 300, sd 14.5.
	if swDef > 20 || swN < 240 || swN > 360 {
		t.Errorf("short-and-wide jobs: %d by default, %d with --short-wide 0.3; want few, then about 300", swDef, swN)
	}
	batch := gen(func(g *DJSFGoogle) { g.Arrivals = ArrivalsBatch })
	for _, j := range batch.Jobs {
		if j.Submit != 0 {
			t.Fatalf("batch: %s submitted at %v", j.ID, j.Submit)
		}
	}
	bursts := gen(func(g *DJSFGoogle) { g.Arrivals = ArrivalsBursts; g.Bursts = 10 })
	instants := map[int64]int{}
	for i, j := range bursts.Jobs {
		instants[int64(j.Submit)]++
		if i > 0 && j.Submit < bursts.Jobs[i-1].Submit {
			t.Fatalf("bursts: %s submitted before the job before it", j.ID)
		}
	}
	if len(instants) > 10 || len(instants) < 8 {
		t.Errorf("bursts: %d distinct submit instants; want about 10", len(instants))
	}
	// The paper preset sets the regime and nothing else.
	p := DJSFPaperPreset(DefaultDJSFGoogle)
	if p.Corr != -0.5 || p.ShortWide != 0.3 || p.Arrivals != ArrivalsBatch || p.Jobs != DefaultDJSFGoogle.Jobs {
		t.Errorf("paper preset %+v", p)
	}
	apps := gen(func(g *DJSFGoogle) { g.Apps = 20 })
	names := map[string][]float64{}
	for _, j := range apps.Jobs {
		if !strings.HasPrefix(j.Name, "app-") {
			t.Fatalf("apps: job %s named %q", j.ID, j.Name)
		}
		names[j.Name] = append(names[j.Name], j.Phases[0].Duration(0).Seconds())
	}
	if len(names) > 20 || len(names) < 15 {
		t.Errorf("apps: %d distinct applications; want up to 20", len(names))
	}
	for name, ds := range names {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, d := range ds {
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
		// Per-run sigma 0.3 and per-task 0.1: over 50-odd runs the spread
		// stays well within a factor of 10 unless truncation binds.
		if len(ds) > 1 && hi/lo > 10 && hi < gDurMax {
			t.Errorf("apps: %s runs' first task durations span %.1f to %.1f s", name, lo, hi)
		}
	}
	for _, bad := range []func(g *DJSFGoogle){
		func(g *DJSFGoogle) { g.Corr = 1.5 },
		func(g *DJSFGoogle) { g.ShortWide = -0.1 },
		func(g *DJSFGoogle) { g.Arrivals = "sometimes" },
		func(g *DJSFGoogle) { g.Arrivals = ArrivalsBursts; g.Bursts = 0 },
		func(g *DJSFGoogle) { g.Apps = -1 },
	} {
		g := DefaultDJSFGoogle
		bad(&g)
		if _, err := g.Generate(); err == nil {
			t.Errorf("%+v: no error", g)
		}
	}
}
