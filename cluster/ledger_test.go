package cluster

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/resource"
)

func TestLedgerNodeChanges(t *testing.T) {
	four := resource.New(4, 4096)
	one := resource.New(1, 1024)
	tests := []struct {
		name string
		do   func(c *Cluster, l *Ledger) error
		// what node 0 must then show, and the cluster totals
		capacity, usable, free resource.Vector
		total                  resource.Vector
		schedulable            bool
		err                    string
	}{
		{"nothing", func(c *Cluster, l *Ledger) error { return nil },
			four, four, four, resource.New(8, 8192), true, ""},
		{"shrink under an allocation", func(c *Cluster, l *Ledger) error {
			if err := l.Allocate(0, resource.New(3, 1024), false); err != nil {
				return err
			}
			return l.SetCapacity(0, resource.New(2, 4096))
		}, resource.New(2, 4096), resource.New(2, 4096), resource.New(0, 3072), resource.New(6, 8192), true, ""},
		{"held is kept across a capacity change", func(c *Cluster, l *Ledger) error {
			if err := l.SetHeld(0, one); err != nil {
				return err
			}
			return l.SetCapacity(0, resource.New(8, 8192))
		}, resource.New(8, 8192), resource.New(7, 7168), resource.New(7, 7168), resource.New(12, 12288), true, ""},
		{"held beyond capacity is clamped", func(c *Cluster, l *Ledger) error {
			return l.SetHeld(0, resource.New(9, 0))
		}, four, resource.New(0, 4096), resource.New(0, 4096), resource.New(8, 8192), true, ""},
		{"negative held", func(c *Cluster, l *Ledger) error {
			return l.SetHeld(0, resource.New(-1, 0))
		}, four, four, four, resource.New(8, 8192), true, "negative held"},
		{"cordoned takes nothing", func(c *Cluster, l *Ledger) error {
			if err := l.SetSchedulable(0, false); err != nil {
				return err
			}
			return l.Allocate(0, one, false)
		}, four, four, four, resource.New(8, 8192), false, "takes no new containers"},
		{"adopt beyond free", func(c *Cluster, l *Ledger) error {
			return l.Adopt(0, resource.New(6, 1024), false)
		}, four, four, resource.New(0, 3072), resource.New(8, 8192), true, ""},
		{"remove with an allocation", func(c *Cluster, l *Ledger) error {
			if err := l.Allocate(0, one, true); err != nil {
				return err
			}
			return l.RemoveNode(0)
		}, four, four, resource.New(3, 3072), resource.New(8, 8192), true, "still allocated"},
		{"remove", func(c *Cluster, l *Ledger) error {
			return l.RemoveNode(0)
		}, resource.Vector{}, resource.Vector{}, resource.Vector{}, four, false, ""},
		{"remove twice", func(c *Cluster, l *Ledger) error {
			if err := l.RemoveNode(0); err != nil {
				return err
			}
			return l.RemoveNode(0)
		}, resource.Vector{}, resource.Vector{}, resource.Vector{}, four, false, "already removed"},
		{"adopt on a removed node", func(c *Cluster, l *Ledger) error {
			if err := l.RemoveNode(0); err != nil {
				return err
			}
			return l.Adopt(0, one, false)
		}, resource.Vector{}, resource.Vector{}, resource.Vector{}, four, false, "removed node"},
	}
	for _, tt := range tests {
		c, l := New([]resource.Vector{four, four})
		err := tt.do(c, l)
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
		n := c.Node(0)
		if n.Capacity() != tt.capacity || n.Usable() != tt.usable || n.Free() != tt.free || c.Capacity() != tt.total || n.Schedulable() != tt.schedulable {
			t.Errorf("%s: capacity %v usable %v free %v total %v schedulable %v", tt.name, n.Capacity(), n.Usable(), n.Free(), c.Capacity(), n.Schedulable())
		}
		if err := c.Check(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestAddNodeKeepsPointersAndLargest(t *testing.T) {
	c, l := New([]resource.Vector{resource.New(4, 4096)})
	first := c.Node(0)
	for i := range 100 {
		n, err := l.AddNode("x", resource.New(int64(1+i%8), 1024))
		if err != nil {
			t.Fatal(err)
		}
		if n.ID() != NodeID(i+1) || c.Lookup(n.ID()) != n {
			t.Fatalf("node %d got id %d", i+1, n.ID())
		}
	}
	if c.Node(0) != first || c.NumNodes() != 101 || c.Lookup(101) != nil || c.Lookup(-1) != nil {
		t.Error("joining nodes moved or lost the others")
	}
	if c.Largest() != resource.New(8, 4096) {
		t.Errorf("largest %v", c.Largest())
	}
	if err := l.RemoveNode(0); err != nil {
		t.Fatal(err)
	}
	if c.Largest() != resource.New(8, 1024) || !c.Node(0).Removed() {
		t.Errorf("largest %v after removing the only 4096 MB node", c.Largest())
	}
	if _, err := l.AddNode("neg", resource.New(-1, 0)); err == nil {
		t.Error("a negative capacity was accepted")
	}
	if err := c.Check(); err != nil {
		t.Error(err)
	}
}
