package record

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// nodeTable groups the nodes seen by their allocatable and follows what
// other workloads hold on each group over time: every node ever seen counts
// (a recording of a cluster that scaled counts its largest set), and a
// group's load is the mean over its nodes of what they hold, averaged over
// steps of Options.LoadStep and written as a step whenever it changes.
type nodeTable struct {
	c      *core
	byName map[string]*nodeRec
	groups []*group
	// Integration runs from origin on, in steps of length step; stepAt is
	// the start of the current one, now how far it has got.
	origin, stepAt, now time.Time
	step                time.Duration
	started             bool
}

type nodeRec struct {
	group int // -1 while the Node object is unknown
	held  resource.Vector
	gone  bool
}

type group struct {
	capacity resource.Vector
	nodes    int
	held     resource.Vector // sum over its nodes now
	area     [resource.NumDims]float64
	steps    []workload.HeldStep
	last     resource.Vector // the last step written
}

func newNodeTable(c *core) *nodeTable {
	return &nodeTable{c: c, byName: map[string]*nodeRec{}, step: c.opt.LoadStep}
}

// node records a Node object.
func (t *nodeTable) node(n *v1.Node) {
	capacity := podmap.NodeCapacity(n)
	r := t.byName[n.Name]
	if r == nil {
		r = &nodeRec{group: -1}
		t.byName[n.Name] = r
	}
	r.gone = false
	if r.group >= 0 {
		if t.groups[r.group].capacity != capacity {
			t.c.adjust("nodes whose allocatable changed during the recording (kept at the first)", 1)
		}
		return
	}
	if capacity[resource.VCores] <= 0 || capacity[resource.Memory] <= 0 {
		t.c.left("nodes without allocatable CPU or memory", 1)
		delete(t.byName, n.Name)
		return
	}
	g := -1
	for i, x := range t.groups {
		if x.capacity == capacity {
			g = i
			break
		}
	}
	if g < 0 {
		g = len(t.groups)
		t.groups = append(t.groups, &group{capacity: capacity})
	}
	r.group = g
	gr := t.groups[g]
	gr.nodes++
	gr.held = gr.held.Add(r.held)
}

// nodeGone records a Node deleted; it still counts (see nodeTable).
func (t *nodeTable) nodeGone(name string) {
	if r := t.byName[name]; r != nil && !r.gone {
		r.gone = true
		t.c.adjust("nodes that left during the recording (counted as present throughout)", 1)
	}
}

// hold adds (or with a negative sign, removes) what a pod outside the
// workload holds on its node.
func (t *nodeTable) hold(node string, v resource.Vector, sign int64) {
	r := t.byName[node]
	if r == nil {
		r = &nodeRec{group: -1}
		t.byName[node] = r
	}
	d := v.Mul(sign)
	r.held = r.held.Add(d)
	if r.group >= 0 {
		g := t.groups[r.group]
		g.held = g.held.Add(d)
	}
}

// start begins integrating at origin.
func (t *nodeTable) start(origin time.Time) {
	t.origin, t.stepAt, t.now, t.started = origin, origin, origin, true
}

// advance integrates every group's held resources up to now, writing the
// steps that end on the way.
func (t *nodeTable) advance(now time.Time) {
	if !t.started || !now.After(t.now) {
		return
	}
	for {
		stepEnd := t.stepAt.Add(t.step)
		upTo := now
		if stepEnd.Before(now) || stepEnd.Equal(now) {
			upTo = stepEnd
		}
		dt := upTo.Sub(t.now).Seconds()
		for _, g := range t.groups {
			for d := range g.area {
				g.area[d] += float64(g.held[d]) * dt
			}
		}
		t.now = upTo
		if upTo.Before(stepEnd) {
			return
		}
		t.closeStep(t.step)
		t.stepAt = stepEnd
		// Every whole step from here to now holds what is held now: the
		// first of them writes its value if it changed, the others would
		// repeat it (closeStep writes no repeat), so they are skipped at
		// once. A long quiet span costs one step, not one per LoadStep.
		if full := now.Sub(t.stepAt) / t.step; full >= 2 {
			for _, g := range t.groups {
				for d := range g.area {
					g.area[d] = float64(g.held[d]) * t.step.Seconds()
				}
			}
			t.closeStep(t.step)
			t.stepAt = t.stepAt.Add(full * t.step)
			t.now = t.stepAt
		}
	}
}

// closeStep writes each group's mean held resources over the step that
// began at stepAt and lasted span, when it differs from the group's last.
func (t *nodeTable) closeStep(span time.Duration) {
	at := clock.Duration(micros(t.stepAt.Sub(t.origin)))
	for _, g := range t.groups {
		var v resource.Vector
		if g.nodes > 0 && span > 0 {
			for d := range g.area {
				// Rounded up per node, so that the load never shrinks
				// below what was held, and capped at the node.
				mean := g.area[d] / span.Seconds() / float64(g.nodes)
				v[d] = min(int64(mean+1-1e-9), g.capacity[d])
				if mean <= 0 {
					v[d] = 0
				}
			}
		}
		g.area = [resource.NumDims]float64{}
		if v == g.last && (len(g.steps) > 0 || v.IsZero()) {
			continue
		}
		g.steps = append(g.steps, workload.HeldStep{At: at, Held: v})
		g.last = v
	}
}

// finish closes the step under way at end.
func (t *nodeTable) finish(end time.Time) {
	if !t.started {
		return
	}
	t.advance(end)
	if span := t.now.Sub(t.stepAt); span > 0 {
		t.closeStep(span)
	}
}

// groupsOut returns the node groups for the workload.
func (t *nodeTable) groupsOut() []workload.NodeGroup {
	out := make([]workload.NodeGroup, 0, len(t.groups))
	for _, g := range t.groups {
		ng := workload.NodeGroup{Count: g.nodes, Capacity: g.capacity}
		if len(g.steps) > 0 {
			ng.External = g.steps
		}
		out = append(out, ng)
	}
	return out
}

func (t *nodeTable) count() int {
	n := 0
	for _, g := range t.groups {
		n += g.nodes
	}
	return n
}

// largest cuts a request to fit the largest node group seen, so that the
// workload stays valid (every request fits a node) even when rounding or a
// node that left made a recorded request larger than every known node.
func (t *nodeTable) largest(r resource.Vector) resource.Vector {
	for _, g := range t.groups {
		if r.Fits(g.capacity) {
			return r
		}
	}
	var best resource.Vector
	for _, g := range t.groups {
		if g.capacity.DominantShare(r) > best.DominantShare(r) || best.IsZero() {
			best = g.capacity
		}
	}
	if best.IsZero() {
		return r
	}
	return r.Min(best)
}
