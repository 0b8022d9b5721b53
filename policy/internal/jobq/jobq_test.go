package jobq_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
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

type nopDriver struct{}

func (nopDriver) Launch(*sched.Container) {}
func (nopDriver) Stop(*sched.Container)   {}
func (nopDriver) WakeAM(*sched.Job)       {}
func (nopDriver) Reconsider()             {}
func (nopDriver) AcceptLowered()          {}

// First must agree with the walk in order also when asks carry placement
// constraints: the answer for a node is the first job, in order, with an
// ask that fits the room and admits that node. Some asks carry a class of
// their own (as a forecast's pinned tasks do), so that there are more than
// 64 heaps, and asks are withdrawn, so that heaps empty and fill again.
func TestFirstAgreesWithWalkUnderConstraints(t *testing.T) {
	shapes := []resource.Vector{resource.New(1, 1024), resource.New(2, 1024), resource.New(1, 4096)}
	r := rand.New(rand.NewPCG(11, 3))
	for round := range 20 {
		core, err := sched.NewCore(sched.Config{
			Nodes:     []resource.Vector{resource.New(64, 1<<20), resource.New(64, 1<<20), resource.New(64, 1<<20)},
			Driver:    nopDriver{},
			NewPolicy: func(v *sched.View) (sched.Policy, error) { return fifo.New(v, fifo.Config{}), nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		key := map[sched.JobID]int{}
		less := func(a, b *sched.Job) bool {
			if key[a.ID()] != key[b.ID()] {
				return key[a.ID()] < key[b.ID()]
			}
			return a.ID() < b.ID()
		}
		q := jobq.New(less, nil)
		var jobs []*sched.Job
		for i := range 30 {
			// Open jobs without an AM run at once and ask as they go.
			j, err := core.Submit(0, &sched.JobSpec{Key: string(rune('A' + i)), Queue: "default", Open: true})
			if err != nil {
				t.Fatal(err)
			}
			key[j.ID()] = r.IntN(10)
			jobs = append(jobs, j)
		}
		type asked struct {
			j   *sched.Job
			key string
		}
		var asks []asked
		for n := range 400 {
			j := jobs[r.IntN(len(jobs))]
			req := sched.Request{Key: fmt.Sprintf("%d-%d", round, n), Resource: shapes[r.IntN(len(shapes))]}
			switch r.IntN(4) {
			case 1:
				req.Class, req.Eligible = "only0", func(n *cluster.Node) bool { return n.ID() == 0 }
			case 2:
				req.Class, req.Eligible = "not0", func(n *cluster.Node) bool { return n.ID() != 0 }
			case 3:
				on := cluster.NodeID(n % 3)
				req.Class, req.Eligible = fmt.Sprintf("pin%d", n), func(n *cluster.Node) bool { return n.ID() == on }
			}
			if _, err := core.Ask(0, j, req); err != nil {
				t.Fatal(err)
			}
			asks = append(asks, asked{j, req.Key})
			q.Update(j)
		}
		for step := range 300 {
			j := jobs[r.IntN(len(jobs))]
			key[j.ID()] = r.IntN(10)
			q.Fix(j)
			if len(asks) > 0 && r.IntN(2) == 0 {
				k := r.IntN(len(asks))
				if err := core.Cancel(0, asks[k].j, asks[k].key); err != nil {
					t.Fatal(err)
				}
				q.Update(asks[k].j)
				asks = slices.Delete(asks, k, k+1)
			}
			n := core.Cluster().Node(cluster.NodeID(r.IntN(3)))
			room := resource.New(int64(1+r.IntN(2)), int64(1024*(1+r.IntN(4))))
			var want *sched.Ask
			q.Ascend(func(j *sched.Job) bool {
				want = q.FirstAsk(j, n, room)
				return want == nil
			})
			got := q.First(n, room)
			if got != want {
				t.Fatalf("round %d step %d: First(%v, %v) = %v, walk gives %v", round, step, n, room, describe(got), describe(want))
			}
			if got != nil && ((got.Constrained() && !got.EligibleOn(n)) || !got.Request.Fits(room)) {
				t.Fatalf("round %d step %d: First gave %v, which %v cannot take", round, step, describe(got), n)
			}
		}
	}
}
