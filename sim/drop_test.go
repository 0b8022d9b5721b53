package sim

import (
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/scenario"
)

// Dropping a finished job's durations must change nothing in the run, and
// must drop them: every job finished, so no durations are left.
func TestDropDurations(t *testing.T) {
	for _, load := range []float64{0.5, 1.5} {
		gen := scenario.Synthetic{Nodes: 10, NodeVCores: 8, NodeMemory: 16384, Jobs: 80, TasksPerJob: 10, Load: load, Seed: 3}
		kept, err := gen.Generate()
		if err != nil {
			t.Fatal(err)
		}
		dropped, err := gen.Generate()
		if err != nil {
			t.Fatal(err)
		}
		f, _, err := policy.Parse("fair")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Run(kept, Options{Seed: 3, Policy: f, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(dropped, Options{Seed: 3, Policy: f, Check: true, DropDurations: true})
		if err != nil {
			t.Fatal(err)
		}
		if a.Deadlocked || !reflect.DeepEqual(a.Jobs, b.Jobs) || a.Events != b.Events || a.End != b.End || a.UtilArea != b.UtilArea {
			t.Fatalf("load %v: dropping durations changed the run", load)
		}
		for i := range dropped.Jobs {
			for k, p := range dropped.Jobs[i].Phases {
				if p.Durations != nil {
					t.Fatalf("load %v: job %d phase %d kept its durations", load, i, k)
				}
				if kept.Jobs[i].Phases[k].Durations == nil {
					t.Fatalf("load %v: job %d phase %d lost its durations without DropDurations", load, i, k)
				}
			}
		}
	}
}
