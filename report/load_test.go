package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyRun copies a run directory of the test data so a test can break it.
func copyRun(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadErrors: every broken input is an error naming the file (and the
// line for CSV), never a panic.
func TestLoadErrors(t *testing.T) {
	src := filepath.Join("testdata", "goals", "fifo")
	tests := []struct {
		name  string
		file  string // relative to the run directory; "" leaves it intact
		data  string // new content; "-" removes the file
		index string // a runs.json for the comparison directory, when set
		want  string
	}{
		{"no summary", "summary.json", "-", "", "no summary.json"},
		{"corrupt summary", "summary.json", `{"policy": "fifo",`, "", "summary.json: unexpected end"},
		{"not a summary", "summary.json", `{"x": 1}`, "", "summary.json: no policy"},
		{"summary of the wrong type", "summary.json", `{"policy": 3}`, "", "summary.json"},
		{"no jobs", "jobs.csv", "-", "", "jobs.csv"},
		{"empty jobs", "jobs.csv", "", "", "jobs.csv: empty file"},
		{"jobs header", "jobs.csv", "job_id,category\nx,small\n", "", `jobs.csv: no column "submit_s"`},
		{"jobs number", "jobs.csv", "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met\nx,small,0,0,0,1,zz,1,,\n", "", `jobs.csv:2: wait_s: "zz" is not a number`},
		{"jobs missing submit", "jobs.csv", "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met\nx,small,,0,0,1,0,1,,\n", "", "jobs.csv:2: submit_s: empty"},
		{"jobs category", "jobs.csv", "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met\nx,huge,0,0,0,1,0,1,,\n", "", `jobs.csv:2: category: "huge"`},
		{"jobs met", "jobs.csv", "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met\nx,small,0,0,0,1,0,1,2,yes\n", "", `jobs.csv:2: met: "yes"`},
		{"jobs ragged", "jobs.csv", "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met\nx,small,0\n", "", "jobs.csv"},
		{"jobs NaN", "jobs.csv", "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met\nx,small,NaN,0,0,1,0,1,,\n", "", "jobs.csv:2: submit_s"},
		{"timeline header", "timeline.csv", "t,u\n1,2\n", "", `timeline.csv: no column "t_s"`},
		{"timeline number", "timeline.csv", "t_s,vcores,memory_mb,utilization\n0,1,1,x\n", "", `timeline.csv:2: utilization`},
		{"timeline order", "timeline.csv", "t_s,vcores,memory_mb,utilization\n5,1,1,0.5\n2,1,1,0.5\n", "", "timeline.csv:3: t_s"},
		{"external corrupt", "external_load.json", "{", "", "external_load.json"},
		{"external invalid", "external_load.json", `{"points": [[0, 2]], "period_s": 0}`, "", "external_load.json: load curve"},
		{"index corrupt", "", "", "[", "runs.json"},
		{"index empty", "", "", `{"runs": []}`, "runs.json: lists no runs"},
		{"index escapes", "", "", `{"runs": ["../goals"]}`, "runs.json: run \"../goals\" is not a plain directory name"},
		{"index names a missing run", "", "", `{"runs": ["r", "gone"]}`, filepath.Join("gone", "summary.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			run := filepath.Join(dir, "r")
			copyRun(t, src, run)
			if tt.file != "" {
				path := filepath.Join(run, tt.file)
				if tt.data == "-" {
					os.Remove(path)
				} else if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.index != "" {
				if err := os.WriteFile(filepath.Join(dir, IndexFile), []byte(tt.index), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := run
			if tt.index != "" || tt.data == "-" && tt.file == "summary.json" {
				target = dir
			}
			_, err := Load(target)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: %v; want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestLoadDirectories(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing directory: %v", err)
	}
	// Without runs.json, the runs are the subdirectories with a summary,
	// in name order.
	dir := t.TempDir()
	copyRun(t, filepath.Join("testdata", "goals", "fifo"), filepath.Join(dir, "zeta"))
	copyRun(t, filepath.Join("testdata", "goals", "fair"), filepath.Join(dir, "alpha"))
	os.Mkdir(filepath.Join(dir, "other"), 0o755)
	runs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Name != "fair" || runs[1].Name != "fifo" {
		t.Errorf("runs %s, %s", runs[0].Name, runs[1].Name)
	}
	// With it, its order.
	if err := WriteIndex(dir, []string{"zeta", "alpha"}); err != nil {
		t.Fatal(err)
	}
	if runs, err = Load(dir); err != nil || runs[0].Name != "fifo" {
		t.Errorf("indexed: %v", err)
	}
	if err := WriteIndex(dir, []string{"a/b"}); err == nil {
		t.Error("WriteIndex accepted a path")
	}
	// A directory holding both a run and a comparison is ambiguous.
	copyRun(t, filepath.Join("testdata", "goals", "fifo"), dir)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "both a run") {
		t.Errorf("ambiguous directory: %v", err)
	}
	// An empty directory is not a run directory.
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("empty directory: %v", err)
	}
}

// Runs of one policy under different admission controllers are told
// apart by it, then by directory.
func TestLabels(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		copyRun(t, filepath.Join("testdata", "goals", "fifo"), filepath.Join(dir, n))
	}
	sum := filepath.Join(dir, "b", "summary.json")
	b, _ := os.ReadFile(sum)
	os.WriteFile(sum, []byte(strings.Replace(string(b), `"admission": "none"`, `"admission": "static:4"`, 1)), 0o644)
	runs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{runs[0].Name, runs[1].Name, runs[2].Name}
	if strings.Join(got, "|") != "a|fifo + static:4|c" {
		t.Errorf("labels %q", got)
	}
}
