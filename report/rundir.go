package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/metrics"
)

// IndexFile lists, in a comparison directory, the run subdirectories in
// the order the comparison ran them, so a re-rendered report keeps that
// order.
const IndexFile = "runs.json"

// Index is the content of IndexFile.
type Index struct {
	Runs []string `json:"runs"`
}

// WriteIndex writes dir/runs.json naming the run subdirectories in order.
func WriteIndex(dir string, runs []string) error {
	for _, r := range runs {
		if err := checkRunName(r); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(dir, IndexFile), err)
		}
	}
	b, err := json.MarshalIndent(Index{Runs: runs}, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, IndexFile), err)
	}
	path := filepath.Join(dir, IndexFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// checkRunName accepts a plain subdirectory name, so an index cannot point
// outside its directory.
func checkRunName(r string) error {
	if r == "" || r == "." || r == ".." || strings.ContainsAny(r, `/\`) {
		return fmt.Errorf("run %q is not a plain directory name", r)
	}
	return nil
}

// Run is one run directory as saved by simulate or compare.
type Run struct {
	// Dir is the directory it was read from; Name labels it in the report.
	Dir, Name string
	Summary   *metrics.Summary
	Jobs      []metrics.Job
	// Timeline is the allocation over time; nil when the run directory has
	// no timeline.csv.
	Timeline []Sample
	// External is the external-load curve f(t); nil without one.
	External *cluster.LoadCurve
}

// Sample is one row of timeline.csv.
type Sample struct {
	T, Util float64
}

// Load reads a run directory, or a comparison directory holding several
// (in the order of its runs.json, else by name), without re-simulating.
func Load(dir string) ([]*Run, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	single := exists(filepath.Join(dir, "summary.json"))
	if single && exists(filepath.Join(dir, IndexFile)) {
		// Both a run and a comparison were written here; guessing which
		// is meant could show stale results.
		return nil, fmt.Errorf("%s holds both a run (summary.json) and a comparison (%s): remove the stale one, or pass one run's directory", dir, IndexFile)
	}
	if single {
		r, err := LoadRun(dir)
		if err != nil {
			return nil, err
		}
		return []*Run{r}, nil
	}
	names, err := runNames(dir)
	if err != nil {
		return nil, err
	}
	return LoadRuns(dir, names)
}

// LoadRuns reads the named run subdirectories of dir, in that order.
func LoadRuns(dir string, names []string) ([]*Run, error) {
	var runs []*Run
	for _, n := range names {
		if err := checkRunName(n); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		r, err := LoadRun(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	labelRuns(runs)
	return runs, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runNames lists the run subdirectories of a comparison directory.
func runNames(dir string) ([]string, error) {
	idx := filepath.Join(dir, IndexFile)
	b, err := os.ReadFile(idx)
	switch {
	case err == nil:
		var x Index
		if err := json.Unmarshal(b, &x); err != nil {
			return nil, fmt.Errorf("%s: %w", idx, err)
		}
		if len(x.Runs) == 0 {
			return nil, fmt.Errorf("%s: lists no runs", idx)
		}
		for _, r := range x.Runs {
			if err := checkRunName(r); err != nil {
				return nil, fmt.Errorf("%s: %w", idx, err)
			}
		}
		return x.Runs, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", idx, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && exists(filepath.Join(dir, e.Name(), "summary.json")) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: not a run directory: no summary.json in it or in any subdirectory", dir)
	}
	sort.Strings(names)
	return names, nil
}

// labelRuns names each run by its policy, adding the admission controller
// or, failing that, the directory where two runs would read the same.
func labelRuns(runs []*Run) {
	count := func(f func(r *Run) string) map[string]int {
		m := map[string]int{}
		for _, r := range runs {
			m[f(r)]++
		}
		return m
	}
	byPolicy := count(func(r *Run) string { return r.Summary.Policy })
	withAdm := func(r *Run) string { return r.Summary.Policy + " + " + r.Summary.Admission }
	byAdm := count(withAdm)
	for _, r := range runs {
		switch {
		case byPolicy[r.Summary.Policy] == 1:
			r.Name = r.Summary.Policy
		case byAdm[withAdm(r)] == 1:
			r.Name = withAdm(r)
		default:
			r.Name = filepath.Base(r.Dir)
		}
	}
}

// LoadRun reads one run directory: summary.json and jobs.csv are required,
// timeline.csv and external_load.json are drawn when present.
func LoadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	path := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var s metrics.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Policy == "" {
		return nil, fmt.Errorf("%s: no policy: not a spindle run summary", path)
	}
	r.Summary, r.Name = &s, s.Policy
	if r.Jobs, err = readJobs(filepath.Join(dir, "jobs.csv")); err != nil {
		return nil, err
	}
	if r.Timeline, err = readTimeline(filepath.Join(dir, "timeline.csv")); err != nil {
		return nil, err
	}
	if r.External, err = readExternal(filepath.Join(dir, metrics.ExternalLoadFile)); err != nil {
		return nil, err
	}
	return r, nil
}

// table is a CSV file read whole, with columns found by name so that
// columns added later do not break old readers.
type table struct {
	path string
	col  map[string]int
	rows [][]string
}

// readTable reads a CSV file that must have the named columns. A missing
// optional file gives a nil table.
func readTable(path string, optional bool, need ...string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a header line", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t := &table{path: path, col: map[string]int{}}
	for i, h := range header {
		t.col[strings.TrimSpace(h)] = i
	}
	for _, n := range need {
		if _, ok := t.col[n]; !ok {
			return nil, fmt.Errorf("%s: no column %q in the header", path, n)
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t.rows = append(t.rows, rec)
	}
	return t, nil
}

// float reads a required number in row i (0-based data row).
func (t *table) float(i int, name string) (float64, error) {
	v, err := t.optFloat(i, name)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, fmt.Errorf("%s:%d: %s: empty, want a number", t.path, i+2, name)
	}
	return *v, nil
}

// optFloat reads a number that may be empty (undefined).
func (t *table) optFloat(i int, name string) (*float64, error) {
	s := strings.TrimSpace(t.rows[i][t.col[name]])
	if s == "" {
		return nil, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("%s:%d: %s: %q is not a number", t.path, i+2, name, s)
	}
	return &v, nil
}

func readJobs(path string) ([]metrics.Job, error) {
	cols := strings.Split(metrics.CSVHeader, ",")
	t, err := readTable(path, false, cols...)
	if err != nil {
		return nil, err
	}
	jobs := make([]metrics.Job, len(t.rows))
	for i, rec := range t.rows {
		j := &jobs[i]
		j.ID = rec[t.col["job_id"]]
		switch c := metrics.Category(rec[t.col["category"]]); c {
		case metrics.Small, metrics.Large:
			j.Category = c
		default:
			return nil, fmt.Errorf("%s:%d: category: %q, want small or large", path, i+2, c)
		}
		if j.Submit, err = t.float(i, "submit_s"); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			name string
			dst  **float64
		}{{"admit_s", &j.Admit}, {"first_start_s", &j.FirstStart}, {"finish_s", &j.Finish},
			{"wait_s", &j.Wait}, {"jct_s", &j.JCT}, {"deadline_s", &j.Deadline}} {
			if *f.dst, err = t.optFloat(i, f.name); err != nil {
				return nil, err
			}
		}
		switch m := strings.TrimSpace(rec[t.col["met"]]); m {
		case "":
		case "true", "false":
			met := m == "true"
			j.Met = &met
		default:
			return nil, fmt.Errorf("%s:%d: met: %q, want true, false or empty", path, i+2, m)
		}
	}
	return jobs, nil
}

func readTimeline(path string) ([]Sample, error) {
	t, err := readTable(path, true, "t_s", "utilization")
	if t == nil || err != nil {
		return nil, err
	}
	out := make([]Sample, len(t.rows))
	for i := range t.rows {
		if out[i].T, err = t.float(i, "t_s"); err != nil {
			return nil, err
		}
		if out[i].Util, err = t.float(i, "utilization"); err != nil {
			return nil, err
		}
		if i > 0 && out[i].T < out[i-1].T {
			return nil, fmt.Errorf("%s:%d: t_s: %v is before the previous row", path, i+2, out[i].T)
		}
	}
	return out, nil
}

// readExternal reads the external-load curve; nil when the run has none.
func readExternal(path string) (*cluster.LoadCurve, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var x metrics.ExternalLoad
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	secs := func(s float64) clock.Duration { return clock.Duration(math.Round(s * float64(clock.Second))) }
	pts := make([]cluster.LoadPoint, len(x.Points))
	for i, p := range x.Points {
		pts[i] = cluster.LoadPoint{At: secs(p[0]), Frac: p[1]}
	}
	c, err := cluster.NewLoadCurve(pts, secs(x.PeriodS))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
