package tetris_test

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/policy/tetris"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/wlgen"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/workload"
)

// The index must answer every pick exactly as the scan over every eligible
// job does: same task, bit for bit, on random small workloads (every shape
// of job the generator makes, AMs, slow-start, external load) and on a
// congested synthetic one, at several fairness knobs; and it must answer
// most picks itself, or it saves nothing. The index's invariants are checked
// at every pick, the core's at every event.
func TestIndexAgreesWithScan(t *testing.T) {
	var picks, undecided, disagree, broken int
	defer tetris.SetCheckPick(func(how tetris.Answer, indexed, scanned *sched.Ask, err error) {
		picks++
		if err != nil {
			broken++
			if broken <= 5 {
				t.Errorf("pick %d: %v", picks, err)
			}
		}
		if how == tetris.Undecided {
			undecided++
			return
		}
		if indexed != scanned {
			disagree++
			if disagree <= 5 {
				t.Errorf("pick %d: the index chose %v, the scan %v", picks, describe(indexed), describe(scanned))
			}
		}
	})()
	run := func(name string, w *workload.Workload, policy string, seed uint64) {
		t.Helper()
		if _, err := runner.Run(runner.Spec{Workload: w, Policy: policy, Seed: seed, Check: true, MaxEvents: 5_000_000}); err != nil {
			t.Fatalf("%s -p %s: %v", name, policy, err)
		}
	}
	policies := []string{"tetris", "tetris:f=0", "tetris:f=0.6", "tetris:m=3"}
	for seed := range uint64(120) {
		doc := wlgen.Workload(seed)
		w, err := workload.Parse([]byte(doc), fmt.Sprintf("wlgen-%d.yaml", seed))
		if err != nil {
			t.Fatalf("workload %d: %v", seed, err)
		}
		run(fmt.Sprintf("workload %d (runner/wlgen)", seed), w, policies[seed%uint64(len(policies))], seed+1)
	}
	w, err := scenario.Synthetic{Nodes: 40, NodeVCores: 16, NodeMemory: 65536, Jobs: 400, TasksPerJob: 12, Load: 1.5, Seed: 3}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range policies {
		run("synthetic, load 1.5", w, p, 1)
	}
	t.Logf("%d picks, %d left to the scan, %d disagreements", picks, undecided, disagree)
	if disagree > 0 || broken > 0 {
		t.Fatalf("%d of %d picks disagree, %d found the index broken", disagree, picks, broken)
	}
	if picks < 10_000 || undecided*20 > picks {
		t.Errorf("the index answered %d of %d picks: fewer than 95 %%", picks-undecided, picks)
	}
}

func describe(a *sched.Ask) string {
	if a == nil {
		return "nothing"
	}
	return fmt.Sprintf("job %d phase %d %v", a.Job().ID(), a.Phase(), a.Request)
}
