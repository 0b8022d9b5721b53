package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/sim"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compare -o writes one report with every policy, in -p order, and
// 'spindle report' renders the same bytes from the saved directory.
func TestCompareWritesReport(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := run(t, "compare", "-q", "-w", "../../examples/mixed.yaml", "-p", "fifo,capacity,fair,drf", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr with -q: %q", errOut)
	}
	var idx struct{ Runs []string }
	if err := json.Unmarshal(read(t, filepath.Join(dir, "runs.json")), &idx); err != nil || strings.Join(idx.Runs, ",") != "fifo,capacity,fair,drf" {
		t.Fatalf("runs.json: %v %v", idx.Runs, err)
	}
	page := read(t, filepath.Join(dir, "report.html"))
	s := string(page)
	// The four general charts, each with one series per policy, and the
	// policies in -p order.
	for _, id := range []string{"wait-chart", "jct-chart", "cdf-chart", "throughput-chart", "util-chart"} {
		if !strings.Contains(s, `id="`+id+`" data-kind=`) {
			t.Errorf("no %s", id)
		}
	}
	if strings.Count(s, `data-series="4"`) != 5 {
		t.Errorf("%d charts with 4 series, want 5", strings.Count(s, `data-series="4"`))
	}
	if i, j := strings.Index(s, ">fifo</span>"), strings.Index(s, ">drf</span>"); i < 0 || j < i {
		t.Error("policies not in -p order in the header")
	}
	if strings.Contains(s, "http:") || strings.Contains(s, "https:") {
		t.Error("the report refers to the network")
	}

	out := filepath.Join(t.TempDir(), "again.html")
	_, errOut, code = run(t, "report", dir, "-o", out)
	if code != 0 || !strings.Contains(errOut, "wrote "+out) {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if !bytes.Equal(read(t, out), page) {
		t.Error("spindle report renders different bytes from compare -o")
	}
	stdout, _, code := run(t, "report", dir, "-o", "-")
	if code != 0 || stdout != s {
		t.Error("report -o - differs")
	}

	// A second comparison gives the same page: nothing host-dependent
	// (wall time, dates) is in it.
	dir2 := t.TempDir()
	if _, errOut, code := run(t, "compare", "-q", "-w", "../../examples/mixed.yaml", "-p", "fifo,capacity,fair,drf", "-o", dir2); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Equal(read(t, filepath.Join(dir2, "report.html")), page) {
		t.Error("two identical comparisons wrote different reports")
	}
}

func TestSimulateWritesReport(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := run(t, "simulate", "-w", tiny, "-p", "fifo", "-o", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page := read(t, filepath.Join(dir, "report.html"))
	if !bytes.Contains(page, []byte(`id="wait-chart"`)) || !bytes.Contains(page, []byte(`data-series="1"`)) {
		t.Error("single-run report lacks its charts")
	}
	// Re-rendered in place: same bytes.
	if _, errOut, code := run(t, "report", dir); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if !bytes.Equal(read(t, filepath.Join(dir, "report.html")), page) {
		t.Error("report DIR changed the page")
	}
}

// The external load of a workload is saved with the run and drawn.
func TestReportExternalLoad(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := run(t, "compare", "-q", "-w", "../../report/testdata/goals.yaml", "-p", "fifo,fair", "-o", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var x struct {
		Points  [][2]float64 `json:"points"`
		PeriodS float64      `json:"period_s"`
	}
	if err := json.Unmarshal(read(t, filepath.Join(dir, "fifo", "external_load.json")), &x); err != nil || len(x.Points) != 3 || x.PeriodS != 40 || x.Points[1] != [2]float64{20, 0.5} {
		t.Fatalf("external_load.json: %+v %v", x, err)
	}
	page := string(read(t, filepath.Join(dir, "report.html")))
	if !strings.Contains(page, "external load f(t)") || !strings.Contains(page, `id="goals-chart"`) {
		t.Error("external load band or goals chart missing")
	}
}

func TestReportErrors(t *testing.T) {
	empty := t.TempDir()
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "summary.json"), []byte("{"), 0o644)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report"}, 2, "one directory"},
		{[]string{"report", "a", "b"}, 2, "one directory"},
		{[]string{"report", filepath.Join(empty, "missing")}, 1, "missing"},
		{[]string{"report", empty}, 1, "not a run directory"},
		{[]string{"report", bad}, 1, filepath.Join(bad, "summary.json")},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errOut, tt.code, tt.msg)
		}
		if strings.Contains(errOut, "panic") {
			t.Errorf("%v: panic", tt.args)
		}
	}
}

// fakeClock advances by step on every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.t = c.t.Add(c.step)
	return c.t
}

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Unix(0, 0), step: time.Second}
	p := newProgressTo(&b, true, c.now)
	p.update(sim.Progress{Now: clock.Time(90 * clock.Second), Events: 2_000_000, JobsDone: 250, JobsAll: 1000})
	got := b.String()
	// One second elapsed, a quarter done: three more seconds to go.
	for _, want := range []string{"\r\033[K", "[###-----------]", "] 25%  250/1000 jobs", "sim 1m30s", "2.0M ev/s", "ETA 3s"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress line %q lacks %q", got, want)
		}
	}
	// Redraws are rate-limited.
	c.step = time.Millisecond
	p.update(sim.Progress{JobsDone: 260, JobsAll: 1000})
	if b.String() != got {
		t.Error("redrew within the rate limit")
	}
	p.runs, p.runsDone = 4, 1
	if l := p.line(sim.Progress{JobsDone: 5, JobsAll: 1000}, time.Second); !strings.Contains(l, "runs 1/4") || !strings.Contains(l, "ETA --") {
		t.Errorf("early compare line %q", l)
	}
	// A long line drops the job counts first, to stay within 80 columns.
	p.runs, p.runsDone = 8, 3
	if l := p.line(sim.Progress{Now: clock.Time(99 * clock.Hour), Events: 1 << 40, JobsDone: 799999, JobsAll: 800000}, time.Hour); len(l) >= 80 ||
		strings.Contains(l, "799999") || !strings.Contains(l, "ETA") || !strings.Contains(l, "runs 3/8") {
		t.Errorf("long line %q (%d characters)", l, len(l))
	}
	p.done()
	if !strings.HasSuffix(b.String(), "\r\033[K") {
		t.Error("done does not clear the line")
	}

	// Off (not a terminal, or -q): nothing at all.
	var off bytes.Buffer
	q := newProgress(&off, false) // a buffer is not a terminal
	q.update(sim.Progress{JobsDone: 1, JobsAll: 2})
	q.done()
	if off.Len() != 0 {
		t.Errorf("progress wrote %q to a non-terminal", off.String())
	}
}
