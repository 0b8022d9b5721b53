package djsf

import (
	"fmt"
	"math"
	"strings"
	"text/template"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	djsfpolicy "github.com/spindle-sched/spindle/policy/djsf"
)

// metric is one measure of a run, for the table of which measures
// separate the schemes.
type metric struct {
	name string
	get  func(s *runs, pol string, e est) float64
}

var metricList = []metric{
	{"average JCT", func(s *runs, pol string, e est) float64 { return meanJCT(s.get(pol, e)) }},
	{"jobs done by 10 % of T", func(s *runs, pol string, e est) float64 { return meanCurve(s.get(pol, e), 1) }},
	{"jobs done by 20 % of T", func(s *runs, pol string, e est) float64 { return meanCurve(s.get(pol, e), 3) }},
	{"jobs done by 50 % of T", func(s *runs, pol string, e est) float64 { return meanCurve(s.get(pol, e), 9) }},
	{"jobs done by 25 % of T (throughput)", func(s *runs, pol string, e est) float64 { return meanDone(s.get(pol, e), 0) }},
	{"time until half the jobs are done", func(s *runs, pol string, e est) float64 { return section.Mean(s.t50[key(pol, e)]) }},
	{"time until 90 % are done", func(s *runs, pol string, e est) float64 { return section.Mean(s.t90[key(pol, e)]) }},
	{"completion efficiency", func(s *runs, pol string, e est) float64 { return meanEff(s.get(pol, e)) }},
}

// spread is (max − min) / mean of xs, in per cent: how far a measure
// separates the policies.
func spread(xs []float64) float64 {
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, x := range xs {
		lo, hi, sum = math.Min(lo, x), math.Max(hi, x), sum+x
	}
	return 100 * (hi - lo) / (sum / float64(len(xs)))
}

// meanCurve is the mean over runs of the jobs done by throughput-curve
// point i.
func meanCurve(ss []*metrics.Summary, i int) float64 {
	var xs []float64
	for _, s := range ss {
		if i < len(s.ThroughputCurve) {
			xs = append(xs, float64(s.ThroughputCurve[i].Jobs))
		}
	}
	return section.Mean(xs)
}

func meanJCT(ss []*metrics.Summary) float64 {
	var xs []float64
	for _, s := range ss {
		xs = append(xs, section.Deref(s.JCTAvgS))
	}
	return section.Mean(xs)
}

func meanEff(ss []*metrics.Summary) float64 {
	var xs []float64
	for _, s := range ss {
		xs = append(xs, section.Deref(s.CompletionEfficiency))
	}
	return section.Mean(xs)
}

func meanDone(ss []*metrics.Summary, i int) float64 {
	var xs []float64
	for _, s := range ss {
		if i < len(s.CompletedBy) {
			xs = append(xs, float64(s.CompletedBy[i].Jobs))
		}
	}
	return section.Mean(xs)
}

// rel is the relative change of a against b, in per cent.
func rel(a, b float64) float64 { return (a/b - 1) * 100 }

// Section is everything the DJSF section shows.
type Section struct {
	Seeds, BatchLoad, Apps, EffWindow int
	TetrisSRTF                        string
	// Labels are the main settings', the columns of the tables across them.
	Labels []string
	// The paper's figures.
	PaperJCT, PaperThroughput, PaperEffVsTetris, PaperEffDJSF, PaperEffTetris float64
	Paper                                                                     AgainstPaper
	LastSubmit                                                                float64 // the burst setting's latest submission
	Settings                                                                  []Table
	Target                                                                    Target
	Spreads                                                                   []SpreadRow
	Estimates                                                                 []EstimateRow
	K                                                                         []KRow
	Findings                                                                  Findings
}

// AgainstPaper holds DJSF's changes against SJF and Tetris, in percent,
// one per main setting.
type AgainstPaper struct {
	DJSFvsSJF, PlusVsSJF, DJSFvsSRTF, PlusVsSRTF []float64
	Done10, Done25, Half, EffVsTetris            []float64
}

// Table is one main setting's full table.
type Table struct {
	Label, Command string
	Lines          []Line
	// Bound is the no-contention average JCT, on the main setting only
	// (NaN elsewhere).
	Bound float64
}

// Line is one policy under one estimate, means over seeds.
type Line struct {
	Policy, Estimate string
	JCT              float64
	Curve            []float64 // jobs done by 10, 20, 30 and 50 % of T
	T50, T90, Eff    float64
	SetEff           float64 // DJSF's own set efficiency; NaN for others
}

// Target is the target's checks on seed 1 of the main setting, as ratios
// of average JCTs.
type Target struct {
	Exact, Plus, Noisy, Bound float64
	Above                     float64 // SJF above the bound, percent
}

// SpreadRow is one measure's spread over the estimating schemes, per main
// setting.
type SpreadRow struct {
	Name    string
	Spreads []float64
}

// EstimateRow is the estimating schemes' average JCT under one estimate.
type EstimateRow struct {
	Setting, Estimate string
	JCT               []float64
}

// KRow is DJSF's average JCT over SJF's for one k, per main setting.
type KRow struct {
	K       int
	Default bool
	Ratios  []float64
}

// Findings holds the figures the findings quote.
type Findings struct {
	Regime []struct {
		Label            string
		DJSF, SJF, Ratio float64
	}
	// PlusWins are the settings where djsf+ beats the better Tetris;
	// without any, SRTFBest counts the settings where Tetris as SRTF has
	// the lowest JCT and Tetris lists the better Tetris against both.
	PlusWins []struct {
		Label      string
		Plus, Best float64
	}
	SRTFBest int
	Tetris   []struct {
		Label            string
		Best, Plus, DJSF float64
	}
	MaxWaiting   int
	Above, Bound float64
	Metrics      []struct {
		Label, Best string
		Spread      float64
		Flat        []string
	}
	Noisy []struct {
		Label        string
		Noisy, Exact float64
	}
	History []struct {
		Label                                           string
		DJSF, SJF, SRTF, ExactDJSF, ExactSJF, ExactSRTF float64
	}
	Plus []struct {
		Label      string
		Plus, DJSF float64
	}
}

func tables(seeds int, sets []*runs, bound []float64) Section {
	mainS := sets[mainSetting]
	e0 := exact
	main := sets[:main4]
	sec := Section{Seeds: seeds, BatchLoad: batchLoad, Apps: apps, EffWindow: metrics.EfficiencyWindow, TetrisSRTF: tetrisSRTF,
		PaperJCT: paperJCTvsSJF, PaperThroughput: paperThroughputVsSJF, PaperEffVsTetris: paperEffVsTetris,
		PaperEffDJSF: paperEffDJSF, PaperEffTetris: paperEffTetris, LastSubmit: sets[burstLoad].lastSubmit}
	relJCT := func(s *runs, a, b string) float64 { return rel(meanJCT(s.get(a, e0)), meanJCT(s.get(b, e0))) }
	for _, s := range main {
		sec.Labels = append(sec.Labels, s.c.label)
		p := &sec.Paper
		p.DJSFvsSJF = append(p.DJSFvsSJF, relJCT(s, "djsf", "sjf"))
		p.PlusVsSJF = append(p.PlusVsSJF, relJCT(s, "djsf+", "sjf"))
		p.DJSFvsSRTF = append(p.DJSFvsSRTF, relJCT(s, "djsf", tetrisSRTF))
		p.PlusVsSRTF = append(p.PlusVsSRTF, relJCT(s, "djsf+", tetrisSRTF))
		p.Done10 = append(p.Done10, rel(meanCurve(s.get("djsf", e0), 1), meanCurve(s.get("sjf", e0), 1)))
		p.Done25 = append(p.Done25, rel(meanDone(s.get("djsf", e0), 0), meanDone(s.get("sjf", e0), 0)))
		p.Half = append(p.Half, rel(section.Mean(s.t50[key("djsf", e0)]), section.Mean(s.t50[key("sjf", e0)])))
		p.EffVsTetris = append(p.EffVsTetris, rel(meanEff(s.get("djsf", e0)), meanEff(s.get("tetris", e0))))

		t := Table{Label: s.c.label, Command: strings.TrimSpace("djsf-google --jobs 1000 " + s.c.flags), Bound: math.NaN()}
		if !s.c.history {
			for _, pol := range baselines {
				t.Lines = append(t.Lines, line(s, pol, "—", exact))
			}
		}
		for _, e := range s.c.estimates() {
			for _, pol := range estimating {
				t.Lines = append(t.Lines, line(s, pol, e.String(), e))
			}
		}
		if s == mainS {
			t.Bound = section.Mean(bound)
		}
		sec.Settings = append(sec.Settings, t)
	}

	sjf0 := section.Deref(mainS.get("sjf", e0)[0].JCTAvgS)
	sec.Target = Target{
		Exact: section.Deref(mainS.get("djsf", e0)[0].JCTAvgS) / sjf0,
		Noisy: section.Deref(mainS.get("djsf", noisy)[0].JCTAvgS) / section.Deref(mainS.get("sjf", noisy)[0].JCTAvgS),
		Plus:  section.Deref(mainS.get("djsf+", e0)[0].JCTAvgS) / sjf0,
		Bound: bound[0] / sjf0,
	}
	sec.Target.Above = (1/sec.Target.Bound - 1) * 100

	for _, m := range metricList {
		row := SpreadRow{Name: m.name}
		for _, s := range main {
			var xs []float64
			for _, pol := range estimating {
				xs = append(xs, m.get(s, pol, e0))
			}
			row.Spreads = append(row.Spreads, spread(xs))
		}
		sec.Spreads = append(sec.Spreads, row)
	}

	for _, s := range sets {
		for _, e := range s.c.estimates() {
			if !s.c.history && e == e0 {
				continue
			}
			if s.c.history || e == noisy {
				row := EstimateRow{Setting: s.c.label, Estimate: e.String()}
				for _, pol := range estimating {
					row.JCT = append(row.JCT, meanJCT(s.get(pol, e)))
				}
				sec.Estimates = append(sec.Estimates, row)
			}
		}
	}

	for _, k := range ks {
		row := KRow{K: k, Default: k == djsfpolicy.DefaultK}
		for _, s := range main {
			row.Ratios = append(row.Ratios, section.Mean(s.k[k])/meanJCT(s.get("sjf", e0)))
		}
		sec.K = append(sec.K, row)
	}
	sec.Findings = findings(sets, bound, sec.Target.Bound)
	return sec
}

// line is one row of a setting's full table.
func line(st *runs, pol, label string, e est) Line {
	ss := st.get(pol, e)
	l := Line{Policy: pol, Estimate: label, JCT: meanJCT(ss), SetEff: math.NaN(),
		T50: section.Mean(st.t50[key(pol, e)]), T90: section.Mean(st.t90[key(pol, e)]), Eff: meanEff(ss)}
	if strings.HasPrefix(pol, "djsf") {
		var effs []float64
		for _, s := range ss {
			if r, ok := s.Reports["djsf"].(djsfpolicy.Report); ok && r.EfficiencyAvg != nil {
				effs = append(effs, *r.EfficiencyAvg)
			}
		}
		if len(effs) > 0 {
			l.SetEff = section.Mean(effs)
		}
	}
	for _, i := range curveTenths {
		l.Curve = append(l.Curve, meanCurve(ss, i))
	}
	return l
}

// findings gathers what the findings quote.
func findings(sets []*runs, bound []float64, lb float64) Findings {
	var f Findings
	jct := func(s *runs, pol string) float64 { return meanJCT(s.get(pol, exact)) }
	main := sets[:main4]
	for _, s := range main {
		f.Regime = append(f.Regime, struct {
			Label            string
			DJSF, SJF, Ratio float64
		}{s.c.label, jct(s, "djsf"), jct(s, "sjf"), jct(s, "djsf") / jct(s, "sjf")})
		best := math.Min(jct(s, "tetris"), jct(s, tetrisSRTF))
		if jct(s, "djsf+") < best {
			f.PlusWins = append(f.PlusWins, struct {
				Label      string
				Plus, Best float64
			}{s.c.label, jct(s, "djsf+"), best})
		}
	}
	if len(f.PlusWins) == 0 {
		for _, s := range main {
			if jct(s, tetrisSRTF) <= math.Min(math.Min(jct(s, "djsf"), jct(s, "djsf+")), math.Min(jct(s, "sjf"), jct(s, "tetris"))) {
				f.SRTFBest++
			}
			f.Tetris = append(f.Tetris, struct {
				Label            string
				Best, Plus, DJSF float64
			}{s.c.label, math.Min(jct(s, "tetris"), jct(s, tetrisSRTF)), jct(s, "djsf+"), jct(s, "djsf")})
		}
	}
	f.MaxWaiting, f.Above, f.Bound = sets[mainSetting].maxWaiting, (1/lb-1)*100, section.Mean(bound)
	for _, s := range main {
		best, bestSpread := "", -1.0
		var flat []string
		for _, m := range metricList {
			var xs []float64
			for _, pol := range estimating {
				xs = append(xs, m.get(s, pol, exact))
			}
			sp := spread(xs)
			if sp > bestSpread {
				best, bestSpread = m.name, sp
			}
			if sp < 2 {
				flat = append(flat, m.name)
			}
		}
		f.Metrics = append(f.Metrics, struct {
			Label, Best string
			Spread      float64
			Flat        []string
		}{s.c.label, best, bestSpread, flat})
		f.Noisy = append(f.Noisy, struct {
			Label        string
			Noisy, Exact float64
		}{s.c.label, meanJCT(s.get("djsf", noisy)) / meanJCT(s.get("sjf", noisy)), jct(s, "djsf") / jct(s, "sjf")})
		f.Plus = append(f.Plus, struct {
			Label      string
			Plus, DJSF float64
		}{s.c.label, jct(s, "djsf+"), jct(s, "djsf")})
	}
	for _, s := range sets[main4:] {
		f.History = append(f.History, struct {
			Label                                           string
			DJSF, SJF, SRTF, ExactDJSF, ExactSJF, ExactSRTF float64
		}{s.c.label, meanJCT(s.get("djsf", history)), meanJCT(s.get("sjf", history)), meanJCT(s.get(tetrisSRTF, history)),
			jct(s, "djsf"), jct(s, "sjf"), jct(s, tetrisSRTF)})
	}
	return f
}

var funcs = template.FuncMap{
	// pct is a relative change in percent; an undefined one is a dash.
	"pct": func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return fmt.Sprintf("%+.1f %%", x)
	},
	// lower starts a label in lower case, for the middle of a sentence.
	"lower": func(s string) string { return strings.ToLower(s[:1]) + s[1:] },
	// pass words a check.
	"pass": func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	},
}
