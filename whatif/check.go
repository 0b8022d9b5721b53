package whatif

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/workload"
)

// ClassTolerance is how far the baseline's mean JCT of a class may be
// from the recording's before whatif warns that the class is off: past
// it, a policy's predicted effect on that class is of the size of the
// model's own error.
const ClassTolerance = 0.15

// MinJobs is the fewest jobs completed both as recorded and under the
// baseline that the baseline can be checked on: a rank correlation over
// one or two jobs is undefined or ±1, and proves nothing.
const MinJobs = 3

// Class names a class of jobs in the check: the DRESS rule's small and
// large, and the jobs with a deadline.
const (
	ClassSmall    = "small"
	ClassLarge    = "large"
	ClassDeadline = "deadline"
)

// ClassCheck is one class's figures under the baseline against the
// recording's, over the same jobs (those completed in both).
type ClassCheck struct {
	Class string `json:"class"`
	Jobs  int    `json:"jobs"`
	// Mean JCT and wait (submission to first task running), seconds.
	RecordedJCT  float64 `json:"recorded_jct_avg_s"`
	SimulatedJCT float64 `json:"simulated_jct_avg_s"`
	// JCTError is simulated / recorded − 1; null when the recorded mean
	// is 0.
	JCTError      *float64 `json:"jct_error"`
	RecordedWait  float64  `json:"recorded_wait_avg_s"`
	SimulatedWait float64  `json:"simulated_wait_avg_s"`
	WaitError     *float64 `json:"wait_error"`
	// Off is set when the class's mean JCT is more than ClassTolerance
	// off, or its mean wait is off by more than ClassTolerance of its
	// recorded mean JCT (an error in waits that moves JCTs that much).
	Off bool `json:"off"`
}

// Count is a number of jobs for one reason.
type Count struct {
	Reason string `json:"reason"`
	N      int    `json:"jobs"`
}

// Check is the baseline's agreement with the recording, class by class.
type Check struct {
	Baseline string       `json:"baseline"`
	Jobs     int          `json:"jobs_compared"`
	Classes  []ClassCheck `json:"classes"`
	// MedianAbsJCTError is the median over the jobs of |simulated JCT /
	// recorded JCT − 1|.
	MedianAbsJCTError *float64 `json:"median_abs_jct_error"`
	// OrderCorr is Spearman's rho of the jobs' completion times; null
	// when there are too few jobs.
	OrderCorr *float64 `json:"completion_order_spearman"`
	// TooFew is set when fewer than MinJobs jobs completed in both: the
	// recording is too small to check the baseline on.
	TooFew  bool    `json:"too_few_jobs"`
	LeftOut []Count `json:"left_out"`
	// Warnings say which classes are off, and by how much.
	Warnings []string `json:"warnings"`
}

// CheckBaseline compares the baseline's per-job results with the
// recording's over the jobs completed in both.
func CheckBaseline(baseline string, rec, sim []metrics.Job) Check {
	c := Check{Baseline: baseline, Classes: []ClassCheck{}, LeftOut: []Count{}, Warnings: []string{}}
	simByID := byID(sim)
	type acc struct {
		n                      int
		recJ, simJ, recW, simW float64
	}
	classes := map[string]*acc{ClassSmall: {}, ClassLarge: {}, ClassDeadline: {}}
	var errs, x, y []float64
	var left leftOut
	for i := range rec {
		r := &rec[i]
		s, ok := simByID[r.ID]
		switch {
		case r.JCT == nil:
			left.add("still running when the recording stopped")
			continue
		case !ok || s.JCT == nil:
			left.add("unfinished in the baseline's simulation")
			continue
		}
		c.Jobs++
		x, y = append(x, *r.Finish), append(y, *s.Finish)
		if *r.JCT > 0 {
			errs = append(errs, math.Abs(*s.JCT / *r.JCT - 1))
		}
		for _, name := range jobClasses(r) {
			a := classes[name]
			a.n++
			a.recJ += *r.JCT
			a.simJ += *s.JCT
			a.recW += val(r.Wait)
			a.simW += val(s.Wait)
		}
	}
	c.LeftOut = left.counts()
	for _, name := range []string{ClassSmall, ClassLarge, ClassDeadline} {
		a := classes[name]
		if a.n == 0 {
			continue
		}
		n := float64(a.n)
		cc := ClassCheck{Class: name, Jobs: a.n, RecordedJCT: a.recJ / n, SimulatedJCT: a.simJ / n, RecordedWait: a.recW / n, SimulatedWait: a.simW / n}
		cc.JCTError = ratioError(cc.SimulatedJCT, cc.RecordedJCT)
		cc.WaitError = ratioError(cc.SimulatedWait, cc.RecordedWait)
		jctOff := cc.JCTError != nil && math.Abs(*cc.JCTError) > ClassTolerance
		waitOff := cc.RecordedJCT > 0 && math.Abs(cc.SimulatedWait-cc.RecordedWait) > ClassTolerance*cc.RecordedJCT
		cc.Off = jctOff || waitOff
		if cc.Off {
			w := fmt.Sprintf("the baseline is off for %s jobs (%d): mean JCT %.1f s simulated against %.1f s recorded (%s), mean wait %.1f s against %.1f s",
				name, a.n, cc.SimulatedJCT, cc.RecordedJCT, pct(cc.JCTError), cc.SimulatedWait, cc.RecordedWait)
			c.Warnings = append(c.Warnings, w+": a policy's effect on them smaller than that is within the model's error")
		}
		c.Classes = append(c.Classes, cc)
	}
	if len(errs) > 0 {
		sort.Float64s(errs)
		m := errs[len(errs)/2]
		if len(errs)%2 == 0 {
			m = (errs[len(errs)/2-1] + errs[len(errs)/2]) / 2
		}
		c.MedianAbsJCTError = &m
	}
	if c.Jobs < MinJobs {
		c.TooFew = true
	} else if rho := metrics.Spearman(x, y); !math.IsNaN(rho) && !math.IsInf(rho, 0) {
		c.OrderCorr = &rho
	}
	return c
}

// String is the check for a person: one line per class, then the
// per-job error and the rank correlation, or why there are none.
func (c Check) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "baseline check: %s simulated against the recording, over the %d jobs completed in both", c.Baseline, c.Jobs)
	if n := total(c.LeftOut); n > 0 {
		fmt.Fprintf(&b, " (%s left out)", describe(c.LeftOut))
	}
	b.WriteString(":\n")
	for _, cc := range c.Classes {
		mark := ""
		if cc.Off {
			mark = "  OFF"
		}
		fmt.Fprintf(&b, "  %-8s %3d jobs: mean JCT %.1f s against %.1f s recorded (%s); mean wait %.1f s against %.1f s (%s)%s\n",
			cc.Class, cc.Jobs, cc.SimulatedJCT, cc.RecordedJCT, pct(cc.JCTError), cc.SimulatedWait, cc.RecordedWait, pct(cc.WaitError), mark)
	}
	if c.TooFew {
		fmt.Fprintf(&b, "  the recording is too small to check the baseline: %d jobs completed both as recorded and simulated (at least %d are needed for a rank correlation that means anything)\n", c.Jobs, MinJobs)
		return b.String()
	}
	if c.MedianAbsJCTError != nil {
		fmt.Fprintf(&b, "  median per-job JCT error %.1f %%", 100**c.MedianAbsJCTError)
	}
	if c.OrderCorr != nil {
		fmt.Fprintf(&b, "; completion order rank correlation %.2f", *c.OrderCorr)
	}
	b.WriteString("\n")
	return b.String()
}

// Comparison is one policy against the simulated baseline over the same
// jobs, with the recorded figures beside: the model's own error cancels
// from the policy's effect, and the recording says where the baseline
// stood.
type Comparison struct {
	Policy   string            `json:"policy"`
	Baseline string            `json:"baseline"`
	Jobs     int               `json:"jobs_compared"`
	LeftOut  []Count           `json:"left_out"`
	Classes  []ClassComparison `json:"classes"`
	// Deadlines met, over the compared jobs with a deadline; null when
	// none has one.
	DeadlinesMet         *float64 `json:"deadlines_met"`
	BaselineDeadlinesMet *float64 `json:"baseline_deadlines_met"`
	RecordedDeadlinesMet *float64 `json:"recorded_deadlines_met"`
	// Utilization over each whole run.
	Utilization         float64 `json:"utilization"`
	BaselineUtilization float64 `json:"baseline_utilization"`
	RecordedUtilization float64 `json:"recorded_utilization"`
	Sentence            string  `json:"sentence"`
}

// ClassComparison is one class's mean JCT under the policy, the baseline
// and as recorded, over the same jobs.
type ClassComparison struct {
	Class       string   `json:"class"`
	Jobs        int      `json:"jobs"`
	JCT         float64  `json:"jct_avg_s"`
	BaselineJCT float64  `json:"baseline_jct_avg_s"`
	RecordedJCT float64  `json:"recorded_jct_avg_s"`
	Change      *float64 `json:"change"` // policy / baseline − 1
}

// Compare sets a policy's run against the baseline's over the jobs
// completed as recorded, under the baseline and under the policy, and
// says it in a sentence. For the baseline itself (pol the baseline's
// jobs), the sentence states the model's error and claims no effect.
func Compare(rec, base, pol []metrics.Job, recSum, baseSum, polSum *metrics.Summary) Comparison {
	isBase := polSum.Policy == baseSum.Policy
	cmp := Comparison{Policy: polSum.Policy, Baseline: baseSum.Policy, LeftOut: []Count{}, Classes: []ClassComparison{},
		Utilization: polSum.UtilizationAvg, BaselineUtilization: baseSum.UtilizationAvg, RecordedUtilization: recSum.UtilizationAvg}
	bBy, pBy := byID(base), byID(pol)
	type acc struct{ n, sum, bsum, rsum float64 }
	classes := map[string]*acc{ClassSmall: {}, ClassLarge: {}}
	var dl struct{ n, met, bmet, rmet int }
	var left leftOut
	for i := range rec {
		r := &rec[i]
		b, bok := bBy[r.ID]
		p, pok := pBy[r.ID]
		switch {
		case r.JCT == nil:
			left.add("still running when the recording stopped")
			continue
		case !bok || b.JCT == nil:
			left.add("unfinished under the baseline " + baseSum.Policy)
			continue
		case !isBase && (!pok || p.JCT == nil):
			left.add("unfinished under " + polSum.Policy)
			continue
		}
		cmp.Jobs++
		a := classes[string(r.Category)]
		if a != nil {
			a.n++
			a.sum += *p.JCT
			a.bsum += *b.JCT
			a.rsum += *r.JCT
		}
		if r.Met != nil && b.Met != nil && p.Met != nil {
			dl.n++
			dl.met += btoi(*p.Met)
			dl.bmet += btoi(*b.Met)
			dl.rmet += btoi(*r.Met)
		}
	}
	cmp.LeftOut = left.counts()
	var parts []string
	for _, name := range []string{ClassSmall, ClassLarge} {
		a := classes[name]
		if a.n == 0 {
			parts = append(parts, "no "+name+" jobs")
			continue
		}
		cc := ClassComparison{Class: name, Jobs: int(a.n), JCT: a.sum / a.n, BaselineJCT: a.bsum / a.n, RecordedJCT: a.rsum / a.n}
		cc.Change = ratioError(cc.JCT, cc.BaselineJCT)
		cmp.Classes = append(cmp.Classes, cc)
		if isBase {
			parts = append(parts, fmt.Sprintf("%s jobs %.1f s on average against %.1f s as recorded (%s)", name, cc.BaselineJCT, cc.RecordedJCT, pct(ratioError(cc.BaselineJCT, cc.RecordedJCT))))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%.1f s on average against %.1f s under %s; %.1f s as recorded)",
			change(name+" jobs", cc.Change), cc.JCT, cc.BaselineJCT, baseSum.Policy, cc.RecordedJCT))
	}
	if dl.n > 0 {
		f := func(n int) *float64 { v := float64(n) / float64(dl.n); return &v }
		cmp.DeadlinesMet, cmp.BaselineDeadlinesMet, cmp.RecordedDeadlinesMet = f(dl.met), f(dl.bmet), f(dl.rmet)
		if isBase {
			parts = append(parts, fmt.Sprintf("%.0f %% of deadlines met against %.0f %% as recorded", 100**cmp.BaselineDeadlinesMet, 100**cmp.RecordedDeadlinesMet))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%.0f %% of deadlines met against %.0f %% under %s; %.0f %% as recorded)",
				moreOrFewer(*cmp.DeadlinesMet-*cmp.BaselineDeadlinesMet, "deadlines met"), 100**cmp.DeadlinesMet, 100**cmp.BaselineDeadlinesMet, baseSum.Policy, 100**cmp.RecordedDeadlinesMet))
		}
	} else {
		parts = append(parts, "no job has a deadline")
	}
	if isBase {
		parts = append(parts, fmt.Sprintf("utilization %.2f against %.2f as recorded", cmp.BaselineUtilization, cmp.RecordedUtilization))
	} else {
		du := cmp.Utilization - cmp.BaselineUtilization
		verb := "utilization stays at"
		switch {
		case du > 0.005:
			verb = "utilization rises to"
		case du < -0.005:
			verb = "utilization falls to"
		}
		parts = append(parts, fmt.Sprintf("%s %.2f (%.2f under %s, %.2f as recorded)", verb, cmp.Utilization, cmp.BaselineUtilization, baseSum.Policy, cmp.RecordedUtilization))
	}
	var b strings.Builder
	if isBase {
		fmt.Fprintf(&b, "%s (the baseline, the model of the recorded run): %s; over %d jobs. These differences are the model's error, not a policy's effect.",
			polSum.Policy, strings.Join(parts, "; "), cmp.Jobs)
	} else {
		fmt.Fprintf(&b, "%s against %s simulated, over the same %d jobs: %s.", polSum.Policy, baseSum.Policy, cmp.Jobs, strings.Join(parts, "; "))
	}
	if n := total(cmp.LeftOut); n > 0 {
		fmt.Fprintf(&b, " Left out: %s.", describe(cmp.LeftOut))
	}
	if !isBase && polSum.JobsCompleted < polSum.JobsTotal {
		fmt.Fprintf(&b, " %d of %d jobs do not finish under %s.", polSum.JobsTotal-polSum.JobsCompleted, polSum.JobsTotal, polSum.Policy)
	}
	cmp.Sentence = b.String()
	return cmp
}

// Contended reports whether any simulated run differs from another in
// any job's finish: when none does, no job ever waited for room that
// another's scheduling could have given it, and policies cannot differ on
// the recording.
func Contended(runs ...[]metrics.Job) bool {
	if len(runs) < 2 {
		return true
	}
	first := byID(runs[0])
	for _, r := range runs[1:] {
		if len(r) != len(first) {
			return true
		}
		for i := range r {
			f, ok := first[r[i].ID]
			if !ok || (f.Finish == nil) != (r[i].Finish == nil) || f.Finish != nil && math.Abs(*f.Finish-*r[i].Finish) > 1e-3 {
				return true
			}
		}
	}
	return false
}

// NotContended is what whatif says when no run differs from another.
const NotContended = "no job waited for resources in this recording: every policy gives every job the same finish, so policies cannot differ on it"

// Summarize is metrics.Summarize for the recorded run, with its
// utilization over the recorded span (from the first submission to the
// last time recorded) whenever jobs were still running when the recording
// stopped: the span the recording covers, not the part up to the last
// finished job (which is nothing when none finished).
func Summarize(w *workload.Workload, o *metrics.Outcome, jobs []metrics.Job, run metrics.Run) *metrics.Summary {
	s := metrics.Summarize(w, o, jobs, run)
	if len(o.Stuck) == 0 {
		return s
	}
	first := math.Inf(1)
	for _, j := range jobs {
		first = math.Min(first, j.Submit)
	}
	span := o.End.Seconds() - first
	if math.IsInf(first, 0) || span <= 0 {
		s.UtilizationAvg = 0
		return s
	}
	s.SpanS = &span
	s.UtilizationAvg = o.EndArea / 1e6 / span
	return s
}

type leftOut struct {
	order []string
	n     map[string]int
}

func (l *leftOut) add(reason string) {
	if l.n == nil {
		l.n = map[string]int{}
	}
	if l.n[reason] == 0 {
		l.order = append(l.order, reason)
	}
	l.n[reason]++
}

func (l *leftOut) counts() []Count {
	out := []Count{}
	for _, r := range l.order {
		out = append(out, Count{r, l.n[r]})
	}
	return out
}

func total(cs []Count) int {
	n := 0
	for _, c := range cs {
		n += c.N
	}
	return n
}

func describe(cs []Count) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Reason))
	}
	return strings.Join(parts, ", ")
}

func byID(js []metrics.Job) map[string]*metrics.Job {
	m := make(map[string]*metrics.Job, len(js))
	for i := range js {
		m[js[i].ID] = &js[i]
	}
	return m
}

// jobClasses are the classes a job is checked in: its category, and
// deadline when it has one.
func jobClasses(j *metrics.Job) []string {
	out := []string{string(j.Category)}
	if j.Deadline != nil {
		out = append(out, ClassDeadline)
	}
	return out
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// ratioError is x / ref − 1, nil when ref is not positive.
func ratioError(x, ref float64) *float64 {
	if ref <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	v := x/ref - 1
	return &v
}

func pct(e *float64) string {
	if e == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.0f %%", 100**e)
}

// change says a class's change in words: sooner, longer, or about as
// fast within 2 %.
func change(what string, d *float64) string {
	switch {
	case d == nil:
		return what + " cannot be compared"
	case math.Abs(*d) < 0.02:
		return what + " finish about as fast"
	case *d < 0:
		return fmt.Sprintf("%s finish %.0f %% sooner", what, -100**d)
	}
	return fmt.Sprintf("%s take %.0f %% longer", what, 100**d)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
