// Package capacity is YARN's Capacity scheduler: queues with a guaranteed
// share (capacity) and a ceiling (max_capacity) of the cluster, the most
// under-served queue served first, jobs first-in-first-out inside a queue.
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
	"math"
	"sort"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
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
}

// Params reads the parameters.
func Params(r *params.Reader) Config {
	return Config{
		MaxAMPercent: r.Float("max_am_percent", 0.1, 0, 1, "fraction of a queue's usable resources that ApplicationMasters may hold (YARN maximum-am-resource-percent, default 0.1); at least one AM per queue may always run"),
		Reserve:      r.Bool("reserve", false, "YARN reservations: the first job in a queue holds a node too small for its next container until enough frees, instead of later jobs using it (default false; slower to simulate)"),
	}
}

// Policy is the Capacity scheduler.
type Policy struct {
	v      *sched.View
	cfg    Config
	queues []*queue
	order  []*queue
}

type queue struct {
	q          *sched.Queue
	guaranteed resource.Vector
	ceiling    resource.Vector
	wanting    *jobq.Queue // jobs asking for task containers, by submission
	amWait     *jobq.Queue // jobs waiting for their AM container, by submission
}

// New returns a Capacity policy.
func New(v *sched.View, cfg Config) *Policy {
	p := &Policy{v: v, cfg: cfg}
	capacity := v.Cluster().Capacity()
	for _, q := range v.Queues() {
		p.queues = append(p.queues, &queue{
			q:          q,
			guaranteed: scale(capacity, q.Capacity()),
			ceiling:    scale(capacity, q.MaxCapacity()),
			wanting:    jobq.ByID(jobq.TaskAsks),
			amWait:     jobq.ByID(jobq.AMAsks),
		})
	}
	return p
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

func (p *Policy) usedCapacity(cq *queue) float64 {
	return cq.q.Usage().DominantShare(p.v.Cluster().Capacity()) / cq.q.Capacity()
}

// Pick serves queues from the most under-served; inside a queue, the
// earliest-submitted job that can use the node, whether its next container is
// an AM (within the AM limit) or a task.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	p.order = p.order[:0]
	for _, cq := range p.queues {
		if cq.wanting.Len() > 0 || cq.amWait.Len() > 0 {
			p.order = append(p.order, cq)
		}
	}
	if len(p.order) > 1 {
		sort.SliceStable(p.order, func(a, b int) bool { return p.usedCapacity(p.order[a]) < p.usedCapacity(p.order[b]) })
	}
	for _, cq := range p.order {
		// What the queue may still take: the node's free resources,
		// capped by the queue's ceiling.
		ceiling := cq.ceiling.Sub(cq.q.Usage())
		room := free.Min(ceiling)
		var task, am *sched.Ask
		var amRoom resource.Vector // what the queue's next AM may take
		if cq.amWait.Len() > 0 {
			amRoom = p.v.AMRoom(p.amLimit(cq), cq.q.AMUsage())
		}
		if p.cfg.Reserve {
			task = cq.wanting.FirstOrReserve(n, free, n.Usable(), ceiling)
			if cq.amWait.Len() > 0 {
				am = cq.amWait.FirstOrReserve(n, free, n.Usable(), ceiling.Min(amRoom))
			}
		} else {
			task = cq.wanting.First(n, room)
			if cq.amWait.Len() > 0 {
				am = cq.amWait.First(n, room.Min(amRoom))
			}
		}
		// First in, first out across both kinds of ask.
		if am != nil && (task == nil || am.Job().ID() < task.Job().ID()) {
			return am
		}
		if task != nil {
			return task
		}
	}
	return nil
}

// Reserves tells the core whether this policy reserves nodes.
func (p *Policy) Reserves() bool { return p.cfg.Reserve }

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
	_ sched.Policy         = (*Policy)(nil)
	_ sched.Reserver       = (*Policy)(nil)
	_ sched.AskObserver    = (*Policy)(nil)
	_ sched.FinishObserver = (*Policy)(nil)
)
