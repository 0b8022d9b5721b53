package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The DRESS generators write the same file for the same flags, and
// `compare -p capacity,dress` runs on it with the dress section in --json.
func TestGenerateDRESS(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"dress-spark", "dress-mapreduce", "dress-mixed"} {
		var files [2][]byte
		for i := range files {
			path := filepath.Join(dir, name+".yaml")
			if _, errOut, code := run(t, "generate", name, "--small-frac", "0.2", "--seed", "3", "-o", path); code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, errOut)
			}
			files[i], _ = os.ReadFile(path)
		}
		if len(files[0]) == 0 || string(files[0]) != string(files[1]) {
			t.Fatalf("%s: empty or not deterministic", name)
		}
	}
	out, errOut, code := run(t, "compare", "-q", "-w", filepath.Join(dir, "dress-mixed.yaml"), "-p", "capacity,dress", "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	var sums []map[string]any
	if err := json.Unmarshal([]byte(out), &sums); err != nil || len(sums) != 2 {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	d, ok := sums[1]["dress"].(map[string]any)
	if !ok || d["estimator_accuracy"] == nil || d["series"] == nil || sums[1]["jobs_completed"] != 20.0 {
		t.Errorf("dress run: section %v, %v jobs completed", ok, sums[1]["jobs_completed"])
	}
	if _, ok := sums[0]["dress"]; ok {
		t.Error("capacity's summary has a dress section")
	}
	// The table shows the release estimator's error for DRESS runs only.
	out, errOut, code = run(t, "compare", "-q", "-w", filepath.Join(dir, "dress-mixed.yaml"), "-p", "capacity,dress")
	if code != 0 || !strings.Contains(out, "dress releases/interval: predicted") || !strings.Contains(out, "error (MAE)") {
		t.Errorf("compare table: exit %d %s\n%s", code, errOut, out)
	}
	out, _, _ = run(t, "compare", "-q", "-w", filepath.Join(dir, "dress-mixed.yaml"), "-p", "capacity,fifo")
	if strings.Contains(out, "dress releases") {
		t.Errorf("a table without DRESS runs shows the estimator's rows:\n%s", out)
	}
}

func TestGenerateDRESSErrors(t *testing.T) {
	for _, args := range [][]string{
		{"generate", "dress-mixed", "--small-frac", "2", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "dress-mixed", "--gap", "-1", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "dress-spark"},
		{"generate", "dress-mixed", "--medium-frac", "1.5", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "dress-stream", "--gap", "0", "-o", filepath.Join(t.TempDir(), "w.yaml")},
		{"generate", "dress-stream", "--large", "-5", "-o", filepath.Join(t.TempDir(), "w.yaml")},
	} {
		_, errOut, code := run(t, args...)
		if code != 2 || !strings.HasPrefix(errOut, "spindle: ") || strings.Contains(errOut, "goroutine") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
