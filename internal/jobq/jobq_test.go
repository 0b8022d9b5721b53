package jobq_test

import (
	"math/rand/v2"
	"testing"

	"github.com/spindle-sched/spindle/internal/jobq"
	"github.com/spindle-sched/spindle/internal/schedtest"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// First must agree with walking every job in order and taking the first
// included ask that fits, whatever the jobs ask for and however the order
// keys move.
func TestFirstAgreesWithWalk(t *testing.T) {
	shapes := []resource.Vector{resource.New(1, 1024), resource.New(2, 1024), resource.New(1, 4096), resource.New(4, 8192)}
	r := rand.New(rand.NewPCG(7, 7))
	for round := range 30 {
		h := schedtest.New(t, schedtest.Config{
			Nodes:  []resource.Vector{resource.New(1<<20, 1<<40)},
			Policy: func(v *sched.View) (sched.Policy, error) { return fifo.New(v, fifo.Config{}), nil },
		})
		key := map[sched.JobID]int{}
		less := func(a, b *sched.Job) bool {
			if key[a.ID()] != key[b.ID()] {
				return key[a.ID()] < key[b.ID()]
			}
			return a.ID() < b.ID()
		}
		include := []func(*sched.Ask) bool{nil, jobq.TaskAsks, jobq.AMAsks}[round%3]
		q := jobq.New(less, include)
		var jobs []*sched.Job
		for i := range 40 {
			spec := sched.JobSpec{Key: string(rune('a' + i%26)), Queue: "default"}
			if r.IntN(2) == 0 {
				spec.AM = shapes[r.IntN(len(shapes))]
			}
			for range 1 + r.IntN(3) {
				spec.Phases = append(spec.Phases, sched.PhaseSpec{Tasks: 1 + r.IntN(3), Request: shapes[r.IntN(len(shapes))], StartAfter: 1})
			}
			j := h.Submit(spec)
			key[j.ID()] = r.IntN(10)
			jobs = append(jobs, j)
			q.Update(j)
		}
		for step := range 200 {
			// Move a key, or place one container somewhere.
			j := jobs[r.IntN(len(jobs))]
			if r.IntN(2) == 0 {
				key[j.ID()] = r.IntN(10)
				q.Fix(j)
			} else if a := j.NextAsk(); a != nil && (a.IsAM() || j.State() == sched.Active) {
				h.Place(j, a.Phase(), 0)
				q.Update(j)
			}
			room := resource.New(int64(1+r.IntN(4)), int64(1024*(1+r.IntN(8))))
			var want *sched.Ask
			q.Ascend(func(j *sched.Job) bool {
				want = q.FirstAsk(j, h.Node(0), room)
				return want == nil
			})
			if got := q.First(h.Node(0), room); got != want {
				t.Fatalf("round %d step %d: First(%v) = %v, walk gives %v", round, step, room, describe(got), describe(want))
			}
		}
	}
}

func describe(a *sched.Ask) string {
	if a == nil {
		return "nil"
	}
	return a.Job().Key() + " " + a.Request.String()
}
