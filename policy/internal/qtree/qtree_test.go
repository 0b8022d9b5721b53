package qtree_test

import (
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/internal/qtree"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

type none struct{}

func (none) Pick(*cluster.Node) *sched.Ask { return nil }

// view builds a core over specs and returns the view its policy got.
func view(t *testing.T, specs []sched.QueueSpec) *sched.View {
	t.Helper()
	var v *sched.View
	schedtest.New(t, schedtest.Config{
		Nodes:  []resource.Vector{resource.New(8, 8192)},
		Queues: specs,
		Policy: func(pv *sched.View) (sched.Policy, error) {
			v = pv
			return none{}, nil
		},
	})
	return v
}

type node struct {
	path     string
	children []string
}

func TestBuild(t *testing.T) {
	for _, tt := range []struct {
		name  string
		specs []sched.QueueSpec
		// want is each queue's children in the core's queue order, then
		// the root's.
		want []node
	}{
		{"one flat queue", []sched.QueueSpec{{Name: "default", Capacity: 1, MaxCapacity: 1}},
			[]node{{"root.default", nil}, {"root", []string{"root.default"}}}},
		{"two levels", []sched.QueueSpec{
			{Name: "prod", Capacity: 0.6, MaxCapacity: 1},
			{Name: "prod.etl", Capacity: 0.5, MaxCapacity: 1},
			{Name: "prod.spark", Capacity: 0.5, MaxCapacity: 1},
			{Name: "batch", Capacity: 0.4, MaxCapacity: 1},
		}, []node{
			{"root.prod", []string{"root.prod.etl", "root.prod.spark"}},
			{"root.prod.etl", nil},
			{"root.prod.spark", nil},
			{"root.batch", nil},
			{"root", []string{"root.prod", "root.batch"}},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := view(t, tt.specs)
			type n struct {
				q        *sched.Queue
				children []string
			}
			queues, root := qtree.Build(v, func(q *sched.Queue) *n { return &n{q: q} },
				func(parent, child *n) { parent.children = append(parent.children, child.q.Path()) })
			if len(queues) != len(v.Queues()) {
				t.Fatalf("%d queues, want %d", len(queues), len(v.Queues()))
			}
			var got []node
			for i, q := range queues {
				if q.q != v.Queues()[i] {
					t.Errorf("queues[%d] stands for %s, want %s", i, q.q.Path(), v.Queues()[i].Path())
				}
				got = append(got, node{q.q.Path(), q.children})
			}
			if root.q != v.RootQueue() {
				t.Errorf("root stands for %s", root.q.Path())
			}
			got = append(got, node{root.q.Path(), root.children})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tree %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestSortStable: a level's queues in before's order, equal ones kept in
// place, and no allocation.
func TestSortStable(t *testing.T) {
	type q struct {
		name string
		key  int
	}
	byKey := func(a, b q) bool { return a.key < b.key }
	cases := []struct {
		name string
		in   []q
		want string
	}{
		{"none", nil, ""},
		{"one", []q{{"a", 1}}, "a"},
		{"ordered", []q{{"a", 1}, {"b", 2}}, "ab"},
		{"reversed", []q{{"a", 2}, {"b", 1}}, "ba"},
		{"ties kept in place", []q{{"a", 2}, {"b", 1}, {"c", 2}, {"d", 1}}, "bdac"},
	}
	for _, c := range cases {
		qtree.SortStable(c.in, byKey)
		got := ""
		for _, x := range c.in {
			got += x.name
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	s := []q{{"a", 3}, {"b", 1}, {"c", 2}}
	if n := testing.AllocsPerRun(100, func() { qtree.SortStable(s, byKey) }); n != 0 {
		t.Errorf("SortStable allocates %v times per call", n)
	}
}
