package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genAutoAdmin writes a small homogeneous burst and returns its path.
func genAutoAdmin(t *testing.T, args ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "aa.yaml")
	_, errOut, code := run(t, append(append([]string{"generate", "autoadmin-homogeneous"}, args...), "-o", f)...)
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	return f
}

func TestSweepJSON(t *testing.T) {
	f := genAutoAdmin(t, "--am", "2", "--task", "2", "--jobs", "24")
	out, errOut, code := run(t, "sweep", "-w", f, "-p", "fair:max_am_share=-1", "--static", "0:40:20", "--with", "autoadmin", "--with", "autoadmin+", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Points []struct {
			Reserve    *float64 `json:"reserve"`
			MakespanS  float64  `json:"makespan_s"`
			Deadlocked bool     `json:"deadlocked"`
			Jobs       int      `json:"jobs_completed"`
		} `json:"points"`
		Best *struct {
			Reserve   float64 `json:"reserve"`
			MakespanS float64 `json:"makespan_s"`
			RangeLo   float64 `json:"range_lo"`
			RangeHi   float64 `json:"range_hi"`
			RangeN    int     `json:"range_points"`
		} `json:"best"`
		With []struct {
			Admission  string   `json:"admission"`
			MakespanS  float64  `json:"makespan_s"`
			Deadlocked bool     `json:"deadlocked"`
			PerfScore  *float64 `json:"perf_score"`
			Report     any      `json:"autoadmin"`
			ReserveAvg *float64 `json:"reserve_avg_vcores"`
			Distance   *float64 `json:"range_distance"`
		} `json:"with"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Points) != 3 || doc.Points[0].Reserve == nil || *doc.Points[0].Reserve != 0 || *doc.Points[2].Reserve != 40 {
		t.Fatalf("points %+v", doc.Points)
	}
	// static:0 lets 24 AMs of 2 vcores hold 48 of 64 vcores; 16 remain
	// for tasks, so it completes. The best is the least makespan.
	best := math.Inf(1)
	for _, p := range doc.Points {
		if !p.Deadlocked {
			best = math.Min(best, p.MakespanS)
		}
	}
	if doc.Best == nil || doc.Best.MakespanS != best {
		t.Fatalf("best %+v, want makespan %v", doc.Best, best)
	}
	// The best range holds every completed point within 1 % of the best.
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, p := range doc.Points {
		if !p.Deadlocked && p.MakespanS <= best*1.01 {
			lo, hi, n = math.Min(lo, *p.Reserve), math.Max(hi, *p.Reserve), n+1
		}
	}
	if doc.Best.RangeLo != lo || doc.Best.RangeHi != hi || doc.Best.RangeN != n {
		t.Errorf("best range %v..%v over %d points, want %v..%v over %d", doc.Best.RangeLo, doc.Best.RangeHi, doc.Best.RangeN, lo, hi, n)
	}
	for _, w := range doc.With {
		if w.ReserveAvg == nil || w.Distance == nil {
			t.Fatalf("%s: no mean reservation or range distance", w.Admission)
		}
		want := 0.0
		if *w.ReserveAvg < lo {
			want = *w.ReserveAvg - lo
		} else if *w.ReserveAvg > hi {
			want = *w.ReserveAvg - hi
		}
		if *w.Distance != want {
			t.Errorf("%s: range distance %v, want %v", w.Admission, *w.Distance, want)
		}
	}
	if len(doc.With) != 2 || doc.With[0].Admission != "autoadmin" || doc.With[0].Deadlocked || doc.With[0].Report == nil {
		t.Fatalf("with %+v", doc.With)
	}
	for _, w := range doc.With {
		want := (1 - (w.MakespanS-best)/best) * 100
		if w.PerfScore == nil || math.Abs(*w.PerfScore-want) > 1e-9 {
			t.Errorf("%s: Perf Score %v, want %v", w.Admission, w.PerfScore, want)
		}
	}
}

// A burst of AMs of 2 on 64 vcores deadlocks without a reservation: with 72
// jobs at time 0 (the burst model), static:0 admits 32 AMs that hold every
// vcore.
func TestSweepTableAndDeadlock(t *testing.T) {
	f := genAutoAdmin(t, "--am", "2", "--task", "2", "--model", "burst")
	out, errOut, code := run(t, "sweep", "-w", f, "-p", "fair:max_am_share=-1", "--static", "0:32:32", "--with", "autoadmin", "--seeds", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	var zero string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "0" {
			zero = l
		}
	}
	if !strings.Contains(zero, "true") || !strings.Contains(zero, "0/72") {
		t.Errorf("static:0 row %q, want deadlocked with 0/72 done", zero)
	}
	for _, want := range []string{"seeds 1..2", "best static: static:32", "best range 32..32 vcores (1 points within 1 %)", "autoadmin: makespan", "Perf Score", "mean R_R"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSweepErrors(t *testing.T) {
	f := genAutoAdmin(t, "--jobs", "4")
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"sweep", "-w", f, "-p", "fair"}, 2, "--static"},
		{[]string{"sweep", "-w", f, "--static", "0:4:1"}, 2, "no policy"},
		{[]string{"sweep", "-w", f, "-p", "fair", "--static", "8:4:1"}, 2, "TO must not be below FROM"},
		{[]string{"sweep", "-w", f, "-p", "fair", "--static", "0:4:0"}, 2, "STEP must be positive"},
		{[]string{"sweep", "-w", f, "-p", "fair", "--static", "0:4"}, 2, "FROM:TO:STEP"},
		{[]string{"sweep", "-w", f, "-p", "fair", "--static", "a:4:1"}, 2, `"a" is not a number`},
		{[]string{"sweep", "-w", f, "-p", "fair", "--static", "0:4:1", "--with", "autoadmin:floor=2"}, 2, "floor"},
		{[]string{"sweep", "-w", f, "-p", "nosuch", "--static", "0:4:1"}, 2, `unknown policy "nosuch"`},
		{[]string{"sweep", "-w", f, "-p", "fair", "--static", "0:4:1", "--seeds", "0"}, 2, "--seeds"},
		{[]string{"sweep", "-w", "nonexistent.yaml", "-p", "fair", "--static", "0:4:1"}, 1, "nonexistent.yaml"},
		{[]string{"generate", "autoadmin-homogeneous", "--am", "0", "-o", "x.yaml"}, 2, "--am"},
		{[]string{"generate", "autoadmin-hetero", "--exp", "7", "-o", "x.yaml"}, 2, "--exp"},
		{[]string{"generate", "autoadmin-hetero"}, 2, "-o FILE"},
		{[]string{"generate", "autoadmin-hetero", "--model", "hadoop", "-o", "x.yaml"}, 2, "--model"},
		{[]string{"generate", "autoadmin-homogeneous", "--slowstart", "0", "-o", "x.yaml"}, 2, "--slowstart"},
		{[]string{"generate", "autoadmin-homogeneous", "--gap", "-1", "-o", "x.yaml"}, 2, "--gap"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errOut, tt.code, tt.msg)
		}
	}
}

// The generators write the paper's setups, the same bytes every time, and
// autoadmin shows its report under --json.
func TestGenerateAutoAdmin(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, f := range []string{a, b} {
		if _, errOut, code := run(t, "generate", "autoadmin-hetero", "--exp", "4", "-o", f); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if string(x) != string(y) {
		t.Fatal("generate autoadmin-hetero is not deterministic")
	}
	out, errOut, code := run(t, "simulate", "-w", a, "-p", "fair:max_am_share=-1", "-a", "autoadmin", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	rep, ok := m["autoadmin"].(map[string]any)
	if !ok || m["jobs_completed"] != 60.0 || m["deadlocked"] != false {
		t.Fatalf("jobs %v, deadlocked %v, report %v", m["jobs_completed"], m["deadlocked"], m["autoadmin"])
	}
	for _, k := range []string{"config", "reserve_min", "reserve_max", "reserve_avg", "admitted_max", "waiting_max", "forced_admissions", "series"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("autoadmin report lacks %q", k)
		}
	}
	out, _, _ = run(t, "policies")
	for _, want := range []string{"autoadmin", "autoadmin+", "floor", "cold_start"} {
		if !strings.Contains(out, want) {
			t.Errorf("policies output lacks %q", want)
		}
	}
}
