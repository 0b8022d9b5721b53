package trace

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// finish turns the jobs a converter built, with submit times in the
// trace's own time, into a validated workload on the given cluster:
// jobs outside the Begin/End window and jobs whose containers fit no
// machine are left out, the rest are sorted by submit time (ties keep the
// converter's order) and shifted so that the first is submitted at 0, and
// phases whose tasks share one duration are written with one.
func (c *conv) finish(jobs []workload.Job, nodes []workload.NodeGroup, queues []workload.Queue) error {
	kept := jobs[:0]
	var early, late, nofit int64
	for i := range jobs {
		j := &jobs[i]
		switch {
		case clock.Duration(j.Submit) < c.opt.Begin:
			early++
		case c.opt.End != 0 && clock.Duration(j.Submit) >= c.opt.End:
			late++
		case !fitsSomewhere(j, nodes):
			nofit++
		default:
			kept = append(kept, *j)
		}
	}
	c.rep.skip("jobs submitted before begin", early)
	c.rep.skip("jobs submitted at or after end", late)
	c.rep.skip("jobs with a container larger than any machine", nofit)
	jobs = kept
	if len(jobs) == 0 {
		return c.noJobs()
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
	if origin := jobs[0].Submit; origin != 0 {
		for i := range jobs {
			jobs[i].Submit -= origin
		}
		c.rep.note("times shifted by -%s so that the first job is submitted at 0", clock.Duration(origin))
	}
	if f := c.opt.ArrivalScale; f != 0 && f != 1 {
		for i := range jobs {
			s := math.Round(float64(jobs[i].Submit) * f)
			if s > float64(maxTime) {
				return fmt.Errorf("%s: arrival-scale %g puts submit times out of range", c.srcs[0].name, f)
			}
			jobs[i].Submit = clock.Time(s)
		}
		c.rep.note("submit times multiplied by %g", f)
	}
	tasks := 0
	for i := range jobs {
		for k := range jobs[i].Phases {
			p := &jobs[i].Phases[k]
			p.Durations = collapse(p.Durations)
			tasks += p.Tasks
		}
	}
	w := &workload.Workload{
		Version: workload.Version,
		Cluster: workload.Cluster{
			Nodes:        nodes,
			LaunchDelay:  workload.DefaultLaunchDelay,
			LaunchJitter: workload.DefaultLaunchJitter,
		},
		Queues: queues,
		Jobs:   jobs,
	}
	w.ApplyDefaults()
	if err := w.Validate(); err != nil {
		// Converters build valid jobs; what remains is a cluster that
		// options made too large for the format.
		return fmt.Errorf("%s: the converted workload is invalid: %w", c.srcs[0].name, err)
	}
	c.w = w
	c.rep.Jobs, c.rep.Tasks, c.rep.Nodes = len(jobs), tasks, w.Cluster.NumNodes()
	return nil
}

// noJobs explains an empty result.
func (c *conv) noJobs() error {
	var b strings.Builder
	names := make([]string, 0, len(c.srcs))
	for _, s := range c.srcs {
		names = append(names, s.name)
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	fmt.Fprintf(&b, "%s: no jobs to simulate (%d lines, %d records read", strings.Join(names, ", "), c.rep.Lines, c.rep.Records)
	for _, s := range c.rep.Skipped {
		fmt.Fprintf(&b, "; left out %d %s", s.N, s.Reason)
	}
	if c.rep.Bad > 0 {
		fmt.Fprintf(&b, "; skipped %d malformed records", c.rep.Bad)
	}
	b.WriteString(")")
	return fmt.Errorf("%s", b.String())
}

func fitsSomewhere(j *workload.Job, nodes []workload.NodeGroup) bool {
	fits := func(v resource.Vector) bool {
		for _, g := range nodes {
			if v.Fits(g.Capacity) {
				return true
			}
		}
		return false
	}
	if !j.AM.IsZero() && !fits(j.AM) {
		return false
	}
	for k := range j.Phases {
		if !fits(j.Phases[k].Request) {
			return false
		}
	}
	return true
}

// collapse writes a phase whose tasks all take the same time with one
// duration: per-task lists dominate the size of a converted trace.
func collapse(ds []clock.Duration) []clock.Duration {
	if len(ds) < 2 {
		return ds
	}
	for _, d := range ds[1:] {
		if d != ds[0] {
			return ds
		}
	}
	return ds[:1:1]
}

// span is a task as it ran in the trace, for sizing the cluster.
type span struct {
	start, end clock.Time
	v, m       int64 // milli-vcores and MiB
}

func spanOf(start, end clock.Time, r resource.Vector) span {
	return span{start, end, r[resource.VCores], r[resource.Memory]}
}

// peakNodes returns how many machines of capacity node it takes to hold,
// at the busiest instant of the trace, every task then running, counted in
// the dominant resource: the cluster the trace itself kept busy. Bin
// packing may need more; no task is larger than a machine.
func peakNodes(spans []span, node resource.Vector) int {
	type delta struct {
		t      clock.Time
		v, m   int64
		ending bool
	}
	ds := make([]delta, 0, 2*len(spans))
	for _, s := range spans {
		if s.end <= s.start {
			continue
		}
		ds = append(ds, delta{s.start, s.v, s.m, false}, delta{s.end, -s.v, -s.m, true})
	}
	// Ends before starts at the same instant: a container freed at t is
	// free for one starting at t.
	sort.Slice(ds, func(a, b int) bool {
		if ds[a].t != ds[b].t {
			return ds[a].t < ds[b].t
		}
		return ds[a].ending && !ds[b].ending
	})
	var v, m int64
	peak := 0.0
	for _, d := range ds {
		v += d.v
		m += d.m
		share := math.Max(float64(v)/float64(node[resource.VCores]), float64(m)/float64(node[resource.Memory]))
		peak = math.Max(peak, share)
	}
	if peak >= workload.MaxNodesPerGroup {
		return workload.MaxNodesPerGroup
	}
	return max(int(math.Ceil(peak-1e-9)), 1)
}

// vector converts normalised CPU and memory (fractions of a machine) to a
// request, rounded to the milli-vcore and the MiB; a zero request becomes
// the smallest one, since a container must ask for something.
func vector(cpu, mem, vcores float64, memMB int64) resource.Vector {
	v := int64(math.Round(cpu * vcores * resource.MilliPerVCore))
	m := int64(math.Round(mem * float64(memMB)))
	return resource.Vector{resource.VCores: max(v, 1), resource.Memory: max(m, 1)}
}

// machine returns a node capacity from a vcore count and MiB.
func machine(vcores float64, memMB int64) resource.Vector {
	return resource.Vector{resource.VCores: int64(math.Round(vcores * resource.MilliPerVCore)), resource.Memory: memMB}
}

// slabs hands out short slices cut from shared arrays, and one copy of each
// repeated string, so that a converter building hundreds of thousands of
// single-phase jobs does not allocate for each of them.
type slabs struct {
	phases  []workload.Phase
	durs    []clock.Duration
	strs    map[string]string
	scratch []byte
}

const slabSize = 4096

// phase returns a one-phase list holding p.
func (s *slabs) phase(p workload.Phase) []workload.Phase {
	if len(s.phases) == cap(s.phases) {
		s.phases = make([]workload.Phase, 0, slabSize)
	}
	s.phases = append(s.phases, p)
	n := len(s.phases)
	return s.phases[n-1 : n : n]
}

// duration returns a one-duration list holding d.
func (s *slabs) duration(d clock.Duration) []clock.Duration {
	if len(s.durs) == cap(s.durs) {
		s.durs = make([]clock.Duration, 0, slabSize)
	}
	s.durs = append(s.durs, d)
	n := len(s.durs)
	return s.durs[n-1 : n : n]
}

// intern returns prefix followed by the decimal n, one copy per value.
func (s *slabs) intern(prefix string, n int64) string {
	s.scratch = strconv.AppendInt(append(s.scratch[:0], prefix...), n, 10)
	if v, ok := s.strs[string(s.scratch)]; ok {
		return v
	}
	if s.strs == nil {
		s.strs = map[string]string{}
	}
	v := string(s.scratch)
	s.strs[v] = v
	return v
}
