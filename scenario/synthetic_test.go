package scenario

import (
	"testing"

	"github.com/spindle-sched/spindle/workload"
)

// With --queue-tree the jobs are the flat workload's, put in the tree's
// leaves with priorities in the documented proportions.
func TestSyntheticQueueTree(t *testing.T) {
	s := DefaultSynthetic
	s.Jobs = 4000
	flat, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	s.QueueTree = true
	tree, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(tree.Queues) != 4 || tree.Queues[1].Name != "prod.etl" {
		t.Fatalf("queues %+v", tree.Queues)
	}
	byQueue := map[string]int{}
	byPrio := map[int32]int{}
	for i := range tree.Jobs {
		a, b := flat.Jobs[i], tree.Jobs[i]
		if a.Queue != workload.DefaultQueue || a.Priority != 0 {
			t.Fatalf("flat job %s in %s with priority %d", a.ID, a.Queue, a.Priority)
		}
		byQueue[b.Queue]++
		byPrio[b.Priority]++
		b.Queue, b.Priority = a.Queue, a.Priority
		if a.ID != b.ID || a.Submit != b.Submit || a.Tasks() != b.Tasks() || a.Phases[0].Durations[0] != b.Phases[0].Durations[0] {
			t.Fatalf("job %d differs beyond its queue and priority", i)
		}
	}
	near := func(got int, frac float64) bool {
		want := frac * float64(s.Jobs)
		return float64(got) > 0.9*want && float64(got) < 1.1*want
	}
	if !near(byQueue["prod.etl"], 0.3) || !near(byQueue["prod.adhoc"], 0.2) || !near(byQueue["batch"], 0.5) ||
		!near(byPrio[0], 0.7) || !near(byPrio[1], 0.2) || !near(byPrio[2], 0.1) {
		t.Errorf("queues %v, priorities %v", byQueue, byPrio)
	}
}
