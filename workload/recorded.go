package workload

import (
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Timing presets (cluster.timing).
const (
	// TimingYARN is the default: NodeManager and ApplicationMaster
	// heartbeats, and a launch delay per container.
	TimingYARN = "yarn"
	// TimingKubernetes has no heartbeats: a pod is placed the moment room
	// frees and its state is seen at once, as a Kubernetes scheduler
	// learns it from its watch; a container starts launch_delay (with
	// launch_jitter) after it is placed, which for a recorded cluster is
	// the pod start latency measured from its pods.
	TimingKubernetes = "kubernetes"
)

// HeldStep is one step of what other workloads hold on each node of a group:
// from At on, until the next step, each node has Held taken by pods the
// workload does not describe. Before the first step nothing is held.
type HeldStep struct {
	At   clock.Duration
	Held resource.Vector
}

// Recorded is what a recording of a running cluster saw of a job, the
// "as recorded" run that simulations are set beside. Times are workload
// times; -1 is unknown.
type Recorded struct {
	// Admitted is when the job's AM was placed (bound to a node); for a
	// job without an AM, when its first task was.
	Admitted clock.Time
	// AMStarted is when the AM's container started; -1 without an AM.
	AMStarted clock.Time
	// Finished is when the job ended: its AM's end, or for a job without an
	// AM its last task's; -1 when it was still running when the recording
	// stopped.
	Finished clock.Time
}

// Held reports whether any node group has external steps.
func (c *Cluster) Held() bool {
	for i := range c.Nodes {
		if len(c.Nodes[i].External) > 0 {
			return true
		}
	}
	return false
}

// NoRecord is a Recorded with every time unknown.
var NoRecord = Recorded{Admitted: -1, AMStarted: -1, Finished: -1}

var (
	heldMapping     = mapping{[]string{"at", "vcores", "memory_mb", "gpus", "disk_mb"}, []string{"at"}}
	recordedMapping = mapping{[]string{"admitted", "am_started", "finished"}, nil}
)

func (d *decoder) heldSteps() []HeldStep {
	out := []HeldStep{}
	d.list(func(int) {
		var h HeldStep
		d.object(heldMapping, func(key string, line int) {
			if key == "at" {
				h.At = d.duration()
				return
			}
			dim := dimOf(key)
			h.Held[dim] = d.resource(dim)
		})
		out = append(out, h)
	})
	return out
}

func (d *decoder) recorded() *Recorded {
	r := NoRecord
	d.object(recordedMapping, func(key string, line int) {
		t := clock.Time(d.duration())
		switch key {
		case "admitted":
			r.Admitted = t
		case "am_started":
			r.AMStarted = t
		case "finished":
			r.Finished = t
		}
	})
	return &r
}

// times decodes a list of times (durations since time 0).
func (d *decoder) times() []clock.Time {
	ds := d.scratchDur[:0]
	ok := d.list(func(int) { ds = append(ds, d.duration()) })
	d.scratchDur = ds[:0]
	if !ok {
		return nil
	}
	out := make([]clock.Time, len(ds))
	for i, v := range ds {
		out[i] = clock.Time(v)
	}
	return out
}

// external checks a node group's held steps: times in order, amounts that
// fit the node.
func (c *checker) external(g *NodeGroup) {
	if g.External == nil {
		return
	}
	c.push("external")
	for i, h := range g.External {
		c.pushIndex(i)
		switch {
		case h.At < 0 || h.At > maxDuration:
			c.duration("at", h.At, false)
		case i > 0 && h.At <= g.External[i-1].At:
			c.add("at", "must be after the previous step (%s)", g.External[i-1].At)
		}
		for d := resource.Dim(0); d < resource.NumDims; d++ {
			switch {
			case h.Held[d] < 0:
				c.add(d.Name(), "must be >= 0")
			case h.Held[d] > g.Capacity[d]:
				c.add(d.Name(), "must be at most the node's %d (%s)", g.Capacity[d], d.Name())
			}
		}
		c.pop(1)
	}
	c.pop(1)
}

// timing checks the timing preset and what it excludes.
func (c *checker) timing(cl *Cluster) {
	switch cl.Timing {
	case "", TimingYARN:
	case TimingKubernetes:
		if cl.Ideal {
			c.add("timing", "kubernetes and ideal: true exclude each other (ideal has no launch delay at all)")
		}
	default:
		c.add("timing", "unknown timing %q (want %s or %s)", cl.Timing, TimingYARN, TimingKubernetes)
	}
	if cl.ExternalLoad == nil {
		return
	}
	for i := range cl.Nodes {
		if cl.Nodes[i].External != nil {
			c.add("external_load", "a cluster-wide external_load and nodes[%d].external exclude each other", i)
			return
		}
	}
}

// recorded checks a job's recorded times.
func (c *checker) recorded(j *Job) {
	r := j.Recorded
	c.push("recorded")
	for _, f := range []struct {
		name string
		t    clock.Time
	}{{"admitted", r.Admitted}, {"am_started", r.AMStarted}, {"finished", r.Finished}} {
		if f.t != -1 && (f.t < 0 || clock.Duration(f.t) > maxDuration) {
			c.duration(f.name, clock.Duration(f.t), false)
		}
	}
	if r.AMStarted >= 0 && r.Admitted >= 0 && r.AMStarted < r.Admitted {
		c.add("am_started", "must not be before admitted (%s)", r.Admitted)
	}
	if r.Finished >= 0 && r.Finished < j.Submit {
		c.add("finished", "must not be before the job's submit (%s)", j.Submit)
	}
	c.pop(1)
}

// started checks a phase's recorded task starts and its unfinished count.
func (c *checker) started(ph *Phase) {
	if ph.Started != nil {
		if len(ph.Started) != ph.Tasks {
			c.add("started", "must list one start per task (%d), got %d", max(ph.Tasks, 0), len(ph.Started))
		} else {
			c.push("started")
			for i, t := range ph.Started {
				if t < 0 || clock.Duration(t) > maxDuration {
					c.pushIndex(i)
					c.duration("", clock.Duration(t), false)
					c.pop(1)
				}
			}
			c.pop(1)
		}
	}
	if ph.Unfinished < 0 || ph.Unfinished > max(ph.Tasks, 0) {
		c.add("unfinished", "must be in [0, tasks] = [0, %d]", max(ph.Tasks, 0))
	}
}

func (e *encoder) heldSteps(hs []HeldStep) {
	e.s("[")
	for i, h := range hs {
		if i > 0 {
			e.s(", ")
		}
		e.s("{")
		first := true
		e.key(&first, ", ", "at")
		e.duration(h.At)
		e.vectorFields(&first, h.Held)
		e.s("}")
	}
	e.s("]")
}

func (e *encoder) recorded(r *Recorded) {
	e.s("{")
	first := true
	for _, f := range []struct {
		name string
		t    clock.Time
	}{{"admitted", r.Admitted}, {"am_started", r.AMStarted}, {"finished", r.Finished}} {
		if f.t >= 0 {
			e.key(&first, ", ", f.name)
			e.duration(clock.Duration(f.t))
		}
	}
	e.s("}")
}

func (e *encoder) times(ts []clock.Time) {
	e.s("[")
	for i, t := range ts {
		if i > 0 {
			e.s(", ")
		}
		e.duration(clock.Duration(t))
	}
	e.s("]")
}
