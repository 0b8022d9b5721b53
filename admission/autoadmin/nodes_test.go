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

// labels is a cluster's node labels as the tests change them: a job's
// predicate reads them when the core asks, as a live driver's reads the
// node objects it keeps.
type labels map[string]string

func (l labels) pool(p string) func(*cluster.Node) bool {
	return func(n *cluster.Node) bool { return l[n.Name()] == p }
}

func pinnedApps(n int, eligible func(*cluster.Node) bool) []*fakecluster.App {
	var apps []*fakecluster.App
	for i := range n {
		apps = append(apps, &fakecluster.App{Job: fmt.Sprint("j", i), AM: resource.New(1, 1024), Exec: resource.New(1, 1024),
			Execs: 2, Steps: 3, Eligible: eligible})
	}
	return apps
}

func admittedCount(fc *fakecluster.Cluster, apps []*fakecluster.App) int {
	n := 0
	for _, a := range apps {
		if j, err := fc.Job(a.Job); err == nil && j.State() != sched.Waiting {
			n++
		}
	}
	return n
}

// TestNodesThatChangeAfterStart: AutoAdmin's totals follow the cluster as
// a live driver changes it after the core is built. Three 32-vcore nodes
// of pool "batch" are there at start; nodes of pool "small" join later,
// and nodes are relabelled, cordoned and removed. Eight jobs, each a
// 1-vcore driver with two 1-vcore executors, are pinned to pool "small".
// Counted on the small pool's 8 vcores, R_R while idle is 40 % of 8 = 3.2,
// rounded up to 4: ARC admits drivers while 8 − held − 1 ≥ 4, four of
// them; on 16 vcores, R_R = 6.4 → 7 and 16 − held − 1 ≥ 7 admits all
// eight (nine would pass). Every case must finish: a burst admitted on
// capacity the jobs cannot use deadlocks the small pool.
func TestNodesThatChangeAfterStart(t *testing.T) {
	big := resource.New(32, 131072)
	small := resource.New(8, 65536)
	cases := []struct {
		name  string
		setup func(fc *fakecluster.Cluster, l labels) error
		// admitted is how many drivers ARC lets in at once; why is what
		// the first waiting job says ("" when none waits).
		admitted int
		why      string
	}{
		{
			name: "one small node joins",
			setup: func(fc *fakecluster.Cluster, l labels) error {
				l["small-0"] = "small"
				return fc.AddNode("small-0", small)
			},
			admitted: 4,
			why:      "AutoAdmin on the 1 of 4 nodes this job may use: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks",
		},
		{
			name: "two small nodes join",
			setup: func(fc *fakecluster.Cluster, l labels) error {
				l["small-0"], l["small-1"] = "small", "small"
				if err := fc.AddNode("small-0", small); err != nil {
					return err
				}
				return fc.AddNode("small-1", small)
			},
			admitted: 8,
		},
		{
			name: "two join, a relabel takes one out of the pool",
			setup: func(fc *fakecluster.Cluster, l labels) error {
				l["small-0"], l["small-1"] = "small", "small"
				if err := fc.AddNode("small-0", small); err != nil {
					return err
				}
				if err := fc.AddNode("small-1", small); err != nil {
					return err
				}
				l["small-1"] = "batch"
				n, err := fc.Node("small-1")
				if err != nil {
					return err
				}
				return fc.Core.ConstraintsChanged(fc.Now, n.ID())
			},
			admitted: 4,
			why:      "AutoAdmin on the 1 of 5 nodes this job may use: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks",
		},
		{
			// The deadlock of the old controller: once the batch nodes
			// are gone the small node is every node there is, and the
			// jobs were tested on the 104 vcores counted at start.
			name: "one small node joins, the batch nodes leave",
			setup: func(fc *fakecluster.Cluster, l labels) error {
				l["small-0"] = "small"
				if err := fc.AddNode("small-0", small); err != nil {
					return err
				}
				for i := range 3 {
					if err := fc.RemoveNode(fmt.Sprint("batch-", i)); err != nil {
						return err
					}
				}
				return nil
			},
			admitted: 4,
			why:      "AutoAdmin: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks",
		},
		{
			name: "one small node joins, the batch nodes are cordoned",
			setup: func(fc *fakecluster.Cluster, l labels) error {
				l["small-0"] = "small"
				if err := fc.AddNode("small-0", small); err != nil {
					return err
				}
				for i := range 3 {
					n, err := fc.Node(fmt.Sprint("batch-", i))
					if err != nil {
						return err
					}
					if err := fc.Core.SetNodeSchedulable(fc.Now, n.ID(), false); err != nil {
						return err
					}
				}
				return nil
			},
			admitted: 4,
			why:      "AutoAdmin: vcores 4 left after admitted AMs, AM needs 1, reserve R_R = 4 for tasks",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := labels{"batch-0": "batch", "batch-1": "batch", "batch-2": "batch"}
			fc, err := fakecluster.New(fakecluster.Config{Policy: "fair:max_am_share=-1", Admission: "autoadmin",
				Nodes: []resource.Vector{big, big, big}, NodeNames: []string{"batch-0", "batch-1", "batch-2"}})
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.setup(fc, l); err != nil {
				t.Fatal(err)
			}
			apps := pinnedApps(8, l.pool("small"))
			if _, err := fc.Play(apps, 1); err != nil {
				t.Fatal(err)
			}
			if got := admittedCount(fc, apps); got != tc.admitted {
				t.Errorf("%d drivers admitted at once, want %d\n%s", got, tc.admitted, fc.State())
			}
			if tc.why != "" {
				head, _ := fc.Job(fmt.Sprint("j", tc.admitted))
				if why := fc.Core.WaitReason(head); !strings.Contains(why, tc.why) {
					t.Errorf("the first waiting job says %q; want %q", why, tc.why)
				}
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
