package whatif

import (
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/workload"
)

// job is a completed job submitted at 0 (finish = JCT), or a job still
// running when jct is negative.
func job(id string, c metrics.Category, wait, jct float64, deadline float64) metrics.Job {
	j := metrics.Job{ID: id, Category: c}
	if jct >= 0 {
		j.Wait, j.JCT, j.Finish = fp(wait), fp(jct), fp(jct)
	}
	if deadline > 0 {
		j.Deadline = fp(deadline)
		met := jct >= 0 && jct <= deadline
		j.Met = &met
	}
	return j
}

// The check, by hand:
//
//	recorded: a small (wait 2, JCT 10), b small (4, 20), c large with a
//	          20 s deadline... (10, 100), d still running.
//	baseline: a (3, 12), b (5, 22), c (0, 80), d (1, 50).
//	small: JCT 17 against 15 (+13 %, within 15 %), wait 4 against 3
//	       (1 s, within 15 % of 15 s): not off.
//	large and deadline: JCT 80 against 100 (−20 %): off.
//	per-job |error|: 0.2, 0.1, 0.2: median 0.2. Order a, b, c in both:
//	rho 1. d is left out, still running when the recording stopped.
func TestCheckBaseline(t *testing.T) {
	rec := []metrics.Job{job("a", metrics.Small, 2, 10, 0), job("b", metrics.Small, 4, 20, 0), job("c", metrics.Large, 10, 100, 120), job("d", metrics.Large, 0, -1, 0)}
	sim := []metrics.Job{job("a", metrics.Small, 3, 12, 0), job("b", metrics.Small, 5, 22, 0), job("c", metrics.Large, 0, 80, 120), job("d", metrics.Large, 1, 50, 0)}
	c := CheckBaseline("kube-scheduler", rec, sim)
	if c.Jobs != 3 || c.TooFew || len(c.Classes) != 3 {
		t.Fatalf("%+v", c)
	}
	want := []struct {
		class           string
		n               int
		rj, sj, rw, sw  float64
		jctErr, waitErr float64
		off             bool
	}{
		{ClassSmall, 2, 15, 17, 3, 4, 17.0/15 - 1, 4.0/3 - 1, false},
		{ClassLarge, 1, 100, 80, 10, 0, -0.2, -1, true},
		{ClassDeadline, 1, 100, 80, 10, 0, -0.2, -1, true},
	}
	for i, w := range want {
		g := c.Classes[i]
		if g.Class != w.class || g.Jobs != w.n || g.RecordedJCT != w.rj || g.SimulatedJCT != w.sj || g.RecordedWait != w.rw || g.SimulatedWait != w.sw ||
			math.Abs(*g.JCTError-w.jctErr) > 1e-12 || math.Abs(*g.WaitError-w.waitErr) > 1e-12 || g.Off != w.off {
			t.Errorf("class %d: %+v, want %+v", i, g, w)
		}
	}
	if c.MedianAbsJCTError == nil || math.Abs(*c.MedianAbsJCTError-0.2) > 1e-12 || c.OrderCorr == nil || *c.OrderCorr != 1 {
		t.Errorf("median %v, rho %v", c.MedianAbsJCTError, c.OrderCorr)
	}
	if len(c.LeftOut) != 1 || c.LeftOut[0] != (Count{"still running when the recording stopped", 1}) {
		t.Errorf("left out %+v", c.LeftOut)
	}
	if len(c.Warnings) != 2 || !strings.Contains(c.Warnings[0], "off for large jobs (1): mean JCT 80.0 s simulated against 100.0 s recorded (-20 %)") {
		t.Errorf("warnings %q", c.Warnings)
	}
	// A wait error that moves JCTs by more than the tolerance is off too,
	// even with the JCT within it: small waits 4 s longer on 15 s.
	sim[0].Wait, sim[1].Wait = fp(8), fp(8)
	if c := CheckBaseline("x", rec, sim); !c.Classes[0].Off {
		t.Errorf("small waits 8 s against 3 s: %+v", c.Classes[0])
	}
	// Two jobs are too few: no correlation, and the check says so.
	c = CheckBaseline("x", rec[:2], sim[:2])
	if !c.TooFew || c.OrderCorr != nil || !strings.Contains(c.String(), "the recording is too small to check the baseline: 2 jobs") {
		t.Errorf("two jobs: %+v\n%s", c, c)
	}
	if s := c.String(); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
		t.Errorf("%s", s)
	}
}

// Each policy against the baseline, by hand: over a, b (small) and c
// (large); d is still running as recorded, e unfinished under the policy.
//
//	small: policy 8 and 12 (mean 10) against the baseline's 12 and 22
//	       (17): 41 % sooner; 15 as recorded.
//	large: policy 90 against 80: 12 % longer; 100 as recorded.
//	deadline (c, 120 s): met everywhere: as many deadlines met.
func TestCompare(t *testing.T) {
	rec := []metrics.Job{job("a", metrics.Small, 2, 10, 0), job("b", metrics.Small, 4, 20, 0), job("c", metrics.Large, 10, 100, 120),
		job("d", metrics.Large, 0, -1, 0), job("e", metrics.Small, 1, 5, 0)}
	base := []metrics.Job{job("a", metrics.Small, 3, 12, 0), job("b", metrics.Small, 5, 22, 0), job("c", metrics.Large, 0, 80, 120),
		job("d", metrics.Large, 1, 50, 0), job("e", metrics.Small, 1, 5, 0)}
	pol := []metrics.Job{job("a", metrics.Small, 1, 8, 0), job("b", metrics.Small, 1, 12, 0), job("c", metrics.Large, 0, 90, 120),
		job("d", metrics.Large, 1, 50, 0), job("e", metrics.Small, 0, -1, 0)}
	recSum := &metrics.Summary{Policy: PolicyName, UtilizationAvg: 0.5}
	baseSum := &metrics.Summary{Policy: "kube-scheduler", UtilizationAvg: 0.6, JobsTotal: 5, JobsCompleted: 5}
	polSum := &metrics.Summary{Policy: "fair", UtilizationAvg: 0.7, JobsTotal: 5, JobsCompleted: 4}
	c := Compare(rec, base, pol, recSum, baseSum, polSum)
	want := "fair against kube-scheduler simulated, over the same 3 jobs: small jobs finish 41 % sooner (10.0 s on average against 17.0 s under kube-scheduler; 15.0 s as recorded); " +
		"large jobs take 12 % longer (90.0 s on average against 80.0 s under kube-scheduler; 100.0 s as recorded); " +
		"as many deadlines met (100 % of deadlines met against 100 % under kube-scheduler; 100 % as recorded); " +
		"utilization rises to 0.70 (0.60 under kube-scheduler, 0.50 as recorded). " +
		"Left out: 1 still running when the recording stopped, 1 unfinished under fair. 1 of 5 jobs do not finish under fair."
	if c.Sentence != want {
		t.Errorf("got  %s\nwant %s", c.Sentence, want)
	}
	// The baseline's own sentence states its error and claims no effect.
	b := Compare(rec, base, base, recSum, baseSum, baseSum)
	for _, s := range []string{"kube-scheduler (the baseline, the model of the recorded run): small jobs 13.0 s on average against 11.7 s as recorded (+11 %)",
		"large jobs 80.0 s on average against 100.0 s as recorded (-20 %)", "not a policy's effect", "over 4 jobs"} {
		if !strings.Contains(b.Sentence, s) {
			t.Errorf("%q lacks %q", b.Sentence, s)
		}
	}
	for _, s := range []string{"sooner", "longer", "rises", "falls"} {
		if strings.Contains(b.Sentence, s) {
			t.Errorf("the baseline's sentence claims an effect (%q): %s", s, b.Sentence)
		}
	}
}

func TestContended(t *testing.T) {
	a := []metrics.Job{job("a", metrics.Small, 0, 10, 0), job("b", metrics.Small, 0, -1, 0)}
	same := []metrics.Job{job("a", metrics.Small, 0, 10, 0), job("b", metrics.Small, 0, -1, 0)}
	other := []metrics.Job{job("a", metrics.Small, 0, 11, 0), job("b", metrics.Small, 0, -1, 0)}
	if Contended(a, same) || !Contended(a, other) || !Contended(a, same, other) || !Contended(a) {
		t.Error("Contended")
	}
}

// A recording in which jobs still ran: utilization over the recorded span,
// never NaN; none finished: still a number.
func TestSummarizeUnfinished(t *testing.T) {
	w, err := workload.Parse([]byte(recordedDoc), "rec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// b (1 vcore from 2 s, ran 5 s of its task) still running; a as before.
	w.Jobs[1].Recorded.Finished = -1
	w.Jobs[1].Phases[0].Unfinished = 1
	o, err := AsRecorded(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs := metrics.Jobs(w, o)
	s := Summarize(w, o, jobs, metrics.Run{Policy: PolicyName})
	// Held over [0, 12], the same 37.5 vcore-s of 4 as when b finished
	// (its task ran to 8 either way): 0.78125 over the 12 s span.
	if s.SpanS == nil || *s.SpanS != 12 || math.Abs(s.UtilizationAvg-0.78125) > 1e-9 || s.Deadlocked {
		t.Errorf("span %v, utilization %v, deadlocked %v", s.SpanS, s.UtilizationAvg, s.Deadlocked)
	}
	w.Jobs[0].Recorded.Finished = -1
	w.Jobs[0].Phases[0].Unfinished = 2
	o, _ = AsRecorded(w, nil)
	jobs = metrics.Jobs(w, o)
	s = Summarize(w, o, jobs, metrics.Run{Policy: PolicyName})
	if math.IsNaN(s.UtilizationAvg) || s.UtilizationAvg <= 0 || s.JobsCompleted != 0 {
		t.Errorf("nothing finished: utilization %v, completed %d", s.UtilizationAvg, s.JobsCompleted)
	}
}
