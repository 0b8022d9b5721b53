package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/spindle-sched/spindle/metrics"
)

// FuzzSection: no report section, however malformed, panics the report.
func FuzzSection(f *testing.F) {
	for _, s := range []string{
		`{"series": {"a": [[0, 1], [1, null]]}, "charts": [], "tables": [{"columns": ["x"], "rows": [[1]]}]}`,
		`{"series": [{"t_s": 1, "delta": 0.1, "predicted": 2, "actual": 3}]}`,
		`{"series": {"t_s": [0, 1], "reserve": {"vcores": [1, 2]}, "admitted": [1, 2], "waiting": [0, 0]}}`,
		`{"sets": [{"plan": 1, "jobs": ["a"]}], "x": {"y": {"z": 1}}}`,
		`[1, "a", null]`, `3`, `{"series": {"a": [[1e308, -1e308]]}}`,
	} {
		f.Add("dress", s)
		f.Add("autoadmin", s)
		f.Add("other", s)
	}
	f.Fuzz(func(t *testing.T, name, raw string) {
		if !json.Valid([]byte(raw)) || name == "" {
			return
		}
		r := &Run{Name: "r", Summary: &metrics.Summary{Policy: "r", JobsTotal: 1,
			Categories: map[metrics.Category]*metrics.CategoryStats{}, Reports: map[string]any{name: json.RawMessage(raw)}}}
		var b bytes.Buffer
		if err := Render(&b, []*Run{r}, Options{}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzJobsCSV: a corrupt jobs.csv is an error, never a panic.
func FuzzJobsCSV(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "goals", "fifo", "jobs.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(good))
	f.Add("job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met\nx,small,0,,,,,,,\n")
	f.Add("job_id\n\"unterminated\n")
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(t.TempDir(), "jobs.csv")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs, err := readJobs(path)
		if err != nil {
			return
		}
		r := &Run{Name: "r", Jobs: jobs, Summary: &metrics.Summary{Policy: "r", Categories: map[metrics.Category]*metrics.CategoryStats{}}}
		var b bytes.Buffer
		if err := Render(&b, []*Run{r}, Options{}); err != nil {
			t.Fatal(err)
		}
	})
}
