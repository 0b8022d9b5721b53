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
