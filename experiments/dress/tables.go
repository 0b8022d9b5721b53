package dress

import (
	"math"
	"slices"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	dresspolicy "github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/scenario"
)

// run is one simulation's figures.
type run struct {
	makespan, waitAvg, waitMed, jctAvg, jctMed float64
	smallJCT, largeJCT, smallWait, util        float64
	jct                                        map[string]float64 // small jobs' JCT by id
	acc                                        *dresspolicy.Report
	completed, total                           int
}

// kept is what the section keeps of a simulation (section.Simulate).
type kept struct {
	Summary *metrics.Summary `json:"summary"`
	// SmallJCT are the small jobs' JCTs by id.
	SmallJCT map[string]float64  `json:"small_jct"`
	DRESS    *dresspolicy.Report `json:"dress,omitempty"`
}

func keep(_ int, o *runner.Outcome) (kept, error) {
	k := kept{Summary: section.Plain(o.Summary), SmallJCT: map[string]float64{}}
	for _, j := range o.Jobs {
		if j.Category == metrics.Small && j.JCT != nil {
			k.SmallJCT[j.ID] = *j.JCT
		}
	}
	if rep, ok := o.Summary.Reports["dress"].(dresspolicy.Report); ok {
		k.DRESS = &rep
	}
	return k, nil
}

func figures(k kept) run {
	s := k.Summary
	d := section.Deref
	return run{makespan: s.MakespanS, waitAvg: d(s.WaitAvgS), waitMed: d(s.WaitMedianS),
		jctAvg: d(s.JCTAvgS), jctMed: d(s.JCTMedianS),
		smallJCT: d(s.Categories[metrics.Small].JCTAvg), largeJCT: d(s.Categories[metrics.Large].JCTAvg),
		smallWait: d(s.Categories[metrics.Small].WaitAvg), util: s.UtilizationAvg,
		jct: k.SmallJCT, completed: s.JobsCompleted, total: s.JobsTotal, acc: k.DRESS}
}

// Compare is a policy against Capacity on one workload, in percent.
type Compare struct {
	PerJob   float64 // mean over small jobs of their JCT reduction (the paper's figure)
	OfAvg    float64 // reduction of the small jobs' average JCT
	Makespan float64 // makespan change
	Large    float64 // large jobs' average JCT change
}

func compare(base, r run) Compare {
	c := Compare{
		OfAvg:    100 * (1 - r.smallJCT/base.smallJCT),
		Makespan: 100 * (r.makespan/base.makespan - 1),
		Large:    100 * (r.largeJCT/base.largeJCT - 1),
	}
	sum, n := 0.0, 0
	for id, b := range base.jct {
		if x, ok := r.jct[id]; ok && b > 0 {
			sum += 1 - x/b
			n++
		}
	}
	c.PerJob = math.NaN()
	if n > 0 {
		c.PerJob = 100 * sum / float64(n)
	}
	return c
}

// Met is the target on one mixed workload: at least 20 % off the small
// jobs' JCT, per job and of the average, at most 5 % on the makespan.
func (c Compare) Met() bool { return !(c.PerJob < 20 || c.OfAvg < 20 || c.Makespan > 5) }

// Agg is a variant against Capacity over the paper's settings and every
// seed, in percent.
type Agg struct{ PerJob, OfAvg, Makespan, Worst, Large float64 }

// meanOver averages f over n seeds.
func meanOver(n int, f func(k int) float64) float64 {
	s := 0.0
	for k := range n {
		s += f(k)
	}
	return s / float64(n)
}

func rangeOver(n int, f func(k int) float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for k := range n {
		lo, hi = math.Min(lo, f(k)), math.Max(hi, f(k))
	}
	return lo, hi
}

// Section is everything the DRESS section shows.
type Section struct {
	Seeds       int
	TableII     []TableIIRow
	Small       []SmallRow
	Baselines   []BaselineRow
	Target      []TargetRow
	Stream      []StreamRow
	AM50        []AM50Row
	Accuracy    []AccuracyRow
	Estimates   []EstimateRow
	NoEstimate  Agg // dress:estimator=off against Capacity
	SensRuns    int // runs behind each sensitivity row
	Sensitivity []SensitivityRow
	Discussion  Discussion
	Losses      Losses
}

// TableIIRow is one policy on one of the paper's workloads, in seconds;
// Paper marks the paper's own Table II rows.
type TableIIRow struct {
	Workload, Policy                           string
	Paper                                      bool
	Makespan, WaitAvg, WaitMed, JCTAvg, JCTMed float64
	Done, Total                                int
}

// SmallRow is the small jobs' gain on one of the paper's workloads.
type SmallRow struct {
	Workload      string
	Paper         float64 // the paper's per-job reduction
	PaperMakespan float64 // NaN where the paper gives none
	Dress         Compare
	Lo, Hi        float64 // dress's per-job reduction over seeds
	Off, Plus     Compare
}

// BaselineRow is one policy on one workload, means over seeds.
type BaselineRow struct {
	Workload, Policy             string
	Small, Large, Makespan, Util float64
}

// TargetRow is seed 1 of one mixed workload.
type TargetRow struct {
	Frac        float64
	Dress, Plus Compare
}

// StreamRow is the large jobs' JCT in the stream on one seed.
type StreamRow struct {
	Seed                                         int
	Capacity, Dress, Plus, DressRatio, PlusRatio float64
	Met                                          bool
}

// AM50Row is one policy on the stream with the larger AM limit.
type AM50Row struct {
	Policy                                   string
	Small, Large, LargeRatio, Makespan, Util float64
}

// AccuracyRow is dress's release estimator on one workload.
type AccuracyRow struct {
	Workload                                                           string
	Intervals, MAE, Zero, Last, Predicted, Actual, DeltaMean, DeltaMax float64
}

// EstimateRow is one release estimate inside dress.
type EstimateRow struct {
	Name                   string
	MAE, Zero, Last, Share float64 // Share in percent
	Agg                    Agg
}

// SensitivityRow is one variant against Capacity.
type SensitivityRow struct {
	Policy, Why string
	Agg         Agg
}

// Discussion holds the figures "What reproduces and what does not" quotes.
type Discussion struct {
	Seeds                                      int
	SparkMakespan, SparkWait                   float64 // Capacity on Spark
	SparkMedCap, SparkMedDress, SparkWaitDress float64
	SmallWaitDress, SmallWaitCap               float64 // over every paper setting and seed
	Dress, Off, Floor, FloorOff, Avail         Agg
	AccLo, AccHi                               float64 // estimator's error below predicting zero, percent
	WorseThanLast, Cells                       int
}

// OffWorseThanCapacity says whether dress without its estimator does worse
// for small jobs than Capacity.
func (d Discussion) OffWorseThanCapacity() bool { return d.Off.PerJob < 0 }

// Losses holds the figures "Where DRESS loses, and dress+" quotes.
type Losses struct {
	// The stream.
	StreamLargeDress, StreamLargeCap, StreamUtilDress, StreamDeltaMean float64
	StreamLargePlus, StreamSmallPlus, StreamSmallCap, StreamSmallDress float64
	FifoUtil, FifoSmall, FifoLarge                                     float64
	StreamRatioDress, StreamRatioPlus                                  float64 // large JCT over Capacity's
	// The stream with the AM limit at 50 %, by am50.
	AM50Large, AM50Small [4]float64
	AM50Ratio            float64 // dress+'s large JCT over Capacity's
	// The heterogeneous and medium mixes.
	HetMakespanDress, HetLargeDress, HetMakespanPlus, HetLargePlus        float64
	MedSmallCap, MedSmallDress, MedSmallPlus, MedLargeDress, MedLargePlus float64
	// Fair.
	FairWins, Settings                                     int
	HetSmallFair, HetSmallDress, MedSmallFair              float64
	FairLarge, DressLarge, FairMakespan, FairUtil, CapUtil float64
	Plus, Dress                                            Agg
	// The release estimate.
	MAEPhase, MAEPaper, MAEConst  float64
	BestEstimate                  string
	PlusPaper, PlusConst, PlusOff float64
}

// tables reduces runs[setting][seed][policy] to the section.
func tables(n int, runs [][][]run) Section {
	cap0, dr, plus := index("capacity"), index("dress"), index("dress+")
	mean := func(s, q int, get func(r run) float64) float64 {
		return meanOver(n, func(k int) float64 { return get(runs[s][k][q]) })
	}
	cmpOf := func(s, q int) func(k int) Compare {
		return func(k int) Compare { return compare(runs[s][k][cap0], runs[s][k][q]) }
	}
	paper := settings[:paperSettings]
	sec := Section{Seeds: n, SensRuns: n * paperSettings}

	for s, st := range paper {
		if st.kind == scenario.DRESSSpark {
			for _, pol := range []string{"capacity", "dress"} {
				t := tableII[pol]
				sec.TableII = append(sec.TableII, TableIIRow{Workload: st.label, Policy: pol, Paper: true,
					Makespan: t[0], WaitAvg: t[1], WaitMed: t[2], JCTAvg: t[3], JCTMed: t[4], Done: 20, Total: 20})
			}
		}
		for _, pol := range mainPolicies {
			q := index(pol)
			row := TableIIRow{Workload: st.label, Policy: pol,
				Makespan: mean(s, q, func(r run) float64 { return r.makespan }), WaitAvg: mean(s, q, func(r run) float64 { return r.waitAvg }),
				WaitMed: mean(s, q, func(r run) float64 { return r.waitMed }), JCTAvg: mean(s, q, func(r run) float64 { return r.jctAvg }),
				JCTMed: mean(s, q, func(r run) float64 { return r.jctMed })}
			for k := range n {
				row.Done += runs[s][k][q].completed
				row.Total += runs[s][k][q].total
			}
			sec.TableII = append(sec.TableII, row)
		}
	}

	sec.Small = smallRows(n, runs)

	for s, st := range settings {
		for _, pol := range baselines {
			q := index(pol)
			sec.Baselines = append(sec.Baselines, BaselineRow{Workload: st.label, Policy: pol,
				Small: mean(s, q, func(r run) float64 { return r.smallJCT }), Large: mean(s, q, func(r run) float64 { return r.largeJCT }),
				Makespan: mean(s, q, func(r run) float64 { return r.makespan }), Util: mean(s, q, func(r run) float64 { return r.util })})
		}
	}

	for s, st := range paper {
		if st.kind == scenario.DRESSMixed {
			sec.Target = append(sec.Target, TargetRow{Frac: st.frac, Dress: cmpOf(s, dr)(0), Plus: cmpOf(s, plus)(0)})
		}
	}

	for k := range n {
		c, d, pl := runs[stream][k][cap0].largeJCT, runs[stream][k][dr].largeJCT, runs[stream][k][plus].largeJCT
		sec.Stream = append(sec.Stream, StreamRow{Seed: k + 1, Capacity: c, Dress: d, Plus: pl, DressRatio: d / c, PlusRatio: pl / c, Met: !(pl > 1.25*c)})
	}

	c50 := mean(stream, index(am50[0]), func(r run) float64 { return r.largeJCT })
	for _, pol := range am50 {
		q := index(pol)
		l := mean(stream, q, func(r run) float64 { return r.largeJCT })
		sec.AM50 = append(sec.AM50, AM50Row{Policy: pol, Small: mean(stream, q, func(r run) float64 { return r.smallJCT }), Large: l, LargeRatio: l / c50,
			Makespan: mean(stream, q, func(r run) float64 { return r.makespan }), Util: mean(stream, q, func(r run) float64 { return r.util })})
	}

	acc := func(s, q int, get func(a *dresspolicy.Report) float64) float64 {
		return meanOver(n, func(k int) float64 {
			if a := runs[s][k][q].acc; a != nil {
				return get(a)
			}
			return math.NaN()
		})
	}
	for s, st := range paper {
		sec.Accuracy = append(sec.Accuracy, AccuracyRow{Workload: st.label,
			Intervals: acc(s, dr, func(a *dresspolicy.Report) float64 { return float64(a.Accuracy.Intervals) }),
			MAE:       acc(s, dr, func(a *dresspolicy.Report) float64 { return a.Accuracy.MAE }),
			Zero:      acc(s, dr, func(a *dresspolicy.Report) float64 { return a.Accuracy.MAEZero }),
			Last:      acc(s, dr, func(a *dresspolicy.Report) float64 { return a.Accuracy.MAEPersistence }),
			Predicted: acc(s, dr, func(a *dresspolicy.Report) float64 { return a.Accuracy.PredictedMean }),
			Actual:    acc(s, dr, func(a *dresspolicy.Report) float64 { return a.Accuracy.ActualMean }),
			DeltaMean: acc(s, dr, func(a *dresspolicy.Report) float64 { return a.Delta.Mean }),
			DeltaMax:  acc(s, dr, func(a *dresspolicy.Report) float64 { return a.Delta.Max })})
	}

	agg := aggregate(runs, n, cap0)
	estMAE := map[string]float64{}
	for _, pol := range estimates {
		q := index(pol)
		var ms, zs, ls, ss float64
		for s := range paper {
			ms += acc(s, q, func(a *dresspolicy.Report) float64 { return a.Accuracy.MAE })
			zs += acc(s, q, func(a *dresspolicy.Report) float64 { return a.Accuracy.MAEZero })
			ls += acc(s, q, func(a *dresspolicy.Report) float64 { return a.Accuracy.MAEPersistence })
			ss += acc(s, q, func(a *dresspolicy.Report) float64 { return a.Accuracy.PredictedMean / a.Accuracy.ActualMean })
		}
		k := float64(len(paper))
		estMAE[pol] = ms / k
		sec.Estimates = append(sec.Estimates, EstimateRow{Name: estimateName[pol], MAE: ms / k, Zero: zs / k, Last: ls / k, Share: 100 * (ss / k), Agg: agg[pol]})
	}
	sec.NoEstimate = agg["dress:estimator=off"]

	for _, pol := range policies[1:] {
		if pol == "fifo" || pol == "fair" || slices.Contains(am50, pol) {
			continue
		}
		sec.Sensitivity = append(sec.Sensitivity, SensitivityRow{Policy: pol, Why: why[pol], Agg: agg[pol]})
	}
	sec.Discussion = discussion(runs, agg, n)
	sec.Losses = losses(runs, agg, n, estMAE)
	return sec
}

// smallRows are the small jobs' gains against Capacity on the paper's
// workloads: dress, dress without its estimator and dress+.
func smallRows(n int, runs [][][]run) []SmallRow {
	cap0, dr, off, plus := index("capacity"), index("dress"), index("dress:estimator=off"), index("dress+")
	cmpOf := func(s, q int) func(k int) Compare {
		return func(k int) Compare { return compare(runs[s][k][cap0], runs[s][k][q]) }
	}
	var rows []SmallRow
	for s, st := range settings[:paperSettings] {
		d, o, pl := cmpOf(s, dr), cmpOf(s, off), cmpOf(s, plus)
		row := SmallRow{Workload: st.label, Paper: st.paper, PaperMakespan: math.NaN()}
		row.Lo, row.Hi = rangeOver(n, func(k int) float64 { return d(k).PerJob })
		if st.kind == scenario.DRESSSpark {
			row.PaperMakespan = paperMakespanSpark
		}
		row.Dress = Compare{PerJob: meanOver(n, func(k int) float64 { return d(k).PerJob }), OfAvg: meanOver(n, func(k int) float64 { return d(k).OfAvg }),
			Makespan: meanOver(n, func(k int) float64 { return d(k).Makespan }), Large: meanOver(n, func(k int) float64 { return d(k).Large })}
		row.Off = Compare{PerJob: meanOver(n, func(k int) float64 { return o(k).PerJob })}
		row.Plus = Compare{PerJob: meanOver(n, func(k int) float64 { return pl(k).PerJob }),
			Makespan: meanOver(n, func(k int) float64 { return pl(k).Makespan }), Large: meanOver(n, func(k int) float64 { return pl(k).Large })}
		rows = append(rows, row)
	}

	return rows
}

// aggregate compares every policy with Capacity (index base) over the
// paper's settings and the seeds.
func aggregate(runs [][][]run, n, base int) map[string]Agg {
	agg := map[string]Agg{}
	for q := range policies {
		var cs []Compare
		for s := range paperSettings {
			for k := range n {
				cs = append(cs, compare(runs[s][k][base], runs[s][k][q]))
			}
		}
		get := func(f func(c Compare) float64) func(int) float64 { return func(i int) float64 { return f(cs[i]) } }
		a := Agg{
			PerJob:   meanOver(len(cs), get(func(c Compare) float64 { return c.PerJob })),
			OfAvg:    meanOver(len(cs), get(func(c Compare) float64 { return c.OfAvg })),
			Makespan: meanOver(len(cs), get(func(c Compare) float64 { return c.Makespan })),
			Large:    meanOver(len(cs), get(func(c Compare) float64 { return c.Large })),
		}
		_, a.Worst = rangeOver(len(cs), get(func(c Compare) float64 { return c.Makespan }))
		agg[policies[q]] = a
	}
	return agg
}

// discussion gathers what "What reproduces and what does not" quotes.
func discussion(runs [][][]run, agg map[string]Agg, n int) Discussion {
	spark := func(q int, get func(r run) float64) float64 {
		return meanOver(n, func(k int) float64 { return get(runs[0][k][q]) })
	}
	wait := func(r run) float64 { return r.waitAvg }
	med := func(r run) float64 { return r.waitMed }
	ms := func(r run) float64 { return r.makespan }
	// Over every setting and seed: small jobs' average wait, and the
	// estimator's error against the two yardsticks.
	var smallWait [2]float64
	lo, hi, worseThanLast := math.Inf(1), math.Inf(-1), 0
	cells := 0
	for s := range runs[:paperSettings] {
		for k := range n {
			smallWait[0] += runs[s][k][0].smallWait
			smallWait[1] += runs[s][k][1].smallWait
			cells++
			if a := runs[s][k][1].acc; a != nil && a.Accuracy.MAEZero > 0 {
				r := 1 - a.Accuracy.MAE/a.Accuracy.MAEZero
				lo, hi = math.Min(lo, r), math.Max(hi, r)
				if a.Accuracy.MAE > a.Accuracy.MAEPersistence {
					worseThanLast++
				}
			}
		}
	}
	return Discussion{Seeds: n,
		SparkMakespan: spark(0, ms), SparkWait: spark(0, wait),
		SparkMedCap: spark(0, med), SparkMedDress: spark(1, med), SparkWaitDress: spark(1, wait),
		SmallWaitDress: smallWait[1] / float64(cells), SmallWaitCap: smallWait[0] / float64(cells),
		Dress: agg["dress"], Off: agg["dress:estimator=off"], Floor: agg["dress:delta_min=0.1"],
		FloorOff: agg["dress:estimator=off,delta_min=0.1"], Avail: agg["dress:classify=available"],
		AccLo: 100 * lo, AccHi: 100 * hi, WorseThanLast: worseThanLast, Cells: cells}
}

// losses gathers what "Where DRESS loses, and dress+" quotes.
func losses(runs [][][]run, agg map[string]Agg, n int, estMAE map[string]float64) Losses {
	cap0, dr, plus, fair, fifo := index("capacity"), index("dress"), index("dress+"), index("fair"), index("fifo")
	m := func(s, q int, get func(r run) float64) float64 {
		return meanOver(n, func(k int) float64 { return get(runs[s][k][q]) })
	}
	large := func(r run) float64 { return r.largeJCT }
	small := func(r run) float64 { return r.smallJCT }
	ms := func(r run) float64 { return r.makespan }
	util := func(r run) float64 { return r.util }
	l := Losses{
		StreamLargeDress: m(stream, dr, large), StreamLargeCap: m(stream, cap0, large), StreamUtilDress: 100 * m(stream, dr, util),
		StreamDeltaMean: m(stream, dr, func(r run) float64 { return r.acc.Delta.Mean }),
		StreamLargePlus: m(stream, plus, large), StreamSmallPlus: m(stream, plus, small), StreamSmallCap: m(stream, cap0, small), StreamSmallDress: m(stream, dr, small),
		FifoUtil: 100 * m(stream, fifo, util), FifoSmall: m(stream, fifo, small), FifoLarge: m(stream, fifo, large),
		HetMakespanDress: 100 * (m(hetero, dr, ms)/m(hetero, cap0, ms) - 1), HetLargeDress: 100 * (m(hetero, dr, large)/m(hetero, cap0, large) - 1),
		HetMakespanPlus: 100 * (m(hetero, plus, ms)/m(hetero, cap0, ms) - 1), HetLargePlus: 100 * (m(hetero, plus, large)/m(hetero, cap0, large) - 1),
		MedSmallCap: m(medium, cap0, small), MedSmallDress: m(medium, dr, small), MedSmallPlus: m(medium, plus, small),
		MedLargeDress: 100 * (m(medium, dr, large)/m(medium, cap0, large) - 1), MedLargePlus: 100 * (m(medium, plus, large)/m(medium, cap0, large) - 1),
		Settings: len(settings), HetSmallFair: m(hetero, fair, small), HetSmallDress: m(hetero, dr, small), MedSmallFair: m(medium, fair, small),
		DressLarge: agg["dress"].Large, Plus: agg["dress+"], Dress: agg["dress"],
		MAEPhase: estMAE["dress:release=phase"], MAEPaper: estMAE["dress"], MAEConst: estMAE["dress:release=const"],
		PlusPaper: agg["dress+:release=paper"].PerJob, PlusConst: agg["dress+:release=const"].PerJob, PlusOff: agg["dress+:estimator=off"].PerJob,
	}
	l.StreamRatioDress, l.StreamRatioPlus = m(stream, dr, large)/m(stream, cap0, large), m(stream, plus, large)/m(stream, cap0, large)
	for i, pol := range am50 {
		l.AM50Large[i], l.AM50Small[i] = m(stream, index(pol), large), m(stream, index(pol), small)
	}
	l.AM50Ratio = l.AM50Large[2] / l.AM50Large[0]
	var fairLarge, fairMS, fairUtil, capUtil float64
	for s := range settings {
		if m(s, fair, small) <= m(s, dr, small) {
			l.FairWins++
		}
	}
	for s := range paperSettings {
		fairLarge += (m(s, fair, large)/m(s, cap0, large) - 1) / paperSettings
		fairMS += (m(s, fair, ms)/m(s, cap0, ms) - 1) / paperSettings
		fairUtil += m(s, fair, util) / paperSettings
		capUtil += m(s, cap0, util) / paperSettings
	}
	l.FairLarge, l.FairMakespan, l.FairUtil, l.CapUtil = 100*fairLarge, 100*fairMS, 100*fairUtil, 100*capUtil
	l.BestEstimate = "dress"
	for _, pol := range estimates {
		if estMAE[pol] < estMAE[l.BestEstimate] {
			l.BestEstimate = pol
		}
	}
	return l
}
