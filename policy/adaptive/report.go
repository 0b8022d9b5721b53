package adaptive

// Report is what `--json` shows of the scheduler's internals.
type Report struct {
	CycleS float64 `json:"cycle_s"`
	// LookaheadS is how far Reverse-Adaptive keeps room for the forecast
	// load; absent for Adaptive.
	LookaheadS *float64 `json:"lookahead_s,omitempty"`
	// Forecast says whether a load forecast was known at all.
	Forecast bool `json:"forecast"`
	Cycles   int  `json:"cycles"`
	// Plans counts needs and placements computed: every cycle, and when
	// a job with a goal starts.
	Plans int `json:"plans"`
	// Projections compares each job's projected completion at its first
	// cycle with the actual one; jobs that finished before any cycle are
	// counted apart.
	Projections      *EstimateStats `json:"completion_projection,omitempty"`
	FinishedUncycled int            `json:"jobs_finished_before_a_cycle,omitempty"`
}

// Report names the section after the scheme.
func (p *Policy) Report() (string, any) {
	r := Report{CycleS: p.cfg.Cycle.Seconds(), Forecast: p.forecast != nil, Cycles: p.cycles, Plans: p.plans}
	name := "adaptive"
	if p.cfg.Mode == Reverse {
		name = "reverse_adaptive"
		la := p.cfg.Lookahead.Seconds()
		r.LookaheadS = &la
	}
	if p.cfg.Project {
		st := SummarizeEstimates(p.estimates)
		r.Projections = &st
		r.FinishedUncycled = p.unprojected
	}
	return name, r
}

// Estimates returns each finished job's projection, in completion order.
func (p *Policy) Estimates() []Estimate { return p.estimates }
