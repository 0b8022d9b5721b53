package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The adaptive-shared generator writes the same file for the same flags,
// and `compare -p fifo,adaptive,reverse-adaptive` runs on it with goals,
// unmet external demand and both schemes' report sections in --json.
func TestGenerateAdaptiveShared(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exp3.json")
	var files [2][]byte
	for i := range files {
		if _, errOut, code := run(t, "generate", "adaptive-shared", "--exp", "3", "--burstiness", "2", "--jobs", "20", "--seed", "4", "-o", path); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		files[i], _ = os.ReadFile(path)
	}
	if len(files[0]) == 0 || string(files[0]) != string(files[1]) {
		t.Fatal("empty or not deterministic")
	}
	out, errOut, code := run(t, "compare", "-q", "-w", path, "-p", "fifo,adaptive,reverse-adaptive", "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "not yet applied") {
		t.Errorf("the external load is still said not to be applied: %s", errOut)
	}
	var sums []map[string]any
	if err := json.Unmarshal([]byte(out), &sums); err != nil || len(sums) != 3 {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	for i, s := range sums {
		if s["deadline_met_frac"] == nil || s["external_unmet"] == nil || s["jobs_completed"] != 20.0 {
			t.Errorf("%v: goals %v, unmet %v, %v jobs completed", s["policy"], s["deadline_met_frac"], s["external_unmet"], s["jobs_completed"])
		}
		_, a := s["adaptive"]
		_, r := s["reverse_adaptive"]
		if a != (i == 1) || r != (i == 2) {
			t.Errorf("%v: report sections adaptive %v, reverse_adaptive %v", s["policy"], a, r)
		}
	}
}

func TestGenerateAdaptiveSharedErrors(t *testing.T) {
	for _, args := range [][]string{
		{"generate", "adaptive-shared", "--exp", "4", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "adaptive-shared", "--burstiness", "-1", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "adaptive-shared", "--goal-min", "0.5", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "adaptive-shared", "--period", "1e300", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "adaptive-shared"},
	} {
		_, errOut, code := run(t, args...)
		if code != 2 || !strings.HasPrefix(errOut, "spindle: ") || strings.Contains(errOut, "goroutine") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
