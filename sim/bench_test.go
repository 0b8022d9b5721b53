package sim_test

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
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

// BenchmarkScale runs every registered policy on the synthetic workloads of
// the performance figures: 100k tasks on 200 nodes and 1M tasks on 2000
// nodes (spindle generate synthetic --nodes N --jobs 10N --tasks-per-job 50
// --seed 1), with oracle estimates so that the policies that read estimates
// use them. Workloads are generated only when a case runs, so plain
// 'go test' stays fast. One case:
//
//	go test ./sim -run '^$' -bench 'Scale/tasks=1M/fair$' -benchtime 1x
func BenchmarkScale(b *testing.B) {
	for _, size := range []struct {
		name  string
		nodes int
	}{{"100k", 200}, {"1M", 2000}} {
		var w *workload.Workload
		for _, pol := range policy.Names() {
			b.Run("tasks="+size.name+"/"+pol, func(b *testing.B) {
				if w == nil {
					var err error
					w, err = scenario.Synthetic{Nodes: size.nodes, NodeVCores: 16, NodeMemory: 65536, Jobs: 10 * size.nodes,
						TasksPerJob: 50, Load: 0.9, Seed: 1}.Generate()
					if err != nil {
						b.Fatal(err)
					}
				}
				f, _, err := policy.Parse(pol)
				if err != nil {
					b.Fatal(err)
				}
				var events uint64
				b.ReportAllocs()
				for b.Loop() {
					r, err := sim.Run(w, sim.Options{Seed: 1, Policy: f, Estimates: sim.Estimates{Source: sim.EstimatesOracle}})
					if err != nil || r.Deadlocked {
						b.Fatalf("run failed: %v (deadlocked %v)", err, r != nil && r.Deadlocked)
					}
					events = r.Events
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(w.TotalTasks())/sec, "tasks/s")
				b.ReportMetric(float64(events)/sec, "events/s")
				b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(events), "ns/event")
			})
		}
	}
}

// BenchmarkPreemption runs capacity, fair and drf on the synthetic workload
// with a queue tree (spindle generate synthetic ... --load 1.5
// --queue-tree), preemption off and on with its defaults, so that what
// preemption costs shows side by side. With -count, the runs of one case
// come one after the other; BENCHMARKS.md quotes the ratio from the CLI,
// off and on alternating, and this for the allocations and events:
//
//	go test ./sim -run '^$' -bench 'Preemption/tasks=1M' -benchtime 1x -count 5
func BenchmarkPreemption(b *testing.B) {
	for _, size := range []struct {
		name  string
		nodes int
	}{{"100k", 200}, {"1M", 2000}} {
		var w *workload.Workload
		for _, pol := range []string{"capacity", "fair", "drf"} {
			for _, pre := range []string{"off", "on"} {
				b.Run(fmt.Sprintf("tasks=%s/%s/preemption=%s", size.name, pol, pre), func(b *testing.B) {
					if w == nil {
						var err error
						w, err = scenario.Synthetic{Nodes: size.nodes, NodeVCores: 16, NodeMemory: 65536, Jobs: 10 * size.nodes,
							TasksPerJob: 50, Load: 1.5, Seed: 1, QueueTree: true}.Generate()
						if err != nil {
							b.Fatal(err)
						}
					}
					f, _, err := policy.Parse(pol + ":preemption=" + pre)
					if err != nil {
						b.Fatal(err)
					}
					var events uint64
					var preempted int
					b.ReportAllocs()
					for b.Loop() {
						r, err := sim.Run(w, sim.Options{Seed: 1, Policy: f})
						if err != nil || r.Deadlocked {
							b.Fatalf("run failed: %v (deadlocked %v)", err, r != nil && r.Deadlocked)
						}
						events = r.Events
						if r.Preemption != nil {
							preempted = r.Preemption.Preempted
						}
					}
					sec := b.Elapsed().Seconds() / float64(b.N)
					b.ReportMetric(float64(w.TotalTasks())/sec, "tasks/s")
					b.ReportMetric(float64(events), "events")
					b.ReportMetric(float64(preempted), "preempted")
				})
			}
		}
	}
}

// BenchmarkLongQueue is the case that made ticking policies slow: a small
// cluster under a long queue for a long simulated time (load 2 on 16 nodes of
// <16 vcores, 16 GB>, 4000 jobs; with 64 GB nodes fair's AM limit, in memory
// only, lets AMs take every vcore and the run deadlocks; djsf deadlocks on
// both, its AMs filling the cluster, so it is left out), so that a policy that re-tunes every second pays for every
// queued job at every tick unless its re-tune works from what changed. Each
// ticking policy's time is to be read against fair's in the same sitting:
//
//	go test ./sim -run '^$' -bench LongQueue -benchtime 3x
func BenchmarkLongQueue(b *testing.B) {
	w, err := scenario.Synthetic{Nodes: 16, NodeVCores: 16, NodeMemory: 16384, Jobs: 4000, TasksPerJob: 8, Load: 2, Seed: 1}.Generate()
	if err != nil {
		b.Fatal(err)
	}
	for _, pol := range []string{"fair", "dress", "dress+", "adaptive"} {
		f, _, err := policy.Parse(pol)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(pol, func(b *testing.B) {
			var r *sim.Result
			b.ReportAllocs()
			for b.Loop() {
				if r, err = sim.Run(w, sim.Options{Seed: 1, Policy: f, Estimates: sim.Estimates{Source: sim.EstimatesOracle}}); err != nil || r.Deadlocked {
					b.Fatalf("run failed: %v (deadlocked %v)", err, r != nil && r.Deadlocked)
				}
			}
			b.ReportMetric(float64(r.Events), "events")
			b.ReportMetric(r.End.Seconds(), "sim-s")
		})
	}
}
