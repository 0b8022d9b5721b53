package sim

import (
	"testing"

	"github.com/spindle-sched/spindle/workload"
)

// TestPoolCandidates: the groups a job's node selector is checked against
// are those of its first label (in key order), and checking only them
// admits exactly the groups that Job.Admits admits over all of them.
func TestPoolCandidates(t *testing.T) {
	w := &workload.Workload{Cluster: workload.Cluster{Nodes: []workload.NodeGroup{
		{Count: 1, Labels: map[string]string{"pool": "a", "zone": "1"}},
		{Count: 2, Labels: map[string]string{"pool": "a", "zone": "2"}},
		{Count: 1, Labels: map[string]string{"pool": "b", "zone": "1"}},
		{Count: 1},
		{Count: 1, Labels: map[string]string{"pool": "a", "zone": "1"}, Taints: []workload.Taint{{Key: "t", Effect: workload.EffectNoSchedule}}},
	}}}
	cases := []struct {
		name       string
		selector   map[string]string
		candidates []int
		admitted   []int
	}{
		{"no selector", nil, []int{0, 1, 2, 3, 4}, []int{0, 1, 2, 3}},
		{"one label", map[string]string{"pool": "a"}, []int{0, 1, 4}, []int{0, 1}},
		{"two labels: the first key's groups", map[string]string{"zone": "1", "pool": "a"}, []int{0, 1, 4}, []int{0}},
		{"no group has it", map[string]string{"pool": "c"}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &pools{}
			j := &workload.Job{NodeSelector: c.selector}
			got := p.candidates(w, j)
			if len(got) != len(c.candidates) {
				t.Fatalf("candidates %v, want %v", got, c.candidates)
			}
			var admitted []int
			for i, g := range got {
				if g != c.candidates[i] {
					t.Fatalf("candidates %v, want %v", got, c.candidates)
				}
				if j.Admits(&w.Cluster.Nodes[g]) {
					admitted = append(admitted, g)
				}
			}
			var all []int
			for g := range w.Cluster.Nodes {
				if j.Admits(&w.Cluster.Nodes[g]) {
					all = append(all, g)
				}
			}
			if len(admitted) != len(c.admitted) || len(all) != len(c.admitted) {
				t.Fatalf("admitted among candidates %v, among all %v, want %v", admitted, all, c.admitted)
			}
			for i := range all {
				if admitted[i] != all[i] || all[i] != c.admitted[i] {
					t.Errorf("admitted among candidates %v, among all %v, want %v", admitted, all, c.admitted)
				}
			}
		})
	}
}
