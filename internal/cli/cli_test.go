package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return o.String(), e.String(), code
}

const tiny = "../../examples/tiny.json"

// The JSON keys docs/design.md ("Output contract") promises.
var contractKeys = []string{"policy", "admission", "jobs_total", "jobs_completed", "deadlocked", "makespan_s",
	"wait_avg_s", "wait_median_s", "jct_avg_s", "jct_median_s", "jct_p95_s", "throughput_jobs_per_h",
	"utilization_avg", "categories", "deadline_met_frac", "events", "wall_s"}

func TestSimulateJSONContract(t *testing.T) {
	out, errOut, code := run(t, "simulate", "-w", tiny, "-p", "fifo", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range contractKeys {
		if _, ok := m[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
	cats := m["categories"].(map[string]any)
	for _, c := range []string{"small", "large"} {
		cm, ok := cats[c].(map[string]any)
		if !ok {
			t.Fatalf("categories.%s missing", c)
		}
		for _, k := range []string{"jobs", "wait_avg_s", "jct_avg_s", "jct_median_s"} {
			if _, ok := cm[k]; !ok {
				t.Errorf("categories.%s.%s missing", c, k)
			}
		}
	}
	// tiny.json is the hand-computed FIFO case: makespan 15, JCTs 10, 14, 11.
	if m["makespan_s"] != 15.0 || m["jct_median_s"] != 11.0 || m["deadline_met_frac"] != nil || m["policy"] != "fifo" || m["estimates"] != "declared" {
		t.Errorf("values: makespan %v, median JCT %v, deadlines %v, policy %v, estimates %v", m["makespan_s"], m["jct_median_s"], m["deadline_met_frac"], m["policy"], m["estimates"])
	}
}

func TestOutputIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	var outs [2]string
	for i := range outs {
		d := filepath.Join(dir, string(rune('a'+i)))
		out, errOut, code := run(t, "simulate", "-w", "../../examples/mixed.yaml", "-p", "capacity", "--seed", "7", "--json", "-o", d)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		outs[i] = dropWall(t, out)
	}
	if outs[0] != outs[1] {
		t.Fatal("two runs printed different summaries")
	}
	for _, f := range []string{"jobs.csv", "summary.json"} {
		a, err := os.ReadFile(filepath.Join(dir, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "b", f))
		if f == "summary.json" {
			a, b = []byte(dropWall(t, string(a))), []byte(dropWall(t, string(b)))
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between identical runs", f)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "a", "jobs.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met" || len(lines) != 21 {
		t.Errorf("jobs.csv: header %q, %d lines", lines[0], len(lines))
	}
}

// dropWall removes the one field that measures the host, not the run.
func dropWall(t *testing.T, s string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["wall_s"]; !ok {
		t.Fatal("no wall_s")
	}
	delete(m, "wall_s")
	b, _ := json.Marshal(m)
	return string(b)
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := run(t, "compare", "-w", tiny, "-p", "fifo,fair:max_am_share=-1,drf", "--json", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var arr []map[string]any
	if err := json.Unmarshal([]byte(out), &arr); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	var got []string
	for _, m := range arr {
		got = append(got, m["policy"].(string))
	}
	if strings.Join(got, " ") != "fifo fair:max_am_share=-1 drf" {
		t.Fatalf("policies %v", got)
	}
	for _, d := range []string{"fifo", "fair%3Amax_am_share=-1", "drf"} {
		if _, err := os.Stat(filepath.Join(dir, d, "summary.json")); err != nil {
			t.Errorf("missing %s/summary.json: %v", d, err)
		}
	}
	// The human table names every policy.
	out, _, code = run(t, "compare", "-w", tiny, "-p", "fifo", "-p", "capacity")
	if code != 0 || !strings.Contains(out, "fifo") || !strings.Contains(out, "capacity") || !strings.Contains(out, "makespan") {
		t.Fatalf("table output (exit %d):\n%s", code, out)
	}
}

func TestErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\ncluster:\n  nodes: [{count: 1, vcores: 4, memory_mb: 1024}]\njobs:\n  - id: a\n    phases: [{tasks: 0, request: {vcores: 1, memory_mb: 1}, duration: 1s}]\n"), 0o644)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"simulate", "-w", tiny, "-p", "nosuch"}, 2, `unknown policy "nosuch"`},
		{[]string{"simulate", "-w", tiny, "-p", "fair:bogus=1"}, 2, "unknown parameter bogus"},
		{[]string{"simulate", "-w", tiny, "-p", "fair:max_am_share=2"}, 2, "outside"},
		{[]string{"simulate", "-w", tiny, "-p", "fifo", "-a", "static:x"}, 2, "static"},
		{[]string{"simulate", "-p", "fifo"}, 2, "no workload"},
		{[]string{"simulate", "-w", tiny}, 2, "no policy"},
		{[]string{"simulate", "-w", "nonexistent.yaml", "-p", "fifo"}, 1, "nonexistent.yaml"},
		{[]string{"simulate", "-w", bad, "-p", "fifo"}, 1, "bad.yaml:6: jobs[0].phases[0].tasks"},
		{[]string{"simulate", "--bogus"}, 2, "unknown flag"},
		{[]string{"generate", "synthetic", "--jobs", "0", "-o", "x.json"}, 2, "--jobs"},
		{[]string{"generate", "synthetic"}, 2, "-o FILE"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errOut, tt.code, tt.msg)
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%v: stack trace in output: %s", tt.args, errOut)
		}
	}
}

func TestGenerateThenSimulate(t *testing.T) {
	f := filepath.Join(t.TempDir(), "w.json")
	_, errOut, code := run(t, "generate", "synthetic", "--nodes", "4", "--jobs", "30", "--tasks-per-job", "5", "--seed", "3", "-o", f)
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	first, _ := os.ReadFile(f)
	run(t, "generate", "synthetic", "--nodes", "4", "--jobs", "30", "--tasks-per-job", "5", "--seed", "3", "-o", f)
	second, _ := os.ReadFile(f)
	if !bytes.Equal(first, second) {
		t.Fatal("generate is not deterministic")
	}
	out, errOut, code := run(t, "simulate", "-w", f, "-p", "drf", "--json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	var m map[string]any
	json.Unmarshal([]byte(out), &m)
	if m["jobs_total"] != 30.0 || m["jobs_completed"] != 30.0 {
		t.Fatalf("jobs %v/%v", m["jobs_completed"], m["jobs_total"])
	}
}

func TestVersionAndPolicies(t *testing.T) {
	out, _, code := run(t, "--version")
	if code != 0 || !strings.Contains(out, "spindle version") {
		t.Fatalf("--version: %q", out)
	}
	out, _, _ = run(t, "policies")
	for _, want := range []string{"fifo", "capacity", "fair", "drf", "max_am_share", "max_am_percent", "static:<vcores>"} {
		if !strings.Contains(out, want) {
			t.Errorf("policies output lacks %q", want)
		}
	}
}

// sjf on a workload without estimates says so on stderr and names the
// sources that would give every job one; fair, which reads none, says
// nothing.
func TestSimulateNotesMissingEstimates(t *testing.T) {
	_, stderr, code := run(t, "simulate", "-w", "../../examples/mixed.yaml", "-p", "sjf", "-q")
	if code != 0 || !strings.Contains(stderr, "note: 20 of 20 jobs have no estimate field") || !strings.Contains(stderr, "--estimates history") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = run(t, "simulate", "-w", "../../examples/mixed.yaml", "-p", "fair", "-q")
	if code != 0 || strings.Contains(stderr, "estimate") {
		t.Errorf("fair: exit %d, stderr %q", code, stderr)
	}
}

// A deadlocked run says so and reports the span it covered and the
// utilization over it in every output: the text table, summary.json and the
// report's utilisation strip (am-burst under fair, whose AMs hold the whole
// cluster from the fourth second on).
func TestDeadlockedRunReportsSpan(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := run(t, "compare", "-w", "../../examples/am-burst.yaml", "-p", "fair,drf", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 {
			rows[strings.Join(f[:len(f)-2], " ")] = f[len(f)-2:]
		}
	}
	if got := rows["deadlocked"]; len(got) != 2 || got[0] != "true" || got[1] != "false" {
		t.Errorf("deadlocked row %v", got)
	}
	if got := rows["makespan (s)"]; len(got) != 2 || got[0] != "-" {
		t.Errorf("makespan row %v: want - for fair, which completed no job", got)
	}
	var sum struct {
		Span *float64 `json:"span_s"`
		End  float64  `json:"end_s"`
		Util float64  `json:"utilization_avg"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "fair", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Span == nil || *sum.Span != sum.End || sum.Util <= 0.5 || sum.Util > 1 {
		t.Fatalf("fair's summary: span %v, end %v, utilization %v", sum.Span, sum.End, sum.Util)
	}
	if got := rows["span to the stop (s)"]; len(got) != 2 || got[0] != fmt.Sprintf("%.1f", *sum.Span) {
		t.Errorf("span row %v, want %.1f first", got, *sum.Span)
	}
	if got := rows["utilization"]; len(got) != 2 || got[0] != fmt.Sprintf("%.3f", sum.Util) {
		t.Errorf("utilization row %v, want %.3f first", got, sum.Util)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("mean %.1f %% over the %.1f s the run covered; it ended deadlocked", sum.Util*100, *sum.Span)
	if !strings.Contains(string(page), want) {
		t.Errorf("report.html lacks %q", want)
	}
}

// Each defect a new user hit is a clear, bounded error that names what is
// wrong: no out-of-memory, no goroutine trace, no temporary file.
func TestBadInputIsAClearError(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "w.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"tasks per job", []string{"generate", "synthetic", "--nodes", "2", "--jobs", "2", "--tasks-per-job", "1e12", "-o", filepath.Join(dir, "a.json")},
			"2e+12 tasks, more than the 100000000"},
		{"synthetic jobs", []string{"generate", "synthetic", "--nodes", "2", "--jobs", "2000000000", "--tasks-per-job", "2", "-o", filepath.Join(dir, "b.json")},
			"--jobs 2000000000 is more than the 2000000"},
		{"djsf-google jobs", []string{"generate", "djsf-google", "--jobs", "2000000000", "-o", filepath.Join(dir, "c.json")},
			"djsf-google: --jobs 2000000000 is more than the 2000000"},
		{"empty policy list", []string{"compare", "-w", tiny, "-p", ""}, "-p: no policy named"},
		{"policy twice", []string{"compare", "-w", tiny, "-p", "fair,fair", "-o", filepath.Join(dir, "twice")}, `policy "fair" is given twice`},
		{"no parallelism", []string{"compare", "-w", tiny, "-p", "fifo", "-j", "0"}, "-j/--parallel must be at least 1, got 0"},
		{"sweep no parallelism", []string{"sweep", "-w", tiny, "-p", "fifo", "--static", "0:2:1", "-j", "0"}, "-j/--parallel must be at least 1"},
		{"experiments no parallelism", []string{"experiments", "dress", "-j", "-1", "--print"}, "-j/--parallel must be at least 1"},
		{"negative AM share", []string{"simulate", "-w", tiny, "-p", "fair:max_am_share=-0.5"}, "max_am_share: -0.5 is neither a share in [0, 1] nor -1"},
		{"static above the cluster", []string{"simulate", "-w", tiny, "-p", "fair", "-a", "static:1e9"}, "more vcores for tasks than the cluster has (4 vcores)"},
		{"static beyond any cluster", []string{"simulate", "-w", tiny, "-p", "fair", "-a", "static:1e300"}, "more than any cluster"},
		{"unknown trace key", []string{"simulate", "--trace", "swf:f,bogus=1", "-p", "fair"}, `unknown trace option "bogus"`},
		{"unwritable output", []string{"generate", "synthetic", "--nodes", "2", "--jobs", "2", "--tasks-per-job", "2", "-o", missing}, missing + ": no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, tt.args...)
			if code == 0 {
				t.Fatalf("exit 0; want an error")
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q lacks %q", errOut, tt.want)
			}
			for _, bad := range []string{"goroutine", ".tmp", "panic"} {
				if strings.Contains(errOut, bad) {
					t.Errorf("stderr names %q: %s", bad, errOut)
				}
			}
		})
	}
	// -1 is YARN's "no AM limit" and stays allowed.
	if _, errOut, code := run(t, "simulate", "-w", tiny, "-p", "fair:max_am_share=-1", "-q"); code != 0 {
		t.Errorf("max_am_share=-1 refused: %s", errOut)
	}
}

// compare -o names each run's directory after its policy as written.
func TestCompareDirectoriesArePoliciesAsWritten(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := run(t, "compare", "-w", tiny, "-p", "dress+,dress,fair:max_am_share=-1", "-o", dir, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for spec, name := range map[string]string{"dress+": "dress+", "dress": "dress", "fair:max_am_share=-1": "fair%3Amax_am_share=-1"} {
		b, err := os.ReadFile(filepath.Join(dir, name, "summary.json"))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || m["policy"] != spec {
			t.Errorf("%s/summary.json is policy %v, want %s (%v)", name, m["policy"], spec, err)
		}
	}
	got, err := dirNamesOf([]string{"a:b", "a%3Ab"})
	if err != nil || got[0] != "a%3Ab" || got[1] != "a%253Ab" {
		t.Errorf("mapping not one to one: %v, %v", got, err)
	}
}

func TestExperimentsHelpListsThem(t *testing.T) {
	out, _, code := run(t, "experiments", "--help")
	if code != 0 {
		t.Fatal("experiments --help failed")
	}
	for _, name := range []string{"adaptive", "autoadmin", "djsf", "dress", "traces"} {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("experiments --help does not list %s:\n%s", name, out)
		}
	}
}
