package sim

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

// Eliding heartbeats that cannot change anything must not change anything:
// every job's timeline is identical to delivering every heartbeat. The
// timings include zero launch delays (AM heartbeats then coincide with node
// heartbeats) and a 5 µs node heartbeat (many nodes share a phase), which
// exercise the ordering of events at one instant. For the latter the whole
// workload is shrunk so that delivering every heartbeat stays affordable.
// Reserving policies run with reserve_timeout=0: with expiring reservations
// the simulator elides no heartbeat at all (sched.Core.ReservationsExpire),
// so only YARN's never-expiring reservations have elision to check.
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
				for _, pol := range []string{"fifo", "fifo:strict=true", "capacity", "capacity:max_am_percent=0.05", "capacity:reserve=true,reserve_timeout=0", "fair", "drf", "fair:max_am_share=0.1", "drf:reserve=true,reserve_timeout=0", "fair:assign_multiple=true", "fair:reserve=true,reserve_timeout=0", "dress", "dress+", "dress:estimator=off"} {
					t.Run(fmt.Sprintf("%s/load%v/seed%d/%s", name, load, seed, pol), func(t *testing.T) {
						t.Parallel()
						f, _, err := policy.Parse(pol)
						if err != nil {
							t.Fatal(err)
						}
						a, b := sameTimelines(t, w, Options{Seed: seed, Policy: f, Check: true})
						if a.Deadlocked || b.Deadlocked {
							t.Fatalf("deadlocked: elided %v, every heartbeat %v", a.Deadlocked, b.Deadlocked)
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

// sameTimelines runs w with heartbeats elided and with every heartbeat
// delivered, and fails t at the first job whose timeline differs. The
// decision logs that explain a difference cost a string per event, so they
// are recorded only once one is found: runs are deterministic, and running
// both again with recorders reproduces it.
func sameTimelines(t *testing.T, w *workload.Workload, o Options) (a, b *Result) {
	t.Helper()
	every := o
	every.EveryHeartbeat = true
	a, err := Run(w, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err = Run(w, every)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Jobs {
		if a.Jobs[i] == b.Jobs[i] {
			continue
		}
		var ra, rb *recorder
		o.Policy, every.Policy = record(o.Policy, &ra), record(every.Policy, &rb)
		if _, err := Run(w, o); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(w, every); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("job %d differs:\n elided:          %+v\n every heartbeat: %+v\n%s", i, a.Jobs[i], b.Jobs[i], firstDifference(ra.log, rb.log))
	}
	return a, b
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

// Under external load a node's usable capacity changes with no event of its
// own: the load is sampled as events, a fall reconsiders the nodes, and
// eliding heartbeats must still change nothing. The curve repeats every
// 120 s and has ramps up and down, a step, a flat stretch and a jump at the
// period boundary. Half the jobs have goals (twice their standalone
// runtime) and declared estimates, so the goal-driven policies use every
// part of their model; the others are best effort.
func TestElisionIsExactUnderExternalLoad(t *testing.T) {
	load := &workload.ExternalLoad{Period: 120 * clock.Second, Points: []workload.LoadPoint{
		{At: 0, Frac: 0.1}, {At: 20 * clock.Second, Frac: 0.1}, {At: 40 * clock.Second, Frac: 0.7},
		{At: 60 * clock.Second, Frac: 0.7}, {At: 61 * clock.Second, Frac: 0.2}, {At: 90 * clock.Second, Frac: 0.5},
	}}
	timings := []struct {
		name string
		set  func(c *workload.Cluster)
	}{
		{"default", func(*workload.Cluster) {}},
		{"no-launch", func(c *workload.Cluster) { c.LaunchDelay, c.LaunchJitter = 0, 0 }},
	}
	for _, timing := range timings {
		for _, wl := range []float64{0.5, 1.5} {
			for seed := uint64(1); seed <= 2; seed++ {
				w, err := scenario.Synthetic{Nodes: 10, NodeVCores: 8, NodeMemory: 16384, Jobs: 40, TasksPerJob: 10, Load: wl, Seed: seed}.Generate()
				if err != nil {
					t.Fatal(err)
				}
				timing.set(&w.Cluster)
				w.Cluster.ExternalLoad = load
				var caps []resource.Vector
				for _, g := range w.Cluster.Nodes {
					for range g.Count {
						caps = append(caps, g.Capacity)
					}
				}
				for i := range w.Jobs {
					if j := &w.Jobs[i]; i%2 == 0 {
						j.Estimate = j.Standalone(caps)
						j.Deadline = 2 * j.Estimate
					}
				}
				for _, pol := range []string{"fifo", "fair", "capacity:reserve=true,reserve_timeout=0", "drf:reserve=true,reserve_timeout=0", "adaptive", "reverse-adaptive", "reverse-adaptive:lookahead=0,cycle=7s", "adaptive+"} {
					t.Run(fmt.Sprintf("%s/load%v/seed%d/%s", timing.name, wl, seed, pol), func(t *testing.T) {
						t.Parallel()
						f, _, err := policy.Parse(pol)
						if err != nil {
							t.Fatal(err)
						}
						a, b := sameTimelines(t, w, Options{Seed: seed, Policy: f, Check: true})
						if a.Deadlocked || b.Deadlocked {
							t.Fatalf("deadlocked: elided %v, every heartbeat %v", a.Deadlocked, b.Deadlocked)
						}
						if a.ExternalUnmet != b.ExternalUnmet {
							t.Fatalf("unmet external demand differs: elided %v, every heartbeat %v", a.ExternalUnmet, b.ExternalUnmet)
						}
						if a.ExternalUnmet == [2]float64{} && wl > 1 {
							t.Errorf("no unmet external demand at load %v: the load is not applied", wl)
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

// Admission is retried on every node update, so with jobs waiting for
// admission every heartbeat matters as soon as anything changed: eliding
// must still admit each job at the same heartbeat as delivering every one.
func TestElisionIsExactWithAdmission(t *testing.T) {
	for _, noLaunch := range []bool{false, true} {
		for _, load := range []float64{0.5, 1.5} {
			for seed := uint64(1); seed <= 3; seed++ {
				w, err := scenario.Synthetic{Nodes: 8, NodeVCores: 8, NodeMemory: 16384, Jobs: 60, TasksPerJob: 8, Load: load, Seed: seed}.Generate()
				if err != nil {
					t.Fatal(err)
				}
				if noLaunch {
					w.Cluster.LaunchDelay, w.Cluster.LaunchJitter = 0, 0
				}
				for _, adm := range []string{"static:40", "autoadmin", "autoadmin+"} {
					for _, pol := range []string{"fifo", "fair:max_am_share=-1", "drf:reserve=true,reserve_timeout=0"} {
						t.Run(fmt.Sprintf("nolaunch=%v/load%v/seed%d/%s/%s", noLaunch, load, seed, adm, pol), func(t *testing.T) {
							t.Parallel()
							f, _, err := policy.Parse(pol)
							if err != nil {
								t.Fatal(err)
							}
							af, err := admission.Parse(adm)
							if err != nil {
								t.Fatal(err)
							}
							a, b := sameTimelines(t, w, Options{Seed: seed, Policy: f, Admission: af, Check: true})
							if a.Deadlocked != b.Deadlocked {
								t.Fatalf("deadlocked: elided %v, every heartbeat %v", a.Deadlocked, b.Deadlocked)
							}
						})
					}
				}
			}
		}
	}
}
