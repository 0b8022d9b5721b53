// Package qtree mirrors the core's queue tree (sched.View.Queues and
// RootQueue) in a policy's own per-queue state, so that capacity and fair
// link parents and children the one way the core defines them.
package qtree

import (
	"slices"

	"github.com/spindle-sched/spindle/sched"
)

// Build makes one T per queue of v, by build, and links each to its parent
// with adopt, in the core's queue order: queues[i] stands for v.Queues()[i]
// and root for v.RootQueue(). A queue whose parent is the root (its Index
// is negative) is adopted by root.
func Build[T any](v *sched.View, build func(*sched.Queue) T, adopt func(parent, child T)) (queues []T, root T) {
	qs := v.Queues()
	queues = make([]T, len(qs))
	for i, q := range qs {
		queues[i] = build(q)
	}
	root = build(v.RootQueue())
	for i, q := range qs {
		parent := root
		if pq := q.Parent(); pq.Index() >= 0 {
			parent = queues[pq.Index()]
		}
		adopt(parent, queues[i])
	}
	return queues, root
}

// SortStable orders a level's queues by before (a strict order: a comes
// first), keeping equal ones in place. It runs on every pick, so it
// allocates nothing (sort.SliceStable allocates a reflective swapper per
// call).
func SortStable[T any](s []T, before func(a, b T) bool) {
	slices.SortStableFunc(s, func(a, b T) int {
		switch {
		case before(a, b):
			return -1
		case before(b, a):
			return 1
		}
		return 0
	})
}
