package dress

import "github.com/spindle-sched/spindle/clock"

// PhaseEstimator predicts releases from observed task durations instead of
// the paper's release pattern: each running task is expected to end when it
// has run as long as the mean RUNNING-to-COMPLETED time of the completed
// tasks of its phase. Until a task of the phase has completed, the job's
// other phases stand in, and before any of the job's tasks has completed, the
// mean over every completed task of the category. A task already older than
// that mean is overdue: it is expected to end at a constant rate of one per
// mean duration, so over a horizon h it counts min(1, h/mean).
//
// Like the paper's estimator it sees only the transitions a resource manager
// observes, never a task's true duration.
type PhaseEstimator struct {
	tasks map[uint64]*ptask
	jobs  map[int]*pjob
	cat   [2]mean
	// catVer counts the completions of each category: a job whose
	// forecast fell back on the category's mean is recomputed when it
	// moves.
	catVer [2]uint64
}

type ptask struct {
	id    uint64
	job   int
	phase int
	start clock.Time
	size  int64
	pos   int // index in its job's running
}

type pjob struct {
	cat     Category
	phases  map[int]*mean
	all     mean
	running []*ptask // a slice, not a map: sums must not depend on map order

	// The last forecast and how long it holds: a task's weight changes
	// only when now crosses its expected end less h, or its expected
	// end, and the expected durations only with a completion. Until the
	// first such change the sums, made of the same terms in the same
	// order, are the same bits, and a re-tune need not walk the tasks.
	cached         bool
	cacheH         clock.Duration
	cacheUntil     clock.Time
	cacheCat       bool   // the forecast used the category's mean
	cacheCatVer    uint64 // catVer then
	cacheN, cacheU float64
}

type mean struct {
	sum clock.Duration
	n   int
}

func (m *mean) add(d clock.Duration) { m.sum += d; m.n++ }

func (m mean) value() (clock.Duration, bool) {
	if m.n == 0 {
		return 0, false
	}
	return m.sum / clock.Duration(m.n), true
}

// NewPhaseEstimator returns an empty estimator.
func NewPhaseEstimator() *PhaseEstimator {
	return &PhaseEstimator{tasks: map[uint64]*ptask{}, jobs: map[int]*pjob{}}
}

func (e *PhaseEstimator) job(j int, c Category) *pjob {
	pj := e.jobs[j]
	if pj == nil {
		pj = &pjob{cat: c, phases: map[int]*mean{}}
		e.jobs[j] = pj
	}
	return pj
}

// Start records task container id of job j's phase entering RUNNING.
func (e *PhaseEstimator) Start(j int, c Category, phase int, id uint64, at clock.Time, size int64) {
	pj := e.job(j, c)
	t := &ptask{id: id, job: j, phase: phase, start: at, size: size, pos: len(pj.running)}
	e.tasks[id] = t
	pj.running = append(pj.running, t)
	pj.cached = false
}

// Resize records that running task container id now holds size units: the
// policy's units changed with the cluster (Policy.ClusterChanged). Unknown
// ids are ignored.
func (e *PhaseEstimator) Resize(id uint64, size int64) {
	if t := e.tasks[id]; t != nil {
		t.size = size
		e.jobs[t.job].cached = false
	}
}

// Complete records task container id COMPLETED at time at.
func (e *PhaseEstimator) Complete(id uint64, at clock.Time) {
	t := e.tasks[id]
	if t == nil {
		return
	}
	delete(e.tasks, id)
	pj := e.jobs[t.job]
	pj.cached = false
	last := pj.running[len(pj.running)-1]
	pj.running[t.pos], last.pos = last, t.pos
	pj.running = pj.running[:len(pj.running)-1]
	d := at.Sub(t.start)
	m := pj.phases[t.phase]
	if m == nil {
		m = &mean{}
		pj.phases[t.phase] = m
	}
	m.add(d)
	pj.all.add(d)
	e.cat[pj.cat].add(d)
	e.catVer[pj.cat]++
}

// Forget drops a finished job. Its tasks still tracked are the ones in its
// running list: walking that, not every task of every job, keeps a run's
// cost linear in its jobs (at 1M tasks the whole walk took 60 % of the run).
func (e *PhaseEstimator) Forget(j int) {
	if pj := e.jobs[j]; pj != nil {
		for _, t := range pj.running {
			delete(e.tasks, t.id)
		}
		delete(e.jobs, j)
	}
}

// expected returns the duration a task of the job's phase is expected to
// run, whether there is any observation to go on, and whether it is the
// category's mean.
func (e *PhaseEstimator) expected(pj *pjob, phase int) (d clock.Duration, ok, ofCat bool) {
	if m := pj.phases[phase]; m != nil {
		d, ok = m.value()
		return d, ok, false
	}
	if d, ok := pj.all.value(); ok {
		return d, true, false
	}
	d, ok = e.cat[pj.cat].value()
	return d, ok, true
}

// Predict returns the task containers job j is expected to release over
// (now, now+h], as a count and in units.
func (e *PhaseEstimator) Predict(j int, now clock.Time, h clock.Duration) (count, units float64) {
	pj := e.jobs[j]
	if pj == nil {
		return 0, 0
	}
	if pj.cached && pj.cacheH == h && now < pj.cacheUntil && (!pj.cacheCat || pj.cacheCatVer == e.catVer[pj.cat]) {
		return pj.cacheN, pj.cacheU
	}
	count, units, until, ofCat := e.predict(pj, now, h)
	pj.cached, pj.cacheH, pj.cacheUntil, pj.cacheCat, pj.cacheCatVer = true, h, until, ofCat, e.catVer[pj.cat]
	pj.cacheN, pj.cacheU = count, units
	return count, units
}

// predictFull is Predict without the cache: the reference it must equal.
func (e *PhaseEstimator) predictFull(j int, now clock.Time, h clock.Duration) (count, units float64) {
	pj := e.jobs[j]
	if pj == nil {
		return 0, 0
	}
	count, units, _, _ = e.predict(pj, now, h)
	return count, units
}

// predict walks the job's running tasks; until is the first instant after
// now at which a task's weight changes.
func (e *PhaseEstimator) predict(pj *pjob, now clock.Time, h clock.Duration) (count, units float64, until clock.Time, ofCat bool) {
	until = clock.Never
	for _, t := range pj.running {
		d, ok, cat := e.expected(pj, t.phase)
		ofCat = ofCat || cat
		if !ok || d <= 0 {
			continue
		}
		end := t.start.Add(d)
		var w float64
		switch {
		case end > now && end <= now.Add(h):
			w = 1
			until = min(until, end) // overdue from then
		case end <= now:
			w = min(1, float64(h)/float64(d))
		default:
			until = min(until, end-clock.Time(h)) // due within h from then
		}
		count += w
		units += w * float64(t.size)
	}
	return count, units, until, ofCat
}
