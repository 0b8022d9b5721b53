package sim

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

// Eliding heartbeats that cannot change anything must not change anything:
// every job's timeline is identical to delivering every heartbeat. The
// timings include zero launch delays (AM heartbeats then coincide with node
// heartbeats) and a 5 µs node heartbeat (many nodes share a phase), which
// exercise the ordering of events at one instant. For the latter the whole
// workload is shrunk so that delivering every heartbeat stays affordable.
func TestElisionIsExact(t *testing.T) {
	timings := map[string]func(c *workload.Cluster){
		"default":     func(*workload.Cluster) {},
		"no-launch":   func(c *workload.Cluster) { c.LaunchDelay, c.LaunchJitter = 0, 0 },
		"shared-beat": func(c *workload.Cluster) {},
	}
	for name, timing := range timings {
		for _, load := range []float64{0.5, 1.5} {
			for seed := uint64(1); seed <= 4; seed++ {
				w, err := scenario.Synthetic{Nodes: 10, NodeVCores: 8, NodeMemory: 16384, Jobs: 80, TasksPerJob: 10, Load: load, Seed: seed}.Generate()
				if err != nil {
					t.Fatal(err)
				}
				timing(&w.Cluster)
				if name == "shared-beat" {
					shrinkTime(w, 100_000)
					w.Cluster.NodeHeartbeat, w.Cluster.AMHeartbeat = 5, 5
					w.Cluster.LaunchDelay = 10
				}
				for _, pol := range []string{"fifo", "fifo:strict=true", "capacity", "capacity:max_am_percent=0.05", "capacity:reserve=true", "fair", "drf", "fair:max_am_share=0.1", "drf:reserve=true"} {
					t.Run(fmt.Sprintf("%s/load%v/seed%d/%s", name, load, seed, pol), func(t *testing.T) {
						f, _, err := policy.Parse(pol)
						if err != nil {
							t.Fatal(err)
						}
						var ra, rb *recorder
						a, err := Run(w, Options{Seed: seed, Policy: record(f, &ra), Check: true})
						if err != nil {
							t.Fatal(err)
						}
						b, err := Run(w, Options{Seed: seed, Policy: record(f, &rb), Check: true, EveryHeartbeat: true})
						if err != nil {
							t.Fatal(err)
						}
						if a.Deadlocked || b.Deadlocked {
							t.Fatalf("deadlocked: elided %v, every heartbeat %v", a.Deadlocked, b.Deadlocked)
						}
						for i := range a.Jobs {
							if a.Jobs[i] != b.Jobs[i] {
								t.Fatalf("job %d differs:\n elided:          %+v\n every heartbeat: %+v\n%s", i, a.Jobs[i], b.Jobs[i], firstDifference(ra.log, rb.log))
							}
						}
						if a.Events >= b.Events {
							t.Errorf("elision saved nothing: %d events vs %d", a.Events, b.Events)
						}
					})
				}
			}
		}
	}
}

// shrinkTime divides every time in the workload by f (to at least 1 µs).
func shrinkTime(w *workload.Workload, f int64) {
	for i := range w.Jobs {
		j := &w.Jobs[i]
		j.Submit /= clock.Time(f)
		for k := range j.Phases {
			for d := range j.Phases[k].Durations {
				j.Phases[k].Durations[d] = max(1, j.Phases[k].Durations[d]/clock.Duration(f))
			}
		}
	}
}
