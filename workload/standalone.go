package workload

import (
	"container/heap"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Standalone returns the job's runtime alone on an empty cluster of the
// given nodes with no delays (ideal mode): its phases one after the other,
// each phase's tasks started in order on the first free container slot. The
// AM container's slot is taken from the first node it fits. Phases that may
// overlap their predecessor (start_after < 1) are counted in sequence, an
// upper bound. It reads the true durations: it is for drivers and
// generators, which own them, never for policies.
func (j *Job) Standalone(nodes []resource.Vector) clock.Duration {
	var total clock.Duration
	for k := range j.Phases {
		p := &j.Phases[k]
		slots := 0
		amPlaced := j.AM.IsZero()
		for _, c := range nodes {
			if !amPlaced && j.AM.Fits(c) {
				c = c.Sub(j.AM)
				amPlaced = true
			}
			slots += p.Request.CountIn(c)
		}
		total += listSchedule(p, max(slots, 1))
	}
	return total
}

// listSchedule is the makespan of the phase's tasks, in index order, on
// slots identical slots.
func listSchedule(p *Phase, slots int) clock.Duration {
	if p.Tasks <= slots {
		var m clock.Duration
		for i := range p.Tasks {
			m = max(m, p.Duration(i))
		}
		return m
	}
	free := make(slotHeap, slots)
	for i := range p.Tasks {
		free[0] += p.Duration(i)
		heap.Fix(&free, 0)
	}
	return slices.Max(free)
}

// slotHeap is the time each slot frees, least first.
type slotHeap []clock.Duration

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h slotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)        { *h = append(*h, x.(clock.Duration)) }
func (h *slotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
