package autoadmin

import (
	"math"
	"slices"
	"sort"

	aa "github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/resource"
)

// Score is a controller's Perf Score against the best static point: the
// seeds it deadlocked on, if any, else the score (NaN when no static point
// completed).
type Score struct {
	Deadlocked, Seeds int
	Value             float64
}

func score(res *StaticSweepResult, p *StaticPoint) Score {
	return Score{Deadlocked: p.DeadlockedSeeds, Seeds: len(p.Makespans), Value: res.PerfScore(p)}
}

// SeedRange is the lowest and highest per-seed Perf Score; OK is false when
// some seed has none.
type SeedRange struct {
	Lo, Hi float64
	OK     bool
}

func seedRange(res *StaticSweepResult, p *StaticPoint) SeedRange {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range p.Makespans {
		s := res.PerfScoreSeed(p, i)
		if math.IsNaN(s) {
			return SeedRange{}
		}
		lo, hi = math.Min(lo, s), math.Max(hi, s)
	}
	return SeedRange{lo, hi, true}
}

// Range is a sweep's best range: N points tie within TieTolerance, from Lo
// to Hi vcores (N is 0 when every point deadlocked).
type Range struct {
	Lo, Hi float64
	N      int
}

func bestRange(res *StaticSweepResult) Range {
	lo, hi, n := res.BestRange(TieTolerance)
	return Range{lo, hi, n}
}

// InRange says whether a reservation lies in a sweep's best range: D is 0
// inside it, else how far outside; N is 0 when there is no range.
type InRange struct {
	D float64
	N int
}

func inRange(res *StaticSweepResult, x float64) InRange {
	lo, hi, n := res.BestRange(TieTolerance)
	if n == 0 {
		return InRange{}
	}
	return InRange{RangeDistance(x, lo, hi), n}
}

// Stats are the minimum and median of scores, and how many exceed 95, of N.
type Stats struct {
	Name        string
	Min, Median float64
	Above95, N  int
}

// stats are the minimum and median of scores, and how many exceed 95.
func stats(xs []float64) (lo, med float64, above95 int) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN(), math.NaN(), 0
	}
	lo = s[0]
	if n := len(s); n%2 == 1 {
		med = s[n/2]
	} else {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	for _, x := range s {
		if x > 95 {
			above95++
		}
	}
	return lo, med, above95
}

func namedStats(name string, xs []float64) Stats {
	lo, med, n := stats(xs)
	return Stats{name, lo, med, n, len(xs)}
}

// with finds a scored controller's point.
func with(res *StaticSweepResult, spec string) *StaticPoint {
	for i := range res.With {
		if res.With[i].Admission == spec {
			return &res.With[i]
		}
	}
	return nil
}

// mmin is the best static point's mean makespan, NaN when every point
// deadlocked.
func mmin(res *StaticSweepResult) float64 {
	if res.Best < 0 {
		return math.NaN()
	}
	return res.Points[res.Best].Makespan()
}

// predict is RRP on C_R = 64 for one running AM: without and with the
// floor.
func predict(amc, tc int) (noFloor, floored int) {
	const vc = resource.MilliPerVCore
	in := aa.Inputs{C: 64 * vc, Known: true, AvgAM: float64(amc * vc), AvgTC: float64(tc * vc), TotalAM: float64(amc * vc)}
	nf := aa.Default()
	nf.Floor = 0
	return int(nf.Predict(in, vc).Value / vc), int(aa.Default().Predict(in, vc).Value / vc)
}

func find(cases []*workloadCase, amc, tc int64) *workloadCase {
	for _, c := range cases {
		if c.amc == amc && c.tc == tc {
			return c
		}
	}
	return nil
}

// Section is everything the AutoAdmin section shows.
type Section struct {
	Seeds                              int
	Policy, Literal, Backlog           string
	ReserveFrom, ReserveTo, TiePercent float64
	Model                              Model
	Jobs                               int
	Burst                              [2]int64
	Predictions                        []Prediction
	Homo                               *Homo // nil when the plan has no homogeneous setting
	Hetero                             *Hetero
	Backlogs                           *Backlog
	Ablation                           Ablation
	Deadlock                           Deadlock
}

// Model is the workload model as the introduction states it.
type Model struct {
	Name            string
	GapS, SlowStart float64
	TeragenFiles    int
}

// Prediction is one cell of Tables 3.1 and 3.2 against spindle's RRP and
// sweep.
type Prediction struct {
	AMC, TC, Exp, PDI, PDIFloor, NoFloor, Floor int
	Best                                        Range // N 0 also when the setting was not swept
	In                                          InRange
}

// Homo is the homogeneous workloads' part.
type Homo struct {
	Names      []string // the main controllers
	Rows       []HomoRow
	PaperStats Stats
	MainStats  []Stats
	// Same counts the settings where autoadmin gives the literal rule's
	// makespan on every seed, of Settings.
	Same, Settings int
	WorseAt        []Worse
	Targets        []Target // the literal rule and autoadmin
	Low            []Low    // the literal... autoadmin below 85 %
	Gains          []Gain
	Grid           []GridRow
	BurstRows      []BurstRow
	BurstStats     []Stats
	PerAM          PerAM
	Curves         Curves
	Series         *Series
}

// HomoRow is one homogeneous setting under the main controllers.
type HomoRow struct {
	AMC, TC          int64
	Best             Range
	PaperOpt         int
	MMin, PaperScore float64
	Cells            []HomoCell
}

// HomoCell is one controller on one setting.
type HomoCell struct {
	Makespan float64
	Score    Score
	Seeds    SeedRange
}

// Worse is a setting where autoadmin+ scores below autoadmin.
type Worse struct {
	AMC, TC        int64
	Plus, Faithful float64
}

// Target is a controller against the target: MedianIn when its median
// Perf Score is inside the paper's 88.5–99.7 %, MinOK when its minimum is
// at least 85 %.
type Target struct {
	Name        string
	Median, Min float64
	MedianIn    bool
	MinOK       bool
}

// Low is a setting where the default controller scores below 85 %.
type Low struct {
	AMC, TC int64
	Score   float64
}

// Gain is autoadmin+'s gain over autoadmin at TC = 1 and a larger AM.
type Gain struct {
	Points float64
	AMC    int64
}

// GridRow is one TC of Table 4.1's layout; a cell with no Scores was not
// run.
type GridRow struct {
	TC    int64
	Cells []GridCell
}

// GridCell is one setting's scores by main controller, and the paper's.
type GridCell struct {
	Scores []Score
	Paper  float64
}

// BurstRow is one homogeneous setting in the burst model.
type BurstRow struct {
	AMC, TC int64
	Best    Range
	MMin    float64
	Scores  []Score
}

// PerAM is the Tasks per AM part.
type PerAM struct {
	// Curve holds the static makespans the text quotes, when both
	// settings were run: AMC 2 TC 1 at R = 22, 24, 26, AMC 3 TC 2 at
	// R = 28, 31.
	Curve   []At
	Compare Compare
	Lost    []Lost
}

// At is a static point's mean makespan; Found is false when the sweep had
// no such reservation.
type At struct {
	Found, Deadlocked bool
	Makespan          float64
}

func at(c *workloadCase, r float64) At {
	for i := range c.sweep.Points {
		if pt := &c.sweep.Points[i]; pt.Reserve == r {
			return At{true, pt.Deadlocked(), pt.Makespan()}
		}
	}
	return At{}
}

// Lost is a setting where k = 1.1 loses to autoadmin+ on the burst model.
type Lost struct {
	AMC, TC int64
	Points  float64
}

// Compare is Perf Scores of several controllers on the homogeneous
// settings of both models, and each one's summary per model.
type Compare struct {
	Names   []string
	Rows    []CompareRow
	Summary []CompareLine
}

// CompareRow is one setting; Burst is nil when the burst model did not
// run it.
type CompareRow struct {
	AMC, TC      int64
	Paper, Burst []Score
}

// CompareLine is one controller on one model: its min and median, and the
// settings where it is below autoadmin.
type CompareLine struct {
	Name, Model string
	Min, Median float64
	N           int
	Below       []Lost
}

// Curves are the static sweeps at a coarse step.
type Curves struct {
	Step     int
	Reserves []float64
	Rows     []CurveRow
}

// CurveRow is one setting's static curve.
type CurveRow struct {
	AMC, TC int64
	Points  []At
}

// Series is R_R(t) and the queues under autoadmin and autoadmin+ for one
// setting.
type Series struct {
	AMC, TC int64
	Rows    []SeriesRow
}

// SeriesRow is the two controllers' state at time T.
type SeriesRow struct {
	T     float64
	Cells []SeriesCell
}

// SeriesCell is reserved vcores, jobs admitted and running, and jobs
// waiting at the last change before a time; OK is false before the first.
type SeriesCell struct {
	OK                bool
	Reserve           float64
	Admitted, Waiting int
}

// Hetero is the heterogeneous workloads' part.
type Hetero struct {
	Rows        []HeteroRow
	Dead        []Dead // the literal rule's deadlocks
	DeadDefault []Dead // autoadmin's
	Low         []HeteroLow
}

// HeteroRow is one experiment.
type HeteroRow struct {
	Exp           int
	Best          Range
	MMin, Paper   float64
	Literal       Score
	Default, Plus HomoCell
}

// Dead is an experiment where a controller deadlocked on some seeds.
type Dead struct{ Exp, Seeds, Of int }

// HeteroLow is an experiment where autoadmin+ scores below 85 %, with each
// of its changes alone.
type HeteroLow struct {
	Exp                      int
	Score                    float64
	HoldEarly, Slots, Demand Score
}

// Backlog is the Backlog part.
type Backlog struct {
	Compare Compare
	Hetero  []struct {
		Exp                    int
		Default, Plus, Backlog Score
	}
	Never bool // backlog never below autoadmin on the paper model
}

// Ablation is what each change buys.
type Ablation struct {
	Rows []AblationRow
	// Same of Runs runs give autoadmin's makespan without Eq. 3.3.
	Same, Runs int
}

// AblationRow is one controller over every workload: the homogeneous min,
// median and count above 95 %, the heterogeneous min and mean over the XN
// of XOf experiments that never deadlocked, and the deadlocks.
type AblationRow struct {
	Spec, What         string
	HMin, HMedian      float64
	HAbove, HN         int
	XMin, XMean        float64
	XN, XOf, Deadlocks int
}

// Deadlock is the deadlock demonstration and the built-in limits.
type Deadlock struct {
	Runs       []BurstDemo
	LimitNames []string
	Limits     []LimitRow
}

// BurstDemo is one policy and controller on the batch, seed 1.
type BurstDemo struct {
	Policy, Admission string
	Deadlocked, Seeds int
	Completed, Total  int
	Makespan          float64
	Stuck             []Stuck
}

// Stuck is how many jobs a deadlocked run left in one state.
type Stuck struct {
	N     int
	State string
}

func stuck(s *metrics.Summary) []Stuck {
	var out []Stuck
	at := map[string]int{}
	for _, j := range s.StuckJobs {
		i, ok := at[j.State]
		if !ok {
			i = len(out)
			at[j.State] = i
			out = append(out, Stuck{State: j.State})
		}
		out[i].N++
	}
	return out
}

// LimitRow is one homogeneous setting under the built-in limits, then the
// main controllers.
type LimitRow struct {
	AMC, TC int64
	Scores  []Score
}

func tables(seeds int, plan runPlan, r *results) Section {
	homo, hetero, burstHomo := r.homo, r.hetero, r.burstHomo
	sec := Section{Seeds: seeds, Policy: basePolicy, Literal: literal, Backlog: backlog,
		ReserveFrom: plan.Reserves[0], ReserveTo: plan.Reserves[len(plan.Reserves)-1], TiePercent: TieTolerance * 100,
		Model: Model{Name: plan.Model.Name, GapS: plan.Model.Gap.Seconds(), SlowStart: plan.Model.SlowStart, TeragenFiles: plan.Model.TeragenFiles},
		Jobs:  plan.Jobs, Burst: plan.Burst}
	for tc := 1; tc <= 4; tc++ {
		for amc := 1; amc <= 4; amc++ {
			p := Prediction{AMC: amc, TC: tc, Exp: paperOptimum[tc-1][amc-1], PDI: paperPredict[tc-1][amc-1], PDIFloor: paperFloored[tc-1][amc-1]}
			p.NoFloor, p.Floor = predict(amc, tc)
			if c := find(homo, int64(amc), int64(tc)); c != nil {
				p.Best, p.In = bestRange(c.sweep), inRange(c.sweep, float64(paperOptimum[tc-1][amc-1]))
			}
			sec.Predictions = append(sec.Predictions, p)
		}
	}
	if len(homo) > 0 {
		sec.Homo = homogeneous(plan, homo, burstHomo)
		sec.Backlogs = backlogPart(homo, hetero, burstHomo)
	}
	if len(hetero) > 0 {
		sec.Hetero = heterogeneous(hetero)
	}
	sec.Ablation = ablation(homo, hetero)
	sec.Deadlock = deadlock(seeds, homo, r.burst)
	return sec
}

func homogeneous(plan runPlan, homo, burstHomo []*workloadCase) *Homo {
	h := &Homo{Settings: len(homo)}
	for _, m := range mainControllers {
		h.Names = append(h.Names, m.name)
	}
	scores := make([][]float64, len(mainControllers))
	var paper []float64
	for _, c := range homo {
		res := c.sweep
		row := HomoRow{AMC: c.amc, TC: c.tc, Best: bestRange(res), PaperOpt: paperOptimum[c.tc-1][c.amc-1],
			MMin: mmin(res), PaperScore: paperScore[c.tc-1][c.amc-1]}
		for i, m := range mainControllers {
			w := with(res, m.spec)
			row.Cells = append(row.Cells, HomoCell{w.Makespan(), score(res, w), seedRange(res, w)})
			scores[i] = append(scores[i], res.PerfScore(w))
		}
		h.Rows = append(h.Rows, row)
		paper = append(paper, row.PaperScore)
	}
	h.PaperStats = namedStats("paper (Table 4.1)", paper)
	for i, m := range mainControllers {
		h.MainStats = append(h.MainStats, namedStats(m.name, scores[i]))
	}
	faithful, plus := scores[1], scores[2]
	for i := range faithful {
		if plus[i] < faithful[i] {
			h.WorseAt = append(h.WorseAt, Worse{homo[i].amc, homo[i].tc, plus[i], faithful[i]})
		}
	}
	for _, c := range homo {
		if slices.Equal(with(c.sweep, literal).Makespans, with(c.sweep, "autoadmin").Makespans) {
			h.Same++
		}
	}
	for i, m := range mainControllers[:2] {
		lo, med, _ := stats(scores[i])
		h.Targets = append(h.Targets, Target{m.name, med, lo, med >= 88.5 && med <= 99.7, lo >= 85})
	}
	for i, c := range homo {
		if faithful[i] < 85 {
			h.Low = append(h.Low, Low{c.amc, c.tc, faithful[i]})
		}
	}
	if len(h.WorseAt) > 0 {
		for i, c := range homo {
			if c.tc == 1 && c.amc >= 3 {
				h.Gains = append(h.Gains, Gain{plus[i] - faithful[i], c.amc})
			}
		}
	}
	h.Grid = grid(homo)
	h.BurstRows, h.BurstStats = burstModel(burstHomo)
	h.PerAM = perAMPart(homo, burstHomo)
	h.Curves = curves(plan, homo)
	h.Series = series(homo, 1, 4)
	return h
}

// grid lays the homogeneous settings out as the paper's Table 4.1: rows
// TC, columns AMC.
func grid(homo []*workloadCase) []GridRow {
	var rows []GridRow
	for tc := int64(1); tc <= 4; tc++ {
		row := GridRow{TC: tc}
		for amc := int64(1); amc <= 4; amc++ {
			cell := GridCell{Paper: paperScore[tc-1][amc-1]}
			// The last setting of that shape, as the plan may list one twice.
			for _, c := range homo {
				if c.amc == amc && c.tc == tc {
					cell.Scores = nil
					for _, m := range mainControllers {
						cell.Scores = append(cell.Scores, score(c.sweep, with(c.sweep, m.spec)))
					}
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		rows = append(rows, row)
	}
	return rows
}

// burstModel is the homogeneous settings in the burst model under the main
// controllers, and each controller's summary.
func burstModel(burstHomo []*workloadCase) ([]BurstRow, []Stats) {
	var rows []BurstRow
	var sts []Stats
	bs := make([][]float64, len(mainControllers))
	for _, c := range burstHomo {
		res := c.sweep
		row := BurstRow{AMC: c.amc, TC: c.tc, Best: bestRange(res), MMin: mmin(res)}
		for i, m := range mainControllers {
			w := with(res, m.spec)
			row.Scores = append(row.Scores, score(res, w))
			bs[i] = append(bs[i], res.PerfScore(w))
		}
		rows = append(rows, row)
	}
	if len(burstHomo) > 0 {
		for i, m := range mainControllers {
			sts = append(sts, namedStats(m.name+", burst model", bs[i]))
		}
	}
	return rows, sts
}

// perAMPart is autoadmin+ with R_R kept at least at Eq. 3.2 with k tasks
// beside each AM, on the paper's model and the burst model: why autoadmin+
// stays below autoadmin at AMC = 2, TC = 1 and no k fixes it.
func perAMPart(homo, burstHomo []*workloadCase) PerAM {
	var p PerAM
	if c21, c32 := find(homo, 2, 1), find(homo, 3, 2); c21 != nil && c32 != nil {
		p.Curve = []At{at(c21, 22), at(c21, 24), at(c21, 26), at(c32, 28), at(c32, 31)}
	}
	specs := append([]string{"autoadmin", "autoadmin+"}, perAM...)
	var scores [][2][]float64
	p.Compare, scores = compare(homo, burstHomo, specs, []string{"autoadmin", "autoadmin+", "k = 1.1", "k = 1.3"})
	for k, x := range scores[2][1] {
		if d := scores[1][1][k] - x; d >= 1 {
			p.Lost = append(p.Lost, Lost{homo[k].amc, homo[k].tc, d})
		}
	}
	return p
}

// backlogPart is autoadmin+ with backlog on every workload: the variant
// that never scores below autoadmin here, and why it is not the default.
func backlogPart(homo, hetero, burstHomo []*workloadCase) *Backlog {
	b := &Backlog{Never: true}
	var scores [][2][]float64
	b.Compare, scores = compare(homo, burstHomo, []string{"autoadmin", "autoadmin+", backlog}, []string{"autoadmin", "autoadmin+", "backlog"})
	for k, x := range scores[2][0] {
		b.Never = b.Never && x >= scores[0][0][k]
	}
	for _, c := range hetero {
		b.Hetero = append(b.Hetero, struct {
			Exp                    int
			Default, Plus, Backlog Score
		}{c.exp, score(c.sweep, with(c.sweep, "autoadmin")), score(c.sweep, with(c.sweep, "autoadmin+")), score(c.sweep, with(c.sweep, backlog))})
	}
	return b
}

// compare scores specs (the first is autoadmin) on the homogeneous
// settings of both models, and summarises each spec per model: its min
// and median and the settings where it is below autoadmin. It also
// returns the scores by spec and model (0 paper, 1 burst).
func compare(homo, burstHomo []*workloadCase, specs, names []string) (Compare, [][2][]float64) {
	cmp := Compare{Names: names}
	scores := make([][2][]float64, len(specs))
	for _, c := range homo {
		row := CompareRow{AMC: c.amc, TC: c.tc}
		for i, sp := range specs {
			w := with(c.sweep, sp)
			row.Paper = append(row.Paper, score(c.sweep, w))
			scores[i][0] = append(scores[i][0], c.sweep.PerfScore(w))
		}
		if b := find(burstHomo, c.amc, c.tc); b != nil {
			for i, sp := range specs {
				w := with(b.sweep, sp)
				row.Burst = append(row.Burst, score(b.sweep, w))
				scores[i][1] = append(scores[i][1], b.sweep.PerfScore(w))
			}
		}
		cmp.Rows = append(cmp.Rows, row)
	}
	for i, n := range names {
		for m, model := range []string{"paper model", "burst model"} {
			xs := scores[i][m]
			if len(xs) == 0 {
				continue
			}
			lo, med, _ := stats(xs)
			line := CompareLine{Name: n, Model: model, Min: lo, Median: med, N: len(xs)}
			for k, x := range xs {
				if x < scores[0][m][k] {
					line.Below = append(line.Below, Lost{homo[k].amc, homo[k].tc, scores[0][m][k] - x})
				}
			}
			cmp.Summary = append(cmp.Summary, line)
		}
	}
	return cmp, scores
}

// curves are the static sweep curves at a coarse step: the paper's
// Figures 2.2, 2.3 and 4.1 as numbers.
func curves(plan runPlan, cases []*workloadCase) Curves {
	cv := Curves{Step: 8}
	var cols []int
	for i, r := range plan.Reserves {
		if math.Mod(r, float64(cv.Step)) == 0 {
			cols = append(cols, i)
			cv.Reserves = append(cv.Reserves, r)
		}
	}
	for _, c := range cases {
		row := CurveRow{AMC: c.amc, TC: c.tc}
		for _, i := range cols {
			pt := &c.sweep.Points[i]
			row.Points = append(row.Points, At{true, pt.Deadlocked(), pt.Makespan()})
		}
		cv.Rows = append(cv.Rows, row)
	}
	return cv
}

// series is R_R(t) and the queues under autoadmin and autoadmin+ for one
// setting, seed 1, from the controllers' reports; nil when the setting was
// not run or a controller has no report.
func series(cases []*workloadCase, amc, tc int64) *Series {
	var c *workloadCase
	for _, x := range cases {
		if x.amc == amc && x.tc == tc {
			c = x
		}
	}
	if c == nil {
		return nil
	}
	reps := make([]aa.Report, 0, 2)
	for _, spec := range []string{"autoadmin", "autoadmin+"} {
		rep, ok := with(c.sweep, spec).Report.(aa.Report)
		if !ok {
			return nil
		}
		reps = append(reps, rep)
	}
	s := &Series{AMC: amc, TC: tc}
	for _, t := range []float64{0, 5, 10, 20, 40, 60, 80, 100, 120, 160, 200} {
		row := SeriesRow{T: t}
		for _, rep := range reps {
			cell := SeriesCell{}
			if k := sort.SearchFloat64s(rep.Series.T, t+1e-9) - 1; k >= 0 {
				cell = SeriesCell{true, rep.Series.Reserve["vcores"][k], rep.Series.Admitted[k], rep.Series.Waiting[k]}
			}
			row.Cells = append(row.Cells, cell)
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

func heterogeneous(hetero []*workloadCase) *Hetero {
	h := &Hetero{}
	for _, c := range hetero {
		res := c.sweep
		a, ap := with(res, "autoadmin"), with(res, "autoadmin+")
		h.Rows = append(h.Rows, HeteroRow{Exp: c.exp, Best: bestRange(res), MMin: mmin(res), Paper: paperHetero[c.exp-1],
			Literal: score(res, with(res, literal)),
			Default: HomoCell{a.Makespan(), score(res, a), seedRange(res, a)},
			Plus:    HomoCell{ap.Makespan(), score(res, ap), seedRange(res, ap)}})
		if a := with(res, literal); a.Deadlocked() {
			h.Dead = append(h.Dead, Dead{c.exp, a.DeadlockedSeeds, len(a.Makespans)})
		}
		if a := with(res, "autoadmin"); a.Deadlocked() {
			h.DeadDefault = append(h.DeadDefault, Dead{c.exp, a.DeadlockedSeeds, len(a.Makespans)})
		}
	}
	for _, c := range hetero {
		res := c.sweep
		if sc := res.PerfScore(with(res, "autoadmin+")); sc < 85 {
			h.Low = append(h.Low, HeteroLow{c.exp, sc, score(res, with(res, "autoadmin:hold_early=true")),
				score(res, with(res, "autoadmin:slots=true")), score(res, with(res, "autoadmin:demand=true"))})
		}
	}
	return h
}

func ablation(homo, hetero []*workloadCase) Ablation {
	var ab Ablation
	for _, ctl := range controllers {
		var hs, xs []float64
		dead := 0
		for _, c := range homo {
			w := with(c.sweep, ctl.spec)
			hs = append(hs, c.sweep.PerfScore(w))
			dead += w.DeadlockedSeeds
		}
		for _, c := range hetero {
			w := with(c.sweep, ctl.spec)
			xs = append(xs, c.sweep.PerfScore(w))
			dead += w.DeadlockedSeeds
		}
		row := AblationRow{Spec: ctl.spec, What: ctl.what, HN: len(hs), XOf: len(hetero), Deadlocks: dead}
		row.HMin, row.HMedian, row.HAbove = stats(hs)
		xs = slices.DeleteFunc(xs, math.IsNaN) // deadlocked on some seed: counted in the last column
		row.XMin, _, _ = stats(xs)
		row.XN, row.XMean = len(xs), section.Mean(xs)
		ab.Rows = append(ab.Rows, row)
	}
	for _, c := range append(append([]*workloadCase(nil), homo...), hetero...) {
		a, b := with(c.sweep, "autoadmin"), with(c.sweep, "autoadmin:scale_up=false")
		for i := range a.Makespans {
			ab.Runs++
			if a.Makespans[i] == b.Makespans[i] {
				ab.Same++
			}
		}
	}
	return ab
}

func deadlock(seeds int, homo []*workloadCase, burst []burstRun) Deadlock {
	var d Deadlock
	for _, r := range burst {
		d.Runs = append(d.Runs, BurstDemo{Policy: r.policy, Admission: r.admission, Deadlocked: r.deadlockedSeeds, Seeds: seeds,
			Completed: r.sum.JobsCompleted, Total: r.sum.JobsTotal, Makespan: r.sum.MakespanS, Stuck: stuck(r.sum)})
	}
	for _, l := range limits {
		d.LimitNames = append(d.LimitNames, l.what)
	}
	for _, c := range homo {
		row := LimitRow{AMC: c.amc, TC: c.tc}
		for i := range c.limits {
			row.Scores = append(row.Scores, score(c.sweep, &c.limits[i]))
		}
		for _, spec := range []string{literal, "autoadmin", "autoadmin+"} {
			row.Scores = append(row.Scores, score(c.sweep, with(c.sweep, spec)))
		}
		d.Limits = append(d.Limits, row)
	}
	return d
}
