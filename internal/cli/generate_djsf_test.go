package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generate djsf-google writes a workload that compare runs under SJF,
// Tetris and DJSF, and the summaries carry the DJSF paper's measures.
func TestGenerateDJSFGoogleAndCompare(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "g.json")
	_, errOut, code := run(t, "generate", "djsf-google", "--jobs", "40", "--nodes", "6", "--seed", "3", "-o", w)
	if code != 0 || !strings.Contains(errOut, "40 jobs") {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	out, errOut, code := run(t, "compare", "-q", "-w", w, "-p", "sjf,tetris,djsf,djsf+", "--estimates", "oracle", "--estimate-error", "0.2", "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	var ss []map[string]any
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(ss) != 4 {
		t.Fatalf("%d summaries", len(ss))
	}
	for _, s := range ss {
		if s["estimates"] != "oracle" || s["estimate_error"] != 0.2 || s["jobs_completed"] != 40.0 {
			t.Errorf("%v: estimates %v ± %v, %v jobs", s["policy"], s["estimates"], s["estimate_error"], s["jobs_completed"])
		}
		if s["throughput_ref"] != "slowest makespan in the comparison" || len(s["completed_by"].([]any)) != 3 || s["completion_efficiency"] == nil {
			t.Errorf("%v: throughput %v %v, efficiency %v", s["policy"], s["throughput_ref"], s["completed_by"], s["completion_efficiency"])
		}
	}
	for _, i := range []int{2, 3} {
		d, ok := ss[i]["djsf"].(map[string]any)
		if !ok || len(d["sets"].([]any)) == 0 {
			t.Errorf("%v: no djsf report with sets: %v", ss[i]["policy"], ss[i]["djsf"])
		}
	}
	// The table shows the measures too.
	out, _, code = run(t, "compare", "-q", "-w", w, "-p", "sjf,djsf", "--estimates", "oracle")
	if code != 0 || !strings.Contains(out, "done by 25% of T (jobs)") || !strings.Contains(out, "completion efficiency") {
		t.Errorf("table:\n%s", out)
	}
}

func TestGenerateDJSFGoogleErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"generate", "djsf-google", "--jobs", "10"}, "no output file"},
		{[]string{"generate", "djsf-google", "--jobs", "0", "-o", filepath.Join(dir, "x.yaml")}, "--jobs must be positive"},
		{[]string{"generate", "djsf-google", "--load", "-1", "-o", filepath.Join(dir, "x.yaml")}, "--load must be positive"},
		{[]string{"generate", "djsf-google", "--preset", "nature", "-o", filepath.Join(dir, "x.yaml")}, "unknown preset"},
		{[]string{"generate", "djsf-google", "--arrivals", "rain", "-o", filepath.Join(dir, "x.yaml")}, "--arrivals must be"},
		{[]string{"generate", "djsf-google", "--corr", "2", "-o", filepath.Join(dir, "x.yaml")}, "--corr must be"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.yaml")); err == nil {
		t.Error("a failed generate wrote a file")
	}
}

// --preset paper sets the regime, and a flag given explicitly wins over it.
func TestGenerateDJSFGooglePreset(t *testing.T) {
	dir := t.TempDir()
	read := func(args ...string) []byte {
		t.Helper()
		path := filepath.Join(dir, "w.json")
		args = append([]string{"generate", "djsf-google", "--jobs", "60", "--nodes", "4", "--seed", "2", "-o", path}, args...)
		if _, errOut, code := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, _ := os.ReadFile(path)
		return b
	}
	preset := read("--preset", "paper")
	explicit := read("--corr", "-0.5", "--short-wide", "0.3", "--arrivals", "batch")
	if string(preset) != string(explicit) {
		t.Error("--preset paper differs from its flags given one by one")
	}
	bursts := read("--preset", "paper", "--arrivals", "bursts")
	// A submit time of 0 is left out of the file.
	if strings.Contains(string(preset), `"submit"`) || !strings.Contains(string(bursts), `"submit"`) {
		t.Error("the preset is not a batch, or --arrivals after --preset did not win")
	}
}
