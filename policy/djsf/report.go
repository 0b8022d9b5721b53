package djsf

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/sched"
)

// launchSet is a job set as it ran: the jobs that got their first container
// while the same plan placed them in the same set.
type launchSet struct {
	plan, index int32
	span, eff   float64 // predicted by the plan
	jobs        []string
	done        int
	start, end  clock.Time
}

// launch attributes j to the set the current plan puts it in.
func (p *Policy) launch(j *sched.Job) {
	k := p.keys[j.ID()]
	index := k.set
	if index == unplanned || index == noEstimate {
		index = -1
	}
	id := [2]int32{k.plan, index}
	i, ok := p.launchAt[id]
	if !ok {
		ls := launchSet{plan: k.plan, index: index, start: -1, end: -1}
		if index >= 0 && int(k.plan) == p.plans && int(index) < len(p.sets) {
			ls.span, ls.eff = p.sets[index].Span, p.sets[index].Efficiency
		}
		i = len(p.launched)
		p.launched = append(p.launched, ls)
		p.launchAt[id] = i
	}
	p.jobSet[j.ID()] = int32(i)
	ls := &p.launched[i]
	ls.jobs = append(ls.jobs, j.Key())
}

// finished records a job's completion in its launch set.
func (p *Policy) finished(j *sched.Job) {
	i := p.jobSet[j.ID()]
	if i < 0 || j.LastCompleted() < 0 {
		return
	}
	ls := &p.launched[i]
	ls.done++
	if t := j.FirstRunning(); t >= 0 && (ls.start < 0 || t < ls.start) {
		ls.start = t
	}
	ls.end = max(ls.end, j.LastCompleted())
}

// SetReport is one launched job set in the --json report.
type SetReport struct {
	Plan  int      `json:"plan"`
	Index int      `json:"index"` // rank in its plan; -1: started outside a plan (arrived since the last one, or no estimate)
	Jobs  []string `json:"jobs"`
	// PredictedSpanS and PredictedEfficiency are the plan's: the largest
	// predicted JCT in the set and |S| / span (with density "area", the
	// set's jobs per unit of cluster-time instead).
	PredictedSpanS      float64 `json:"predicted_span_s"`
	PredictedEfficiency float64 `json:"predicted_efficiency"`
	// SpanS is from the set's first task start to its last completion and
	// Efficiency is |S| / SpanS, as observed; null until every job is done.
	SpanS      *float64 `json:"span_s"`
	Efficiency *float64 `json:"efficiency"`
}

// Report is the "djsf" section of a run's JSON summary.
type Report struct {
	K        int     `json:"k"` // 0: AutoK per plan
	ReplanS  float64 `json:"replan_s"`
	Strict   bool    `json:"strict"`
	Progress bool    `json:"progress"`
	Density  string  `json:"density"` // "span" (jobs/s) or "area" (jobs per cluster-second)
	Plans    int     `json:"plans"`
	// Sets are the job sets in the order they launched their first job.
	Sets []SetReport `json:"sets"`
	// EfficiencyAvg is the mean observed efficiency of the completed sets.
	EfficiencyAvg *float64 `json:"efficiency_avg"`
}

// Report implements sched.Reporter.
func (p *Policy) Report() (string, any) {
	r := Report{K: p.cfg.K, ReplanS: p.cfg.Replan.Seconds(), Strict: p.cfg.Strict, Progress: p.cfg.Progress,
		Density: "span", Plans: p.plans, Sets: []SetReport{}}
	if p.cfg.Area {
		r.Density = "area"
	}
	sum, n := 0.0, 0
	for i := range p.launched {
		ls := &p.launched[i]
		sr := SetReport{Plan: int(ls.plan), Index: int(ls.index), Jobs: ls.jobs,
			PredictedSpanS: round(ls.span), PredictedEfficiency: round(ls.eff)}
		if ls.done == len(ls.jobs) && ls.start >= 0 && ls.end > ls.start {
			span := ls.end.Sub(ls.start).Seconds()
			eff := float64(ls.done) / span
			sr.SpanS, sr.Efficiency = &span, &eff
			sum += eff
			n++
		}
		r.Sets = append(r.Sets, sr)
	}
	if n > 0 {
		avg := sum / float64(n)
		r.EfficiencyAvg = &avg
	}
	return "djsf", r
}

// round keeps the report readable: predictions to a microsecond's worth of
// digits.
func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }
