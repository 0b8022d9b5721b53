package whatif

import (
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/workload"
)

// A recorded run, hand-computed (one 4-vcore node, pods start 1 s after
// they are bound):
//
//	a: submitted 0, its AM (1 vcore) bound 0.5, tasks (1 vcore) started at
//	   2 and ran 10 s and 8 s, ended at 12: wait 2, JCT 12.
//	b: submitted 1, no AM, one task (1 vcore) started 3, ran 5 s, ended 8:
//	   wait 2, JCT 7.
//	Held, in vcores (tasks from 1 s before they started): the AM from 0.5,
//	a's tasks from 1, b's from 2: 1 over [0.5, 1), 3 over [1, 2), 4 over
//	[2, 8), 3 over [8, 10), 2 over [10, 12): 37.5 vcore-s of 4 vcores for
//	12 s, utilization 0.78125.
const recordedDoc = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 8192}]
  timing: kubernetes
  launch_delay: 1s
jobs:
  - id: a
    am: {vcores: 1, memory_mb: 1024}
    recorded: {admitted: 0.5, am_started: 1, finished: 12}
    phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: [10s, 8s], started: [2, 2]}]
  - id: b
    submit: 1s
    am: {vcores: 0, memory_mb: 0}
    recorded: {admitted: 2, finished: 8}
    phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 5s, started: [3]}]
`

func TestAsRecorded(t *testing.T) {
	w, err := workload.Parse([]byte(recordedDoc), "rec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o, err := AsRecorded(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs := metrics.Jobs(w, o)
	s := metrics.Summarize(w, o, jobs, metrics.Run{Policy: PolicyName})
	want := map[string][2]float64{"a": {2, 12}, "b": {2, 7}}
	for _, j := range jobs {
		if j.Wait == nil || j.JCT == nil || *j.Wait != want[j.ID][0] || *j.JCT != want[j.ID][1] {
			t.Errorf("job %s: wait %v JCT %v, want %v", j.ID, j.Wait, j.JCT, want[j.ID])
		}
	}
	if s.MakespanS != 12 || math.Abs(s.UtilizationAvg-0.78125) > 1e-9 || s.JobsCompleted != 2 {
		t.Errorf("makespan %v, utilization %v, completed %d; want 12, 0.78125, 2", s.MakespanS, s.UtilizationAvg, s.JobsCompleted)
	}
	if a := jobs[0]; a.Admit == nil || *a.Admit != 0.5 {
		t.Errorf("a admitted %v, want 0.5", a.Admit)
	}
	// A job still running when the recording stopped has no end.
	w.Jobs[1].Recorded.Finished = -1
	w.Jobs[1].Phases[0].Unfinished = 1
	o, err = AsRecorded(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if jobs := metrics.Jobs(w, o); jobs[1].JCT != nil || len(o.Stuck) != 1 {
		t.Errorf("b still running: JCT %v, stuck %v", jobs[1].JCT, o.Stuck)
	}
	// A workload that was not recorded says so.
	w, _ = workload.Parse([]byte("version: 1\ncluster: {nodes: [{vcores: 4, memory_mb: 8192}]}\njobs: [{id: a, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1}, duration: 1}]}]\n"), "plain.yaml")
	if _, err := AsRecorded(w, nil); err == nil || !strings.Contains(err.Error(), "no recorded run") {
		t.Errorf("a plain workload: %v", err)
	}
}

func fp(v float64) *float64 { return &v }

func TestAgree(t *testing.T) {
	rec := []metrics.Job{{ID: "a", Finish: fp(10)}, {ID: "b", Finish: fp(20)}, {ID: "c", Finish: fp(30)}, {ID: "d"}}
	sim := []metrics.Job{{ID: "a", Finish: fp(12)}, {ID: "b", Finish: fp(31)}, {ID: "c", Finish: fp(29)}, {ID: "d", Finish: fp(5)}}
	a := Agree(rec, &metrics.Summary{MakespanS: 40}, sim, &metrics.Summary{Policy: "kube-scheduler", MakespanS: 44})
	// Ranks a, b, c: 1, 2, 3 recorded; 1, 3, 2 simulated: rho = 1 − 6·2/(3·8) = 0.5.
	if a.Common != 3 || math.Abs(a.MakespanError-0.1) > 1e-12 || math.Abs(a.OrderCorr-0.5) > 1e-12 || a.OnlySimulated != 1 || a.OnlyRecorded != 0 {
		t.Errorf("%+v", a)
	}
	if s := a.String(); !strings.Contains(s, "+10.0 %") || !strings.Contains(s, "0.50 over 3 jobs") {
		t.Errorf("%s", s)
	}
}

func TestSentence(t *testing.T) {
	cat := func(jobs int, jct float64) *metrics.CategoryStats {
		return &metrics.CategoryStats{Jobs: jobs, Completed: jobs, JCTAvg: fp(jct)}
	}
	rec := &metrics.Summary{Policy: PolicyName, JobsTotal: 10, JobsCompleted: 10, UtilizationAvg: 0.62, DeadlineMetFrac: fp(0.5),
		Categories: map[metrics.Category]*metrics.CategoryStats{metrics.Small: cat(8, 50), metrics.Large: cat(2, 200)}}
	sim := &metrics.Summary{Policy: "fair", JobsTotal: 10, JobsCompleted: 10, UtilizationAvg: 0.7, DeadlineMetFrac: fp(0.75),
		Categories: map[metrics.Category]*metrics.CategoryStats{metrics.Small: cat(8, 30), metrics.Large: cat(2, 220)}}
	got := Sentence(rec, sim)
	want := "fair: small jobs finish 40 % sooner (30.0 s on average, 50.0 s as recorded); large jobs take 10 % longer (220.0 s on average, 200.0 s as recorded); more deadlines met (75 % of deadlines met against 50 %); utilization rises to 0.70 (0.62 as recorded)."
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	rec.DeadlineMetFrac, sim.DeadlineMetFrac = nil, nil
	rec.Categories[metrics.Large] = &metrics.CategoryStats{}
	sim.Categories[metrics.Large] = &metrics.CategoryStats{}
	sim.JobsCompleted = 9
	sim.UtilizationAvg = 0.62
	got = Sentence(rec, sim)
	for _, s := range []string{"no large jobs", "no job has a deadline", "utilization stays at 0.62", "1 of 10 jobs do not finish"} {
		if !strings.Contains(got, s) {
			t.Errorf("%q lacks %q", got, s)
		}
	}
}
