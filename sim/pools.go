package sim

import (
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/workload"
)

// pools gives the jobs of a workload with node pools (node groups with
// labels or taints, jobs with a node selector or tolerations) the
// placement predicate the core honours (JobSpec.Eligible), one per
// distinct node selector and tolerations. A workload without pools pays
// nothing: its jobs carry no predicate.
type pools struct {
	groupOf []int32 // node id -> node group
	byKey   map[string]func(*cluster.Node) bool
	taints  bool // some group keeps off jobs that do not tolerate it
	// labeled is, by label and value, the groups that carry it: a job
	// with a node selector need only be checked against the groups of
	// one of its labels, so that many selectors over many groups (a
	// selector per node) cost their sum, not their product. Built on
	// first use.
	labeled map[string]map[string][]int
}

func newPools(w *workload.Workload) *pools {
	placed := w.Cluster.Pools()
	for i := range w.Jobs {
		placed = placed || w.Jobs[i].Placed()
	}
	if !placed {
		return nil
	}
	p := &pools{byKey: map[string]func(*cluster.Node) bool{}, taints: w.Cluster.Pools()}
	for gi, g := range w.Cluster.Nodes {
		for range g.Count {
			p.groupOf = append(p.groupOf, int32(gi))
		}
	}
	return p
}

// place sets spec's placement predicate and class for job j.
func (p *pools) place(spec *sched.JobSpec, w *workload.Workload, j *workload.Job) {
	if p == nil || (!j.Placed() && !p.taints) {
		return
	}
	key := j.PlacementKey()
	f, ok := p.byKey[key]
	if !ok {
		admits := make([]bool, len(w.Cluster.Nodes))
		for _, gi := range p.candidates(w, j) {
			admits[gi] = j.Admits(&w.Cluster.Nodes[gi])
		}
		groupOf := p.groupOf
		f = func(n *cluster.Node) bool {
			id := int(n.ID())
			return id < len(groupOf) && admits[groupOf[id]]
		}
		p.byKey[key] = f
	}
	spec.Eligible, spec.Class = f, "pool:"+key
}

// candidates returns the groups j may run on at most: with a node
// selector, the groups that carry its first label (in key order) with its
// value; without one, every group.
func (p *pools) candidates(w *workload.Workload, j *workload.Job) []int {
	if len(j.NodeSelector) == 0 {
		all := make([]int, len(w.Cluster.Nodes))
		for gi := range all {
			all[gi] = gi
		}
		return all
	}
	if p.labeled == nil {
		p.labeled = map[string]map[string][]int{}
		for gi := range w.Cluster.Nodes {
			for k, v := range w.Cluster.Nodes[gi].Labels {
				if p.labeled[k] == nil {
					p.labeled[k] = map[string][]int{}
				}
				p.labeled[k][v] = append(p.labeled[k][v], gi)
			}
		}
	}
	first := ""
	for k := range j.NodeSelector {
		if first == "" || k < first {
			first = k
		}
	}
	return p.labeled[first][j.NodeSelector[first]]
}
