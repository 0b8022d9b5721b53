package sim_test

import (
	"testing"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// A stuck cluster ends as deadlocked under every policy, including those that
// tick (a tick asks for the nodes to be offered again, which queues
// heartbeats that are not progress) and under a periodic external load (whose
// samples are not progress either). Each case is stuck by construction: a
// reservation of the whole cluster admits no job with an AM (one larger than
// the cluster is refused), or AMs fill it.
func TestTickingPoliciesEndWhenStuck(t *testing.T) {
	cases := []struct{ name, doc, adm string }{
		{"admission holds every job, ideal", `
version: 1
cluster: {nodes: [{count: 1, vcores: 4, memory_mb: 8192}], ideal: true}
jobs:
  - {id: A, submit: 0s, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 1s, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
`, "static:4"},
		{"admission holds every job, heartbeats", `
version: 1
cluster: {nodes: [{count: 2, vcores: 8, memory_mb: 8192}]}
jobs:
  - {id: A, submit: 0s, phases: [{tasks: 4, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
  - {id: B, submit: 1s, phases: [{tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
`, "static:16"},
		{"AMs fill the cluster under a periodic load", `
version: 1
cluster:
  nodes: [{count: 2, vcores: 2, memory_mb: 4096}]
  external_load: {points: [[0s, 0.5], [10s, 0.2], [20s, 0.5]], period: 30s}
jobs:
  - {id: A, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 2, memory_mb: 1024}, duration: 5s}]}
  - {id: B, submit: 0s, am: {vcores: 1, memory_mb: 1024}, phases: [{tasks: 2, request: {vcores: 2, memory_mb: 1024}, duration: 5s}]}
`, "none"},
	}
	for _, c := range cases {
		w, err := workload.Parse([]byte(c.doc), "stuck.yaml")
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range []string{"fifo", "fair:max_am_share=-1", "drf", "tetris", "sjf", "dress", "dress:max_am_percent=1", "djsf", "djsf+", "adaptive", "reverse-adaptive"} {
			pf, _, err := policy.Parse(pol)
			if err != nil {
				t.Fatal(err)
			}
			af, err := admission.Parse(c.adm)
			if err != nil {
				t.Fatal(err)
			}
			for _, every := range []bool{false, true} {
				r, err := sim.Run(w, sim.Options{Seed: 1, Policy: pf, Admission: af, Check: true, EveryHeartbeat: every && !w.Cluster.Ideal})
				if err != nil {
					t.Fatalf("%s / %s / %s: %v", c.name, pol, c.adm, err)
				}
				if !r.Deadlocked || len(r.Stuck) != len(w.Jobs) {
					t.Errorf("%s / %s (every heartbeat %v): deadlocked %v with %d stuck, want all %d", c.name, pol, every, r.Deadlocked, len(r.Stuck), len(w.Jobs))
				}
				if r.Events > 20000 {
					t.Errorf("%s / %s: %d events to find a stall", c.name, pol, r.Events)
				}
			}
		}
	}
}
