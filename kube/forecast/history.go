package forecast

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/sim"
)

// History is what finished jobs took: each job's runtime under its name
// (kube record's job name: Spark's application name, a Job's name without
// a CronJob's serial, the spindle.io/job label), and the durations of their
// tasks, for the cluster's median. It keeps the latest MaxRuns runtimes and
// MaxTasks task durations. Safe for concurrent use: the driver adds as
// jobs finish (Add, or Learn from a snapshot) while Run reads. The zero
// value is empty and ready.
type History struct {
	mu    sync.RWMutex
	seen  map[string]struct{} // keys added, with their order in keys
	keys  []string
	runs  []pastRun // ring of MaxRuns
	next  int
	tasks []time.Duration // ring of MaxTasks
	nextT int
}

type pastRun struct {
	name    string
	runtime time.Duration
	task    time.Duration // its tasks' mean duration; 0 when none is known
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
// same kind are estimated by, runtime its first task's start to its last
// task's end, tasks each task's duration. A job without a name still adds
// its tasks to the cluster's median.
func (h *History) Add(key, name string, runtime time.Duration, tasks []time.Duration) bool {
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
	if name != "" && runtime >= 0 {
		if len(h.runs) < MaxRuns {
			h.runs = append(h.runs, pastRun{name, runtime, mean(tasks)})
		} else {
			h.runs[h.next] = pastRun{name, runtime, mean(tasks)}
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
		rt, tasks, ok := finished(j)
		if ok && h.Add(historyKey(j), j.Name, rt, tasks) {
			n++
		}
	}
	return n, nil
}

// Len returns how many job runtimes the history holds.
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

// estimates is what a Run knows of durations: the history's and the
// snapshot's finished jobs.
type estimates struct {
	byName sim.History // --estimates history's rule: runtimes
	// tasksByName is the same rule over each finished job's mean task
	// duration: what a task of the name takes.
	tasksByName sim.History
	median      time.Duration // of task durations; 0 when none is known
}

func newEstimates(h *History, inst *record.Instant) *estimates {
	e := &estimates{}
	var tasks []time.Duration
	if h != nil {
		h.mu.RLock()
		for _, r := range h.runs {
			e.byName.Observe(r.name, micros(r.runtime))
			if r.task > 0 {
				e.tasksByName.Observe(r.name, micros(r.task))
			}
		}
		tasks = append(tasks, h.tasks...)
		h.mu.RUnlock()
	}
	// Finished jobs still in the snapshot that the history has not had
	// (the driver may not have learned them yet).
	for i := range inst.Jobs {
		j := &inst.Jobs[i]
		rt, ts, ok := finished(j)
		if !ok || h != nil && h.known(historyKey(j)) {
			continue
		}
		e.byName.Observe(j.Name, micros(rt))
		if m := mean(ts); m > 0 {
			e.tasksByName.Observe(j.Name, micros(m))
		}
		tasks = append(tasks, ts...)
	}
	if len(tasks) > 0 {
		slices.Sort(tasks)
		e.median = tasks[(len(tasks)-1)/2]
	}
	return e
}

// of returns j's runtime estimate, the only duration a policy sees, the
// duration each of its tasks is taken to last, and where they come from:
// the history of j's name (its runtimes; its tasks' mean durations, else
// the runtime), else j's declared estimate, else the cluster's median
// task, else DefaultEstimate (for tasks and runtime both).
func (e *estimates) of(j *record.InstantJob) (runtime, task time.Duration, src Source) {
	at := func(d clock.Duration) time.Duration { return max(time.Duration(d)*time.Microsecond, time.Second) }
	if d, ok := e.byName.Estimate(j.Name); ok {
		task := at(d)
		if t, ok := e.tasksByName.Estimate(j.Name); ok {
			task = at(t)
		}
		return at(d), task, SourceHistory
	}
	if d := j.Hints.Estimate; d > 0 {
		return at(d), at(d), SourceAnnotation
	}
	if e.median > 0 {
		return max(e.median, time.Second), max(e.median, time.Second), SourceCluster
	}
	return DefaultEstimate, DefaultEstimate, SourceCluster
}
