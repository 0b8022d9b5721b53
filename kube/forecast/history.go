package forecast

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sim"
)

// History is what finished jobs took: each job's runtime under its name
// (kube record's job name: Spark's application name, a Job's name without
// a CronJob's serial, the spindle.io/job label) and the waves its tasks
// ran in, and the durations of the cluster's tasks, for the cluster's
// medians. It keeps the latest MaxRuns jobs and MaxTasks task durations.
// Safe for concurrent use: the driver adds as jobs finish (Add, or Learn
// from a snapshot) while Run reads. The zero value is empty and ready.
type History struct {
	mu    sync.RWMutex
	seen  map[string]struct{} // keys added, with their order in keys
	keys  []string
	runs  []pastRun // ring of MaxRuns
	next  int
	tasks []time.Duration // ring of MaxTasks
	nextT int
}

// pastRun is one finished job.
type pastRun struct {
	name    string // "" for a job without one: the cluster's only
	runtime time.Duration
	task    time.Duration // its tasks' mean duration; 0 when none is known
	// waves are its tasks as they were asked for (see wavesOf); nil
	// when not known (Add) or when the job had no task but its AM.
	waves []wave
}

// wave is tasks a job asked for together: how many, the largest request
// among them, and their mean duration.
type wave struct {
	tasks    int
	request  resource.Vector
	duration time.Duration
}

// mean is the mean of ds, 0 for none.
func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	n := 0
	for _, d := range ds {
		if d >= 0 {
			sum += d
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

// The bounds of a History: beyond them the oldest entries go.
const (
	MaxRuns  = 10000
	MaxTasks = 2000
)

// NewHistory returns an empty History.
func NewHistory() *History { return &History{} }

// Add records a finished job once: key tells jobs apart (a key already
// added is ignored, and Add returns false), name is what later jobs of the
// same kind are estimated by ("" for none: the job counts in the cluster's
// medians only), runtime its first task's start to its last task's end,
// tasks each task's duration. Add does not know the job's waves: Learn,
// which reads them from the pods, does.
func (h *History) Add(key, name string, runtime time.Duration, tasks []time.Duration) bool {
	return h.add(key, pastRun{name: name, runtime: runtime, task: mean(tasks)}, tasks)
}

func (h *History) add(key string, r pastRun, tasks []time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.seen[key]; ok {
		return false
	}
	if h.seen == nil {
		h.seen = map[string]struct{}{}
	}
	h.seen[key] = struct{}{}
	h.keys = append(h.keys, key)
	if len(h.keys) > 2*MaxRuns {
		for _, k := range h.keys[:MaxRuns] {
			delete(h.seen, k)
		}
		h.keys = append([]string(nil), h.keys[MaxRuns:]...)
	}
	if r.runtime >= 0 {
		if len(h.runs) < MaxRuns {
			h.runs = append(h.runs, r)
		} else {
			h.runs[h.next] = r
			h.next = (h.next + 1) % MaxRuns
		}
	}
	for _, d := range tasks {
		if d < 0 {
			continue
		}
		if len(h.tasks) < MaxTasks {
			h.tasks = append(h.tasks, d)
		} else {
			h.tasks[h.nextT] = d
			h.nextT = (h.nextT + 1) % MaxTasks
		}
	}
	return true
}

// Learn adds every job of s whose pods have all ended (s.History is not
// read or written): the driver calls it on each snapshot so that jobs are
// learned before their pods are garbage-collected. It returns how many
// jobs were added.
func (h *History) Learn(s *Snapshot) (int, error) {
	if s == nil {
		return 0, nil
	}
	inst, err := instant(s)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range inst.Jobs {
		j := &inst.Jobs[i]
		if r, tasks, ok := pastRunOf(j); ok && h.add(historyKey(j), r, tasks) {
			n++
		}
	}
	return n, nil
}

// Len returns how many finished jobs the history holds.
func (h *History) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.runs)
}

func (h *History) known(key string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	_, ok := h.seen[key]
	return ok
}

func instant(s *Snapshot) (*record.Instant, error) {
	var scheds []string
	if s.SchedulerName != "" {
		scheds = []string{s.SchedulerName}
	}
	inst, err := record.AtInstant(s.Pods, record.Options{Schedulers: scheds})
	if err != nil {
		return nil, fmt.Errorf("forecast: snapshot: %w", err)
	}
	return inst, nil
}

// historyKey tells apart two jobs of one name (a Job deleted and made
// again).
func historyKey(j *record.InstantJob) string { return j.Key + "#" + j.UID }

// finished returns what a job whose pods have all ended took: from its
// first task's start to its last task's end (the history rule's runtime),
// and each task's duration. Its AM counts as its task when it has no
// other. ok is false while a pod has not ended, or when no task both
// started and has a known end.
func finished(j *record.InstantJob) (runtime time.Duration, tasks []time.Duration, ok bool) {
	var first, last time.Time
	for _, am := range []bool{false, true} {
		for i := range j.Pods {
			p := &j.Pods[i]
			if p.Ended.IsZero() {
				return 0, nil, false
			}
			if p.AM != am || p.Started.IsZero() || p.EndUnknown {
				continue
			}
			tasks = append(tasks, p.Ended.Sub(p.Started))
			if first.IsZero() || p.Started.Before(first) {
				first = p.Started
			}
			if p.Ended.After(last) {
				last = p.Ended
			}
		}
		if len(tasks) > 0 {
			break
		}
	}
	if len(tasks) == 0 {
		return 0, nil, false
	}
	return last.Sub(first), tasks, true
}

// pastRunOf returns a job whose pods have all ended as the history keeps
// it, and its tasks' durations; ok is false as for finished.
func pastRunOf(j *record.InstantJob) (r pastRun, tasks []time.Duration, ok bool) {
	rt, tasks, ok := finished(j)
	if !ok {
		return pastRun{}, nil, false
	}
	return pastRun{name: j.Name, runtime: rt, task: mean(tasks), waves: wavesOf(j)}, tasks, true
}

// wavesOf returns a finished job's tasks (not its AM) as it asked for
// them, in creation order (see waveNumbers). Only tasks that started and
// have a known end count, as in finished; nil when there is none.
func wavesOf(j *record.InstantJob) []wave {
	var pods []*record.InstantPod
	for i := range j.Pods {
		p := &j.Pods[i]
		if !p.AM && !p.Started.IsZero() && !p.Ended.IsZero() && !p.EndUnknown {
			pods = append(pods, p)
		}
	}
	var out []wave
	for i, n := range waveNumbers(pods) {
		p := pods[i]
		if n == len(out) {
			out = append(out, wave{})
		}
		w := &out[n]
		w.tasks++
		w.request = w.request.Max(p.Request)
		w.duration += p.Ended.Sub(p.Started) // the sum, until divided below
	}
	for i := range out {
		out[i].duration /= time.Duration(out[i].tasks)
	}
	return out
}

// waveNumbers numbers pods (a job's tasks, in creation order) by the wave
// each was asked for in, from 0: a pod created once a pod of the wave
// before it had ended starts a new wave (the application asked for it
// having seen results: a reduce after its maps, a second stage after the
// first), else it joins the wave before. A pod that has not ended (or
// whose end is not known) ends no wave.
func waveNumbers(pods []*record.InstantPod) []int {
	out := make([]int, len(pods))
	var firstEnd time.Time // the earliest end in the current wave; zero: none yet
	n := -1
	for i, p := range pods {
		if n < 0 || !firstEnd.IsZero() && !p.Created.Before(firstEnd) {
			n++
			firstEnd = time.Time{}
		}
		out[i] = n
		if !p.Ended.IsZero() && !p.EndUnknown && (firstEnd.IsZero() || p.Ended.Before(firstEnd)) {
			firstEnd = p.Ended
		}
	}
	return out
}

// asked returns how many waves of tasks a running job has asked for so
// far (see waveNumbers: its task pods in whatever state), and how many
// tasks the widest of them asked for.
func asked(j *record.InstantJob) (waves, widest int) {
	var pods []*record.InstantPod
	for i := range j.Pods {
		if !j.Pods[i].AM {
			pods = append(pods, &j.Pods[i])
		}
	}
	count := map[int]int{}
	for _, n := range waveNumbers(pods) {
		count[n]++
		waves = max(waves, n+1)
		widest = max(widest, count[n])
	}
	return waves, widest
}

// estimates is what a Run knows of durations: the history's and the
// snapshot's finished jobs.
type estimates struct {
	byName sim.History // --estimates history's rule: runtimes
	// tasksByName is the same rule over each finished job's mean task
	// duration: what a task of the name takes.
	tasksByName sim.History
	// runs are the finished jobs, in the history's order then the
	// snapshot's; byRuns indexes them by name; typicalOf holds each
	// name's typical run once found, "" the cluster's (see typical).
	runs      []pastRun
	byRuns    map[string][]int
	typicalOf map[string]*pastRun
	// typicalAt holds the cluster's typical run among those of at least
	// k waves, by k, once found (see typicalFrom).
	typicalAt map[int]*pastRun
	// runtimes and tasks are the finished jobs' runtimes and task
	// durations, sorted: the cluster's distributions.
	runtimes, tasks []time.Duration
}

func newEstimates(h *History, inst *record.Instant) *estimates {
	e := &estimates{byRuns: map[string][]int{}}
	if h != nil {
		h.mu.RLock()
		e.runs = append(e.runs, h.runs...)
		e.tasks = append(e.tasks, h.tasks...)
		h.mu.RUnlock()
	}
	// Finished jobs still in the snapshot that the history has not had
	// (the driver may not have learned them yet).
	for i := range inst.Jobs {
		j := &inst.Jobs[i]
		r, ts, ok := pastRunOf(j)
		if !ok || h != nil && h.known(historyKey(j)) {
			continue
		}
		e.runs = append(e.runs, r)
		e.tasks = append(e.tasks, ts...)
	}
	for i, r := range e.runs {
		e.byName.Observe(r.name, micros(r.runtime))
		if r.task > 0 {
			e.tasksByName.Observe(r.name, micros(r.task))
		}
		if r.name != "" {
			e.byRuns[r.name] = append(e.byRuns[r.name], i)
		}
		e.runtimes = append(e.runtimes, r.runtime)
	}
	slices.Sort(e.tasks)
	slices.Sort(e.runtimes)
	return e
}

// median is the lower middle of sorted ds, 0 for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[(len(ds)-1)/2]
}

// estimate is what a job is taken to take.
type estimate struct {
	// runtime is the job's, first task's start to last task's end: the
	// only duration a policy sees, and how long its AM is held.
	runtime time.Duration
	// task is what each of its tasks is taken to last.
	task time.Duration
	src  Source
	// waves are what a job whose AM waits alone (its tasks not asked for
	// yet) is taken to run after it: a typical finished run's (see
	// typical); nil when none is known, and the AM then stands for the
	// job, for its runtime.
	waves []wave
	// runtimes and tasks, when set, are the distributions runtime and
	// task are the medians of, which a running job's remaining time is
	// read from (see leftOf).
	runtimes, tasks []time.Duration
}

// of returns j's estimate: by the history of j's name (the mean runtime;
// the mean of its runs' mean task durations, else the runtime), else by
// j's declared estimate (for its runtime and its tasks), else by the
// cluster's finished jobs (their median runtime, their tasks' median
// duration), else DefaultEstimate. The waves are the typical run's of j's
// name, else the cluster's, whatever the runtime's source.
func (e *estimates) of(j *record.InstantJob) estimate {
	at := func(d clock.Duration) time.Duration { return max(time.Duration(d)*time.Microsecond, time.Second) }
	var out estimate
	if r := e.typical(j.Name); r != nil {
		out.waves = r.waves
	} else if r := e.typical(""); r != nil {
		out.waves = r.waves
	}
	switch d, ok := e.byName.Estimate(j.Name); {
	case ok:
		out.runtime, out.task, out.src = at(d), at(d), SourceHistory
		if t, ok := e.tasksByName.Estimate(j.Name); ok {
			out.task = at(t)
		}
	case j.Hints.Estimate > 0:
		out.runtime, out.task, out.src = at(j.Hints.Estimate), at(j.Hints.Estimate), SourceAnnotation
	case len(e.runtimes) > 0:
		out.runtime = max(median(e.runtimes), time.Second)
		out.task = max(median(e.tasks), time.Second)
		if len(e.tasks) == 0 {
			out.task = out.runtime
		}
		out.src, out.runtimes, out.tasks = SourceCluster, e.runtimes, e.tasks
	default:
		out.runtime, out.task, out.src = DefaultEstimate, DefaultEstimate, SourceCluster
	}
	return out
}

// typical returns the run of median runtime among the runs of name, or
// among every run for "" (the lower middle, the earlier of equal ones);
// nil when there is none.
func (e *estimates) typical(name string) *pastRun {
	if r, ok := e.typicalOf[name]; ok {
		return r
	}
	if e.typicalOf == nil {
		e.typicalOf = map[string]*pastRun{}
	}
	var idx []int
	if name == "" {
		idx = make([]int, len(e.runs))
		for i := range idx {
			idx[i] = i
		}
	} else {
		idx = slices.Clone(e.byRuns[name])
	}
	r := e.middle(idx, func(x, y *pastRun) int { return cmp.Compare(x.runtime, y.runtime) })
	e.typicalOf[name] = r
	return r
}

// middle returns the run at the lower middle of the runs idx indexes
// ordered by by (stable: the earlier of equal ones), nil for none. It
// reorders idx.
func (e *estimates) middle(idx []int, by func(x, y *pastRun) int) *pastRun {
	if len(idx) == 0 {
		return nil
	}
	slices.SortStableFunc(idx, func(a, b int) int { return by(&e.runs[a], &e.runs[b]) })
	return &e.runs[idx[(len(idx)-1)/2]]
}

// later returns the waves a running job named name is taken to ask for
// after the k it has asked for so far, the widest of them width tasks:
// the typical run of its name's (else the cluster's, among the runs that
// asked for at least k waves: a job is not taken to stop where most jobs
// go on) from its (k+1)th wave on, each as many tasks wider as the job's
// widest wave is than that run's widest of its first k. nil when that run
// asked for no more, or k is 0 (a driver that has asked for nothing yet
// is taken to run as its kind's typical run whole: see of).
func (e *estimates) later(name string, k, width int) []wave {
	if k <= 0 {
		return nil
	}
	var r *pastRun
	if name != "" && len(e.byRuns[name]) > 0 {
		r = e.typical(name)
	} else {
		r = e.typicalFrom(k)
	}
	if r == nil || len(r.waves) <= k {
		return nil
	}
	theirs := 0
	for _, w := range r.waves[:k] {
		theirs = max(theirs, w.tasks)
	}
	out := slices.Clone(r.waves[k:])
	if theirs > 0 && width > 0 && width != theirs {
		for i := range out {
			out[i].tasks = max((out[i].tasks*width+theirs-1)/theirs, 1)
		}
	}
	return out
}

// typicalFrom returns the cluster's typical run among those that asked
// for at least k waves: the median by how many waves, then by runtime
// (the lower middle, the earlier of equal ones); nil when there is none.
func (e *estimates) typicalFrom(k int) *pastRun {
	if r, ok := e.typicalAt[k]; ok {
		return r
	}
	if e.typicalAt == nil {
		e.typicalAt = map[int]*pastRun{}
	}
	var idx []int
	for i := range e.runs {
		if len(e.runs[i].waves) >= k {
			idx = append(idx, i)
		}
	}
	r := e.middle(idx, func(x, y *pastRun) int {
		return cmp.Or(cmp.Compare(len(x.waves), len(y.waves)), cmp.Compare(x.runtime, y.runtime))
	})
	e.typicalAt[k] = r
	return r
}

// leftOf returns what a running container that has run elapsed has left,
// by its estimate d: d less elapsed; with the distribution d is the
// median of (sorted ds), the median of those longer than elapsed, less
// elapsed, since one that has run long is not about to end. At least
// MinRemaining: one that has run past every estimate is about to end,
// not ended.
func leftOf(d time.Duration, ds []time.Duration, elapsed time.Duration) time.Duration {
	if len(ds) > 0 {
		i, _ := slices.BinarySearch(ds, elapsed+1)
		d = median(ds[i:])
	}
	return max(d-elapsed, MinRemaining)
}
