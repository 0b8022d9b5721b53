package replay

import (
	"fmt"
	"sort"
	"time"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/resource"
)

// PolicyName is what a replay's summary.json names as its policy: the
// scheduler the pods asked for, marked as a live run.
func PolicyName(scheduler string) string { return "live:" + scheduler }

// result measures the run in workload time from what the replayer observed.
// Times are when the replayer's watch saw each transition (the apiserver's
// own timestamps have one-second resolution, too coarse for scaled runs):
// submit = the first driver pod created, admit = the driver bound, first
// start = the first task pod Running, finish = the last task Succeeded.
func (r *Replayer) result(end time.Duration, deadlocked bool) *Result {
	w := r.opt.Workload
	capacity := w.Cluster.Capacity()
	opt := func(d time.Duration) *float64 {
		if d < 0 {
			return nil
		}
		s := r.workloadTime(d).Seconds()
		return &s
	}
	jobs := make([]metrics.Job, len(r.jobs))
	var stuck []metrics.StuckJob
	for i, j := range r.jobs {
		mj := metrics.Job{ID: j.w.ID, Category: metrics.Classify(j.demand, capacity, metrics.Theta)}
		if s := opt(j.submitAt); s != nil {
			mj.Submit = *s
		} else {
			mj.Submit = j.w.Submit.Seconds() // never created: the run stopped first
		}
		mj.Admit = opt(j.admitAt)
		if j.w.AM.IsZero() {
			mj.Admit = opt(j.submitAt)
		}
		mj.FirstStart = opt(j.firstRun)
		if j.firstRun >= 0 {
			x := *mj.FirstStart - mj.Submit
			mj.Wait = &x
		}
		if j.done {
			mj.Finish = opt(j.lastDone)
			x := *mj.Finish - mj.Submit
			mj.JCT = &x
		}
		if j.w.Deadline > 0 {
			d := j.w.Deadline.Seconds()
			mj.Deadline = &d
			met := mj.JCT != nil && *mj.JCT <= d+1e-9
			mj.Met = &met
		}
		jobs[i] = mj
		if !j.done {
			stuck = append(stuck, metrics.StuckJob{ID: j.w.ID, State: r.jobStateWord(j)})
		}
	}
	timeline, area, endArea, endShare := r.allocation(end, capacity)
	sr := &metrics.Outcome{
		Deadlocked: deadlocked, Stuck: stuck, Events: r.events,
		End: r.workloadTime(end), UtilArea: area, EndArea: endArea, EndShare: endShare,
	}
	s := metrics.Summarize(w, sr, jobs, metrics.Run{
		Policy: PolicyName(r.opt.SchedulerName), Admission: "scheduler's own",
		Estimates: "declared", Workload: r.opt.WorkloadName,
	})
	return &Result{Summary: s, Jobs: jobs, Timeline: timeline, Run: r.run, PodsCreated: r.created, TaskRetries: r.retries}
}

func (r *Replayer) jobStateWord(j *jobState) string {
	switch {
	case j.failed:
		return "failed: " + j.failReason
	case !j.submitted:
		return "not submitted"
	case j.driverPod != "" && !j.driverRunning && j.admitAt < 0:
		return "driver pending"
	case j.driverPod != "" && !j.driverRunning:
		return "driver bound, not running"
	}
	pending := 0
	for name, st := range r.pods {
		if st.job == j && st.phase >= 0 && st.bound < 0 && st.ended < 0 && name != "" {
			pending++
		}
	}
	return fmt.Sprintf("driver running, %d of %d tasks done, %d task pods pending", j.completedTotal(), j.Tasks(), pending)
}

// allocation is the resources bound to nodes over time (every pod from its
// binding to its end) and the integral of its dominant share of the
// cluster, in share × µs of workload time, as the simulator counts it: up to
// the last task's end, and up to the end of the run (what a deadlocked run
// is measured over), and the share still bound at the end.
func (r *Replayer) allocation(end time.Duration, capacity resource.Vector) (_ []Sample, area, endArea, endShare float64) {
	type change struct {
		at  time.Duration
		req resource.Vector
		add bool
	}
	var cs []change
	var held resource.Vector
	for _, p := range r.pods {
		if p.bound < 0 {
			continue
		}
		e := p.ended
		if e < 0 {
			e = end
			held = held.Add(p.req)
		}
		cs = append(cs, change{p.bound, p.req, true}, change{e, p.req, false})
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].at < cs[b].at })
	// As in the simulator, utilisation counts up to the last task's end.
	limit := r.workloadTime(end)
	if last := r.lastTaskDone(); last >= 0 {
		limit = r.workloadTime(last)
	}
	var out []Sample
	var cur resource.Vector
	last, lastEnd := clock.Time(0), clock.Time(0)
	endT := r.workloadTime(end)
	for i := 0; i < len(cs); {
		at := cs[i].at
		t := r.workloadTime(at)
		share := cur.DominantShare(capacity)
		if c := min(t, limit); c > last {
			area += share * float64(c-last)
			last = c
		}
		if c := min(t, endT); c > lastEnd {
			endArea += share * float64(c-lastEnd)
			lastEnd = c
		}
		for ; i < len(cs) && cs[i].at == at; i++ {
			if cs[i].add {
				cur = cur.Add(cs[i].req)
			} else {
				cur = cur.Sub(cs[i].req)
			}
		}
		out = append(out, Sample{T: t, Allocated: cur})
	}
	return out, area, endArea, held.DominantShare(capacity)
}

func (r *Replayer) lastTaskDone() time.Duration {
	last := time.Duration(-1)
	for _, j := range r.jobs {
		last = max(last, j.lastDone)
	}
	return last
}

// SimTimeline converts the timeline for metrics.WriteRunDir.
func SimTimeline(s []Sample) []metrics.Sample {
	out := make([]metrics.Sample, len(s))
	for i, x := range s {
		out[i] = metrics.Sample{T: x.T, Allocated: x.Allocated}
	}
	return out
}
