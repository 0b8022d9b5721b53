package fakecluster_test

import (
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestEveryPolicyServesAdoptedJobs: a scheduler restarted on a running
// cluster adopts the drivers it finds; their executors ask once it is up.
// On an idle cluster of four 8-vcore nodes every registered policy, with
// and without admission control, must run every executor of Spark-shaped
// applications (1 vcore, 1408 MiB each): a driver adopted alone (the
// issue's case: under dress its second executor stayed Pending), a driver
// submitted alone, and both kinds together.
func TestEveryPolicyServesAdoptedJobs(t *testing.T) {
	spark := resource.New(1, 1408)
	cases := map[string]func() []*fakecluster.App{
		"adopted alone": func() []*fakecluster.App {
			return []*fakecluster.App{{Job: "a", AM: spark, Exec: spark, Execs: 2, Steps: 5, Adopted: true, AdoptOn: "n0"}}
		},
		"submitted alone": func() []*fakecluster.App {
			return []*fakecluster.App{{Job: "s", AM: spark, Exec: spark, Execs: 2, Steps: 5}}
		},
		"both": func() []*fakecluster.App {
			return []*fakecluster.App{
				{Job: "a0", AM: spark, Exec: spark, Execs: 2, Steps: 5, Adopted: true, AdoptOn: "n0"},
				{Job: "a1", AM: spark, Exec: spark, Execs: 4, Steps: 5, Adopted: true, AdoptOn: "n1"},
				{Job: "s", AM: spark, Exec: spark, Execs: 2, Steps: 5},
			}
		},
	}
	for _, name := range policy.Names() {
		for _, adm := range []string{"none", "autoadmin"} {
			for cname, apps := range cases {
				t.Run(name+"/"+adm+"/"+cname, func(t *testing.T) {
					nodes := []resource.Vector{resource.New(8, 32768), resource.New(8, 32768), resource.New(8, 32768), resource.New(8, 32768)}
					fc, err := fakecluster.New(fakecluster.Config{Policy: name, Admission: adm, Nodes: nodes, NodeNames: []string{"n0", "n1", "n2", "n3"}})
					if err != nil {
						t.Fatal(err)
					}
					apps := apps()
					rounds, err := fc.Play(apps, 60)
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range apps {
						if !a.Done() {
							t.Fatalf("after %d rounds (s) %s has not finished on an idle cluster:\n%s", rounds, a.Job, fc.State())
						}
					}
					// A driver starts in a round, asks the next, each
					// executor runs 5 rounds and the driver exits: 8
					// rounds, plus one for a policy that re-tunes on a
					// 1 s tick (dress), plus slack for one that plans.
					if rounds > 12 {
						t.Errorf("%d rounds to finish on an idle cluster, want at most 12", rounds)
					}
				})
			}
		}
	}
}
