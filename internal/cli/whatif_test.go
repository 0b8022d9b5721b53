package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/whatif"
)

// A small recorded run (two jobs on one node), as whatif/whatif_test.go
// computes it by hand.
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

func TestWhatif(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.yaml")
	if err := os.WriteFile(rec, []byte(recordedDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"whatif", "-q", "-w", rec, "-p", "fifo,fair", "-o", filepath.Join(dir, "out")}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	for _, s := range []string{"as recorded  kube-scheduler  fifo  fair", "reproduction: kube-scheduler against the recorded run: makespan 11.7 s simulated, 12.0 s recorded (-2.3 %), 2 jobs completed in both (too few",
		"large 2 jobs: mean JCT 8.9 s against 9.5 s recorded (-7 %); mean wait 1.3 s against 2.0 s (-35 %)",
		"warning: the recording is too small to check the baseline (2 jobs", "warning: " + whatif.NotContended,
		"kube-scheduler (the baseline, the model of the recorded run): no small jobs; large jobs 8.9 s on average against 9.5 s as recorded (-7 %)",
		"These differences are the model's error, not a policy's effect.",
		"fifo against kube-scheduler simulated, over the same 2 jobs: no small jobs; large jobs finish about as fast (8.9 s on average against 8.9 s under kube-scheduler; 9.5 s as recorded)",
		"fair against kube-scheduler simulated", "admission none"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(s), " ")) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	for _, f := range []string{"as-recorded/summary.json", "as-recorded/jobs.csv", "kube-scheduler/summary.json", "fair/jobs.csv", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("-o wrote no %s: %v", f, err)
		}
	}
	out.Reset()
	if code := Main([]string{"whatif", "-q", "-w", rec, "-p", "fair", "--baseline", "fifo", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		Runs []struct {
			Policy string `json:"policy"`
		} `json:"runs"`
		Reproduction struct {
			Policy string `json:"policy"`
		} `json:"reproduction"`
		Sentences     []string `json:"sentences"`
		BaselineCheck struct {
			Jobs    int  `json:"jobs_compared"`
			TooFew  bool `json:"too_few_jobs"`
			Classes []struct {
				Class    string   `json:"class"`
				JCTError *float64 `json:"jct_error"`
			} `json:"classes"`
		} `json:"baseline_check"`
		Comparisons []struct {
			Policy string `json:"policy"`
		} `json:"comparisons"`
		Contended bool     `json:"contended"`
		Warnings  []string `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("--json: %v\n%s", err, out.String())
	}
	if len(r.Runs) != 3 || r.Runs[0].Policy != "as recorded" || r.Runs[1].Policy != "fifo" || r.Reproduction.Policy != "fifo" || len(r.Sentences) != 2 {
		t.Errorf("--json: %+v", r)
	}
	bc := r.BaselineCheck
	if bc.Jobs != 2 || !bc.TooFew || len(bc.Classes) != 1 || bc.Classes[0].Class != "large" || bc.Classes[0].JCTError == nil ||
		len(r.Comparisons) != 2 || r.Comparisons[1].Policy != "fair" || r.Contended || len(r.Warnings) != 2 {
		t.Errorf("--json's check: %+v", r)
	}
	// Bad input.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"whatif", "-w", "../../examples/tiny.json"}, "holds no recorded run"},
		{[]string{"whatif", "-w", rec, "--baseline", "nope"}, `--baseline "nope": unknown policy`},
	} {
		errb.Reset()
		if code := Main(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// TestReproductionWarning: each run-wide check that fails is named with
// its figure, both when both fail, nothing when both pass (the bounds
// themselves pass).
func TestReproductionWarning(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name      string
		mk, order float64
		want      []string // substrings; nil: no warning
	}{
		{"both pass", -0.05, 0.95, nil},
		{"at the bounds", -0.10, 0.8, nil},
		{"makespan short", -0.158, 0.9, []string{"its makespan is -15.8 % off (more than 10 %)"}},
		{"makespan long", 0.12, 0.9, []string{"its makespan is +12.0 % off"}},
		{"order", 0.01, 0.73, []string{"rank correlation is 0.73 (below 0.8)"}},
		{"both", -0.158, 0.73, []string{"-15.8 % off", " and its completion order's rank correlation is 0.73"}},
		{"no makespan", nan, 0.9, []string{"its makespan cannot be compared"}},
		{"no order (too few jobs: the caller says so)", 0.01, nan, nil},
	} {
		got := reproductionWarning(whatif.Agreement{MakespanError: c.mk, OrderCorr: c.order})
		if c.want == nil {
			if got != "" {
				t.Errorf("%s: warning %q, want none", c.name, got)
			}
			continue
		}
		if !strings.HasPrefix(got, "the baseline does not reproduce the recorded run: ") {
			t.Errorf("%s: warning %q", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: warning %q lacks %q", c.name, got, w)
			}
		}
	}
}
