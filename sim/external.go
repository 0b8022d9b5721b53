package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// external applies a workload's cluster.external_load: the load is sampled
// at the curve's knots and, while it slopes, every step, and held between
// samples (a staircase); each sample sets every node's usable capacity in
// the core. The simulator also owns the truth of what the other workload
// lost: whenever YARN holds more of a node than the load leaves it, the
// excess is external demand that found no room, integrated over time.
type external struct {
	curve    *cluster.LoadCurve // nil: per-group held steps instead
	held     *heldSteps
	step     clock.Duration
	constant bool // one value for all time: sampled once

	// For stall detection: when the load last changed, and the ticks
	// since.
	changedAt clock.Time
	ticks     int

	over  []resource.Vector // by node: allocation beyond the usable capacity
	total resource.Vector   // sum of over
	since clock.Time        // area is integrated up to here
	area  [resource.NumDims]float64
}

// newExternal builds the applied curve and the forecast policies see: the
// curve itself, or with ForecastError each knot's value scaled by
// 1 + U[-E, E] (clipped to [0, 1]) from the run's seed.
func newExternal(l *workload.ExternalLoad, opt *Options, step clock.Duration, nodes int) (*external, *cluster.LoadCurve, error) {
	pts := make([]cluster.LoadPoint, len(l.Points))
	for i, p := range l.Points {
		pts[i] = cluster.LoadPoint{At: p.At, Frac: p.Frac}
	}
	curve, err := cluster.NewLoadCurve(pts, l.Period)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster.external_load: %w", err)
	}
	forecast := curve
	if e := opt.ForecastError; e > 0 {
		rng := rand.New(rand.NewPCG(opt.Seed, 0x66637374)) // "fcst"
		noisy := make([]cluster.LoadPoint, len(pts))
		for i, p := range pts {
			f := p.Frac * (1 + e*(2*rng.Float64()-1))
			noisy[i] = cluster.LoadPoint{At: p.At, Frac: min(max(f, 0), 1)}
		}
		if forecast, err = cluster.NewLoadCurve(noisy, l.Period); err != nil {
			return nil, nil, fmt.Errorf("load forecast: %w", err)
		}
	}
	x := &external{curve: curve, step: step, over: make([]resource.Vector, nodes)}
	x.constant = true
	for _, p := range pts {
		x.constant = x.constant && p.Frac == pts[0].Frac
	}
	return x, forecast, nil
}

// integrate accumulates the unmet demand up to now.
func (x *external) integrate(now clock.Time) {
	if dt := float64(now - x.since); dt > 0 && x.total != (resource.Vector{}) {
		for d := range x.area {
			x.area[d] += float64(x.total[d]) * dt
		}
	}
	x.since = now
}

// touch re-derives node n's excess after its allocation or usable capacity
// changed.
func (x *external) touch(now clock.Time, n *cluster.Node) {
	o := n.Allocated().Sub(n.Usable()).Max(resource.Vector{})
	id := n.ID()
	if o == x.over[id] {
		return
	}
	x.integrate(now)
	x.total = x.total.Sub(x.over[id]).Add(o)
	x.over[id] = o
}

// unmet returns the unmet demand in vcore-seconds and MiB-seconds.
func (x *external) unmet() [2]float64 {
	us := float64(clock.Second)
	return [2]float64{x.area[resource.VCores] / resource.MilliPerVCore / us, x.area[resource.Memory] / us}
}

// applyLoad samples the curve now, applies it to the core, and queues the
// next sample.
func (s *simulator) applyLoad() {
	x := s.ext
	if x.curve == nil {
		s.applyHeld()
		return
	}
	frac := x.curve.At(s.now)
	if frac != s.core.ExternalLoad() {
		if err := s.core.SetExternalLoad(s.now, frac); err != nil {
			s.err = err
			return
		}
		for id := range s.nodes {
			x.touch(s.now, s.cl.Node(cluster.NodeID(id)))
		}
		x.changedAt, x.ticks = s.now, 0
	}
	if next := x.curve.NextStep(s.now, x.step); next != clock.Never && !x.constant {
		s.q.push(next, evLoad, 0, nil)
	}
}
