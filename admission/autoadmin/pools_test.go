package autoadmin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestPinnedBurstFinishes is the case: eight jobs, each a 1-vcore
// driver with two 1-vcore executors, all pinned to one node of 8 vcores
// beside three 32-vcore nodes they may not use. Counted on the whole
// cluster (104 vcores, R_R = 42 while idle), ARC admits all eight drivers,
// which fill the small node: no executor ever runs. Counted on the one node
// they may use, R_R is 40 % of 8 = 3.2, rounded up to 4 vcores: ARC admits
// drivers while 8 − held − 1 ≥ 4, four of them, and every job finishes.
func TestPinnedBurstFinishes(t *testing.T) {
	for _, adm := range []string{"autoadmin", "autoadmin+", "autoadmin:guard=false,dims=vcores"} {
		t.Run(adm, func(t *testing.T) {
			fc, err := fakecluster.New(fakecluster.Config{Policy: "fair:max_am_share=-1", Admission: adm,
				Nodes:     []resource.Vector{resource.New(8, 65536), resource.New(32, 131072), resource.New(32, 131072), resource.New(32, 131072)},
				NodeNames: []string{"small", "big-0", "big-1", "big-2"}})
			if err != nil {
				t.Fatal(err)
			}
			pinned := func(n *cluster.Node) bool { return n.Name() == "small" }
			var apps []*fakecluster.App
			for i := range 8 {
				apps = append(apps, &fakecluster.App{Job: fmt.Sprint("j", i), AM: resource.New(1, 1024), Exec: resource.New(1, 1024),
					Execs: 2, Steps: 3, Eligible: pinned})
			}
			if _, err := fc.Play(apps, 1); err != nil {
				t.Fatal(err)
			}
			admitted := 0
			for _, a := range apps {
				j, _ := fc.Job(a.Job)
				if j.State() != sched.Waiting {
					admitted++
				}
			}
			if adm == "autoadmin" && admitted != 4 {
				t.Errorf("%d drivers admitted at once, want 4 (8 − held − 1 ≥ R_R = 4 on the small node)", admitted)
			}
			if admitted == 0 || admitted >= 8 {
				t.Errorf("%d drivers admitted at once: the reservation counts nodes the jobs may not use", admitted)
			}
			head, _ := fc.Job("j4")
			if why := fc.Core.WaitReason(head); adm == "autoadmin" && !strings.Contains(why, "AutoAdmin on the 1 of 4 nodes this job may use: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks") {
				t.Errorf("the first waiting job says %q; want the pool named", why)
			}
			last, _ := fc.Job("j7")
			if why := fc.Core.WaitReason(last); !strings.Contains(why, "waits behind job j4") {
				t.Errorf("the last waiting job says %q; want it to name the job it waits behind", why)
			}
			rounds, err := fc.Play(apps, 200)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range apps {
				if !a.Done() {
					t.Fatalf("after %d rounds %s has not finished: the burst deadlocked\n%s", rounds, a.Job, fc.State())
				}
			}
		})
	}
}

// TestUnconstrainedJobsKeepTheWholeCluster: jobs that may use every node
// are tested on the whole cluster as before, whatever pools other jobs
// have: with one job pinned to the small node, an unconstrained burst is
// admitted as far as the cluster-wide R_R allows.
func TestUnconstrainedJobsKeepTheWholeCluster(t *testing.T) {
	fc, err := fakecluster.New(fakecluster.Config{Policy: "fair:max_am_share=-1", Admission: "autoadmin",
		Nodes:     []resource.Vector{resource.New(8, 65536), resource.New(32, 131072)},
		NodeNames: []string{"small", "big"}})
	if err != nil {
		t.Fatal(err)
	}
	pinned := func(n *cluster.Node) bool { return n.Name() == "small" }
	apps := []*fakecluster.App{{Job: "pinned", AM: resource.New(1, 1024), Exec: resource.New(1, 1024), Execs: 1, Steps: 100, Eligible: pinned}}
	for i := range 30 {
		apps = append(apps, &fakecluster.App{Job: fmt.Sprint("u", i), AM: resource.New(1, 1024), Exec: resource.New(1, 1024), Execs: 1, Steps: 100})
	}
	if _, err := fc.Play(apps, 1); err != nil {
		t.Fatal(err)
	}
	// 40 vcores, R_R = 16 while idle: 40 − held − 1 ≥ 16 admits 24 AMs.
	admitted := 0
	for _, a := range apps {
		if j, _ := fc.Job(a.Job); j.State() != sched.Waiting {
			admitted++
		}
	}
	if admitted != 24 {
		t.Errorf("%d jobs admitted, want 24 (40 − held − 1 ≥ 16)", admitted)
	}
}
