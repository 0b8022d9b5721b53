// Package djsf is Densest-Job-Set-First (Hu and Li, "Improved heuristic job
// scheduling method to enhance throughput for big data analytics", Tsinghua
// Science and Technology 27(2), 2022).
//
// SJF runs the shortest job first even when that job fills the cluster and
// holds back many small ones. DJSF instead runs first the set of jobs that
// completes the most jobs per unit of time. It plans in three steps:
//
//  1. k-means (one-dimensional, deterministic initialisation) groups the
//     jobs by predicted completion time; groups go in ascending mean.
//  2. Inside a group, jobs go in ascending demand and are packed greedily into
//     job sets whose total demand fits the cluster's capacity as a vector; a
//     job that does not fit opens the next set.
//  3. Each set's job completion efficiency is |S| / span(S), span being its
//     largest predicted completion time, and sets run in descending
//     efficiency.
//
// The paper plans one batch. Here the plan is redone online when jobs arrive
// or finish, at most once per replan interval (a change inside the interval
// is planned at the next tick), over the admitted jobs that still have
// containers to get, each with the paper's two inputs: its
// predicted completion time (the runtime estimate from the run's estimate
// source; a policy never sees task durations) and its demand as declared. The
// plan is a priority order: by default the policy is work-conserving (a node
// goes to the first job in plan order whose next request fits it), and with
// strict=true a set's jobs run only once every job of the sets before it has
// all its containers.
//
// Jobs without an estimate cannot be clustered: they run after every planned
// job, in submission order. A job that arrives between two plans counts, until
// the next plan places it, as a set of its own, of efficiency 1 / estimate.
//
// The variant djsf+ (Plus) changes two things, each a parameter here too:
// progress=true re-plans a running job with what remains of it (its estimate
// scaled by the fraction of its tasks not yet completed, and what it holds plus
// what it has yet to get), and density=area ranks sets by jobs per unit of
// cluster-time (|S| / Σ share × JCT) instead of per unit of wall time.
package djsf

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Config holds the policy's parameters.
type Config struct {
	// K is the number of k-means groups; 0 picks AutoK of the jobs planned.
	K int
	// Replan is the least time between two plans.
	Replan clock.Duration
	// Strict runs sets one after another instead of work-conserving.
	Strict bool
	// Progress re-plans running jobs with their remaining time and demand.
	Progress bool
	// Area ranks sets by jobs per unit of cluster-time.
	Area bool
}

// DefaultK is the default number of groups. The paper's value was lost in
// extraction. Analyses of the Google trace find its job durations in a few
// classes (short, medium and long; Mishra et al., SIGMETRICS PER 2010, and
// the trimodal job lengths of the 2011 trace), and the paper's argument is
// about packing jobs of similar length: a few wide groups. With many groups
// each set holds jobs of almost one length and DJSF tends to SJF; with one,
// it packs by demand alone. docs/djsf.md and EXPERIMENTS.md show the
// sensitivity to k.
const DefaultK = 3

// DefaultReplan is the default rate limit on re-planning: ten node
// heartbeats. A plan costs O(n log n) in the jobs waiting, so planning on every
// arrival and completion of a busy cluster would cost more than the rest of the
// scheduling, while jobs of the Google trace run minutes, so a plan ten
// seconds old is still current.
const DefaultReplan = 10 * clock.Second

// Faithful and Plus are the defaults of djsf and djsf+.
var (
	Faithful = Config{K: DefaultK, Replan: DefaultReplan}
	Plus     = Config{K: DefaultK, Replan: DefaultReplan, Progress: true, Area: true}
)

// Params reads the parameters over the defaults def.
func Params(r *params.Reader, def Config) Config {
	density := "span"
	if def.Area {
		density = "area"
	}
	c := Config{
		K:        r.Int("k", def.K, 0, 1<<20, "number of k-means groups of predicted JCT (default 3: short, medium and long jobs; 0 = ⌈√(n/2)⌉ of the n jobs planned; 1 packs by demand alone; a large k tends to SJF)"),
		Replan:   r.Duration("replan", def.Replan, "least time between two plans; arrivals and completions trigger a new plan (default 10s)"),
		Strict:   r.Bool("strict", def.Strict, "run job sets one after another: no job of a later set gets resources while a job of an earlier set waits for containers (default false: work-conserving)"),
		Progress: r.Bool("progress", def.Progress, "re-plan a running job with what remains: its estimate times the fraction of its tasks not completed, and what it holds plus the largest phase it has yet to get (djsf+; default "+boolWord(def.Progress)+")"),
	}
	c.Area = r.Choice("density", density, []string{"span", "area"}, "how sets are ranked: span = |S| / largest predicted JCT (the paper), area = |S| / Σ dominant share × predicted JCT (djsf+; default "+density+")") == "area"
	return c
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// Set numbers for jobs outside the current plan.
const (
	unplanned  = math.MaxInt32 - 1 // arrived after the last plan
	noEstimate = math.MaxInt32     // cannot be clustered
)

// minJCT is the floor of a predicted time, so that every set has a positive
// span.
const minJCT = clock.Millisecond

type key struct {
	eff  float64 // efficiency of the job's set; -1 without an estimate
	set  int32   // rank of the job's set in the current plan, or unplanned / noEstimate
	pos  int32   // position inside the set
	plan int32   // the plan that placed it
}

// Policy is the DJSF scheduler.
type Policy struct {
	v        *sched.View
	cfg      Config
	capacity resource.Vector

	q      *jobq.Queue // jobs with outstanding asks, in plan order
	keys   []key       // by job id
	active []*sched.Job

	dirty    bool
	plans    int
	lastPlan clock.Time
	sets     []Set // the current plan's sets, by rank
	items    []Item
	planned  []*sched.Job

	launched []launchSet
	launchAt map[[2]int32]int
	jobSet   []int32 // by job id: its launch set, -1 before its first container
}

// New returns a DJSF policy.
func New(v *sched.View, cfg Config) *Policy {
	p := &Policy{v: v, cfg: cfg, capacity: v.Cluster().Capacity(), lastPlan: -1, launchAt: map[[2]int32]int{}}
	p.q = jobq.New(p.less, nil)
	return p
}

func (p *Policy) less(a, b *sched.Job) bool {
	ka, kb := &p.keys[a.ID()], &p.keys[b.ID()]
	if ka.eff != kb.eff {
		return ka.eff > kb.eff
	}
	if ka.set != kb.set {
		return ka.set < kb.set
	}
	if ka.pos != kb.pos {
		return ka.pos < kb.pos
	}
	return a.ID() < b.ID()
}

// JobSubmitted makes room for the job's state.
func (p *Policy) JobSubmitted(j *sched.Job) {
	for int(j.ID()) >= len(p.keys) {
		p.keys = append(p.keys, key{})
		p.jobSet = append(p.jobSet, -1)
	}
}

// JobAdmitted places the job as a set of its own and asks for a new plan.
func (p *Policy) JobAdmitted(j *sched.Job) {
	p.keys[j.ID()] = p.outsideKey(j)
	p.active = append(p.active, j)
	p.changed()
}

// changed re-plans now if the rate limit allows, and otherwise at the next
// tick. Plans are made only here and on ticks, never in Pick: arrivals,
// completions and ticks happen at the same instants however many idle
// heartbeats a driver delivers, so the plans, and the schedule, do not depend
// on heartbeat elision. Any number of plans may be made at one instant, so
// jobs submitted together are planned together.
func (p *Policy) changed() {
	p.dirty = true
	now := p.v.Now()
	if p.lastPlan < 0 || now == p.lastPlan || now-p.lastPlan >= clock.Time(p.cfg.Replan) {
		p.replan(now)
	}
}

// outsideKey places a job the current plan does not know: a job with an
// estimate as a set of its own (efficiency 1 / estimate) among the planned
// sets, after those of equal efficiency; one without, after every other.
func (p *Policy) outsideKey(j *sched.Job) key {
	if e := j.Spec().Estimate; e > 0 {
		return key{eff: 1 / e.Seconds(), set: unplanned, plan: int32(p.plans)}
	}
	return key{eff: -1, set: noEstimate, plan: int32(p.plans)}
}

// AsksChanged keeps the set of jobs with outstanding asks.
func (p *Policy) AsksChanged(j *sched.Job) { p.q.Update(j) }

// JobFinished drops the job and asks for a new plan.
func (p *Policy) JobFinished(j *sched.Job) {
	p.q.Update(j)
	for i, a := range p.active {
		if a == j {
			p.active = append(p.active[:i], p.active[i+1:]...)
			break
		}
	}
	p.finished(j)
	p.changed()
}

// ContainerChanged records which set launched each job.
func (p *Policy) ContainerChanged(c *sched.Container, _ sched.ContainerState) {
	if c.State() == sched.Allocated && p.jobSet[c.Job().ID()] < 0 {
		p.launch(c.Job())
	}
}

// TickEvery is the replan interval: a plan held back by the rate limit is
// made on the next tick.
func (p *Policy) TickEvery() clock.Duration { return p.cfg.Replan }

// Tick applies a pending re-plan.
func (p *Policy) Tick(now clock.Time) {
	if p.dirty {
		p.replan(now)
	}
}

// Pick gives n to the first job in plan order whose next request fits it; in
// strict mode only jobs of the first set still waiting are eligible.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	if !p.cfg.Strict {
		return p.q.First(n, free)
	}
	head := p.q.Head()
	if head == nil {
		return nil
	}
	set := p.keys[head.ID()].set
	var found *sched.Ask
	p.q.Ascend(func(j *sched.Job) bool {
		if p.keys[j.ID()].set != set {
			return false
		}
		found = p.q.FirstAsk(j, n, free)
		return found == nil
	})
	return found
}

// replan builds a new plan over the admitted jobs that still have containers
// to get.
func (p *Policy) replan(now clock.Time) {
	p.dirty = false
	p.lastPlan = now
	p.plans++
	p.items = p.items[:0]
	p.planned = p.planned[:0]
	for _, j := range p.active {
		if !hasWork(j) {
			continue
		}
		if j.Spec().Estimate <= 0 {
			p.setKey(j, key{eff: -1, set: noEstimate, plan: int32(p.plans)})
			continue
		}
		p.planned = append(p.planned, j)
		item := Item{JCT: max(j.Spec().Estimate, minJCT).Seconds(), Demand: j.Demand()}
		if p.cfg.Progress {
			item = Item{JCT: remaining(j).Seconds(), Demand: remainingDemand(j)}
		}
		p.items = append(p.items, item)
	}
	k := p.cfg.K
	if k == 0 {
		k = AutoK(len(p.items))
	}
	p.sets = Plan(p.items, k, p.capacity, p.cfg.Area)
	for r, s := range p.sets {
		for pos, m := range s.Members {
			j := p.planned[m]
			p.setKey(j, key{eff: s.Efficiency, set: int32(r), pos: int32(pos), plan: int32(p.plans)})
		}
	}
	if p.cfg.Strict {
		// A new plan can let a node take a job it was refused before.
		p.v.Reconsider()
	}
}

// setKey gives j its key in the new plan and moves it in the queue only if
// its place can change: a key whose ordering fields (all but plan) are the
// same leaves the heap as it is, so fixing it was a no-op, and on a queue of
// jobs without estimates it was most of a plan's cost.
func (p *Policy) setKey(j *sched.Job, k key) {
	old := &p.keys[j.ID()]
	same := old.eff == k.eff && old.set == k.set && old.pos == k.pos
	*old = k
	if !same {
		p.q.Fix(j)
	}
}

// hasWork reports whether the job still has containers to get: its AM, or
// tasks of some phase not yet allocated.
func hasWork(j *sched.Job) bool {
	if j.HasAM() && j.AM() == nil && j.State() == sched.Admitted {
		return true
	}
	for k := range j.Spec().Phases {
		if st := j.Phase(k); st.Allocated < st.Tasks {
			return true
		}
	}
	return false
}

// ClusterChanged follows a live cluster: job sets are packed into its
// capacity, so the next plan uses the capacity as it is now.
func (p *Policy) ClusterChanged(*cluster.Node) { p.capacity = p.v.Cluster().Capacity() }

// remaining is a running job's predicted remaining completion time: its
// estimate times the fraction of its tasks not yet completed (as the
// resource manager observed), floored at minJCT. Progress, rather than the
// time since it started, because in a congested cluster a wide job runs for
// much longer than its estimate (the standalone runtime); an elapsed-time
// rule would call it almost done and put it first, SJF's failure all over.
// A job that declares no phases (a live application asking as it goes) has
// no progress to measure, so its whole estimate stands.
func remaining(j *sched.Job) clock.Duration {
	total, done := 0, 0
	for k, ph := range j.Spec().Phases {
		total += ph.Tasks
		done += j.Phase(k).Completed
	}
	if total == 0 {
		return max(j.Spec().Estimate, minJCT)
	}
	r := clock.Duration(float64(j.Spec().Estimate) * float64(total-done) / float64(total))
	return max(r, minJCT)
}

// remainingDemand is what the job holds plus the largest set of containers
// it has yet to be given at once (its AM, if not allocated, and the
// unallocated tasks of one phase), capped by its declared demand.
func remainingDemand(j *sched.Job) resource.Vector {
	var largest resource.Vector
	best := -1.0
	for k, ph := range j.Spec().Phases {
		st := j.Phase(k)
		left := ph.Request.Mul(int64(st.Tasks - st.Allocated))
		if s := left.DominantShare(j.Demand()); s > best {
			largest, best = left, s
		}
	}
	d := j.Usage().Add(largest)
	if j.HasAM() && j.AM() == nil {
		d = d.Add(j.Spec().AM)
	}
	return d.Min(j.Demand())
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Policy            = (*Policy)(nil)
	_ sched.SubmitObserver    = (*Policy)(nil)
	_ sched.AdmitObserver     = (*Policy)(nil)
	_ sched.AskObserver       = (*Policy)(nil)
	_ sched.FinishObserver    = (*Policy)(nil)
	_ sched.ContainerObserver = (*Policy)(nil)
	_ sched.ClusterObserver   = (*Policy)(nil)
	_ sched.Ticker            = (*Policy)(nil)
	_ sched.Reporter          = (*Policy)(nil)
)
