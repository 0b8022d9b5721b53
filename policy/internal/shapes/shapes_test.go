package shapes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/internal/shapes"
	"github.com/spindle-sched/spindle/resource"
)

// Each step changes one node of a ledger and Update follows it; the groups
// must be what counting the nodes afresh gives, in first-joined order.
func TestUpdate(t *testing.T) {
	a, b := resource.New(8, 32768), resource.New(16, 65536)
	type step struct {
		name    string
		do      func(l *cluster.Ledger) cluster.NodeID
		changed bool
		want    string
	}
	for _, tt := range []struct {
		name  string
		start []resource.Vector
		steps []step
	}{
		{"nodes join to an empty cluster", nil, []step{
			{"a joins", func(l *cluster.Ledger) cluster.NodeID { return add(t, l, a) }, true, "[{<8 vcores, 32768 MiB> 1}]"},
			{"b joins", func(l *cluster.Ledger) cluster.NodeID { return add(t, l, b) }, true, "[{<8 vcores, 32768 MiB> 1} {<16 vcores, 65536 MiB> 1}]"},
			{"another a joins", func(l *cluster.Ledger) cluster.NodeID { return add(t, l, a) }, true, "[{<8 vcores, 32768 MiB> 2} {<16 vcores, 65536 MiB> 1}]"},
		}},
		{"a node leaves, the last of its shape", []resource.Vector{a, b, a}, []step{
			{"the b leaves", func(l *cluster.Ledger) cluster.NodeID { return remove(t, l, 1) }, true, "[{<8 vcores, 32768 MiB> 2}]"},
			{"a b joins again, last in order", func(l *cluster.Ledger) cluster.NodeID { return add(t, l, b) }, true, "[{<8 vcores, 32768 MiB> 2} {<16 vcores, 65536 MiB> 1}]"},
		}},
		{"the first node of the first shape leaves", []resource.Vector{a, b, a}, []step{
			{"node 0 leaves", func(l *cluster.Ledger) cluster.NodeID { return remove(t, l, 0) }, true, "[{<16 vcores, 65536 MiB> 1} {<8 vcores, 32768 MiB> 1}]"},
		}},
		{"a node grows into another shape", []resource.Vector{a, b}, []step{
			{"node 0 grows to b", func(l *cluster.Ledger) cluster.NodeID { return set(t, l, 0, b) }, true, "[{<16 vcores, 65536 MiB> 2}]"},
			{"node 0 stays b", func(l *cluster.Ledger) cluster.NodeID { return set(t, l, 0, b) }, false, "[{<16 vcores, 65536 MiB> 2}]"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cl, l := cluster.New(tt.start)
			s := shapes.New(cl)
			for _, st := range tt.steps {
				id := st.do(l)
				if got := s.Update(cl.Node(id)); got != st.changed {
					t.Errorf("%s: Update reported a change %v, want %v", st.name, got, st.changed)
				}
				if got := format(s.Groups()); got != st.want {
					t.Errorf("%s: groups %s, want %s", st.name, got, st.want)
				}
				if fresh := format(shapes.New(cl).Groups()); fresh != st.want {
					t.Errorf("%s: counted afresh %s, want %s", st.name, fresh, st.want)
				}
			}
		})
	}
}

func add(t *testing.T, l *cluster.Ledger, c resource.Vector) cluster.NodeID {
	t.Helper()
	n, err := l.AddNode("", c)
	if err != nil {
		t.Fatal(err)
	}
	return n.ID()
}

func remove(t *testing.T, l *cluster.Ledger, id cluster.NodeID) cluster.NodeID {
	t.Helper()
	if err := l.RemoveNode(id); err != nil {
		t.Fatal(err)
	}
	return id
}

func set(t *testing.T, l *cluster.Ledger, id cluster.NodeID, c resource.Vector) cluster.NodeID {
	t.Helper()
	if err := l.SetCapacity(id, c); err != nil {
		t.Fatal(err)
	}
	return id
}

func format(gs []shapes.Group) string {
	var parts []string
	for _, g := range gs {
		parts = append(parts, fmt.Sprintf("{%v %d}", g.Capacity, g.Count))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
