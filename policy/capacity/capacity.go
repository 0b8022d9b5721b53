// Package capacity is YARN's Capacity scheduler: a tree of queues, each with
// a guaranteed share (capacity) and a ceiling (max_capacity) of its parent,
// the most under-served queue served first at every level (tree.go), jobs
// first-in-first-out inside a leaf, a job of higher priority first (YARN's
// application priority with the FIFO ordering policy).
//
// "Under-served" is YARN's used capacity: what the queue holds, as a share of
// the cluster in its dominant resource, divided by its guaranteed share. A
// queue may grow past its guarantee into idle capacity up to max_capacity;
// there is no preemption, so it shrinks only as its containers end.
//
// ApplicationMasters are limited per queue by max_am_percent (YARN's
// maximum-am-resource-percent, default 0.1): AMs may hold that fraction of
// what the queue can currently use (its guarantee, or more when it may grow
// into idle capacity), compared under the run's resource calculator (memory
// only by default, as YARN's DefaultResourceCalculator does; see
// sched.View.AMRoom). As in YARN, a queue with no AM running may always start
// one, and a job whose AM would exceed the limit lets later, smaller AMs go
// first. Jobs with task requests are served in submission order; one whose
// next request does not fit the node lets the next job use it (YARN would
// instead reserve the node for it).
package capacity

import (
	"github.com/spindle-sched/spindle/clock"
	"math"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/policy/internal/preempt"
	"github.com/spindle-sched/spindle/policy/internal/qtree"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Config holds the policy's parameters.
type Config struct {
	MaxAMPercent float64
	// Reserve makes the first job in a queue reserve a node too small for
	// its next container, as YARN's Capacity scheduler does, instead of
	// letting later jobs use it.
	Reserve bool
	// ReserveTimeout expires a reservation that held its node this long
	// (sched.ReserveExpirer); 0 never does.
	ReserveTimeout clock.Duration
	// Preemption turns the core's preemption monitor on; nil is off.
	Preemption *sched.Preemption
}

// Params reads the parameters.
func Params(r *params.Reader) Config {
	c := Config{MaxAMPercent: r.Float("max_am_percent", 0.1, 0, 1, "fraction of a queue's usable resources that ApplicationMasters may hold (YARN maximum-am-resource-percent, default 0.1); at least one AM per queue may always run")}
	c.Reserve, c.ReserveTimeout = jobq.ReserveParams(r, "YARN reservations: the first job in a queue holds a node too small for its next container until enough frees, instead of later jobs using it (default false; slower to simulate)")
	c.Preemption = preempt.Params(r, PreemptionDefaults())
	return c
}

// PreemptionDefaults are YARN Capacity's (sched.DefaultPreemption), shares
// measured as the policy orders its queues: by dominant share.
func PreemptionDefaults() sched.Preemption { return sched.DefaultPreemption() }

// Preemption returns the preemption settings, nil when it is off.
func (p *Policy) Preemption() *sched.Preemption { return p.cfg.Preemption }

// Serves reports whether the policy would give ask a container were there
// room: a task always, an AM within its queue's AM limit.
func (p *Policy) Serves(a *sched.Ask) bool {
	if !a.IsAM() {
		return true
	}
	return a.Request.Fits(p.amRoom(p.queues[a.Job().Queue().Index()]))
}

// Policy is the Capacity scheduler.
type Policy struct {
	v      *sched.View
	cfg    Config
	root   *queue
	queues []*queue // by sched.Queue index
	// capacity is the cluster's capacity the queues' guarantees and
	// ceilings were measured against (ClusterChanged).
	capacity resource.Vector
}

// queue is a queue of the tree as the policy keeps it: a leaf holds the
// jobs; a parent only orders its children.
type queue struct {
	q          *sched.Queue
	guaranteed resource.Vector // absolute capacity of the cluster
	ceiling    resource.Vector // absolute maximum capacity
	children   []*queue
	order      []*queue    // scratch for sorting children
	wanting    *jobq.Queue // leaves: jobs asking for task containers, by priority then submission
	amWait     *jobq.Queue // leaves: jobs waiting for their AM container, likewise
}

// New returns a Capacity policy.
func New(v *sched.View, cfg Config) *Policy {
	p := &Policy{v: v, cfg: cfg, capacity: v.Cluster().Capacity()}
	build := func(q *sched.Queue) *queue {
		cq := &queue{q: q}
		cq.measure(p.capacity)
		if q.Leaf() {
			cq.wanting, cq.amWait = jobq.ByPriority(jobq.TaskAsks), jobq.ByPriority(jobq.AMAsks)
		}
		return cq
	}
	p.queues, p.root = qtree.Build(v, build, func(parent, child *queue) { parent.children = append(parent.children, child) })
	return p
}

// measure sets the queue's guarantee and ceiling as its absolute shares of
// a cluster of the given capacity.
func (cq *queue) measure(capacity resource.Vector) {
	cq.guaranteed, cq.ceiling = scale(capacity, cq.q.AbsCapacity()), scale(capacity, cq.q.AbsMaxCapacity())
}

// ClusterChanged follows a cluster whose capacity changes: guarantees and
// ceilings are shares of the cluster, so every queue's are measured again.
// Live, 'spindle kube schedule' starts on the nodes it lists first and
// hears of the others as they join; with the guarantees and ceilings of
// the cluster at its start, a queue could never grow past the first nodes'
// worth (a replay came out 28 % slower than its own simulation).
func (p *Policy) ClusterChanged(*cluster.Node) {
	c := p.v.Cluster().Capacity()
	if c == p.capacity {
		return
	}
	p.capacity = c
	p.root.measure(c)
	for _, cq := range p.queues {
		cq.measure(c)
	}
}

func scale(v resource.Vector, f float64) resource.Vector {
	for d := range v {
		v[d] = int64(math.Floor(float64(v[d])*f + 1e-9))
	}
	return v
}

// AsksChanged moves a job between waiting for its AM and asking for tasks.
func (p *Policy) AsksChanged(j *sched.Job) {
	cq := p.queues[j.Queue().Index()]
	cq.amWait.Update(j)
	cq.wanting.Update(j)
}

// JobFinished drops the job from every set.
func (p *Policy) JobFinished(j *sched.Job) { p.AsksChanged(j) }

// Pick walks the queue tree from the root as YARN's Capacity scheduler
// does (tree.go): at each parent the most under-served child first, down to
// a leaf; inside a leaf, the first job in its order (priority, then
// submission) that can use the node, whether its next container is an AM
// (within the AM limit) or a task.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	return p.pickUnder(p.root, n, p.v.Cluster().Capacity())
}

// pickLeaf picks in leaf cq with room, what the node has free capped by
// the ceilings of the leaf and its ancestors.
func (p *Policy) pickLeaf(cq *queue, n *cluster.Node, free, room, ceiling resource.Vector) *sched.Ask {
	var task, am *sched.Ask
	if p.cfg.Reserve {
		task = cq.wanting.FirstOrReserve(p.v, n, free, n.Usable(), ceiling)
		if cq.amWait.Len() > 0 {
			am = cq.amWait.FirstOrReserve(p.v, n, free, n.Usable(), ceiling.Min(p.amRoom(cq)))
		}
	} else {
		task = cq.wanting.First(n, room)
		if cq.amWait.Len() > 0 {
			am = cq.amWait.First(n, room.Min(p.amRoom(cq)))
		}
	}
	// Priority, then first in, first out, across both kinds of ask.
	if am != nil && (task == nil || jobq.PriorityFirst(am.Job(), task.Job())) {
		return am
	}
	return task
}

// Reserves tells the core whether this policy reserves nodes.
func (p *Policy) Reserves() bool { return p.cfg.Reserve }

// ReserveTimeout is how long a reservation may hold its node.
func (p *Policy) ReserveTimeout() clock.Duration { return p.cfg.ReserveTimeout }

// amRoom is what the queue's next AM may take: the core's AM-limit test
// (sched.View.AMRoom) on the queue's limit; a queue with no AM running may
// always start one.
func (p *Policy) amRoom(cq *queue) resource.Vector {
	return p.v.AMRoom(p.amLimit(cq), cq.q.AMUsage())
}

// amLimit is max_am_percent of what the queue can use now, YARN's
// getAMResourceLimitPerPartition: the larger, under the run's calculator, of
// its guarantee and its current limit (what it holds plus what is idle, up
// to its ceiling). The core's AM-limit test (sched.View.AMRoom) applies it; a
// queue with no AM running may always start one.
func (p *Policy) amLimit(cq *queue) resource.Vector {
	calc, cl := p.v.Calculator(), p.v.Cluster().Capacity()
	current := calc.Min(cl, cq.q.Usage().Add(p.v.Cluster().Free()), cq.ceiling)
	return sched.AMLimit(calc.Max(cl, current, cq.guaranteed), p.cfg.MaxAMPercent)
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Policy          = (*Policy)(nil)
	_ sched.Reserver        = (*Policy)(nil)
	_ sched.ReserveExpirer  = (*Policy)(nil)
	_ sched.AskObserver     = (*Policy)(nil)
	_ sched.FinishObserver  = (*Policy)(nil)
	_ sched.Preempting      = (*Policy)(nil)
	_ sched.ClusterObserver = (*Policy)(nil)
)
