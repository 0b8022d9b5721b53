package djsf

import (
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
)

func job(submit, start, finish float64) metrics.Job {
	j := metrics.Job{Submit: submit, FirstStart: &start}
	if finish >= 0 {
		j.Finish = &finish
	}
	return j
}

func TestDJSFHelpers(t *testing.T) {
	// Submitted at 1, 2, 2, 5 and started at 1, 4, 3, 5: from 2 to 3 the
	// second and third jobs both wait.
	jobs := []metrics.Job{job(1, 1, 10), job(2, 4, 6), job(2, 3, -1), job(5, 5, 8)}
	if got := maxWaiting(jobs); got != 2 {
		t.Errorf("max waiting %d, want 2", got)
	}
	// A job that starts the moment it arrives never waits.
	if got := maxWaiting([]metrics.Job{job(0, 0, 1), job(1, 1, 2)}); got != 0 {
		t.Errorf("max waiting %d, want 0", got)
	}
	// Completions at 6, 8 and 10 (one job never completes), the first
	// submission at 1: half of the 4 jobs are done at 8 - 1 = 7; 90 %
	// needs all 4.
	if got := timeTo(jobs, 0.5); got != 7 {
		t.Errorf("half done at %v, want 7", got)
	}
	if got := timeTo(jobs, 0.9); !math.IsNaN(got) {
		t.Errorf("90 %% done at %v, want never", got)
	}
	if got := rel(90, 100); math.Abs(got+10) > 1e-12 {
		t.Errorf("relative change %v", got)
	}
}

func TestDJSFSpreadAndCurve(t *testing.T) {
	// Spread of 90, 100, 110: (110 - 90) / 100.
	if got := spread([]float64{90, 100, 110}); math.Abs(got-20) > 1e-9 {
		t.Errorf("spread %v, want 20", got)
	}
	if got := spread([]float64{5, 5}); got != 0 {
		t.Errorf("spread of equal values %v, want 0", got)
	}
	a := &metrics.Summary{ThroughputCurve: []metrics.CurvePoint{{T: 1, Jobs: 3}, {T: 2, Jobs: 7}}}
	b := &metrics.Summary{ThroughputCurve: []metrics.CurvePoint{{T: 1, Jobs: 5}, {T: 2, Jobs: 9}}}
	if got := meanCurve([]*metrics.Summary{a, b}, 1); got != 8 {
		t.Errorf("mean jobs at point 1: %v, want 8", got)
	}
	if got := meanCurve([]*metrics.Summary{a}, 5); !math.IsNaN(got) {
		t.Errorf("a point past the curve: %v, want NaN", got)
	}
	// The tenths read from the curve are 10, 20, 30 and 50 % of T.
	for k, i := range curveTenths {
		want := []float64{0.1, 0.2, 0.3, 0.5}[k]
		if got := float64(i+1) / metrics.CurvePoints; math.Abs(got-want) > 1e-12 {
			t.Errorf("curve point %d is at %v of T, want %v", i, got, want)
		}
	}
}

// The template renders every table from the numbers alone: synthetic runs
// of every setting, policy and estimate the report makes, with no
// simulation, so that a template and its data cannot drift apart
// unnoticed.
func TestSectionRenders(t *testing.T) {
	const seeds = 2
	f := func(x float64) *float64 { return &x }
	var sets []*runs
	i := 0
	for _, c := range settings() {
		s := &runs{c: c, seeds: seeds, runs: map[string][]*metrics.Summary{}, t50: map[string][]float64{}, t90: map[string][]float64{}, k: map[int][]float64{}, lastSubmit: 90, maxWaiting: 3}
		add := func(pol string, e est) {
			for range seeds {
				i++
				sum := &metrics.Summary{JCTAvgS: f(100 + float64(i%17)), CompletionEfficiency: f(0.05), CompletedBy: []metrics.CompletedAt{{Jobs: 5}}}
				for p := range metrics.CurvePoints {
					sum.ThroughputCurve = append(sum.ThroughputCurve, metrics.CurvePoint{T: float64(p), Jobs: p + i%3})
				}
				kk := key(pol, e)
				s.runs[kk] = append(s.runs[kk], sum)
				s.t50[kk] = append(s.t50[kk], 50)
				s.t90[kk] = append(s.t90[kk], 90)
			}
		}
		if !c.history {
			for _, p := range baselines {
				add(p, exact)
			}
		}
		for _, e := range c.estimates() {
			for _, p := range estimating {
				add(p, e)
			}
		}
		for _, k := range ks {
			s.k[k] = []float64{95, 105}
		}
		sets = append(sets, s)
	}
	md, err := section.Render(templates, "section.md.tmpl", tables(seeds, sets, []float64{80, 82}), funcs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Against the paper", "| average JCT, DJSF vs SJF | -23.19 % |", "### Paper regime, batch (`djsf-google --jobs 1000 --preset paper`)",
		"No-contention average JCT (mean over seeds): 81.0 s.", "### Target (default workload, seed 1)", "### Which metrics separate the schemes",
		"### Estimates: error and history", "| 3 (default) |", "### Findings", "- **djsf+**"} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q", want)
		}
	}
	if strings.Contains(md, "NaN") {
		t.Errorf("section has undefined numbers:\n%s", md)
	}
}
