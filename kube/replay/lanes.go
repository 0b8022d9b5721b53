package replay

import "sync"

// lanes holds the API calls the replayer has decided on, a lane per job,
// and hands them to the workers in turn: one call of each job with calls
// waiting, then the next round. Each job acts as its own application, as
// every Spark driver creates its own executors: a job that asks for a few
// pods must not wait behind the hundreds another asked for a moment
// before. With one queue for all, at time scale 0.25 on a loaded machine
// the executors of jobs submitted together were created up to 23 s of
// wall time after their drivers ran, behind other jobs' pods; that wait,
// which no scheduler causes, was recorded as the jobs' own.
//
// Within a lane calls keep their order. push never blocks (the loop must
// not wait for the apiserver); pop blocks until a call is waiting or the
// lanes are closed.
type lanes struct {
	mu     sync.Mutex
	cond   *sync.Cond
	q      map[int][]action // by job index; -1 for a pod of no known job
	ring   []int            // jobs with calls waiting, in turn order
	closed bool
}

func newLanes() *lanes {
	l := &lanes{q: map[int][]action{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *lanes) push(job int, a action) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.q[job]) == 0 {
		l.ring = append(l.ring, job)
	}
	l.q[job] = append(l.q[job], a)
	l.cond.Signal()
}

// pop returns the next call, or false once the lanes are closed.
func (l *lanes) pop() (action, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.ring) == 0 && !l.closed {
		l.cond.Wait()
	}
	if l.closed {
		return action{}, false
	}
	job := l.ring[0]
	l.ring = l.ring[1:]
	q := l.q[job]
	a := q[0]
	q[0] = action{}
	if q = q[1:]; len(q) > 0 {
		l.q[job] = q
		l.ring = append(l.ring, job)
	} else {
		delete(l.q, job)
	}
	return a, true
}

// close wakes every worker; calls still waiting are dropped (the run is
// over, and its cleanup deletes what it created).
func (l *lanes) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.cond.Broadcast()
}
