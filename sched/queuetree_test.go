package sched

import (
	"math"
	"strings"
	"testing"
)

func TestQueueTree(t *testing.T) {
	tr, err := newQueueTree([]QueueSpec{
		{Name: "prod.etl", Capacity: 0.5, MaxCapacity: 1},
		{Name: "root.prod", Capacity: 0.6, MaxCapacity: 0.8},
		{Name: "prod.adhoc", Capacity: 0.5, MaxCapacity: 0.5, Weight: 3},
		{Name: "batch", Capacity: 0.4, MaxCapacity: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		name          string
		parent        string
		leaf          bool
		depth         int
		abs, absMax   float64
		weight        float64
		childrenNames string
	}
	for _, w := range []want{
		{"prod.etl", "prod", true, 2, 0.3, 0.8, 0.5, ""},
		{"prod", "root", false, 1, 0.6, 0.8, 0.6, "prod.etl prod.adhoc"},
		{"prod.adhoc", "prod", true, 2, 0.3, 0.4, 3, ""},
		{"batch", "root", true, 1, 0.4, 1, 0.4, ""},
	} {
		q := tr.byName[w.name]
		var kids []string
		for _, c := range q.Children() {
			kids = append(kids, c.Name())
		}
		if q.Parent().Name() != w.parent || q.Leaf() != w.leaf || q.Depth() != w.depth ||
			math.Abs(q.AbsCapacity()-w.abs) > 1e-12 || math.Abs(q.AbsMaxCapacity()-w.absMax) > 1e-12 ||
			q.Weight() != w.weight || strings.Join(kids, " ") != w.childrenNames {
			t.Errorf("%s: parent %s leaf %v depth %d abs %v absMax %v weight %v children %q; want %+v",
				w.name, q.Parent().Name(), q.Leaf(), q.Depth(), q.AbsCapacity(), q.AbsMaxCapacity(), q.Weight(), kids, w)
		}
	}
	if tr.root.Leaf() || tr.root.Path() != "root" || tr.byName["prod.etl"].Path() != "root.prod.etl" {
		t.Errorf("root leaf %v, paths %q %q", tr.root.Leaf(), tr.root.Path(), tr.byName["prod.etl"].Path())
	}

	bad := []struct {
		specs []QueueSpec
		want  string
	}{
		{[]QueueSpec{{Name: "a.b", Capacity: 1, MaxCapacity: 1}}, `queues[0].name: "a.b"'s parent queue "a" is not defined`},
		{[]QueueSpec{{Name: "a", Capacity: 0.6, MaxCapacity: 1}, {Name: "b", Capacity: 0.6, MaxCapacity: 1}}, "root's children sum to 1.2"},
		{[]QueueSpec{{Name: "a", Capacity: 1, MaxCapacity: 1}, {Name: "a.x", Capacity: 0.7, MaxCapacity: 1}, {Name: "a.y", Capacity: 0.4, MaxCapacity: 1}}, "root.a's children sum to 1.1"},
		{[]QueueSpec{{Name: "a", Capacity: 0.5, MaxCapacity: 0.4}}, "queues[0].max_capacity"},
		{[]QueueSpec{{Name: "a", Capacity: -0.1, MaxCapacity: 1}}, "queues[0].capacity"},
		{[]QueueSpec{{Name: "a", Capacity: 0, MaxCapacity: 0}}, "queues[0].max_capacity: 0 must be > 0"},
		{[]QueueSpec{{Name: "a", Capacity: 1, MaxCapacity: 1, Weight: -1}}, "queues[0].weight"},
		{[]QueueSpec{{Name: "root", Capacity: 1, MaxCapacity: 1}}, "queues[0].name"},
		{[]QueueSpec{{Name: "a..b", Capacity: 1, MaxCapacity: 1}}, "empty path element"},
		{[]QueueSpec{{Name: "a", Capacity: 0.5, MaxCapacity: 1}, {Name: "root.a", Capacity: 0.5, MaxCapacity: 1}}, "defined twice"},
	}
	for _, b := range bad {
		if _, err := newQueueTree(b.specs); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want one containing %q", b.specs, err, b.want)
		}
	}
}

func TestDivide(t *testing.T) {
	flat := []QueueSpec{{Name: "prod", Capacity: 0.6, MaxCapacity: 1}, {Name: "batch", Capacity: 0.4, MaxCapacity: 1}}
	small := []QueueSpec{{Name: "a", Capacity: 0.2, MaxCapacity: 1}, {Name: "b", Capacity: 0.2, MaxCapacity: 1}}
	tree := []QueueSpec{{Name: "prod", Capacity: 0.6, MaxCapacity: 1}, {Name: "prod.etl", Capacity: 0.5, MaxCapacity: 1},
		{Name: "prod.adhoc", Capacity: 0.5, MaxCapacity: 1}, {Name: "batch", Capacity: 0.4, MaxCapacity: 1}}
	tests := []struct {
		name     string
		specs    []QueueSpec
		demand   []float64
		byWeight bool
		want     []float64
	}{
		{"both want everything: each its guarantee", flat, []float64{1, 1.5}, false, []float64{0.6, 0.4}},
		{"a queue asking for less than its guarantee leaves the rest to its sibling", flat, []float64{0.3, 1}, false, []float64{0.3, 0.7}},
		{"idle capacity in proportion to the guarantees", small, []float64{1, 1}, false, []float64{0.5, 0.5}},
		{"a capped queue gives the rest to its sibling",
			[]QueueSpec{{Name: "a", Capacity: 0.2, MaxCapacity: 0.3}, {Name: "b", Capacity: 0.2, MaxCapacity: 1}},
			[]float64{1, 1}, false, []float64{0.3, 0.7}},
		{"Fair: idle capacity in proportion to the weights, guarantees as floors",
			[]QueueSpec{{Name: "a", Capacity: 0.2, MaxCapacity: 1, Weight: 3}, {Name: "b", Capacity: 0.2, MaxCapacity: 1, Weight: 1}},
			[]float64{1, 1}, true, []float64{0.75, 0.25}},
		{"Fair: a heavy sibling never takes a light one below its guarantee",
			[]QueueSpec{{Name: "a", Capacity: 0.5, MaxCapacity: 1, Weight: 0.1}, {Name: "b", Capacity: 0.5, MaxCapacity: 1, Weight: 0.9}},
			[]float64{1, 1}, true, []float64{0.5, 0.5}},
		{"nobody asks: nothing assigned", flat, []float64{0, 0}, false, []float64{0, 0}},
		{"a tree: an idle leaf's share goes to its sibling, not across the tree", tree,
			// prod, etl, adhoc, batch
			[]float64{1, 1, 0, 1.5}, false, []float64{0.6, 0.6, 0, 0.4}},
		{"a tree: an idle subtree's share goes to the other", tree,
			[]float64{0.2, 0.1, 0.1, 1}, false, []float64{0.2, 0.1, 0.1, 0.8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := newQueueTree(tt.specs)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(tt.specs))
			Divide(tr.root, DivideInput{Demand: tt.demand, ByWeight: tt.byWeight}, got)
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-9 {
					t.Fatalf("ideal %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// The division as YARN's Capacity monitor makes it by default: a leaf is
// given at most the larger of its guarantee and what it holds, unless
// balancing; a queue spared from preemption keeps what it holds; queues
// guaranteed nothing share what the others leave. Shares of a cluster of
// 100 units, from Hadoop's cases where they come from one.
func TestDivideCapped(t *testing.T) {
	four := []QueueSpec{{Name: "a", Capacity: 0.3, MaxCapacity: 1}, {Name: "b", Capacity: 0.3, MaxCapacity: 1},
		{Name: "c", Capacity: 0.3, MaxCapacity: 1}, {Name: "d", Capacity: 0.1, MaxCapacity: 1}}
	tests := []struct {
		name          string
		specs         []QueueSpec
		demand, used  []float64
		balance, fair bool
		want          []float64
	}{
		{"PreemptToBalance, YARN's default: a back to its guarantee, b and c share the rest", four,
			[]float64{0.4, 0.7, 0.8, 0}, []float64{0.1, 0.4, 0.5, 0}, false, false, []float64{0.3, 0.35, 0.35, 0}},
		{"PreemptToBalance with balancing: all level", four,
			[]float64{0.4, 0.7, 0.8, 0}, []float64{0.1, 0.4, 0.5, 0}, true, false, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 0}},
		{"testOverCapacityImbalance: both over, each keeps what it holds",
			[]QueueSpec{{Name: "a", Capacity: 0.4, MaxCapacity: 1}, {Name: "b", Capacity: 0.4, MaxCapacity: 1}, {Name: "c", Capacity: 0.2, MaxCapacity: 1}},
			[]float64{0.65, 0.55, 0}, []float64{0.55, 0.45, 0}, false, false, []float64{0.55, 0.45, 0}},
		{"testProportionalPreemption: A above its guarantee gives back 10",
			[]QueueSpec{{Name: "a", Capacity: 0.1, MaxCapacity: 1}, {Name: "b", Capacity: 0.4, MaxCapacity: 1},
				{Name: "c", Capacity: 0.2, MaxCapacity: 1}, {Name: "d", Capacity: 0.3, MaxCapacity: 1}},
			[]float64{0.5, 0.65, 0.3, 0}, []float64{0.3, 0.6, 0.1, 0}, false, false, []float64{0.2, 0.6, 0.2, 0}},
		{"testPerQueueDisablePreemption: b keeps its 54, c gives a its 10",
			[]QueueSpec{{Name: "a", Capacity: 0.55, MaxCapacity: 1}, {Name: "b", Capacity: 0.25, MaxCapacity: 1, DisablePreemption: true},
				{Name: "c", Capacity: 0.2, MaxCapacity: 1}},
			[]float64{0.1, 0.54, 0.46}, []float64{0, 0.54, 0.46}, false, false, []float64{0.1, 0.54, 0.36}},
		{"a parent spared: its leaves keep what they hold",
			[]QueueSpec{{Name: "p", Capacity: 0.5, MaxCapacity: 1, DisablePreemption: true}, {Name: "p.x", Capacity: 1, MaxCapacity: 1},
				{Name: "q", Capacity: 0.5, MaxCapacity: 1}},
			[]float64{0.8, 0.8, 0.5}, []float64{0.8, 0.8, 0.2}, false, false, []float64{0.8, 0.8, 0.2}},
		{"guaranteed nothing: a zero queue gets what the guaranteed one does not ask for",
			[]QueueSpec{{Name: "g", Capacity: 1, MaxCapacity: 1}, {Name: "z1", Capacity: 0, MaxCapacity: 1}, {Name: "z2", Capacity: 0, MaxCapacity: 1}},
			[]float64{0.4, 1, 0.1}, []float64{0.4, 0.5, 0.1}, true, false, []float64{0.4, 0.5, 0.1}},
		{"guaranteed nothing: zero queues share equally what is left",
			[]QueueSpec{{Name: "g", Capacity: 1, MaxCapacity: 1}, {Name: "z1", Capacity: 0, MaxCapacity: 1}, {Name: "z2", Capacity: 0, MaxCapacity: 1}},
			[]float64{0.4, 1, 1}, []float64{0.4, 0.6, 0}, true, false, []float64{0.4, 0.3, 0.3}},
		{"guaranteed nothing: the guaranteed queue first",
			[]QueueSpec{{Name: "g", Capacity: 1, MaxCapacity: 1}, {Name: "z", Capacity: 0, MaxCapacity: 1}},
			[]float64{1, 1}, []float64{0, 1}, false, false, []float64{1, 0}},
		{"Fair: no cap, fair shares",
			[]QueueSpec{{Name: "a", Capacity: 0.4, MaxCapacity: 1}, {Name: "b", Capacity: 0.4, MaxCapacity: 1}, {Name: "c", Capacity: 0.2, MaxCapacity: 1}},
			[]float64{0.65, 0.55, 0}, []float64{0.55, 0.45, 0}, false, true, []float64{0.5, 0.5, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := newQueueTree(tt.specs)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(tt.specs))
			Divide(tr.root, DivideInput{Demand: tt.demand, Used: tt.used, Balance: tt.balance, ByWeight: tt.fair}, got)
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-9 {
					t.Fatalf("ideal %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestResolveQueue(t *testing.T) {
	listed := []string{"root.prod", "prod.etl", "dev"}
	cases := []struct {
		listed    []string
		def, name string
		want      string
	}{
		{listed, "dev", "prod.etl", "prod.etl"},
		// With or without "root.", as listed.
		{listed, "dev", "root.prod.etl", "prod.etl"},
		{listed, "dev", "prod", "root.prod"}, // a parent, as it is: the core refuses it
		{listed, "dev", "team", "dev"},
		// Not listed and no default: held, even with one queue.
		{listed, "", "team", ""},
		{[]string{"default"}, "", "team", ""},
		{nil, "default", "team", "default"},
	}
	for _, c := range cases {
		if got := ResolveQueue(c.listed, c.def, c.name); got != c.want {
			t.Errorf("ResolveQueue(%v, %q, %q) = %q, want %q", c.listed, c.def, c.name, got, c.want)
		}
	}
}
