// Package jobq is an ordered set of jobs for policies: jobs join and leave as
// their asks come and go, can be re-ordered when their key changes, and are
// walked in order to find the first one that can use a node.
package jobq

import (
	"github.com/spindle-sched/spindle/internal/pq"
	"github.com/spindle-sched/spindle/sched"
)

// Queue is a set of jobs ordered by less.
type Queue struct {
	h   *pq.Heap[*sched.Job]
	pos []int32 // by job id: position in the heap, -1 when absent
}

// New returns an empty set ordered by less.
func New(less func(a, b *sched.Job) bool) *Queue {
	q := &Queue{}
	q.h = pq.New(less, func(j *sched.Job, i int) { q.pos[j.ID()] = int32(i) })
	return q
}

// ByID returns a set in submission order.
func ByID() *Queue {
	return New(func(a, b *sched.Job) bool { return a.ID() < b.ID() })
}

func (q *Queue) grow(id sched.JobID) {
	for int(id) >= len(q.pos) {
		q.pos = append(q.pos, -1)
	}
}

// Has reports whether j is in the set.
func (q *Queue) Has(j *sched.Job) bool {
	return int(j.ID()) < len(q.pos) && q.pos[j.ID()] >= 0
}

// Set adds j when in is true and removes it otherwise.
func (q *Queue) Set(j *sched.Job, in bool) {
	q.grow(j.ID())
	switch p := q.pos[j.ID()]; {
	case in && p < 0:
		q.h.Push(j)
	case !in && p >= 0:
		q.h.Remove(int(p))
	}
}

// Fix re-orders j after its key changed; it does nothing if j is absent.
func (q *Queue) Fix(j *sched.Job) {
	if q.Has(j) {
		q.h.Fix(int(q.pos[j.ID()]))
	}
}

// Len returns the number of jobs in the set.
func (q *Queue) Len() int { return q.h.Len() }

// First returns the least job, or nil.
func (q *Queue) First() *sched.Job {
	if q.h.Len() == 0 {
		return nil
	}
	return q.h.Min()
}

// Find walks the jobs in order and returns the first ask f returns, or nil.
// Walks must not nest and the set must not change during one.
func (q *Queue) Find(f func(j *sched.Job) (a *sched.Ask, stop bool)) *sched.Ask {
	var found *sched.Ask
	q.h.Ascend(func(j *sched.Job) bool {
		a, stop := f(j)
		found = a
		return a == nil && !stop
	})
	return found
}
