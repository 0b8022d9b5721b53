package dress

import (
	"github.com/spindle-sched/spindle/clock"
)

// Estimator is DRESS's release-pattern estimator (§III-B, §IV-A, §IV-B). It
// sees only what a resource manager sees: the times task containers were
// observed RUNNING and COMPLETED. From the RUNNING transitions it groups each
// job's tasks into phases (Algorithm 1); from the COMPLETED transitions it
// finds when each phase began to release (Algorithm 2); and with Equations 5
// and 9 it predicts how many containers each job will release over a coming
// horizon.
//
// The window conditions of both algorithms ("no task started for pw", "no
// task completed for pw") become true while nothing happens, so they are
// evaluated lazily at the exact instant they became true: before any event of
// a job, and by Advance. The result does not depend on how often the
// estimator is queried.
type Estimator struct {
	pw     clock.Duration
	ts, te int
	jobs   []*jobEst // by job index
	tasks  map[uint64]*task
	free   []*task // ended tasks, for reuse: a run sees one per task container
}

// task is one running task container, as the estimator tracks it.
type task struct {
	id    uint64
	job   int
	start clock.Time
	size  int64 // in the policy's resource units
	ph    *phase
	where int8 // one of the placement constants below
	pos   int  // index in the slice that holds it
}

// Where a running task is filed.
const (
	inUnassigned int8 = iota // started, but no phase detected around it yet
	inPhase                  // a member of ph
	inCarry                  // a trailing task waiting for its job's next phase
)

// phase is one phase as Algorithm 1 detected it, with Algorithm 2's
// release-start time.
type phase struct {
	psF, psL clock.Time // first and last start (Algorithm 1 lines 13, 15)
	closed   bool       // no task joined for pw: Δps is final
	cp       int        // containers occupied by the phase (Alg. 1 line 8, plus Alg. 2 line 12)
	members  []*task    // those still running
	runUnits int64      // their total size

	gamma     clock.Time   // earliest finish once releasing (Alg. 2 line 10); -1 before
	compl     []clock.Time // completions within the last pw
	lastCompl clock.Time
	completed int
	carried   int // trailing tasks moved on to the next phase
}

type jobEst struct {
	alpha, beta clock.Time // first task start, and when the last running task ended
	starts      []clock.Time
	lastStart   clock.Time
	running     int
	unassigned  []*task
	open        *phase
	phases      []*phase
	carry       []*task
}

// NewEstimator returns an estimator with phase window pw and the thresholds
// ts (tasks starting within pw that mark a phase start) and te (tasks
// completing within pw that mark the start of its release).
func NewEstimator(pw clock.Duration, ts, te int) *Estimator {
	return &Estimator{pw: pw, ts: ts, te: te, tasks: map[uint64]*task{}}
}

func (e *Estimator) job(j int) *jobEst {
	for j >= len(e.jobs) {
		e.jobs = append(e.jobs, nil)
	}
	if e.jobs[j] == nil {
		e.jobs[j] = &jobEst{alpha: -1, beta: -1, lastStart: -1}
	}
	return e.jobs[j]
}

// Start records that task container id of job j was observed RUNNING at
// time at; size is what it holds, in the caller's units.
func (e *Estimator) Start(j int, id uint64, at clock.Time, size int64) {
	je := e.job(j)
	e.advance(je, at)
	var t *task
	if n := len(e.free); n > 0 {
		t, e.free = e.free[n-1], e.free[:n-1]
	} else {
		t = new(task)
	}
	*t = task{id: id, job: j, start: at, size: size}
	e.tasks[id] = t
	if je.alpha < 0 {
		je.alpha = at // Algorithm 1, lines 9-10
	}
	je.running++
	je.lastStart = at
	// RT(t) - RT(t-pw): the tasks that started within the window, this one
	// included.
	je.starts = append(je.starts, at)
	je.starts = trim(je.starts, at-clock.Time(e.pw))
	if je.open != nil {
		je.open.join(t)
		return
	}
	t.where, t.pos = inUnassigned, len(je.unassigned)
	je.unassigned = append(je.unassigned, t)
	if len(je.starts) > e.ts {
		e.detect(je)
	}
}

// trim drops the times not after cut; times are in ascending order.
func trim(ts []clock.Time, cut clock.Time) []clock.Time {
	i := 0
	for i < len(ts) && ts[i] <= cut {
		i++
	}
	if i == 0 {
		return ts
	}
	return append(ts[:0], ts[i:]...)
}

// detect opens a phase around the job's unassigned running tasks: more than
// ts of them started within pw (Algorithm 1, lines 11-13). Trailing tasks
// carried from the previous phase join it (Algorithm 2, line 12).
func (e *Estimator) detect(je *jobEst) {
	p := &phase{gamma: -1, lastCompl: -1, psF: clock.Never, psL: -1}
	for _, t := range je.unassigned {
		p.psF = min(p.psF, t.start)
		p.join(t)
	}
	je.unassigned = je.unassigned[:0]
	for _, t := range je.carry {
		p.adopt(t)
	}
	je.carry = je.carry[:0]
	je.open = p
	je.phases = append(je.phases, p)
}

// join makes a newly started task a member of p.
func (p *phase) join(t *task) {
	p.psL = max(p.psL, t.start)
	p.adopt(t)
}

// adopt counts a running task into p without changing its start times: a
// trailing task carried from the previous phase.
func (p *phase) adopt(t *task) {
	t.ph, t.where, t.pos = p, inPhase, len(p.members)
	p.members = append(p.members, t)
	p.cp++
	p.runUnits += t.size
}

// Resize records that running task container id now holds size units: the
// policy's units changed with the cluster (Policy.ClusterChanged). Unknown
// ids are ignored.
func (e *Estimator) Resize(id uint64, size int64) {
	t, ok := e.tasks[id]
	if !ok {
		return
	}
	if t.where == inPhase {
		t.ph.runUnits += size - t.size
	}
	t.size = size
}

// Complete records that task container id was observed COMPLETED at time
// at. Unknown ids (AM containers, tasks never seen running) are ignored.
func (e *Estimator) Complete(id uint64, at clock.Time) {
	t, ok := e.tasks[id]
	if !ok {
		return
	}
	je := e.jobs[t.job]
	e.advance(je, at)
	delete(e.tasks, id)
	switch t.where {
	case inUnassigned:
		je.unassigned = remove(je.unassigned, t)
	case inCarry:
		je.carry = remove(je.carry, t)
	case inPhase:
		p := t.ph
		p.members = remove(p.members, t)
		p.runUnits -= t.size
		p.completed++
		p.lastCompl = at
		p.compl = append(p.compl, at)
		p.compl = trim(p.compl, at-clock.Time(e.pw))
		// More than te completions within pw: the phase has started
		// releasing, and the window's earliest completion is its γ. An
		// isolated heading task that finished earlier is outside the
		// window, which is what the threshold is for (Alg. 2, lines 8-10).
		if p.gamma < 0 && len(p.compl) > e.te {
			p.gamma = p.compl[0]
		}
	}
	je.running--
	if je.running == 0 {
		je.beta = at // Algorithm 2, lines 13-14
	}
	t.ph = nil
	e.free = append(e.free, t)
}

// remove deletes t from s by swapping the last element into its place.
func remove(s []*task, t *task) []*task {
	last := len(s) - 1
	s[t.pos] = s[last]
	s[t.pos].pos = t.pos
	s[last] = nil
	return s[:last]
}

// Advance brings every job's window conditions up to now.
func (e *Estimator) Advance(now clock.Time) {
	for _, je := range e.jobs {
		if je != nil {
			e.advance(je, now)
		}
	}
}

// advance applies, in time order, the conditions that became true by now
// because nothing happened for a window: a phase closes when no task started
// for pw (Algorithm 1, lines 14-17), and a releasing phase whose completions
// stalled for pw while tasks still run hands them, as trailing tasks, to the
// next phase (Algorithm 2, lines 11-12).
func (e *Estimator) advance(je *jobEst, now clock.Time) {
	pw := clock.Time(e.pw)
	for {
		due, which := clock.Never, (*phase)(nil)
		if je.open != nil {
			due = je.lastStart + pw
		}
		for _, p := range je.phases {
			if p.gamma >= 0 && len(p.members) > 0 && p.lastCompl+pw < due {
				due, which = p.lastCompl+pw, p
			}
		}
		if due > now {
			return
		}
		if which == nil {
			je.open.closed = true
			je.open = nil
			continue
		}
		e.carryOn(je, which)
	}
}

// carryOn moves p's running tasks into the phase after it, or holds them
// for the job's next phase when none has been detected yet.
func (e *Estimator) carryOn(je *jobEst, p *phase) {
	var next *phase
	for i, q := range je.phases {
		if q == p && i+1 < len(je.phases) {
			next = je.phases[i+1]
		}
	}
	for _, t := range p.members {
		p.runUnits -= t.size
		p.carried++
		if next != nil {
			next.adopt(t)
			continue
		}
		t.ph, t.where, t.pos = nil, inCarry, len(je.carry)
		je.carry = append(je.carry, t)
	}
	p.members = p.members[:0]
}

// Predict brings job j up to now and returns the containers it is expected
// to release in (now, now+h], as a count and in the caller's units: for each
// phase that has
// started releasing, c_p times the growth of clip((t-γ)/Δps) over the
// horizon (Equation 9), summed over the job's phases (Equation 5). A phase
// still open has a provisional Δps from the starts seen so far. A phase never
// releases more than it still holds.
func (e *Estimator) Predict(j int, now clock.Time, h clock.Duration) (count, units float64) {
	if j >= len(e.jobs) || e.jobs[j] == nil {
		return 0, 0
	}
	e.advance(e.jobs[j], now)
	for _, p := range e.jobs[j].phases {
		if p.gamma < 0 || len(p.members) == 0 {
			continue
		}
		n := float64(p.cp) * (p.progress(now.Add(h)) - p.progress(now))
		n = min(n, float64(len(p.members)))
		count += n
		units += n * float64(p.runUnits) / float64(len(p.members))
	}
	return count, units
}

// progress is the fraction of p's containers released by time t under
// Equation 9: zero before γ, then linear over Δps.
func (p *phase) progress(t clock.Time) float64 {
	if t < p.gamma {
		return 0
	}
	d := p.psL - p.psF
	if d <= 0 {
		return 1 // every task started at once: all release together at γ
	}
	return min(1, float64(t-p.gamma)/float64(d))
}

// Forget drops a finished job's state.
func (e *Estimator) Forget(j int) {
	if j >= len(e.jobs) || e.jobs[j] == nil {
		return
	}
	je := e.jobs[j]
	for _, t := range je.unassigned {
		delete(e.tasks, t.id)
	}
	for _, t := range je.carry {
		delete(e.tasks, t.id)
	}
	for _, p := range je.phases {
		for _, t := range p.members {
			delete(e.tasks, t.id)
		}
	}
	e.jobs[j] = nil
}

// PhaseInfo describes a detected phase, for tests and reports. Times are -1
// when not yet known.
type PhaseInfo struct {
	First, Last clock.Time     // ps_f and ps_l
	Variation   clock.Duration // Δps = ps_l - ps_f
	Closed      bool
	Containers  int        // c_p
	Running     int        // members still running
	Gamma       clock.Time // γ
	Completed   int
	Carried     int // trailing tasks handed to the next phase
}

// Phases returns job j's detected phases in order.
func (e *Estimator) Phases(j int) []PhaseInfo {
	if j >= len(e.jobs) || e.jobs[j] == nil {
		return nil
	}
	var out []PhaseInfo
	for _, p := range e.jobs[j].phases {
		out = append(out, PhaseInfo{
			First: p.psF, Last: p.psL, Variation: clock.Duration(p.psL - p.psF), Closed: p.closed,
			Containers: p.cp, Running: len(p.members), Gamma: p.gamma, Completed: p.completed, Carried: p.carried,
		})
	}
	return out
}

// JobTimes returns α (first task start) and β (when the job last had no
// running task) of job j, -1 when not yet known.
func (e *Estimator) JobTimes(j int) (alpha, beta clock.Time) {
	if j >= len(e.jobs) || e.jobs[j] == nil {
		return -1, -1
	}
	return e.jobs[j].alpha, e.jobs[j].beta
}

// Unassigned returns how many of job j's running tasks belong to no phase,
// and how many trailing tasks wait for its next phase.
func (e *Estimator) Unassigned(j int) (unassigned, carried int) {
	if j >= len(e.jobs) || e.jobs[j] == nil {
		return 0, 0
	}
	return len(e.jobs[j].unassigned), len(e.jobs[j].carry)
}
