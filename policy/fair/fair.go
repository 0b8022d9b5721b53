// Package fair is YARN's Fair scheduler: the free resources of a node go to
// the job furthest below its instantaneous fair share, in one of two modes:
// memory (FairSharePolicy, shares measured in memory) or drf (dominant
// resource fairness, Ghodsi et al., NSDI 2011: shares measured in each job's
// dominant resource).
//
// With equal weights every runnable job's fair share is the same, so "furthest
// below its share" is "lowest usage", ties going to the earlier job. A job of
// higher priority comes before every job of lower priority in its leaf
// queue; YARN's Fair scheduler instead multiplies a job's weight by its
// priority, which Kubernetes priorities (any int32, 0 by default) cannot
// be. Queues form a tree (tree.go), shared the same way at every level,
// weighted by their weight (by default their capacity); max_capacity is not
// enforced. ApplicationMasters are limited by max_am_share,
// the fraction of a queue's fair share that AMs may hold (YARN's
// maxAMShare); -1 disables the limit, which lets a burst of AMs take the whole
// cluster and deadlock it, as AutoAdmin describes. The limit is tested by
// sched.View.AMRoom: fair compares under the run's resource calculator
// (memory only by default, which is what Hadoop 2's FairSharePolicy
// compares), drf in every resource whatever the run's calculator, as Hadoop
// 2's Fair scheduler does under its drf policy. Unlike YARN's Fair scheduler,
// and as its Capacity scheduler does, a queue with no AM running may always
// start one; that matters only for an AM larger than max_am_share of its
// queue's fair share, which YARN would never start.
//
// As in Hadoop's default configuration (yarn.scheduler.fair.assignmultiple =
// false), a node update assigns at most one container, so a node with room
// fills one container per heartbeat; assign_multiple=true fills it in one.
package fair

import (
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/policy/internal/preempt"
	"github.com/spindle-sched/spindle/policy/internal/qtree"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Mode selects how shares are measured.
type Mode int

// Modes.
const (
	Memory Mode = iota // YARN FairSharePolicy: memory share
	DRF                // dominant resource share
)

// Config holds the policy's parameters.
type Config struct {
	Mode Mode
	// MaxAMShare is the fraction of a queue's fair share AM containers may
	// hold; negative disables the limit.
	MaxAMShare float64
	// Reserve makes the job first in line reserve a node too small for its
	// next container, as YARN's Fair scheduler does, instead of letting
	// later jobs use it.
	Reserve bool
	// ReserveTimeout expires a reservation that held its node this long
	// (sched.ReserveExpirer); 0 never does.
	ReserveTimeout clock.Duration
	// AssignMultiple lets one node update assign as many containers as fit
	// (yarn.scheduler.fair.assignmultiple=true); Hadoop's default, false,
	// assigns one (or makes one reservation).
	AssignMultiple bool
	// Preemption turns the core's preemption monitor on; nil is off.
	Preemption *sched.Preemption
}

// Params reads the parameters; mode is fixed by the policy name.
func Params(r *params.Reader, mode Mode) Config {
	c := Config{
		Mode:       mode,
		MaxAMShare: r.Float("max_am_share", 0.5, -1, 1, "fraction of a queue's fair share that ApplicationMasters may hold, in [0, 1] (YARN maxAMShare, default 0.5); -1 disables the limit"),
	}
	c.Reserve, c.ReserveTimeout = jobq.ReserveParams(r, "YARN reservations: the job first in line holds a node too small for its next container until enough frees, instead of later jobs using it (default false; slower to simulate)")
	c.AssignMultiple = r.Bool("assign_multiple", false, "assign as many containers as fit on each node update (yarn.scheduler.fair.assignmultiple=true); the default, Hadoop's, assigns one per heartbeat")
	c.Preemption = preempt.Params(r, PreemptionDefaults(mode))
	// YARN reads -1 as "no limit"; any other negative share would let no
	// ApplicationMaster run at all.
	if c.MaxAMShare < 0 && c.MaxAMShare != -1 {
		r.Failf("max_am_share", "%v is neither a share in [0, 1] nor -1 (no limit)", c.MaxAMShare)
	}
	return c
}

// PreemptionDefaults are the Capacity scheduler's rounds and limits
// (sched.DefaultPreemption) with what Fair does differently: idle capacity
// divided by weight, shares measured as the mode measures them, and no
// preemption while the cluster is less than 80 % allocated (Fair's
// preemption.cluster-utilization-threshold).
func PreemptionDefaults(mode Mode) sched.Preemption {
	c := sched.DefaultPreemption()
	c.ByWeight = true
	c.MinUtilization = 0.8
	c.Measure = sched.MemoryMeasure
	if mode == DRF {
		c.Measure = sched.DominantMeasure
	}
	return c
}

// Preemption returns the preemption settings, nil when it is off.
func (p *Policy) Preemption() *sched.Preemption { return p.cfg.Preemption }

// Serves reports whether the policy would give ask a container were there
// room: a task always, an AM within its queue's AM share.
func (p *Policy) Serves(a *sched.Ask) bool {
	if !a.IsAM() {
		return true
	}
	fq := p.queues[a.Job().Queue().Index()]
	return a.Request.Fits(p.amRoom(fq, p.fairFrac(fq)))
}

// Policy is the Fair (or DRF) scheduler.
type Policy struct {
	v        *sched.View
	cfg      Config
	capacity resource.Vector
	// amCalc compares AMs with the AM limit: the run's calculator for
	// fair, every resource for drf.
	amCalc resource.Calculator
	root   *queue
	queues []*queue  // by sched.Queue index
	key    []float64 // by job id: its share, the order of the running sets
	// assigned marks, by node id, the nodes that got a container (or a
	// reservation) since their last update: without assign_multiple they
	// take no more until their next heartbeat.
	assigned []bool
}

// queue is a queue of the tree as the policy keeps it: a leaf holds the
// jobs; a parent only orders its children.
type queue struct {
	q        *sched.Queue
	weight   float64
	children []*queue
	order    []*queue    // scratch for sorting children
	running  *jobq.Queue // leaves: jobs asking for task containers, lowest share first
	amWait   *jobq.Queue // leaves: jobs waiting for their AM container, by submission
}

// New returns a Fair or DRF policy.
func New(v *sched.View, cfg Config) *Policy {
	p := &Policy{v: v, cfg: cfg, capacity: v.Cluster().Capacity(), amCalc: v.Calculator(), assigned: make([]bool, v.Cluster().NumNodes())}
	if cfg.Mode == DRF {
		p.amCalc = resource.DominantCalculator
	}
	less := jobq.PriorityThen(func(a, b *sched.Job) bool {
		if ka, kb := p.key[a.ID()], p.key[b.ID()]; ka != kb {
			return ka < kb
		}
		return a.ID() < b.ID()
	})
	build := func(q *sched.Queue) *queue {
		fq := &queue{q: q, weight: q.Weight()}
		if q.Leaf() {
			fq.running, fq.amWait = jobq.New(less, jobq.TaskAsks), jobq.ByPriority(jobq.AMAsks)
		}
		return fq
	}
	p.queues, p.root = qtree.Build(v, build, func(parent, child *queue) { parent.children = append(parent.children, child) })
	return p
}

func (p *Policy) share(u resource.Vector) float64 {
	if p.cfg.Mode == DRF {
		return u.DominantShare(p.capacity)
	}
	return u.Share(resource.Memory, p.capacity)
}

// ClusterChanged follows a live cluster: shares are fractions of its
// capacity, so when nodes join, leave or change, every job's share is
// recomputed. Each key is changed and fixed in its heap before the next, so
// the heaps stay ordered throughout.
func (p *Policy) ClusterChanged(*cluster.Node) {
	c := p.v.Cluster().Capacity()
	if c == p.capacity {
		return
	}
	p.capacity = c
	for id := range p.key {
		j := p.v.Job(sched.JobID(id))
		p.key[id] = p.share(j.Usage())
		p.queues[j.Queue().Index()].running.Fix(j)
	}
}

// JobSubmitted makes room for the job's key.
func (p *Policy) JobSubmitted(j *sched.Job) {
	for int(j.ID()) >= len(p.key) {
		p.key = append(p.key, 0)
	}
}

// AsksChanged moves a job between waiting for its AM and asking for tasks.
func (p *Policy) AsksChanged(j *sched.Job) {
	fq := p.queues[j.Queue().Index()]
	fq.amWait.Update(j)
	fq.running.Update(j)
}

// NodeUpdated starts a new heartbeat of n: it may take a container again.
func (p *Policy) NodeUpdated(n *cluster.Node) { p.setAssigned(n.ID(), false) }

// setAssigned marks node id, growing the table for nodes that joined after
// the policy was built.
func (p *Policy) setAssigned(id cluster.NodeID, v bool) {
	if int(id) >= len(p.assigned) {
		p.assigned = append(p.assigned, make([]bool, int(id)+1-len(p.assigned))...)
	}
	p.assigned[id] = v
}

// ContainerChanged re-orders a job whose usage changed, and marks a node
// that got a container or a reservation in this update.
func (p *Policy) ContainerChanged(c *sched.Container, _ sched.ContainerState) {
	s := c.State()
	if s == sched.Allocated || s == sched.Reserved {
		p.setAssigned(c.Node().ID(), true)
	}
	if s == sched.Allocated || s.Terminal() {
		j := c.Job()
		p.key[j.ID()] = p.share(j.Usage())
		p.queues[j.Queue().Index()].running.Fix(j)
	}
}

// JobFinished drops the job from every set.
func (p *Policy) JobFinished(j *sched.Job) { p.AsksChanged(j) }

// Pick chooses, in the most under-served queue that can use n, the job
// furthest below its fair share: a job still waiting for its AM first (its
// usage is zero), if the AM limit allows, then the running job with the
// lowest share whose next task fits.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	a := p.pick(n)
	if a != nil && !p.cfg.AssignMultiple && int(n.ID()) < len(p.assigned) && p.assigned[n.ID()] {
		// One container per heartbeat: n waits for its next one, which
		// the driver must deliver although nothing else changed.
		p.v.ReconsiderNode(n)
		return nil
	}
	return a
}

func (p *Policy) pick(n *cluster.Node) *sched.Ask {
	if len(p.queues) == 1 {
		return p.pickIn(p.queues[0], n, 1)
	}
	return p.pickUnder(p.root, n, 1)
}

// Reserves tells the core whether this policy reserves nodes.
func (p *Policy) Reserves() bool { return p.cfg.Reserve }

// ReserveTimeout is how long a reservation may hold its node.
func (p *Policy) ReserveTimeout() clock.Duration { return p.cfg.ReserveTimeout }

// pickIn picks within one queue whose instantaneous fair share is the given
// fraction of the cluster.
func (p *Policy) pickIn(fq *queue, n *cluster.Node, fairFrac float64) *sched.Ask {
	free := n.Free()
	if fq.amWait.Len() > 0 {
		amRoom := p.amRoom(fq, fairFrac)
		if p.cfg.Reserve {
			if a := fq.amWait.FirstOrReserve(p.v, n, free, n.Usable(), amRoom); a != nil {
				return a
			}
		} else if a := fq.amWait.First(n, free.Min(amRoom)); a != nil {
			return a
		}
	}
	if p.cfg.Reserve {
		return fq.running.FirstOrReserve(p.v, n, free, n.Usable(), n.Usable())
	}
	return fq.running.First(n, free)
}

// amRoom is what the next AM of queue fq, whose instantaneous fair share is
// fairFrac of the cluster, may take.
func (p *Policy) amRoom(fq *queue, fairFrac float64) resource.Vector {
	return p.v.AMRoomIn(p.amCalc, p.amLimit(fairFrac), fq.q.AMUsage())
}

// amLimit is max_am_share of a queue's fair share, fairFrac of the cluster
// (NoAMLimit when max_am_share is -1). The core's AM-limit test
// (sched.View.AMRoomIn, under amCalc) applies it: a queue with no AM running
// may always start one.
func (p *Policy) amLimit(fairFrac float64) resource.Vector {
	var share resource.Vector
	for d := range share {
		share[d] = int64(fairFrac * float64(p.capacity[d]))
	}
	return sched.AMLimit(share, p.cfg.MaxAMShare)
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Policy            = (*Policy)(nil)
	_ sched.Reserver          = (*Policy)(nil)
	_ sched.ReserveExpirer    = (*Policy)(nil)
	_ sched.SubmitObserver    = (*Policy)(nil)
	_ sched.AskObserver       = (*Policy)(nil)
	_ sched.FinishObserver    = (*Policy)(nil)
	_ sched.ContainerObserver = (*Policy)(nil)
	_ sched.NodeObserver      = (*Policy)(nil)
	_ sched.ClusterObserver   = (*Policy)(nil)
	_ sched.Preempting        = (*Policy)(nil)
)
