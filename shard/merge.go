package shard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/report"
)

// RunFiles are the files a run directory may hold besides summary.json,
// copied byte for byte by MergeRuns.
var RunFiles = []string{"jobs.csv", "timeline.csv", metrics.ExternalLoadFile}

// MergeRuns joins the shards of a comparison-shaped run (compare, whatif:
// one directory per run, runs.json and report.html at the top) into out,
// as the unsharded run writes it. The jobs and timelines are copied; each
// summary is read back, given the measures that span the whole comparison
// again (metrics.CompareRuns over every run, as the unsharded run does),
// and written; then runs.json and report.html. parts must come from Check.
func MergeRuns(out string, parts []Part, opt report.Options) error {
	m := parts[0].Manifest
	owner := map[int]string{}
	for _, p := range parts {
		for _, k := range p.Manifest.Ran {
			owner[k] = p.Dir
		}
	}
	var names, from []string
	for k, c := range m.Cells {
		for _, r := range c.Runs {
			names = append(names, r)
			from = append(from, filepath.Join(owner[k], r))
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("merge: the run has no cells")
	}
	for _, p := range parts {
		if same, err := sameDir(out, p.Dir); err != nil {
			return err
		} else if same {
			return fmt.Errorf("merge: -o %s is shard %s's own directory; write the merge elsewhere", out, p.Manifest.Shard)
		}
	}
	runs := make([]*report.Run, len(names))
	summaries := make([]*metrics.Summary, len(names))
	for i, dir := range from {
		r, err := report.LoadRun(dir)
		if err != nil {
			return fmt.Errorf("merge: shard run %s: %w", dir, err)
		}
		r.Summary.RestoreFinishes(r.Jobs)
		runs[i], summaries[i] = r, r.Summary
	}
	metrics.CompareRuns(summaries)
	for i, name := range names {
		dir := filepath.Join(out, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if err := writeJSON(filepath.Join(dir, "summary.json"), summaries[i]); err != nil {
			return err
		}
		for _, f := range RunFiles {
			if err := copyFile(filepath.Join(from[i], f), filepath.Join(dir, f)); err != nil {
				return err
			}
		}
	}
	if err := report.WriteIndex(out, names); err != nil {
		return err
	}
	// Read the merged directories back, as the unsharded run renders its
	// report from what it wrote.
	merged, err := report.LoadRuns(out, names)
	if err != nil {
		return err
	}
	return report.WriteFile(filepath.Join(out, report.FileName), merged, opt)
}

func writeJSON(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if err := metrics.WriteJSON(f, v); err != nil {
		f.Close()
		return fmt.Errorf("merge: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("merge: write %s: %w", path, err)
	}
	return nil
}

// copyFile copies from to to; a missing optional file is no error (and a
// stale copy at to is removed).
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Remove(to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("merge: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	defer in.Close()
	o, err := os.Create(to)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		return fmt.Errorf("merge: copy %s: %w", from, err)
	}
	if err := o.Close(); err != nil {
		return fmt.Errorf("merge: copy %s: %w", from, err)
	}
	return nil
}

// sameDir reports whether a and b are one directory (b exists; a may not).
func sameDir(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("merge: %w", err)
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, fmt.Errorf("merge: %w", err)
	}
	return os.SameFile(sa, sb), nil
}
