package metrics

import (
	"math"
	"sort"
)

// The DJSF paper (Hu and Li, Tsinghua Sci. Technol. 2022) judges schedulers by
// how many jobs they complete by a given time and by "job completion
// efficiency", jobs completed per unit of time span. These measures are
// computed here for every policy, so that DJSF's job sets can be compared with
// policies that have no sets (SJF, Tetris, the baselines).

// EfficiencyWindow is the number of consecutive completions grouped into one
// window for CompletionEfficiency. Policies without job sets are cut into
// windows of this many jobs, in completion order; ten is of the order of a
// DJSF job set on the workloads of the paper's size (a set holds the jobs
// that fit the cluster at once) and keeps the per-window value from being
// dominated by a single job.
const EfficiencyWindow = 10

// CurvePoints is how many points ThroughputCurve has, evenly spaced over the
// reference time.
const CurvePoints = 20

// ThroughputFracs are the fractions of the reference time at which
// CompletedBy reports the jobs completed.
var ThroughputFracs = []float64{0.25, 0.5, 0.75}

// CurvePoint is the number of jobs completed by time T after the first
// submission.
type CurvePoint struct {
	T    float64 `json:"t_s"`
	Jobs int     `json:"jobs_completed"`
}

// CompletedAt is the system throughput at a fraction of the reference time:
// the jobs completed by then.
type CompletedAt struct {
	Frac float64 `json:"frac"`
	T    float64 `json:"t_s"`
	Jobs int     `json:"jobs_completed"`
}

// Reference times for throughput points.
const (
	RefOwnMakespan     = "own makespan"
	RefSlowestMakespan = "slowest makespan in the comparison"
)

// finishOffsets returns the completion times of completed jobs, measured
// from the first submission, sorted.
func finishOffsets(jobs []Job) []float64 {
	first := math.Inf(1)
	for _, j := range jobs {
		first = math.Min(first, j.Submit)
	}
	var out []float64
	for _, j := range jobs {
		if j.Finish != nil {
			out = append(out, *j.Finish-first)
		}
	}
	sort.Float64s(out)
	return out
}

// completedBy counts the sorted offsets at or before t.
func completedBy(sorted []float64, t float64) int {
	return sort.Search(len(sorted), func(i int) bool { return sorted[i] > t+1e-9 })
}

// ThroughputCurve samples jobs completed by time t at CurvePoints evenly
// spaced times up to ref (seconds after the first submission).
func ThroughputCurve(sortedFinishes []float64, ref float64) []CurvePoint {
	if ref <= 0 {
		return []CurvePoint{}
	}
	out := make([]CurvePoint, CurvePoints)
	for i := range out {
		t := ref * float64(i+1) / CurvePoints
		out[i] = CurvePoint{T: t, Jobs: completedBy(sortedFinishes, t)}
	}
	return out
}

// CompletedByFracs returns the jobs completed by each of ThroughputFracs of
// ref.
func CompletedByFracs(sortedFinishes []float64, ref float64) []CompletedAt {
	out := make([]CompletedAt, len(ThroughputFracs))
	for i, f := range ThroughputFracs {
		t := f * ref
		out[i] = CompletedAt{Frac: f, T: t, Jobs: completedBy(sortedFinishes, t)}
	}
	return out
}

// CompletionEfficiency cuts the completed jobs, in completion order, into
// consecutive windows of w jobs and returns the mean over windows of
// w / span, span being the time from the earliest first task start in the
// window to its last completion: Definition 1 of the DJSF paper applied to
// each window as if it were a job set. A trailing window with fewer than w
// jobs is dropped unless it is the only one. Nil when no job completed.
func CompletionEfficiency(jobs []Job, w int) *float64 {
	type done struct{ start, finish float64 }
	var ds []done
	for _, j := range jobs {
		if j.Finish == nil {
			continue
		}
		start := *j.Finish
		if j.FirstStart != nil {
			start = *j.FirstStart
		}
		ds = append(ds, done{start, *j.Finish})
	}
	if len(ds) == 0 || w <= 0 {
		return nil
	}
	sort.SliceStable(ds, func(a, b int) bool { return ds[a].finish < ds[b].finish })
	var sum float64
	n := 0
	for lo := 0; lo < len(ds); lo += w {
		hi := min(lo+w, len(ds))
		if hi-lo < w && lo > 0 {
			break
		}
		start := math.Inf(1)
		for _, d := range ds[lo:hi] {
			start = math.Min(start, d.start)
		}
		if span := ds[hi-1].finish - start; span > 0 {
			sum += float64(hi-lo) / span
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return ptr(sum / float64(n))
}

// setThroughput fills the throughput measures of a summary against ref.
func (s *Summary) setThroughput(ref float64, refName string) {
	s.ThroughputCurve = ThroughputCurve(s.finishes, ref)
	s.CompletedBy = CompletedByFracs(s.finishes, ref)
	s.ThroughputRef = refName
}
