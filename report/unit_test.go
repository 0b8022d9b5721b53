package report

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/metrics"
)

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi       float64
		n            int
		first, last  float64
		count        int
		label1, step string
	}{
		{0, 446.4, 8, 0, 450, 10, "50", "50"},
		{0, 1, 5, 0, 1, 6, "0.2", "0.2"},
		{0, 0, 5, 0, 1, 6, "0.2", "0.2"}, // empty data still gets an axis
		{0, 7, 5, 0, 7, 8, "1", "1"},
		{0, 9, 5, 0, 10, 6, "2", "2"},
		{0, 0.03, 5, 0, 0.03, 7, "0.005", "0.005"},
		{-3, 12, 5, -5, 15, 5, "0", "5"},
	}
	for _, tt := range tests {
		ts, lo, hi := ticks(tt.lo, tt.hi, tt.n)
		step := ts[1] - ts[0]
		if lo != tt.first || math.Abs(hi-tt.last) > 1e-9 || len(ts) != tt.count ||
			tickLabel(ts[1], step) != tt.label1 || tickLabel(step, step) != tt.step {
			t.Errorf("ticks(%v, %v, %d) = %v [%v, %v], labels %q; want [%v, %v], %d ticks, second %q",
				tt.lo, tt.hi, tt.n, ts, lo, hi, tickLabel(ts[1], step), tt.first, tt.last, tt.count, tt.label1)
		}
	}
	if ts, _, _ := ticks(math.NaN(), math.Inf(1), 5); len(ts) == 0 {
		t.Error("no ticks for undefined data")
	}
}

func TestTimeUnit(t *testing.T) {
	for _, tt := range []struct {
		max  float64
		unit string
	}{{400, "s"}, {4800, "s"}, {4801, "min"}, {18001, "h"}, {3*86400 + 1, "d"}} {
		if _, u := timeUnit(tt.max); u != tt.unit {
			t.Errorf("timeUnit(%v) = %s, want %s", tt.max, u, tt.unit)
		}
	}
}

func TestSVGEscapes(t *testing.T) {
	s := newSVG(10, 10, `a "b" <c>`)
	s.text(1, 2, `x < y & "z"`, "fill", `#0'0`)
	s.elemTip("rect", "<tip>")
	got := s.String()
	for _, bad := range []string{`"b"`, "<c>", "x < y", "& ", "<tip>", "'0"} {
		if strings.Contains(got, bad) {
			t.Errorf("unescaped %q in %s", bad, got)
		}
	}
	if !strings.Contains(got, "x &lt; y &amp; &#34;z&#34;") || !strings.HasSuffix(got, "</svg>\n") {
		t.Errorf("svg: %s", got)
	}
	if num(-0.001) != "0" || num(3) != "3" || num(math.NaN()) != "0" || num(12.3456) != "12.35" {
		t.Errorf("num: %q %q %q %q", num(-0.001), num(3), num(math.NaN()), num(12.3456))
	}
}

// Binning a long timeline keeps the area under it: the mean utilisation
// a reader would estimate from the strip.
func TestUtilPointsKeepArea(t *testing.T) {
	var tl []Sample
	for i := range 10000 {
		tl = append(tl, Sample{T: float64(i), Util: float64(i%7) / 7})
	}
	area := func(pts []point) float64 {
		a := 0.0
		for i := 0; i+1 < len(pts); i++ {
			a += pts[i].Y * (pts[i+1].X - pts[i].X)
		}
		return a
	}
	exact := area(append([]point{}, func() []point {
		var p []point
		for _, s := range tl {
			p = append(p, point{s.T, s.Util * 100})
		}
		return append(p, point{10000, tl[len(tl)-1].Util * 100})
	}()...))
	got := utilPoints(tl, 10000, 1)
	if len(got) > maxPoints+1 {
		t.Fatalf("%d points", len(got))
	}
	if math.Abs(area(got)-exact) > 1e-6*exact {
		t.Errorf("area %v, want %v", area(got), exact)
	}
	// A short timeline is drawn as it is, from 0 to the end.
	short := utilPoints([]Sample{{0, 0.5}, {10, 1}}, 20, 1)
	want := []point{{0, 50}, {10, 100}, {20, 100}}
	if len(short) != len(want) {
		t.Fatalf("short: %v", short)
	}
	for i := range want {
		if short[i] != want[i] {
			t.Fatalf("short: %v, want %v", short, want)
		}
	}
}

func TestBucketSize(t *testing.T) {
	if k := bucketSize(20, 4); k != 1 {
		t.Errorf("20 jobs, 4 runs: %d per group", k)
	}
	if k := bucketSize(500, 2); k != 1 {
		t.Errorf("500 jobs, 2 runs: %d per group (fits %v px)", k, maxBarPlot)
	}
	for _, tt := range []struct{ jobs, runs int }{{5000, 2}, {100000, 8}, {2000, 4}} {
		k := bucketSize(tt.jobs, tt.runs)
		groups := (tt.jobs + k - 1) / k
		width := float64(groups*tt.runs) * bucketBarWidth / 0.8
		if k <= 1 || width > chartWidth {
			t.Errorf("%d jobs, %d runs: %d per group gives %v px", tt.jobs, tt.runs, k, width)
		}
	}
}

func TestAlignJobs(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	a := &Run{Name: "a", Jobs: []metrics.Job{{ID: "x", Submit: 5}, {ID: "y", Submit: 1, Deadline: f(3)}, {ID: "z", Submit: 5}}}
	b := &Run{Name: "b", Jobs: []metrics.Job{{ID: "y", Submit: 1}, {ID: "w", Submit: 2}}}
	rows := alignJobs([]*Run{a, b})
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "y,w,x,z" {
		t.Fatalf("order %v, want submission order with ties in file order", ids)
	}
	if rows[0].per[0] == nil || rows[0].per[1] == nil || rows[1].per[0] != nil || rows[2].per[1] != nil {
		t.Error("jobs matched to the wrong runs")
	}
	if rows[0].Deadline == nil || *rows[0].Deadline != 3 {
		t.Error("deadline lost")
	}
	// A job missing from a run draws as undefined, with a tip saying so.
	_, series := perJob([]*Run{a, b}, rows, 1, func(row *jobRow, j *metrics.Job, run string) (bar, bool) {
		return bar{V: j.Submit}, true
	})
	if b := series[1].Bars[2]; b.OK || !strings.Contains(b.Tip, "not in this run") {
		t.Errorf("missing job: %+v", b)
	}
}

func TestPerJobBuckets(t *testing.T) {
	var jobs []metrics.Job
	for i := range 10 {
		w := float64(i)
		met := i%3 != 0
		jobs = append(jobs, metrics.Job{ID: string(rune('a' + i)), Submit: float64(i), Wait: &w, Met: &met})
	}
	runs := []*Run{{Name: "r", Jobs: jobs}}
	groups, series := perJob(runs, alignJobs(runs), 4, func(row *jobRow, j *metrics.Job, run string) (bar, bool) {
		if j.ID == "b" {
			return bar{}, false // undefined values are left out of the mean
		}
		return bar{V: *j.Wait, Hollow: !*j.Met}, true
	})
	if len(groups) != 3 || groups[2].Label != "9" {
		t.Fatalf("groups %+v", groups)
	}
	bs := series[0].Bars
	// (0+2+3)/3, (4+5+6+7)/4, (8+9)/2; hollow when most missed: 2 of 3,
	// 1 of 4, 1 of 2.
	if bs[0].V != 5.0/3 || bs[1].V != 5.5 || bs[2].V != 8.5 || !bs[0].Hollow || bs[1].Hollow || bs[2].Hollow || !strings.Contains(bs[0].Tip, "over 3 of 4 jobs") {
		t.Errorf("bars %+v", bs)
	}
}

func TestCurvePoints(t *testing.T) {
	c, err := cluster.NewLoadCurve([]cluster.LoadPoint{{At: 0, Frac: 0.1}, {At: 20 * clock.Second, Frac: 0.5}, {At: 30 * clock.Second, Frac: 0.2}}, 40*clock.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := curvePoints(c, 65)
	// Knots at 0, 20, 30; the period ends at 40 holding 0.2 and starts
	// over at 0.1; knot 60 and the end at 65 (halfway from 0.5 to 0.2).
	want := []point{{0, 0.1}, {20, 0.5}, {30, 0.2}, {40, 0.2}, {40, 0.1}, {60, 0.5}, {65, 0.35}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].X != want[i].X || math.Abs(got[i].Y-want[i].Y) > 1e-9 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// A fast period over a long run is sampled, not expanded.
	fast, _ := cluster.NewLoadCurve([]cluster.LoadPoint{{At: 0, Frac: 0}, {At: clock.Second, Frac: 1}}, 2*clock.Second)
	if n := len(curvePoints(fast, 1e6)); n > maxPoints+2 {
		t.Errorf("%d points", n)
	}
}

// orderedLines: series keep their JSON order and null values make gaps.
func TestGenericSeries(t *testing.T) {
	var g genericChart
	if err := json.Unmarshal([]byte(`{"series": {"z": [[0, 1], [1, null], [2, 3]], "a": [[0, 2]]}}`), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Series) != 2 || g.Series[0].Name != "z" || g.Series[1].Name != "a" || !math.IsNaN(g.Series[0].Points[1].Y) {
		t.Fatalf("series %+v", g.Series)
	}
	for _, bad := range []string{`{"series": {"a": [[1]]}}`, `{"series": {"a": 3}}`, `{"series": [1]}`, `{"series": {"a": [[null, 1]]}}`} {
		if err := json.Unmarshal([]byte(bad), &g); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func sectionRunsOf(t *testing.T, name string, raws ...string) []*Run {
	t.Helper()
	var runs []*Run
	for i, raw := range raws {
		runs = append(runs, &Run{Name: string(rune('p' + i)), Summary: &metrics.Summary{
			Policy: string(rune('p' + i)), Reports: map[string]any{name: json.RawMessage(raw)}}})
	}
	return runs
}

func TestGenericSections(t *testing.T) {
	// Two runs with the same section: their charts merge, a colour per
	// run; a malformed member is shown as JSON with a note.
	runs := sectionRunsOf(t, "gen",
		`{"series": {"delta": [[0, 0.1], [10, 0.2]]}, "charts": [{"title": "releases", "y_label": "containers", "series": {"predicted": [[0, 1]], "actual": [[0, 2]]}}], "extra": {"k": 1}}`,
		`{"series": {"delta": [[0, 0.3]]}, "tables": "oops"}`)
	secs := internalSections(runs)
	if len(secs) != 1 {
		t.Fatalf("%d sections", len(secs))
	}
	s := secs[0]
	if s.ID != "internals-gen" || len(s.Figures) != 2 || s.Figures[0].Series != 2 || s.Figures[1].Series != 2 {
		t.Fatalf("section %q: %d figures %+v", s.ID, len(s.Figures), s.Figures)
	}
	if !strings.Contains(string(s.Figures[0].SVG), "p: delta") || !strings.Contains(string(s.Figures[1].SVG), "releases") {
		t.Error("merged series not named by run, or chart title lost")
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], `"tables"`) {
		t.Errorf("notes %q", s.Notes)
	}
	if len(s.Details) != 1 || !strings.HasPrefix(s.Details[0].Summary, "q:") || !strings.Contains(s.Details[0].Body, `"oops"`) {
		t.Errorf("details %+v", s.Details)
	}
	// Scalars, nested ones by path, share one table with a column per run.
	if len(s.Tables) != 1 || s.Tables[0].Caption != "values" || len(s.Tables[0].Rows) != 1 ||
		s.Tables[0].Rows[0][0].Text != "extra.k" || s.Tables[0].Rows[0][1].Text != "1" || s.Tables[0].Rows[0][2].Text != "–" {
		t.Errorf("values %+v", s.Tables)
	}
	// A section that is not an object is shown whole.
	secs = internalSections(sectionRunsOf(t, "x", `[1, 2]`))
	if len(secs[0].Figures) != 0 || len(secs[0].Details) != 1 || !strings.Contains(secs[0].Details[0].Body, "1,\n  2") {
		t.Errorf("opaque section: %+v", secs[0])
	}
	// A section produced in memory (not read back) is encoded first.
	r := &Run{Name: "m", Summary: &metrics.Summary{Policy: "m", Reports: map[string]any{"mem": map[string]any{"series": map[string]any{"a": [][2]float64{{0, 1}, {1, 2}}}}}}}
	if secs := internalSections([]*Run{r}); len(secs[0].Figures) != 1 {
		t.Errorf("in-memory section: %+v", secs[0])
	}
}

// A registered renderer draws its section; when it fails, the section is
// drawn generically with a note, so a changed format never breaks a report.
func TestRegisteredSection(t *testing.T) {
	sectionRenderers["test-ok"] = func(sec *section, runs []sectionRun) error {
		sec.Notes = append(sec.Notes, "custom")
		return nil
	}
	sectionRenderers["test-fail"] = func(sec *section, runs []sectionRun) error {
		sec.Notes = append(sec.Notes, "half done")
		return errors.New("unexpected shape")
	}
	defer delete(sectionRenderers, "test-ok")
	defer delete(sectionRenderers, "test-fail")
	secs := internalSections(sectionRunsOf(t, "test-ok", `{}`))
	if len(secs[0].Notes) != 1 || secs[0].Notes[0] != "custom" {
		t.Errorf("custom renderer not used: %+v", secs[0])
	}
	secs = internalSections(sectionRunsOf(t, "test-fail", `{"series": {"a": [[0, 1]]}}`))
	if len(secs[0].Notes) != 1 || !strings.Contains(secs[0].Notes[0], "unexpected shape") || len(secs[0].Figures) != 1 {
		t.Errorf("fallback: %+v", secs[0])
	}
}

// Sections written as the policies write them: records with a time member
// (DRESS), columns with a time list (AutoAdmin), lists of objects (DJSF's
// job sets). Lines of very different scales get charts of their own.
func TestGenericShapes(t *testing.T) {
	runs := sectionRunsOf(t, "s", `{
		"theta": 0.1, "delta": {"mean": 0.04, "max": 0.22},
		"series": [{"t_s": 1, "delta": 0.1, "predicted": 0, "actual": 4},
		           {"t_s": 2, "delta": 0.2, "predicted": 12.5, "actual": null}],
		"cols": {"t_s": [0, 5], "reserve": {"vcores": [26, 30], "memory_mb": [40000, 52000]}, "admitted": [3, 9], "short": [1]},
		"sets": [{"plan": 1, "jobs": ["a", "b"], "eff": 0.5}, {"plan": 1, "jobs": ["c"], "span_s": null}]
	}`)
	sec := internalSections(runs)[0]
	var titles []string
	for _, f := range sec.Figures {
		svg := string(f.SVG)
		titles = append(titles, svg[strings.Index(svg, "aria-label=\"")+12:strings.Index(svg, "\" font-family")])
	}
	want := []string{"series: delta", "series: predicted, actual", "cols: reserve.vcores, admitted", "cols: reserve.memory_mb"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Errorf("charts %q, want %q", titles, want)
	}
	if len(sec.Tables) != 2 {
		t.Fatalf("tables %+v", sec.Tables)
	}
	vals, sets := sec.Tables[0], sec.Tables[1]
	if len(vals.Rows) != 3 || vals.Rows[1][0].Text != "delta.mean" {
		t.Errorf("values %+v", vals)
	}
	if sets.Caption != "sets" || len(sets.Head) != 4 || sets.Head[3].Text != "span_s" || sets.Rows[0][1].Text != "a, b" || sets.Rows[1][2].Text != "–" || sets.Rows[1][3].Text != "–" {
		t.Errorf("sets %+v", sets)
	}
	// "short" is not as long as the times: not a line, so shown as JSON.
	if len(sec.Details) != 1 || !strings.Contains(sec.Details[0].Body, `"cols.short": [`) {
		t.Errorf("details %+v", sec.Details)
	}
}

// The DRESS and AutoAdmin renderers draw their sections as the policies
// write them, and fall back to the generic drawing when the shape differs.
func TestPolicySections(t *testing.T) {
	sec := internalSections(sectionRunsOf(t, "dress",
		`{"variant": "dress", "delta": {"mean": 0.04}, "series": [{"t_s": 1, "delta": 0.1, "predicted": 2.5, "actual": 3}, {"t_s": 2, "delta": 0.2, "predicted": 0, "actual": 1}]}`,
		`{"variant": "dress", "series": [{"t_s": 1, "delta": 0.1, "predicted": 0, "actual": 3}]}`))[0]
	if sec.Title != "Policy internals: DRESS" || len(sec.Figures) != 2 || sec.Figures[0].Series != 2 || sec.Figures[1].Series != 4 || len(sec.Notes) != 0 {
		t.Fatalf("dress: %q, %d figures, notes %q", sec.Title, len(sec.Figures), sec.Notes)
	}
	if svg := string(sec.Figures[1].SVG); !strings.Contains(svg, "p: predicted") || !strings.Contains(svg, "q: observed") {
		t.Error("dress releases chart lacks a run's series")
	}
	if len(sec.Tables) != 1 || sec.Tables[0].Rows[1][0].Text != "delta.mean" || len(sec.Details) != 0 {
		t.Errorf("dress values %+v, details %+v", sec.Tables, sec.Details)
	}
	sec = internalSections(sectionRunsOf(t, "dress", `{"series": {"delta": [[0, 1]]}}`))[0]
	if len(sec.Notes) != 1 || !strings.Contains(sec.Notes[0], "not a DRESS section") || len(sec.Figures) != 1 {
		t.Errorf("dress fallback: %+v", sec)
	}
	// A point without one of its members is not the policy's either: it
	// falls back rather than draw a zero in its place.
	sec = internalSections(sectionRunsOf(t, "dress", `{"series": [{"t_s": 1, "delta": 0.1, "predicted": 2}]}`))[0]
	if len(sec.Notes) != 1 || !strings.Contains(sec.Notes[0], "want t_s, delta, predicted and actual") {
		t.Errorf("dress point without actual: %+v", sec.Notes)
	}

	sec = internalSections(sectionRunsOf(t, "autoadmin",
		`{"config": "ric", "waiting_max": 4, "series": {"t_s": [0, 1, 2], "reserve": {"vcores": [26, 27, 26], "memory_mb": [4096, 4096, 2048]}, "admitted": [1, 3, 3], "waiting": [4, 2, 0]}}`))[0]
	if len(sec.Figures) != 3 || sec.Figures[2].Series != 2 || !strings.Contains(string(sec.Figures[0].SVG), "reserved (memory_mb)") || len(sec.Notes) != 0 {
		t.Fatalf("autoadmin: %d figures, notes %q", len(sec.Figures), sec.Notes)
	}
	sec = internalSections(sectionRunsOf(t, "autoadmin", `{"series": {"t_s": [0, 1], "admitted": [1], "waiting": [1, 2]}}`))[0]
	if len(sec.Notes) != 1 || !strings.Contains(sec.Notes[0], "one length") {
		t.Errorf("autoadmin fallback: %+v", sec.Notes)
	}
}

// A run that left jobs unfinished has a short makespan and averages over
// the jobs it finished: it must not be ranked best on them.
func TestBestSkipsIncompleteRuns(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	sum := func(policy string, done int, makespan float64, wait *float64) *Run {
		return &Run{Name: policy, Summary: &metrics.Summary{Policy: policy, JobsTotal: 4, JobsCompleted: done, MakespanS: makespan, WaitAvgS: wait,
			Categories: map[metrics.Category]*metrics.CategoryStats{}}}
	}
	runs := []*Run{sum("a", 4, 100, f(9)), sum("b", 0, 0, nil), sum("c", 2, 50, f(1)), sum("d", 4, 90, f(12))}
	tab := summaryTable(runs)
	best := func(label string) []string {
		var out []string
		for _, r := range tab.Rows {
			if r[0].Text == label {
				for i, c := range r[1:] {
					if strings.Contains(c.Class, "best") {
						out = append(out, runs[i].Name)
					}
				}
				return out
			}
		}
		t.Fatalf("no row %q", label)
		return nil
	}
	if got := best("makespan (s)"); strings.Join(got, ",") != "d" {
		t.Errorf("makespan best %v, want d", got)
	}
	if got := best("wait avg (s)"); strings.Join(got, ",") != "a" {
		t.Errorf("wait best %v, want a", got)
	}
	if got := best("jobs completed"); strings.Join(got, ",") != "a,d" {
		t.Errorf("completions best %v, want a,d", got)
	}
	// When no run completed everything, all are ranked; one that completed
	// no job has no makespan (not one of 0 s, which would rank first).
	runs = []*Run{sum("b", 0, 0, nil), sum("c", 2, 50, f(1)), sum("e", 1, 60, f(1))}
	tab = summaryTable(runs)
	if got := best("makespan (s)"); strings.Join(got, ",") != "c" {
		t.Errorf("makespan best %v, want c", got)
	}
}

func TestCellText(t *testing.T) {
	for raw, want := range map[string]string{
		`"a"`: "a", `["a", "b"]`: "a, b", `null`: "–", `3`: "3", `-2.0`: "-2", `0.08244549779522096`: "0.0824",
		`103.606708`: "103.6067", `0.0000123456`: "1.235e-05", `true`: "true", `{"a": 1}`: `{"a": 1}`, `1e300`: "1e+300",
	} {
		if got := cellText(json.RawMessage(raw)); got != want {
			t.Errorf("cellText(%s) = %q, want %q", raw, got, want)
		}
	}
}
