// Package shapes counts a cluster's nodes by capacity, for policies that
// turn a job's estimate into task durations by how many of its containers
// the whole cluster holds at once (tetris's and adaptive's waves). A live
// cluster's nodes join, leave and change after the policy is built, so the
// counts follow each node's change (Update) rather than being taken once.
package shapes

import (
	"cmp"
	"slices"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// Group is Count nodes of one capacity.
type Group struct {
	Capacity resource.Vector
	Count    int
	first    int // the lowest id of its nodes
}

// Counts are the cluster's nodes grouped by capacity, groups in the order
// of their lowest node id, as counting the nodes in id order gives them;
// nodes of no capacity (removed ones) are in none.
type Counts struct {
	groups []Group
	byNode []resource.Vector // the capacity each node is counted at, by node id
}

// New counts the nodes of cl.
func New(cl *cluster.Cluster) *Counts {
	s := &Counts{}
	for i := range cl.NumNodes() {
		s.Update(cl.Node(cluster.NodeID(i)))
	}
	return s
}

// Groups returns the groups; callers must not modify the slice.
func (s *Counts) Groups() []Group { return s.groups }

// Update counts node n at its capacity now, whether it joined, left (its
// capacity is then zero) or changed, and reports whether the counts
// changed.
func (s *Counts) Update(n *cluster.Node) bool {
	id := int(n.ID())
	for id >= len(s.byNode) {
		s.byNode = append(s.byNode, resource.Vector{})
	}
	c, was := n.Capacity(), s.byNode[id]
	if c == was {
		return false
	}
	s.byNode[id] = c
	if !was.IsZero() {
		k := s.find(was)
		g := &s.groups[k]
		if g.Count--; g.Count == 0 {
			s.groups = slices.Delete(s.groups, k, k+1)
		} else if g.first == id {
			g.first = slices.Index(s.byNode, was)
		}
	}
	if !c.IsZero() {
		if k := s.find(c); k >= 0 {
			s.groups[k].Count++
			s.groups[k].first = min(s.groups[k].first, id)
		} else {
			s.groups = append(s.groups, Group{Capacity: c, Count: 1, first: id})
		}
	}
	slices.SortFunc(s.groups, func(a, b Group) int { return cmp.Compare(a.first, b.first) })
	return true
}

func (s *Counts) find(c resource.Vector) int {
	for k := range s.groups {
		if s.groups[k].Capacity == c {
			return k
		}
	}
	return -1
}
