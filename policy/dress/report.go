package dress

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/spindle-sched/spindle/clock"
)

// maxSeries bounds the recorded per-interval series: past it, every other
// point is dropped and the recording stride doubles, so a long run keeps an
// evenly spaced sample of at most this many points.
const maxSeries = 1000

// recorder keeps what the report shows: δ over time, which branch of
// Algorithm 3 ran, and for every adjustment interval the releases the
// estimator predicted over the horizon against the task containers actually
// observed COMPLETED in it.
type recorder struct {
	lastT            clock.Time
	lastDelta        float64
	area             float64 // ∫ δ dt, in δ·µs
	minDelta         float64
	maxDelta         float64
	adjustments      int
	branches         [numBranches]int
	categories       [2]int
	open             []window
	n                int // windows counted for accuracy
	sumAbs, sumPred  float64
	sumActual        float64
	nPersist         int
	sumAbsPersist    float64
	done             []window // recently finished windows, for persistence
	series           []Point
	every, windowsIn int
}

type window struct {
	start, end clock.Time
	delta      float64
	predicted  float64
	actual     int
	active     bool // task containers were running when it opened
}

// Point is one adjustment interval: δ from its start, and the task
// containers predicted to be, and actually, released over the horizon.
type Point struct {
	T         float64 `json:"t_s"`
	Delta     float64 `json:"delta"`
	Predicted float64 `json:"predicted"`
	Actual    int     `json:"actual"`
}

// UnmarshalJSON reads a point back (the report reads a saved summary.json
// with this type), insisting on all four members: a point missing one is
// not one this policy wrote, and a zero in its place would draw a wrong
// chart rather than fail.
func (p *Point) UnmarshalJSON(b []byte) error {
	var raw struct {
		T         *float64 `json:"t_s"`
		Delta     *float64 `json:"delta"`
		Predicted *float64 `json:"predicted"`
		Actual    *int     `json:"actual"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.T == nil || raw.Delta == nil || raw.Predicted == nil || raw.Actual == nil {
		return errors.New("want t_s, delta, predicted and actual")
	}
	*p = Point{T: *raw.T, Delta: *raw.Delta, Predicted: *raw.Predicted, Actual: *raw.Actual}
	return nil
}

func (r *recorder) init(delta0 float64) {
	r.lastDelta, r.minDelta, r.maxDelta, r.every = delta0, delta0, delta0, 1
}

func (r *recorder) classified(c Category) { r.categories[c]++ }

// released counts a task container observed COMPLETED at time at into every
// open window that covers it.
func (r *recorder) released(at clock.Time) {
	for i := range r.open {
		if w := &r.open[i]; w.start <= at && at <= w.end {
			w.actual++
		}
	}
}

// closeWindows finalises the windows whose horizon has passed.
func (r *recorder) closeWindows(now clock.Time) {
	k := 0
	for _, w := range r.open {
		if w.end > now {
			r.open[k] = w
			k++
			continue
		}
		r.finish(w)
	}
	r.open = r.open[:k]
}

func (r *recorder) finish(w window) {
	// Intervals when nothing ran and nothing was released or predicted
	// would only dilute the error.
	if w.active || w.actual > 0 || w.predicted > 0 {
		r.n++
		r.sumAbs += math.Abs(w.predicted - float64(w.actual))
		r.sumPred += w.predicted
		r.sumActual += float64(w.actual)
		// Persistence predicts the releases of the latest horizon that
		// was complete when the interval began.
		for i := len(r.done) - 1; i >= 0; i-- {
			if r.done[i].end <= w.start {
				r.nPersist++
				r.sumAbsPersist += math.Abs(float64(r.done[i].actual - w.actual))
				break
			}
		}
	}
	r.done = append(r.done, w)
	// Keep only what a later window may still look back to.
	if k := len(r.done) - 1; r.done[0].end <= w.start-(w.end-w.start) && k > 0 {
		r.done = append(r.done[:0], r.done[1:]...)
	}
	if r.windowsIn%r.every == 0 {
		if len(r.series) == maxSeries {
			k := 0
			for i := 0; i < len(r.series); i += 2 {
				r.series[k] = r.series[i]
				k++
			}
			r.series = r.series[:k]
			r.every *= 2
		}
		if r.windowsIn%r.every == 0 {
			r.series = append(r.series, Point{T: w.start.Seconds(), Delta: round6(w.delta), Predicted: round6(w.predicted), Actual: w.actual})
		}
	}
	r.windowsIn++
}

// adjusted records an adjustment at now and opens its prediction window.
func (r *recorder) adjusted(now clock.Time, delta float64, b Branch, predicted float64, h clock.Duration, active bool) {
	r.area += r.lastDelta * float64(now-r.lastT)
	r.lastT, r.lastDelta = now, delta
	r.minDelta, r.maxDelta = min(r.minDelta, delta), max(r.maxDelta, delta)
	r.adjustments++
	r.branches[b]++
	r.open = append(r.open, window{start: now, end: now.Add(h), delta: delta, predicted: predicted, active: active})
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// Report is the "dress" section of a run's JSON summary: the policy writes
// it (Policy.Report) and the report package reads it back from summary.json
// to draw the section's charts, so this is its one declaration.
type Report struct {
	Variant   string  `json:"variant"`
	Theta     float64 `json:"theta"`
	Classify  string  `json:"classify"`
	Estimator bool    `json:"estimator"`
	IntervalS float64 `json:"interval_s"`
	HorizonS  float64 `json:"horizon_s"`
	// The dress+ settings, absent when they are the faithful scheme's.
	Release string  `json:"release,omitempty"`
	Demand  string  `json:"demand,omitempty"`
	Lend    bool    `json:"lend,omitempty"`
	Floor   float64 `json:"floor,omitempty"`
	// SmallJobs and LargeJobs count the jobs by DRESS's own
	// classification at submission.
	SmallJobs int         `json:"small_jobs"`
	LargeJobs int         `json:"large_jobs"`
	Delta     DeltaReport `json:"delta"`
	// Adjustments counts the runs of Algorithm 3, Branches which case
	// each took.
	Adjustments int            `json:"adjustments"`
	Branches    map[string]int `json:"branches"`
	Accuracy    Accuracy       `json:"estimator_accuracy"`
	// Series holds every SeriesEvery-th adjustment interval.
	SeriesEvery int     `json:"series_every"`
	Series      []Point `json:"series"`
}

// DeltaReport summarises the reserve ratio over the run.
type DeltaReport struct {
	Initial float64 `json:"initial"`
	Final   float64 `json:"final"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Mean    float64 `json:"mean"` // time-average
	Lo      float64 `json:"clamp_min"`
	Hi      float64 `json:"clamp_max"`
}

// Accuracy compares the predicted releases over each interval's horizon with
// the task containers actually released in it, in containers, over the
// intervals when tasks ran. MAEZero is the error of always predicting no
// releases (the mean actual releases) and MAEPersistence that of predicting
// the previous interval's releases, as yardsticks.
type Accuracy struct {
	Intervals      int     `json:"intervals"`
	MAE            float64 `json:"mae"`
	MAEZero        float64 `json:"mae_zero"`
	MAEPersistence float64 `json:"mae_persistence"`
	PredictedMean  float64 `json:"predicted_mean"`
	ActualMean     float64 `json:"actual_mean"`
}

func (r *recorder) report(p *Policy) Report {
	now := p.v.Now()
	area := r.area + r.lastDelta*float64(now-r.lastT)
	mean := r.lastDelta
	if now > 0 {
		mean = area / float64(now)
	}
	classify := "total"
	if p.cfg.ClassifyAvailable {
		classify = "available"
	}
	rep := Report{
		Variant: p.cfg.Variant, Theta: p.cfg.Theta, Classify: classify, Estimator: p.cfg.Estimator,
		IntervalS: p.cfg.Interval.Seconds(), HorizonS: p.horizon.Seconds(),
		SmallJobs: r.categories[SD], LargeJobs: r.categories[LD],
		Delta: DeltaReport{Initial: p.cfg.Delta0, Final: round6(p.delta), Min: round6(r.minDelta), Max: round6(r.maxDelta),
			Mean: round6(mean), Lo: p.cfg.DeltaMin, Hi: p.cfg.DeltaMax},
		Adjustments: r.adjustments, Branches: map[string]int{},
		SeriesEvery: r.every, Series: r.series,
	}
	if p.cfg.Release != ReleasePaper {
		rep.Release = p.cfg.Release
	}
	if p.cfg.Usable {
		rep.Demand = "usable"
	}
	rep.Lend, rep.Floor = p.cfg.Lend, p.cfg.Floor
	for b, n := range r.branches {
		rep.Branches[Branch(b).String()] = n
	}
	if rep.Series == nil {
		rep.Series = []Point{}
	}
	if r.n > 0 {
		n := float64(r.n)
		rep.Accuracy = Accuracy{Intervals: r.n, MAE: round6(r.sumAbs / n), MAEZero: round6(r.sumActual / n),
			PredictedMean: round6(r.sumPred / n), ActualMean: round6(r.sumActual / n)}
		if r.nPersist > 0 {
			rep.Accuracy.MAEPersistence = round6(r.sumAbsPersist / float64(r.nPersist))
		}
	}
	return rep
}
