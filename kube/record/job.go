package record

import (
	"fmt"
	"hash/maphash"
	"regexp"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// jobRec is a job of the workload while it is being recorded: its pods in
// the order they appeared.
type jobRec struct {
	key   string // the mapping's job name, with the owner's UID when known
	id    podmap.Identity
	name  string // job type, for history-based estimates
	hints podmap.Hints
	// priority is the first pod's spec.priority, as the scheduler takes
	// it (normally the driver's, from its PriorityClass).
	priority int32
	// minMembers is the gang minimum the first pod declares
	// (podmap.MinMembers), 0 for none.
	minMembers int
	// gangTimeout is the gang's own timeout the first pod declares
	// (YuniKorn's placeholderTimeoutInSeconds), 0 for none.
	gangTimeout clock.Duration
	pods        []*podRec
	live        int       // pods not over
	quiet       time.Time // when live last fell to 0 (or the AM ended with only pending pods left)
	am          *podRec   // the first AM pod, nil without one
	// written is set once the job is in the workload; its pods are then
	// forgotten.
	written bool
}

// sortJobs orders jobs by key, for output that does not depend on a map's
// order.
func sortJobs(js []*jobRec) {
	sort.Slice(js, func(a, b int) bool { return js[a].key < js[b].key })
}

func newJob(p *v1.Pod, id podmap.Identity, c *core) *jobRec {
	j := &jobRec{key: jobKey(id), id: id, name: jobName(p, id), priority: podmap.Priority(p)}
	h, err := podmap.ReadHints(p)
	if err != nil {
		c.problem("ignored hints", fmt.Sprintf("pod %s/%s: %v", p.Namespace, p.Name, err))
		h = podmap.Hints{}
	}
	j.hints = h
	if g, err := podmap.PodGang(p); err != nil {
		c.problem("ignored gang minimum", fmt.Sprintf("pod %s/%s: %v", p.Namespace, p.Name, err))
	} else {
		j.minMembers, j.gangTimeout = g.MinMembers, g.Timeout
	}
	return j
}

// podIn returns the record of pod p, which asks for req, and adds it to
// its job in jobs (made on the job's first pod), by the one mapping the
// scheduler uses. The live recorder and the snapshot converter share it.
func podIn(jobs map[string]*jobRec, p *v1.Pod, req resource.Vector, c *core) (*jobRec, *podRec) {
	id := podmap.Identify(p)
	key := jobKey(id)
	j := jobs[key]
	if j == nil {
		j = newJob(p, id, c)
		jobs[key] = j
	}
	rec := &podRec{name: p.Namespace + "/" + p.Name, am: id.AM, req: req, noReq: podmap.NoRequests(p)}
	if rec.noReq {
		c.adjust("pods without requests, counted as 1m of CPU as the scheduler counts them", 1)
	}
	return j, rec
}

func jobKey(id podmap.Identity) string {
	if id.UID != "" {
		return id.Job + "#" + id.UID
	}
	return id.Job
}

func (j *jobRec) add(p *podRec) {
	if p.am && j.am == nil {
		j.am = p
	}
	j.pods = append(j.pods, p)
	if !p.over() {
		j.live++
	}
}

var trailingSerial = regexp.MustCompile(`-[0-9]{6,}$`)

// jobName is the job's type, for estimates learned from history: Spark's
// application name, a batch Job's or JobSet's name without a CronJob's
// timestamp suffix, or the spindle.io/job value; "" for a lone pod.
func jobName(p *v1.Pod, id podmap.Identity) string {
	if n := p.Labels["spark-app-name"]; n != "" {
		return n
	}
	switch id.Kind {
	case podmap.KindBatchJob, podmap.KindJobSet, podmap.KindSpindle:
		_, name, _ := strings.Cut(id.Job, "/")
		name = strings.TrimPrefix(strings.TrimPrefix(name, "job/"), "jobset/")
		return trailingSerial.ReplaceAllString(name, "")
	}
	return ""
}

// builder turns finished jobs into workload jobs against one time origin.
type builder struct {
	c      *core
	origin time.Time
	end    time.Time // the recording's end, for pods still running
	ids    map[uint64]int
	seed   maphash.Seed
}

// at converts a wall time to workload time.
func (b *builder) at(t time.Time) clock.Time {
	d := t.Sub(b.origin)
	if d < 0 {
		b.c.adjust("times before the recording's origin, moved to it", 1)
		return 0
	}
	return clock.Time(micros(d))
}

// uniqueID returns id, or id#2, id#3, ... when a job of that id was
// already written: a name reused after its first job ended. Only a hash of
// each id is kept.
func (b *builder) uniqueID(id string) string {
	h := maphash.String(b.seed, id)
	n := b.ids[h] + 1
	b.ids[h] = n
	if n == 1 {
		return id
	}
	b.c.adjust("jobs whose name was used by an earlier job, written as NAME#2, #3, ...", 1)
	return fmt.Sprintf("%s#%d", id, n)
}

// kept reports whether build would keep j: a pod of it ran, and, when
// running jobs are dropped, none is still running or pending.
func (j *jobRec) kept(running string) bool {
	ran := false
	for _, p := range j.pods {
		switch {
		case !p.ran() && p.over():
		case !p.ran():
			if running == RunningDrop {
				return false
			}
		case !p.over():
			if running == RunningDrop {
				return false
			}
			ran = true
		default:
			ran = true
		}
	}
	return ran
}

// build makes the workload job of j, recorded until end (zero: every pod
// is over). ok is false when the job is left out; the reason is counted.
func (b *builder) build(j *jobRec, running string, largest func(resource.Vector) resource.Vector) (wj workload.Job, ok bool) {
	c := b.c
	var tasks []*podRec
	var am *podRec
	stillRunning := false
	submit := time.Time{}
	for _, p := range j.pods {
		if submit.IsZero() || p.created.Before(submit) {
			submit = p.created
		}
		switch {
		case !p.ran() && p.over():
			c.left("pods that never ran (deleted or failed before a container started)", 1)
			continue
		case !p.ran():
			if running == RunningDrop {
				stillRunning = true
			} else {
				c.left("pods still pending when the recording stopped", 1)
			}
			continue
		case !p.over():
			stillRunning = true
		}
		if p == j.am {
			am = p
			continue
		}
		if p.am {
			c.adjust("extra AM pods (a driver started again), recorded as tasks", 1)
		}
		tasks = append(tasks, p)
	}
	if stillRunning && running == RunningDrop {
		c.left("jobs still running when the recording stopped (--running keep keeps them)", 1)
		return wj, false
	}
	if am == nil && len(tasks) == 0 {
		c.left("jobs none of whose pods ran", 1)
		return wj, false
	}
	if am != nil && len(tasks) == 0 {
		// A driver that ran alone (Spark in local mode, a job that
		// failed early): its one task is the driver itself.
		c.adjust("jobs with an AM and no task, recorded as one task", 1)
		tasks, am = []*podRec{am}, nil
	}
	wj = workload.Job{
		ID:       b.uniqueID(j.id.Job),
		Name:     j.name,
		Queue:    c.queue(j.id.Queue),
		User:     namespaceOf(j.id),
		Submit:   b.at(submit),
		Deadline: j.hints.Deadline,
		Estimate: j.hints.Estimate,
		Priority: j.priority,
	}
	rec := workload.NoRecord
	finished := time.Time{}
	if am != nil {
		wj.AM = largest(am.req)
		if wj.AM != am.req {
			c.adjust("requests larger than any node, cut to the largest", 1)
		}
		if !am.bound.IsZero() {
			rec.Admitted = b.at(am.bound)
		}
		rec.AMStarted = b.at(am.started)
		c.latency(am)
		if am.over() {
			finished = am.ended
		} else {
			stillRunning = true
		}
	}
	sort.SliceStable(tasks, func(a, z int) bool {
		x, y := tasks[a], tasks[z]
		if less, eq := x.createdBefore(y); !eq {
			return less
		}
		if !x.started.Equal(y.started) {
			return x.started.Before(y.started)
		}
		return x.name < y.name
	})
	var firstBound time.Time
	for _, t := range tasks {
		if !t.bound.IsZero() && (firstBound.IsZero() || t.bound.Before(firstBound)) {
			firstBound = t.bound
		}
		if t.over() && t.ended.After(finished) {
			finished = t.ended
		}
		c.latency(t)
	}
	if am == nil && !firstBound.IsZero() {
		rec.Admitted = b.at(firstBound)
	}
	wj.Phases = b.phases(tasks, largest)
	b.reactions(am, tasks, wj.Phases)
	if j.minMembers > 0 && len(wj.Phases) > 0 {
		// The gang's minimum, as min_members counts it (the AM, then
		// first-wave tasks); a gang that never had that many members
		// recorded is kept at what it had.
		most := wj.Phases[0].Tasks + btoi(am != nil)
		if j.minMembers > most {
			c.adjust("gang minimums above the pods recorded in the first wave, cut to them", 1)
		}
		wj.MinMembers = min(j.minMembers, most)
		wj.GangTimeout = j.gangTimeout
	}
	if !stillRunning {
		rec.Finished = max(b.at(finished), wj.Submit)
	}
	wj.Recorded = &rec
	c.written(j, len(tasks)+btoi(am != nil))
	return wj, true
}

// phases groups tasks (in creation order) into waves: a task created once
// a task of the current wave has ended starts the next wave, whose
// start_after is the share of the current wave ended by then. "Once" is the
// watch's order for what it saw happen, else the stamps' (a snapshot's
// one-second stamps count a creation in the second of an end as after it).
func (b *builder) phases(tasks []*podRec, largest func(resource.Vector) resource.Vector) []workload.Phase {
	var out []workload.Phase
	start := 0
	for start < len(tasks) {
		end := start + 1
		for end < len(tasks) && !endedBy(tasks[start:end], tasks[end]) {
			end++
		}
		ph := b.phase(tasks[start:end], largest)
		if len(out) > 0 {
			prev := tasks[start-out[len(out)-1].Tasks : start]
			n := 0
			for _, t := range prev {
				if t.endedBefore(tasks[start]) {
					n++
				}
			}
			ph.StartAfter = float64(max(n, 1)) / float64(len(prev))
		}
		out = append(out, ph)
		start = end
	}
	return out
}

// reactions measures, for each wave of tasks (in creation order, as
// phases grouped them), how long after what allowed it its first task was
// created: the first wave after the AM started (when it was created after
// that: a driver creating its executors), a later one after the last end,
// before that creation, of a task of the wave before it.
func (b *builder) reactions(am *podRec, tasks []*podRec, phases []workload.Phase) {
	off := 0
	for k := range phases {
		if off >= len(tasks) {
			return
		}
		first := tasks[off]
		var cause time.Time
		switch {
		case k == 0 && am != nil && !am.started.IsZero() && am.started.Before(first.created):
			cause = am.started
		case k > 0:
			for _, p := range tasks[off-phases[k-1].Tasks : off] {
				if p.endedBefore(first) && p.ended.After(cause) {
					cause = p.ended
				}
			}
		}
		if !cause.IsZero() && !first.created.IsZero() {
			b.c.react.add(first.created.Sub(cause))
		}
		off += phases[k].Tasks
	}
}

// endedBy reports whether a task of wave ended before q was created.
func endedBy(wave []*podRec, q *podRec) bool {
	for _, p := range wave {
		if p.endedBefore(q) {
			return true
		}
	}
	return false
}

// phase makes one wave a phase: the tasks' largest request, each its
// duration and start, those still running last.
func (b *builder) phase(wave []*podRec, largest func(resource.Vector) resource.Vector) workload.Phase {
	c := b.c
	sorted := make([]*podRec, 0, len(wave))
	for _, t := range wave {
		if t.over() {
			sorted = append(sorted, t)
		}
	}
	unfinished := len(wave) - len(sorted)
	for _, t := range wave {
		if !t.over() {
			sorted = append(sorted, t)
		}
	}
	ph := workload.Phase{Tasks: len(sorted), StartAfter: 1, Durations: make([]clock.Duration, len(sorted)),
		Started: make([]clock.Time, len(sorted)), Unfinished: unfinished}
	raised := 0
	for i, t := range sorted {
		ph.Request = ph.Request.Max(t.req)
		end := t.ended
		if !t.over() {
			end = b.end
		}
		d := end.Sub(t.started)
		if d < 0 {
			c.problem("clock skew between pod timestamps, clamped", fmt.Sprintf("pod %s: ended %s before it started", t.name, (-d).Round(time.Millisecond)))
			d = 0
		}
		ph.Durations[i] = micros(d)
		ph.Started[i] = b.at(t.started)
	}
	for _, t := range sorted {
		if t.req != ph.Request {
			raised++
		}
	}
	c.adjust("tasks whose request was raised to their wave's largest", int64(raised))
	if l := largest(ph.Request); l != ph.Request {
		c.adjust("requests larger than any node, cut to the largest", int64(len(sorted)))
		ph.Request = l
	}
	if allEqual(ph.Durations) {
		ph.Durations = ph.Durations[:1]
	}
	return ph
}

func allEqual(ds []clock.Duration) bool {
	for _, d := range ds[1:] {
		if d != ds[0] {
			return false
		}
	}
	return true
}

func namespaceOf(id podmap.Identity) string {
	s := strings.TrimPrefix(id.Job, "pod:")
	ns, _, _ := strings.Cut(s, "/")
	return ns
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
