package sim_test

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
)

// BenchmarkRun measures the event loop end to end on a synthetic workload of
// about 40,000 tasks on 200 nodes, at a moderate and a congested load, and
// reports simulated tasks and events per second of host time.
func BenchmarkRun(b *testing.B) {
	for _, load := range []float64{0.9, 1.5} {
		w, err := scenario.Synthetic{Nodes: 200, NodeVCores: 16, NodeMemory: 65536, Jobs: 2000, TasksPerJob: 20, Load: load, Seed: 1}.Generate()
		if err != nil {
			b.Fatal(err)
		}
		tasks := w.TotalTasks()
		for _, pol := range []string{"fifo", "capacity", "fair", "drf"} {
			f, _, err := policy.Parse(pol)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("load=%v/%s", load, pol), func(b *testing.B) {
				var events uint64
				b.ReportAllocs()
				for b.Loop() {
					r, err := sim.Run(w, sim.Options{Seed: 1, Policy: f})
					if err != nil || r.Deadlocked {
						b.Fatalf("run failed: %v (deadlocked %v)", err, r != nil && r.Deadlocked)
					}
					events = r.Events
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(tasks)/sec, "tasks/s")
				b.ReportMetric(float64(events)/sec, "events/s")
			})
		}
	}
}
