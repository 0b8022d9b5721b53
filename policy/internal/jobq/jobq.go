// Package jobq is the ordered set of waiting jobs that policies choose from.
// A policy orders jobs its own way (submission, usage, estimate); the set
// answers "the first job, in that order, with an outstanding ask that fits
// these resources" without walking past every job whose asks do not fit.
//
// It does so by keeping one heap per ask shape (request vector): a job sits
// in the heap of each shape it asks for, and the answer is the best of the
// heap tops whose shape fits. Workloads have few distinct shapes, so a pick
// costs a handful of comparisons however long the queue, where a walk in
// order would, in a congested cluster, pass every job too big for the node.
//
// Asks with placement constraints (a live cluster's node selectors, taints)
// get heaps of their own, per shape and class; only those heaps are walked in
// order to find a job whose ask the node is eligible for. Simulated asks have
// no constraints, so the node costs them nothing.
package jobq

import (
	"math/bits"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/pq"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Queue is an ordered set of jobs with outstanding asks.
type Queue struct {
	less    func(a, b *sched.Job) bool
	include func(a *sched.Ask) bool

	all    *pq.Heap[*sched.Job] // every member, for walks in order
	allPos []int32              // by job id: position in all, -1 when absent

	sets []*shapeSet
	// nonEmpty has bit i set while sets[i] holds a job: First walks only
	// those, in index order, so that sets emptied for good (a simulated
	// pinned task's, whose node selector is its own) cost nothing.
	nonEmpty []uint64
	byVec    map[resource.Vector]int32
	byClass  map[classKey]int32 // heaps of constrained asks
	member   [][]slot           // by job id: the shape heaps the job is in

	scratch []int32
}

type shapeSet struct {
	shape       resource.Vector
	constrained bool
	h           *pq.Heap[*sched.Job]
}

type classKey struct {
	shape resource.Vector
	class string
}

type slot struct{ set, pos int32 }

// New returns an empty set ordered by less, counting only the outstanding
// asks for which include returns true (nil includes every ask).
func New(less func(a, b *sched.Job) bool, include func(a *sched.Ask) bool) *Queue {
	if include == nil {
		include = func(*sched.Ask) bool { return true }
	}
	q := &Queue{less: less, include: include, byVec: map[resource.Vector]int32{}, byClass: map[classKey]int32{}}
	q.all = pq.New(less, func(j *sched.Job, i int) { q.allPos[j.ID()] = int32(i) })
	return q
}

// ByID returns a set in submission order.
func ByID(include func(a *sched.Ask) bool) *Queue {
	return New(func(a, b *sched.Job) bool { return a.ID() < b.ID() }, include)
}

// ByPriority returns a set in YARN's FIFO order with application
// priorities: higher priority first, then submission order.
func ByPriority(include func(a *sched.Ask) bool) *Queue { return New(PriorityFirst, include) }

// PriorityFirst is the order of ByPriority: a's priority is higher, or
// equal and a was submitted first.
var PriorityFirst = PriorityThen(func(a, b *sched.Job) bool { return a.ID() < b.ID() })

// PriorityThen is YARN's application priority over another order: a job of
// higher priority first, jobs of equal priority in the order of less.
func PriorityThen(less func(a, b *sched.Job) bool) func(a, b *sched.Job) bool {
	return func(a, b *sched.Job) bool {
		if pa, pb := a.Priority(), b.Priority(); pa != pb {
			return pa > pb
		}
		return less(a, b)
	}
}

// TaskAsks includes the asks for task containers only.
func TaskAsks(a *sched.Ask) bool { return !a.IsAM() }

// AMAsks includes the asks for AM containers only.
func AMAsks(a *sched.Ask) bool { return a.IsAM() }

func (q *Queue) grow(id sched.JobID) {
	for int(id) >= len(q.allPos) {
		q.allPos = append(q.allPos, -1)
		q.member = append(q.member, nil)
	}
}

func (q *Queue) set(a *sched.Ask) int32 {
	shape := a.Request
	if a.Constrained() {
		k := classKey{shape, a.Class()}
		if i, ok := q.byClass[k]; ok {
			return i
		}
		q.byClass[k] = int32(len(q.sets))
	} else if i, ok := q.byVec[shape]; ok {
		return i
	} else {
		q.byVec[shape] = int32(len(q.sets))
	}
	i := int32(len(q.sets))
	s := &shapeSet{shape: shape, constrained: a.Constrained()}
	s.h = pq.New(q.less, func(j *sched.Job, p int) {
		for k := range q.member[j.ID()] {
			if sl := &q.member[j.ID()][k]; sl.set == i {
				sl.pos = int32(p)
				return
			}
		}
	})
	q.sets = append(q.sets, s)
	for len(q.nonEmpty)*64 < len(q.sets) {
		q.nonEmpty = append(q.nonEmpty, 0)
	}
	return i
}

// mark records whether set i holds a job, after a push or removal.
func (q *Queue) mark(i int32) {
	if q.sets[i].h.Len() > 0 {
		q.nonEmpty[i/64] |= 1 << (i % 64)
	} else {
		q.nonEmpty[i/64] &^= 1 << (i % 64)
	}
}

// Update re-derives j's membership from its outstanding asks: a job is in
// the set while it has an included ask with containers pending. Call it
// whenever j's asks change and when it finishes.
func (q *Queue) Update(j *sched.Job) {
	q.grow(j.ID())
	want := q.scratch[:0]
	if j.State() != sched.Finished {
		for i := range j.Asks() {
			a := &j.Asks()[i]
			if a.Pending > 0 && q.include(a) {
				s := q.set(a)
				dup := false
				for _, w := range want {
					dup = dup || w == s
				}
				if !dup {
					want = append(want, s)
				}
			}
		}
	}
	q.scratch = want
	// Leave the heaps no longer wanted, then join the new ones.
	m := q.member[j.ID()]
	for k := 0; k < len(m); {
		keep := false
		for _, w := range want {
			keep = keep || w == m[k].set
		}
		if keep {
			k++
			continue
		}
		q.sets[m[k].set].h.Remove(int(m[k].pos))
		q.mark(m[k].set)
		m = q.member[j.ID()] // Remove's callbacks do not touch the slot being removed
		m[k] = m[len(m)-1]
		m = m[:len(m)-1]
		q.member[j.ID()] = m
	}
	for _, w := range want {
		found := false
		for _, sl := range q.member[j.ID()] {
			found = found || sl.set == w
		}
		if !found {
			q.member[j.ID()] = append(q.member[j.ID()], slot{set: w, pos: -1})
			q.sets[w].h.Push(j)
			q.mark(w)
		}
	}
	in := q.allPos[j.ID()] >= 0
	switch {
	case len(want) > 0 && !in:
		q.all.Push(j)
	case len(want) == 0 && in:
		q.all.Remove(int(q.allPos[j.ID()]))
	}
}

// Fix restores order after j's key changed.
func (q *Queue) Fix(j *sched.Job) {
	if !q.Has(j) {
		return
	}
	q.all.Fix(int(q.allPos[j.ID()]))
	for _, sl := range q.member[j.ID()] {
		q.sets[sl.set].h.Fix(int(sl.pos))
	}
}

// Has reports whether j is in the set.
func (q *Queue) Has(j *sched.Job) bool {
	return int(j.ID()) < len(q.allPos) && q.allPos[j.ID()] >= 0
}

// Len returns the number of jobs in the set.
func (q *Queue) Len() int { return q.all.Len() }

// Head returns the least job, or nil.
func (q *Queue) Head() *sched.Job {
	if q.all.Len() == 0 {
		return nil
	}
	return q.all.Min()
}

// First returns the least job with an included ask that fits room and may go
// to node n, and that job's first such ask; nil when no ask fits. room is
// what the policy lets the node give (its free resources, perhaps capped).
// n is assumed to take containers: the core offers policies no other node.
func (q *Queue) First(n *cluster.Node, room resource.Vector) *sched.Ask {
	var best *sched.Job
	for w, word := range q.nonEmpty {
		for ; word != 0; word &= word - 1 {
			s := q.sets[w*64+bits.TrailingZeros64(word)]
			if s.shape.Fits(room) {
				best = q.better(s, best, n, room)
			}
		}
	}
	if best == nil {
		return nil
	}
	return q.FirstAsk(best, n, room)
}

// better returns the least of best and the jobs of set s with an ask n
// may take within room (s's shape fits room).
func (q *Queue) better(s *shapeSet, best *sched.Job, n *cluster.Node, room resource.Vector) *sched.Job {
	if !s.constrained {
		if j := s.h.Min(); best == nil || q.less(j, best) {
			return j
		}
		return best
	}
	// The least job in order whose ask n is eligible for.
	s.h.Ascend(func(j *sched.Job) bool {
		if best != nil && !q.less(j, best) {
			return false
		}
		if q.FirstAsk(j, n, room) != nil {
			best = j
			return false
		}
		return true
	})
	return best
}

// FirstAsk returns j's first included outstanding ask that fits room and may
// go to node n, or nil.
func (q *Queue) FirstAsk(j *sched.Job, n *cluster.Node, room resource.Vector) *sched.Ask {
	for i := range j.Asks() {
		if a := &j.Asks()[i]; a.Pending > 0 && q.include(a) && a.Request.Fits(room) && (!a.Constrained() || a.EligibleOn(n)) {
			return a
		}
	}
	return nil
}

// Ascend walks the jobs in order until f returns false. The set must not
// change during the walk.
func (q *Queue) Ascend(f func(j *sched.Job) bool) { q.all.Ascend(f) }

// DefaultReserveTimeout is how long a reservation may hold a node without
// its container fitting before it expires (sched.ReserveExpirer). YARN's
// reservations never expire; YuniKorn cancels one after a wait
// (YUNIKORN-3219). A minute is many node heartbeats and task lengths of
// the short jobs a reservation starves, and short beside the hours a
// blocked node would otherwise stay held.
const DefaultReserveTimeout = 60 * clock.Second

// ReserveParams reads the reservation parameters every reserving policy
// takes: reserve (on or off) and reserve_timeout.
func ReserveParams(r *params.Reader, help string) (reserve bool, timeout clock.Duration) {
	reserve = r.Bool("reserve", false, help)
	timeout = r.NonNegativeDuration("reserve_timeout", DefaultReserveTimeout,
		"with reserve=true: a reservation that has held its node this long without its container fitting is cancelled, and its ask may not reserve that node again for as long (default 60s; 0 never expires, as YARN)")
	return reserve, timeout
}

// FirstOrReserve is First for a policy that reserves: it walks the jobs in
// order and returns the first job's first included ask that fits limit (a
// policy limit such as an AM share) and capacity, what the node offers when
// empty (its usable capacity). If that ask fits
// free it is to be allocated; if not, it is returned for the node to be
// reserved for it, unless it already holds a reservation for every pending
// container or its reservation of n expired lately (sched.View.MayReserve),
// in which case the walk moves on to the next job.
func (q *Queue) FirstOrReserve(v *sched.View, n *cluster.Node, free, capacity, limit resource.Vector) *sched.Ask {
	room := capacity.Min(limit)
	var found *sched.Ask
	q.all.Ascend(func(j *sched.Job) bool {
		a := q.FirstAsk(j, n, room)
		if a == nil || (!a.Request.Fits(free) && (a.Pending <= a.Reserved() || !v.MayReserve(a, n))) {
			return true
		}
		found = a
		return false
	})
	return found
}
