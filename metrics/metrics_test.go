package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

func TestClassify(t *testing.T) {
	capacity := resource.New(100, 100*2048)
	tests := []struct {
		demand resource.Vector
		want   Category
	}{
		{resource.New(10, 10*2048), Small}, // exactly 10% is not more than 10%
		{resource.New(11, 11*2048), Large},
		{resource.New(1, 60*2048), Large}, // memory dominates
		{resource.Vector{}, Small},
	}
	for _, tt := range tests {
		if got := Classify(tt.demand, capacity, Theta); got != tt.want {
			t.Errorf("Classify(%v) = %v, want %v", tt.demand, got, tt.want)
		}
	}
}

func TestQuantileAndMean(t *testing.T) {
	tests := []struct {
		xs     []float64
		q      float64
		want   float64
		isNull bool
	}{
		{xs: nil, q: 0.5, isNull: true},
		{xs: []float64{3}, q: 0.95, want: 3},
		{xs: []float64{4, 1, 3, 2}, q: 0.5, want: 2.5},
		{xs: []float64{5, 1, 3}, q: 0.5, want: 3},
		{xs: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}, q: 0.95, want: 20},
		{xs: []float64{0, 10}, q: 0.95, want: 9.5},
	}
	for _, tt := range tests {
		got := quantile(tt.xs, tt.q)
		if tt.isNull != (got == nil) || (got != nil && math.Abs(*got-tt.want) > 1e-12) {
			t.Errorf("quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
		}
	}
	if m := mean([]float64{1, 2, 6}); *m != 3 || mean(nil) != nil {
		t.Errorf("mean wrong")
	}
}

func TestWriteCSV(t *testing.T) {
	wait, jct, dl := 2.5, 10.0, 12.0
	met := true
	var b bytes.Buffer
	if err := WriteCSV(&b, []Job{
		{ID: "a,b", Category: Small, Submit: 1, Admit: &wait, FirstStart: &wait, Finish: &jct, Wait: &wait, JCT: &jct, Deadline: &dl, Met: &met},
		{ID: `q"x`, Category: Large, Submit: 0.000001},
	}); err != nil {
		t.Fatal(err)
	}
	want := CSVHeader + "\n" +
		`"a,b",small,1,2.5,2.5,10,2.5,10,12,true` + "\n" +
		`"q""x",large,0.000001,,,,,,,` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestSummaryJSONWithReports(t *testing.T) {
	s := &Summary{Policy: "dress", Categories: map[Category]*CategoryStats{Small: {}, Large: {}},
		Reports: map[string]any{"dress": map[string]float64{"delta": 0.25}, "autoadmin": []int{1, 2}}}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := back.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if back.Policy != "dress" || len(back.Reports) != 2 {
		t.Fatalf("round trip lost data: %+v", back)
	}
	if string(back.Reports["dress"].(json.RawMessage)) != `{"delta":0.25}` {
		t.Fatalf("dress section %s", back.Reports["dress"])
	}
	bad := &Summary{Reports: map[string]any{"policy": 1}}
	if _, err := bad.MarshalJSON(); err == nil {
		t.Fatal("a report may not shadow a summary field")
	}
}

func TestWriteTimeline(t *testing.T) {
	var b bytes.Buffer
	capacity := resource.New(4, 4096)
	if err := WriteTimeline(&b, []Sample{{T: 0, Allocated: resource.New(4, 1024)}, {T: 13_000_000, Allocated: resource.New(2, 3072)}}, capacity); err != nil {
		t.Fatal(err)
	}
	want := TimelineHeader + "\n0,4,1024,1.0000\n13,2,3072,0.7500\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// In a run stopped early (a live replay cut short, not deadlocked) the
// allocation area runs to the last task completion, which may belong to a
// job that never finished: utilization divides it by the span from the first
// submission to that completion, not by the completed jobs' makespan. By
// hand: the whole cluster busy over [0, 20]; A completes at 10, B's first
// task at 20 and B never finishes. The makespan is 10, the utilization
// 20/20 = 1 (not 20/10 = 2).
func TestUtilizationOfAPartialRun(t *testing.T) {
	w, err := workload.Parse([]byte(`
version: 1
cluster: {nodes: [{count: 1, vcores: 2, memory_mb: 2048}], ideal: true}
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 20s}]}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sec := clock.Time(clock.Second)
	r := &Outcome{
		Jobs: []JobResult{
			{Index: 0, Submit: 0, Admit: 0, AMStart: 0, FirstRun: 0, LastDone: 10 * sec, Finish: 10 * sec},
			{Index: 1, Submit: 0, Admit: 0, AMStart: 0, FirstRun: 0, LastDone: 20 * sec, Finish: -1},
		},
		Stuck:    []StuckJob{{ID: "B", State: "AM running, waiting for task containers"}},
		UtilArea: 20 * float64(clock.Second), LastTaskDone: 20 * sec, End: 30 * sec,
	}
	s := Summarize(w, r, Jobs(w, r), Run{Policy: "fifo"})
	if s.MakespanS != 10 || math.Abs(s.UtilizationAvg-1) > 1e-12 || s.SpanS != nil {
		t.Errorf("makespan %v, utilization %v, span %v; want 10, 1 and none", s.MakespanS, s.UtilizationAvg, s.SpanS)
	}
	// Once every job completed, the span is the makespan.
	r.Jobs[1].Finish, r.Deadlocked, r.Stuck = 20*sec, false, nil
	s = Summarize(w, r, Jobs(w, r), Run{Policy: "fifo"})
	if s.MakespanS != 20 || math.Abs(s.UtilizationAvg-1) > 1e-12 {
		t.Errorf("complete: makespan %v, utilization %v; want 20 and 1", s.MakespanS, s.UtilizationAvg)
	}
}

// A deadlocked run is measured over the span it covered, from the first
// submission to where it stopped, with what the stuck jobs held; the makespan
// stays that of the completed jobs. By hand, on one node: A (submitted at 2)
// holds all of it over [2, 12] and completes at 12; nothing is held over
// [12, 22]; B and C, submitted at 22, hold all of it from then until the run
// stops at 32. The area to the stop is 10 + 10 = 20 share-seconds over a span
// of 30 s: utilization 2/3, makespan 10, span 30. When no job completed and
// the run stopped the moment it began, the span is 0 and the utilization is
// the share held then.
func TestUtilizationOfADeadlockedRun(t *testing.T) {
	w, err := workload.Parse([]byte(`
version: 1
cluster: {nodes: [{count: 1, vcores: 2, memory_mb: 2048}], ideal: true}
jobs:
  - {id: A, submit: 2s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 22s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: C, submit: 22s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`), "d.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sec := clock.Time(clock.Second)
	r := &Outcome{
		Jobs: []JobResult{
			{Index: 0, Submit: 2 * sec, Admit: 2 * sec, AMStart: 2 * sec, FirstRun: 2 * sec, LastDone: 12 * sec, Finish: 12 * sec},
			{Index: 1, Submit: 22 * sec, Admit: 22 * sec, AMStart: 22 * sec, FirstRun: -1, LastDone: -1, Finish: -1},
			{Index: 2, Submit: 22 * sec, Admit: 22 * sec, AMStart: 22 * sec, FirstRun: -1, LastDone: -1, Finish: -1},
		},
		Deadlocked: true, Stuck: []StuckJob{{ID: "B"}, {ID: "C"}},
		UtilArea: 10 * float64(clock.Second), LastTaskDone: 12 * sec,
		End: 32 * sec, EndArea: 20 * float64(clock.Second), EndShare: 1,
	}
	s := Summarize(w, r, Jobs(w, r), Run{Policy: "fair"})
	if s.MakespanS != 10 || s.SpanS == nil || *s.SpanS != 30 || math.Abs(s.UtilizationAvg-2.0/3) > 1e-12 {
		t.Errorf("makespan %v, span %v, utilization %v; want 10, 30 and 2/3", s.MakespanS, s.SpanS, s.UtilizationAvg)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"span_s": 30`) {
		t.Errorf("summary.json has no span_s of 30:\n%s", b.String())
	}

	// Stuck from the start, the span empty: the utilization is the share
	// held at the stop, and there is no makespan.
	r.Jobs = r.Jobs[1:]
	r.Jobs[0].Index, r.Jobs[1].Index = 0, 1
	w.Jobs = w.Jobs[1:]
	r.End, r.EndArea, r.UtilArea, r.LastTaskDone = 22*sec, 0, 0, -1
	s = Summarize(w, r, Jobs(w, r), Run{Policy: "fair"})
	if s.MakespanS != 0 || s.SpanS == nil || *s.SpanS != 0 || s.UtilizationAvg != 1 {
		t.Errorf("stuck at once: makespan %v, span %v, utilization %v; want 0, 0 and 1", s.MakespanS, s.SpanS, s.UtilizationAvg)
	}

	// A run that completed has no span_s key: its span is the makespan.
	var c bytes.Buffer
	r.Deadlocked, r.Stuck = false, nil
	if err := WriteJSON(&c, Summarize(w, r, Jobs(w, r), Run{Policy: "fair"})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.String(), `"span_s"`) {
		t.Errorf("a run that did not deadlock writes span_s:\n%s", c.String())
	}
}
