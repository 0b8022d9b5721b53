package adaptive

import (
	"math"

	adaptivepolicy "github.com/spindle-sched/spindle/policy/adaptive"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
)

// Stat is a figure over seeds: mean, least and greatest; N is how many
// runs (0: none, shown as a dash).
type Stat struct {
	Mean, Lo, Hi float64
	N            int
}

// stats returns the mean, least and greatest of f over the runs.
func stats(rs []out, f func(o out) float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, o := range rs {
		x := f(o)
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return mean / float64(len(rs)), lo, hi
}

func stat(rs []out, f func(o out) float64) Stat {
	m, lo, hi := stats(rs, f)
	return Stat{m, lo, hi, len(rs)}
}

// pct is stat in percent.
func pct(rs []out, f func(o out) float64) Stat {
	m, lo, hi := stats(rs, f)
	return Stat{100 * m, 100 * lo, 100 * hi, len(rs)}
}

func met(o out) float64    { return o.met }
func late(o out) float64   { return o.lateAvg }
func lateP(o out) float64  { return o.lateP95 }
func util(o out) float64   { return o.util }
func unmetF(o out) float64 { return o.unmet }

// Unmet is the transactional demand left unmet, vcore-s, mean over seeds,
// and as a share of that demand (percent, pooled over seeds); NaN where
// there is no transactional workload.
type Unmet struct{ Mean, Share float64 }

func unmet(rs []out) Unmet {
	u := Unmet{math.NaN(), share(rs)}
	if len(rs) > 0 && rs[0].demand != 0 {
		u.Mean, _, _ = stats(rs, unmetF)
	}
	return u
}

// share is the unmet demand as a share of the external demand over the
// runs, pooled, in percent; NaN without external demand.
func share(rs []out) float64 {
	var u, d float64
	for _, o := range rs {
		u += o.unmet
		d += o.demand
	}
	if d == 0 {
		return math.NaN()
	}
	return 100 * u / d
}

// Proj summarises the projections of every seed's jobs: the mean absolute
// error and the mean error, in seconds; NaN when no job was projected.
type Proj struct{ Abs, Err float64 }

func proj(rs []out) Proj {
	var es []adaptivepolicy.Estimate
	for _, o := range rs {
		es = append(es, o.est...)
	}
	st := adaptivepolicy.SummarizeEstimates(es)
	if st.Jobs == 0 {
		return Proj{math.NaN(), math.NaN()}
	}
	return Proj{*st.AbsErrorAvgS, *st.ErrorAvgS}
}

// compareWord words how a compares with b.
func compareWord(a, b float64) string {
	switch {
	case a > b+1e-9:
		return "beats"
	case a < b-1e-9:
		return "trails"
	}
	return "ties"
}

// Section is everything the adaptive section shows.
type Section struct {
	Seeds       int
	Setup       Setup
	Policies    []string
	Experiments []Row
	Paper       []Row
	Target      []TargetRow
	Estimates   []EstimateRow
	Bursts      []BurstRow
	MeanLoad    float64 // the transactional load's average share of a node
	Loads       []LoadRow
	BigTasks    int
	Bigs        []BurstRow
	Parts       []PartRow
	Seed1       bool
	Seed1Target []Seed1Row
	Findings    []Finding
}

// Setup is the generator's model as the setup paragraph states it.
type Setup struct {
	Nodes, Jobs                                        int
	Load, GoalMin, GoalMax, LoadLow, LoadHigh, PeriodS float64
	Burstiness, BurstIntervalS, BurstFactor            float64
}

// Row is one policy on one experiment.
type Row struct {
	Label, Policy               string
	Met, LateAvg, LateP95, Util Stat // Met in percent
	Unmet                       Unmet
	Proj                        Proj
}

// TargetRow is adaptive+ against the others on one experiment; goals met
// in percent.
type TargetRow struct {
	Setup, Label                  string
	Fifo, Adaptive, Reverse, Plus float64
	OK                            bool
	Wins, Seeds                   int
	PlusLate, FifoLate            float64
	HasUnmet                      bool
	PlusUnmet, FifoUnmet          float64
}

// EstimateRow is the goal-driven schemes under one estimate source.
type EstimateRow struct {
	Setup, Label, What string
	Cells              []struct{ Met, Late float64 } // by goalPolicies; Met in percent
}

// BurstRow is one row of goals met and unmet demand, by policy.
type BurstRow struct {
	Label string
	B     float64
	Cells []struct {
		Met   Stat
		Unmet Unmet
	}
}

// LoadRow is goals met at one MapReduce load, by policy.
type LoadRow struct {
	Load  float64
	Cells []Stat
}

// PartRow is one of Reverse-Adaptive's variants on experiments 2 and 3; a
// Forecast above 0 is the defaults with a noisy forecast.
type PartRow struct {
	Policy, Why string
	Forecast    float64
	ForecastPct float64
	Cells       []struct {
		Met   Stat
		Unmet Unmet
	}
}

// Seed1Row is the target on seed 1 of one experiment: goals met as job
// counts.
type Seed1Row struct {
	Label                                            string
	Fifo, Adaptive, Reverse, AdaptiveUnmet, RevUnmet float64
	GeAdaptive, GtFifo, UnmetLe                      bool
}

// Finding is one experiment's findings line; goals met in percent.
type Finding struct {
	Label                   string
	Fifo, Adaptive, Reverse float64
	VsAdaptive, VsFifo      string // beats, trails or ties
	RevUnmet, AdaptiveUnmet float64
	Change                  float64 // Reverse-Adaptive's unmet against Adaptive's, percent
	ProjReverse, ProjAdapt  float64
}

// results are the runs of every case, by case over seeds.
type results map[key][]out

func (r results) get(s setting, pol string, fe float64) []out {
	return r[key{s, pol, fe, sim.Estimates{}}]
}

func tables(seeds int, ss settings, res results) Section {
	def := scenario.DefaultAdaptiveShared
	sec := Section{Seeds: seeds, Policies: policies, BigTasks: bigTasks, Seed1: seeds > 0,
		MeanLoad: (def.LoadLow + def.LoadHigh) / 2,
		Setup: Setup{Nodes: def.Nodes, Jobs: def.Jobs, Load: def.Load, GoalMin: def.GoalMin, GoalMax: def.GoalMax,
			LoadLow: def.LoadLow, LoadHigh: def.LoadHigh, PeriodS: def.Period.Seconds(), Burstiness: def.Burstiness,
			BurstIntervalS: def.BurstInterval.Seconds(), BurstFactor: 1 + def.Burstiness}}
	row := func(s setting, p string) Row {
		rs := res.get(s, p, 0)
		return Row{Label: label(s.exp), Policy: p, Met: pct(rs, met), LateAvg: stat(rs, late), LateP95: stat(rs, lateP),
			Util: stat(rs, util), Unmet: unmet(rs), Proj: proj(rs)}
	}
	for _, s := range ss.exps {
		for _, p := range policies {
			sec.Experiments = append(sec.Experiments, row(s, p))
		}
	}
	for _, s := range ss.paper {
		for _, p := range policies {
			sec.Paper = append(sec.Paper, row(s, p))
		}
	}
	sec.Target = append(targets(res, "paper regime", ss.paper, true), targets(res, "today's setup", ss.exps, false)...)
	sec.Estimates = append(estimateRows(res, "today's setup", ss.exps[1:]), estimateRows(res, "paper regime", ss.paper[1:])...)
	for _, b := range bursts {
		sec.Bursts = append(sec.Bursts, BurstRow{B: b, Cells: cells(res, burstSetting(b))})
	}
	for _, l := range loads {
		r := LoadRow{Load: l}
		for _, p := range policies {
			r.Cells = append(r.Cells, pct(res.get(loadSetting(l), p, 0), met))
		}
		sec.Loads = append(sec.Loads, r)
	}
	for _, s := range ss.bigs {
		sec.Bigs = append(sec.Bigs, BurstRow{Label: label(s.exp), Cells: cells(res, s)})
	}
	for _, v := range variants {
		sec.Parts = append(sec.Parts, part(res, ss, v.policy, v.why, 0))
	}
	for _, fe := range forecasts {
		sec.Parts = append(sec.Parts, part(res, ss, "reverse-adaptive", "", fe))
	}
	if sec.Seed1 {
		sec.Seed1Target = seed1(res, ss)
	}
	sec.Findings = findings(res, ss)
	return sec
}

// targets is adaptive+ against the others on a group of experiments:
// strictly more goals than every other scheme, or (not strict) no fewer
// than FIFO's.
func targets(res results, name string, sets []setting, strict bool) []TargetRow {
	var rows []TargetRow
	for _, s := range sets {
		m := map[string]float64{}
		for _, p := range policies {
			m[p], _, _ = stats(res.get(s, p, 0), met)
		}
		plus := m["adaptive+"]
		ok := plus >= m["fifo"]
		others := []string{"fifo"}
		if strict {
			ok = plus > m["fifo"] && plus > m["adaptive"] && plus > m["reverse-adaptive"]
			others = []string{"fifo", "adaptive", "reverse-adaptive"}
		}
		ps, fs := res.get(s, "adaptive+", 0), res.get(s, "fifo", 0)
		t := TargetRow{Setup: name, Label: label(s.exp), Fifo: 100 * m["fifo"], Adaptive: 100 * m["adaptive"],
			Reverse: 100 * m["reverse-adaptive"], Plus: 100 * plus, OK: ok, Wins: wins(res, s, ps, others, strict), Seeds: len(ps)}
		t.PlusLate, _, _ = stats(ps, late)
		t.FifoLate, _, _ = stats(fs, late)
		t.PlusUnmet, _, _ = stats(ps, unmetF)
		t.FifoUnmet, _, _ = stats(fs, unmetF)
		t.HasUnmet = len(ps) > 0 && ps[0].demand > 0
		rows = append(rows, t)
	}
	return rows
}

// wins counts the seeds on which adaptive+ (ps) beats every other scheme
// (strict) or meets at least as many goals.
func wins(res results, s setting, ps []out, others []string, strict bool) int {
	n := 0
	for i := range ps {
		win := true
		for _, o := range others {
			x := res.get(s, o, 0)[i].met
			if strict && ps[i].met <= x || !strict && ps[i].met < x {
				win = false
			}
		}
		if win {
			n++
		}
	}
	return n
}

// estimateRows are the goal-driven schemes under every estimate source on
// a group of experiments.
func estimateRows(res results, name string, sets []setting) []EstimateRow {
	var rows []EstimateRow
	for _, s := range sets {
		for _, e := range estimates {
			r := EstimateRow{Setup: name, Label: label(s.exp), What: e.what}
			for _, p := range goalPolicies {
				rs := res[key{s, p, 0, e.est}]
				mm, _, _ := stats(rs, met)
				ll, _, _ := stats(rs, late)
				r.Cells = append(r.Cells, struct{ Met, Late float64 }{100 * mm, ll})
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// cells are goals met and unmet demand on one setting, by policy.
func cells(res results, s setting) []struct {
	Met   Stat
	Unmet Unmet
} {
	var out []struct {
		Met   Stat
		Unmet Unmet
	}
	for _, p := range policies {
		rs := res.get(s, p, 0)
		out = append(out, struct {
			Met   Stat
			Unmet Unmet
		}{pct(rs, met), unmet(rs)})
	}
	return out
}

// part is one of Reverse-Adaptive's variants on the ablation's settings.
func part(res results, ss settings, pol, why string, fe float64) PartRow {
	r := PartRow{Policy: pol, Why: why, Forecast: fe, ForecastPct: 100 * fe}
	for _, s := range ss.ablation {
		rs := res.get(s, pol, fe)
		r.Cells = append(r.Cells, struct {
			Met   Stat
			Unmet Unmet
		}{pct(rs, met), unmet(rs)})
	}
	return r
}

// seed1 is the target on seed 1 of experiments 2 and 3.
func seed1(res results, ss settings) []Seed1Row {
	var rows []Seed1Row
	for _, s := range ss.exps[1:] {
		f, a, r := res.get(s, "fifo", 0)[0], res.get(s, "adaptive", 0)[0], res.get(s, "reverse-adaptive", 0)[0]
		n := float64(f.total)
		rows = append(rows, Seed1Row{Label: label(s.exp), Fifo: f.met * n, Adaptive: a.met * n, Reverse: r.met * n,
			AdaptiveUnmet: a.unmet, RevUnmet: r.unmet, GeAdaptive: r.met >= a.met, GtFifo: r.met > f.met, UnmetLe: r.unmet <= a.unmet})
	}
	return rows
}

// findings are Reverse-Adaptive against Adaptive and FIFO on experiments 2
// and 3.
func findings(res results, ss settings) []Finding {
	var fs []Finding
	for _, s := range ss.exps[1:] {
		mean := func(pol string, f func(o out) float64) float64 {
			m, _, _ := stats(res.get(s, pol, 0), f)
			return m
		}
		fm, am, rm := mean("fifo", met), mean("adaptive", met), mean("reverse-adaptive", met)
		au, ru := mean("adaptive", unmetF), mean("reverse-adaptive", unmetF)
		fs = append(fs, Finding{Label: label(s.exp), Fifo: 100 * fm, Adaptive: 100 * am, Reverse: 100 * rm,
			VsAdaptive: compareWord(rm, am), VsFifo: compareWord(rm, fm), RevUnmet: ru, AdaptiveUnmet: au,
			Change:      100 * (ru - au) / math.Max(au, 1e-9),
			ProjReverse: proj(res.get(s, "reverse-adaptive", 0)).Abs, ProjAdapt: proj(res.get(s, "adaptive", 0)).Abs})
	}
	return fs
}
