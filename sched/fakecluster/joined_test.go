package fakecluster_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestEveryPolicyNodesJoinedAsPresentAtStart: a live scheduler starts on the
// nodes it lists first and hears of the others as they join ('spindle kube
// schedule' starts on the first node a replay creates, and the simulator
// builds every policy on the whole cluster). Nodes that join before any work
// is submitted must leave every registered policy deciding exactly as when
// they were there at its construction: the same launches, in the same
// order, in the same rounds. A policy that sizes itself on the cluster at
// construction (queue guarantees and ceilings, the AM limit, node shapes)
// and does not follow it fails here.
func TestEveryPolicyNodesJoinedAsPresentAtStart(t *testing.T) {
	small, large := resource.New(8, 32768), resource.New(16, 65536)
	nodes := []resource.Vector{small, large, small, large}
	names := []string{"n0", "n1", "n2", "n3"}
	spark := resource.New(1, 1408)
	// Eight applications asking for 56 vcores on a 48-vcore cluster, so
	// that the queue's ceiling, the AM limit and the packing all bind.
	apps := func() []*fakecluster.App {
		var as []*fakecluster.App
		for i := range 8 {
			as = append(as, &fakecluster.App{Job: fmt.Sprintf("a%d", i), AM: spark, Exec: spark, Execs: 6, Steps: 3 + i%4})
		}
		return as
	}
	for _, starting := range []int{0, 1} {
		for _, name := range policy.Names() {
			t.Run(fmt.Sprintf("%s/%d-at-start", name, starting), func(t *testing.T) {
				play := func(atStart int) (string, int) {
					t.Helper()
					fc, err := fakecluster.New(fakecluster.Config{Policy: name, Nodes: nodes[:atStart], NodeNames: names[:atStart]})
					if err != nil {
						t.Fatal(err)
					}
					for i := atStart; i < len(nodes); i++ {
						if err := fc.AddNode(names[i], nodes[i]); err != nil {
							t.Fatal(err)
						}
					}
					fc.TakeLog() // the joins themselves
					as := apps()
					rounds, err := fc.Play(as, 200)
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range as {
						if !a.Done() {
							t.Fatalf("after %d rounds %s has not finished:\n%s", rounds, a.Job, fc.State())
						}
					}
					return strings.Join(fc.TakeLog(), "\n"), rounds
				}
				want, wantRounds := play(len(nodes))
				got, gotRounds := play(starting)
				if got != want || gotRounds != wantRounds {
					t.Errorf("%d of %d nodes at start, the rest joined before any work: %d rounds, want %d; first difference: %s",
						starting, len(nodes), gotRounds, wantRounds, firstDiff(got, want))
				}
			})
		}
	}
}

// firstDiff names the first line where two logs differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: %q, want %q", i+1, a, b)
		}
	}
	return "none"
}
