package metrics

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// CSVHeader is the column list of jobs.csv (docs/design.md, "Output contract").
const CSVHeader = "job_id,category,submit_s,admit_s,first_start_s,finish_s,wait_s,jct_s,deadline_s,met"

// WriteCSV writes jobs.csv: one row per job in workload order; undefined
// values are empty.
func WriteCSV(out io.Writer, jobs []Job) error {
	b := bufio.NewWriter(out)
	b.WriteString(CSVHeader)
	b.WriteByte('\n')
	for _, j := range jobs {
		b.WriteString(csvField(j.ID))
		b.WriteByte(',')
		b.WriteString(string(j.Category))
		for _, v := range []*float64{&j.Submit, j.Admit, j.FirstStart, j.Finish, j.Wait, j.JCT, j.Deadline} {
			b.WriteByte(',')
			if v != nil {
				b.WriteString(strconv.FormatFloat(*v, 'f', -1, 64))
			}
		}
		b.WriteByte(',')
		if j.Met != nil {
			b.WriteString(strconv.FormatBool(*j.Met))
		}
		b.WriteByte('\n')
	}
	return b.Flush()
}

// csvField quotes a value that holds a comma, quote or line break, doubling
// inner quotes (RFC 4180).
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// WriteRunDir writes summary.json and jobs.csv into dir, creating it, and
// timeline.csv when the run recorded a timeline.
func WriteRunDir(dir string, s *Summary, jobs []Job, timeline []Sample, capacity resource.Vector) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	if err := writeFile(filepath.Join(dir, "summary.json"), func(w io.Writer) error { return WriteJSON(w, s) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "jobs.csv"), func(w io.Writer) error { return WriteCSV(w, jobs) }); err != nil {
		return err
	}
	if len(timeline) == 0 {
		return nil
	}
	return writeFile(filepath.Join(dir, "timeline.csv"), func(w io.Writer) error { return WriteTimeline(w, timeline, capacity) })
}

// TimelineHeader is the column list of timeline.csv.
const TimelineHeader = "t_s,vcores,memory_mb,utilization"

// WriteTimeline writes the allocation over time: seconds, vcores and MiB
// allocated, and the dominant allocated share.
func WriteTimeline(out io.Writer, timeline []Sample, capacity resource.Vector) error {
	b := bufio.NewWriter(out)
	b.WriteString(TimelineHeader)
	b.WriteByte('\n')
	for _, x := range timeline {
		fmt.Fprintf(b, "%s,%s,%d,%s\n", strconv.FormatFloat(x.T.Seconds(), 'f', -1, 64),
			resource.FormatVCores(x.Allocated[resource.VCores]), x.Allocated[resource.Memory],
			strconv.FormatFloat(x.Allocated.DominantShare(capacity), 'f', 4, 64))
	}
	return b.Flush()
}

func writeFile(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ExternalLoadFile is the run directory's record of the workload's
// external (non-YARN) load, so a report can draw it without the workload.
const ExternalLoadFile = "external_load.json"

// ExternalLoad is the content of ExternalLoadFile: the curve's knots as
// [seconds, fraction of every node's capacity] and its period in seconds
// (0: it does not repeat), as in the workload's cluster.external_load.
type ExternalLoad struct {
	Points  [][2]float64 `json:"points"`
	PeriodS float64      `json:"period_s"`
}

// WriteExternalLoadFile writes dir/external_load.json when the workload has
// an external load.
func WriteExternalLoadFile(dir string, l *workload.ExternalLoad) error {
	if l == nil || len(l.Points) == 0 {
		return nil
	}
	x := ExternalLoad{PeriodS: l.Period.Seconds()}
	for _, p := range l.Points {
		x.Points = append(x.Points, [2]float64{p.At.Seconds(), p.Frac})
	}
	return writeFile(filepath.Join(dir, ExternalLoadFile), func(w io.Writer) error {
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}
