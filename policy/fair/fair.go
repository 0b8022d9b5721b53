// Package fair is YARN's Fair scheduler: the free resources of a node go to
// the job furthest below its instantaneous fair share, in one of two modes:
// memory (FairSharePolicy, shares measured in memory) or drf (dominant
// resource fairness, Ghodsi et al., NSDI 2011: shares measured in each job's
// dominant resource).
//
// With equal weights every runnable job's fair share is the same, so "furthest
// below its share" is "lowest usage", ties going to the earlier job. Queues,
// when the workload defines several, are shared the same way one level up,
// weighted by their capacity. ApplicationMasters are limited by max_am_share,
// the fraction of a queue's fair share that AMs may hold (YARN's
// maxAMShare); -1 disables the limit, which lets a burst of AMs take the whole
// cluster and deadlock it, as AutoAdmin describes.
package fair

import (
	"sort"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/internal/jobq"
	"github.com/spindle-sched/spindle/params"
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
}

// Params reads the parameters; mode is fixed by the policy name.
func Params(r *params.Reader, mode Mode) Config {
	return Config{
		Mode:       mode,
		MaxAMShare: r.Float("max_am_share", 0.5, -1, 1, "fraction of a queue's fair share that ApplicationMasters may hold (YARN maxAMShare, default 0.5); -1 disables the limit"),
	}
}

// Policy is the Fair (or DRF) scheduler.
type Policy struct {
	v      *sched.View
	cfg    Config
	queues []*queue
	order  []*queue // scratch for sorting queues
}

type queue struct {
	q       *sched.Queue
	weight  float64
	running *jobq.Queue // active jobs with outstanding task asks, lowest share first
	amWait  *jobq.Queue // admitted jobs waiting for their AM container, by submission
	minAM   resource.Vector
	anyAM   bool
}

// New returns a Fair or DRF policy.
func New(v *sched.View, cfg Config) *Policy {
	p := &Policy{v: v, cfg: cfg}
	capacity := v.Cluster().Capacity()
	less := func(a, b *sched.Job) bool {
		sa, sb := p.share(a.Usage(), capacity), p.share(b.Usage(), capacity)
		if sa != sb {
			return sa < sb
		}
		return a.ID() < b.ID()
	}
	for _, q := range v.Queues() {
		p.queues = append(p.queues, &queue{q: q, weight: q.Capacity(), running: jobq.New(less), amWait: jobq.ByID()})
	}
	return p
}

func (p *Policy) share(u, capacity resource.Vector) float64 {
	if p.cfg.Mode == DRF {
		return u.DominantShare(capacity)
	}
	return u.Share(resource.Memory, capacity)
}

// JobAdmitted notes the smallest AM each queue may have to place.
func (p *Policy) JobAdmitted(j *sched.Job) {
	fq := p.queues[j.Queue().Index()]
	if am := j.Spec().AM; !am.IsZero() {
		if !fq.anyAM {
			fq.minAM, fq.anyAM = am, true
		} else {
			fq.minAM = fq.minAM.Min(am)
		}
	}
}

// AsksChanged moves a job between waiting for its AM and asking for tasks.
func (p *Policy) AsksChanged(j *sched.Job) {
	fq := p.queues[j.Queue().Index()]
	fq.amWait.Set(j, j.Asks()[0].Pending > 0)
	fq.running.Set(j, j.State() == sched.Active && j.Pending() > 0)
}

// ContainerChanged re-orders a job whose usage changed.
func (p *Policy) ContainerChanged(c *sched.Container, _ sched.ContainerState) {
	if s := c.State(); s == sched.Allocated || s == sched.Completed || s == sched.Killed {
		p.queues[c.Job().Queue().Index()].running.Fix(c.Job())
	}
}

// JobFinished drops the job from every set.
func (p *Policy) JobFinished(j *sched.Job) {
	fq := p.queues[j.Queue().Index()]
	fq.amWait.Set(j, false)
	fq.running.Set(j, false)
}

// Pick chooses, in the most under-served queue that can use n, the job
// furthest below its fair share: a job still waiting for its AM first (its
// usage is zero), if the AM limit allows, then the running job with the
// lowest share whose next task fits.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	if len(p.queues) == 1 {
		return p.pickIn(p.queues[0], free, 1)
	}
	capacity := p.v.Cluster().Capacity()
	p.order = p.order[:0]
	active := 0.0
	for _, fq := range p.queues {
		if fq.running.Len() > 0 || fq.amWait.Len() > 0 || fq.q.ActiveJobs() > 0 {
			active += fq.weight
		}
		if fq.running.Len() > 0 || fq.amWait.Len() > 0 {
			p.order = append(p.order, fq)
		}
	}
	sort.SliceStable(p.order, func(a, b int) bool {
		qa, qb := p.order[a], p.order[b]
		return p.share(qa.q.Usage(), capacity)/qa.weight < p.share(qb.q.Usage(), capacity)/qb.weight
	})
	for _, fq := range p.order {
		if a := p.pickIn(fq, free, fq.weight/active); a != nil {
			return a
		}
	}
	return nil
}

// pickIn picks within one queue whose instantaneous fair share is the given
// fraction of the cluster.
func (p *Policy) pickIn(fq *queue, free resource.Vector, fairFrac float64) *sched.Ask {
	if fq.amWait.Len() > 0 && fq.anyAM && fq.minAM.Fits(free) {
		if a := p.pickAM(fq, free, fairFrac); a != nil {
			return a
		}
	}
	return fq.running.Find(func(j *sched.Job) (*sched.Ask, bool) { return j.FirstFit(free), false })
}

func (p *Policy) pickAM(fq *queue, free resource.Vector, fairFrac float64) *sched.Ask {
	limited := p.cfg.MaxAMShare >= 0 && fq.q.AMContainers() > 0
	var room resource.Vector
	if limited {
		capacity := p.v.Cluster().Capacity()
		used := fq.q.AMUsage()
		limit := p.cfg.MaxAMShare * fairFrac
		// The AM budget left, in the dimensions the mode measures.
		for d := resource.Dim(0); d < resource.NumDims; d++ {
			if p.cfg.Mode == Memory && d != resource.Memory {
				room[d] = capacity[d] // not limited
				continue
			}
			room[d] = int64(limit*float64(capacity[d])) - used[d]
		}
		if !fq.minAM.Fits(room) {
			return nil
		}
	}
	return fq.amWait.Find(func(j *sched.Job) (*sched.Ask, bool) {
		a := &j.Asks()[0]
		if a.Request.Fits(free) && (!limited || a.Request.Fits(room)) {
			return a, true
		}
		return nil, false
	})
}
