// Package tetris is the Tetris multi-resource packing scheduler (Grandl,
// Ananthanarayanan, Kandula, Rao and Akella, "Multi-resource packing for
// cluster schedulers", SIGCOMM 2014), the packing baseline of the DJSF paper.
//
// On each node update Tetris gives the node's free resources to the runnable
// task with the highest score a + ε·p:
//
//   - a, the alignment score, is the dot product of the task's request and
//     the node's free resources, each dimension divided by the node's
//     capacity, so a task that uses what the node has plenty of scores high;
//   - p favours jobs with little remaining work (multi-resource shortest
//     remaining time first): p = −W, W being the sum over the job's tasks not
//     yet completed of estimated duration × request, each dimension divided
//     by the cluster's capacity;
//   - ε = m · ā / W̄, ā and W̄ being the means of the two scores over the
//     candidates of this decision, so that neither term dominates by its
//     units alone (m = 1 by default).
//
// Fairness knob f: only the ⌈(1 − f)·N⌉ of the N runnable jobs furthest below
// their fair share (the lowest dominant shares, as in DRF) are candidates;
// f = 0 is pure packing and SRTF, f → 1 tends to DRF. When none of those has a
// task that fits the node, the next jobs in fairness order are considered, so
// a node is never left idle while some job could use it.
//
// Task durations are never seen. A phase's task duration is estimated as the
// mean RUNNING-to-COMPLETED time of its tasks observed so far; before any has
// completed, from the job's runtime estimate divided by the number of waves
// its phases need on the whole cluster; without an estimate either, from the
// mean observed task duration of the job, then of the cluster, then 1 s.
//
// Tetris ran inside YARN, whose AM limit applies under any policy: AM
// containers may hold at most max_am_share of the cluster (one may always
// run; sched.View.AMRoom). Tetris packs every resource, so it compares AMs
// in every resource too (YARN's DominantResourceCalculator), whatever the
// run's calculator: under a memory-only one, AMs small in memory would fill
// the cluster's vcores, which a multi-resource packer exists to prevent. Without it, new jobs (furthest below their fair share)
// would get their AMs first until AMs fill the cluster and deadlock it.
//
// Scoring every candidate at every pick is a pass over every runnable job;
// an index (index.go) answers without it and leaves the rare pick it cannot
// call exactly to that pass, so decisions are the same bit for bit.
//
// Not modelled: Tetris's barrier knob, its remote-resource penalty and its
// tracking of actual (rather than requested) usage; the simulated cluster has
// no network or disk contention and tasks use what they request.
package tetris

import (
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/policy/internal/shapes"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Config holds the policy's parameters.
type Config struct {
	// F is the fairness knob in [0, 1).
	F float64
	// M scales ε relative to the ratio of mean scores.
	M float64
	// MaxAMShare limits the cluster share AM containers may hold; negative
	// disables the limit.
	MaxAMShare float64
}

// Params reads the parameters.
func Params(r *params.Reader) Config {
	return Config{
		F:          r.Float("f", 0.25, 0, 0.999, "fairness knob: only the (1-f) fraction of runnable jobs furthest below their fair share are candidates (default 0.25; 0 = pure packing + SRTF)"),
		M:          r.Float("m", 1, 0, 1e6, "multiplier of the remaining-work weight ε = m·(mean alignment)/(mean remaining work) (default 1, the paper's balance of the two scores; 0 = packing only)"),
		MaxAMShare: r.Float("max_am_share", 0.5, -1, 1, "share of the cluster that ApplicationMasters may hold, in every resource whatever the run's resource calculator (YARN's AM limit under the DominantResourceCalculator, default 0.5 as Fair's maxAMShare; -1 disables it); one AM may always run"),
	}
}

// Policy is the Tetris scheduler.
type Policy struct {
	v        *sched.View
	cfg      Config
	capacity resource.Vector
	// amLimit is max_am_share of the cluster (sched.NoAMLimit when off);
	// the core's AM-limit test applies it in every resource.
	amLimit resource.Vector

	runnable *jobq.Queue // jobs with outstanding asks, lowest dominant share first
	share    []float64   // by job id
	jobs     []jobInfo   // by job id
	// members are the runnable jobs in no particular order, for a flat
	// scoring pass; slot[id] is a job's index in it, or -1.
	members []*sched.Job
	slot    []int32
	ranks   []rank // scratch for the fairness cut

	// shapes are the distinct node capacities and their counts, for wave
	// counts.
	shapes *shapes.Counts
	// Every task completion observed, for the last-resort duration.
	doneSum   clock.Duration
	doneCount int

	// Scoring state of the current pick, per request shape: a task's
	// alignment depends only on its shape, so each shape's best task is its
	// job with the least remaining work.
	shapeOf map[resource.Vector]int32
	best    []shapeBest
	touched []int32
	stamp   uint64
	sumA    float64
	sumW    float64

	ix    index
	stack []int32 // scratch for offerGlobal
}

type shapeBest struct {
	stamp uint64
	align float64
	work  float64
	rank  rank
	ask   *sched.Ask
	job   *sched.Job // the index's choice; the scan sets ask
}

type jobInfo struct {
	estTask clock.Duration   // per-task duration from the job's estimate; 0 = none
	sum     []clock.Duration // per phase: observed durations of completed tasks
	count   []int32
	// work caches RemainingWork until one of the job's tasks completes;
	// a job whose durations come from the cluster-wide mean is never
	// cached, since that mean moves with every completion.
	work      float64
	workValid bool
	shape     []int32 // by ask index: the request's shape
	// size is, per phase, the task request as fractions of the cluster
	// summed over resources; seen counts the job's observed completions.
	size []float64
	seen int32
}

// rank orders jobs by fairness: lower dominant share first, then the
// earlier job.
type rank struct {
	share float64
	id    sched.JobID
}

func (a rank) less(b rank) bool {
	if a.share != b.share {
		return a.share < b.share
	}
	return a.id < b.id
}

// candidate is one scored task, for choose.
type candidate struct {
	ask         *sched.Ask
	align, work float64
	rank        rank
}

// New returns a Tetris policy.
func New(v *sched.View, cfg Config) *Policy {
	p := &Policy{v: v, cfg: cfg, capacity: v.Cluster().Capacity(), shapeOf: map[resource.Vector]int32{}, ix: newIndex()}
	p.amLimit = sched.AMLimit(p.capacity, cfg.MaxAMShare)
	p.runnable = jobq.New(func(a, b *sched.Job) bool {
		if sa, sb := p.share[a.ID()], p.share[b.ID()]; sa != sb {
			return sa < sb
		}
		return a.ID() < b.ID()
	}, nil)
	p.shapes = shapes.New(v.Cluster())
	return p
}

// ClusterChanged follows a cluster whose nodes join, leave or change: the
// AM limit, each job's task size as a fraction of the cluster, its share in
// the fairness order and its estimate's waves are measured on the cluster,
// so they are measured again. Live, 'spindle kube schedule' starts on the
// nodes it lists first and hears of the others as they join; sized on the
// first nodes, the AM limit held most applications' drivers back (a replay
// came out 17 % off its own simulation).
func (p *Policy) ClusterChanged(n *cluster.Node) {
	shaped := p.shapes.Update(n)
	c := p.v.Cluster().Capacity()
	if c == p.capacity && !shaped {
		return
	}
	p.capacity = c
	p.amLimit = sched.AMLimit(c, p.cfg.MaxAMShare)
	for id := range p.jobs {
		j := p.v.Job(sched.JobID(id))
		info := &p.jobs[id]
		p.measure(j, info)
		info.workValid = false
		p.share[id] = j.Usage().DominantShare(c)
		p.runnable.Fix(j)
		p.markDirty(j)
	}
}

// measure sets what of job j's descriptor depends on the cluster: the
// per-task duration its estimate spreads over the waves it would run in
// alone, and each phase's task request as fractions of the cluster.
func (p *Policy) measure(j *sched.Job, info *jobInfo) {
	if e := j.Spec().Estimate; e > 0 {
		info.estTask = e / clock.Duration(p.waves(j))
	}
	for k, ph := range j.Spec().Phases {
		info.size[k] = 0
		for d := resource.Dim(0); d < resource.NumDims; d++ {
			info.size[k] += ph.Request.Share(d, p.capacity)
		}
	}
}

// JobSubmitted derives the job's per-task duration from its estimate.
func (p *Policy) JobSubmitted(j *sched.Job) {
	for int(j.ID()) >= len(p.jobs) {
		p.jobs = append(p.jobs, jobInfo{})
		p.share = append(p.share, 0)
		p.slot = append(p.slot, -1)
	}
	n := len(j.Spec().Phases)
	info := jobInfo{sum: make([]clock.Duration, n), count: make([]int32, n), shape: make([]int32, len(j.Asks()))}
	for i := range j.Asks() {
		info.shape[i] = p.shapeIndex(j.Asks()[i].Request)
	}
	info.size = make([]float64, n)
	p.measure(j, &info)
	p.jobs[j.ID()] = info
}

// shapeIndex returns the index in best of request shape r.
func (p *Policy) shapeIndex(r resource.Vector) int32 {
	k, ok := p.shapeOf[r]
	if !ok {
		k = int32(len(p.best))
		p.shapeOf[r] = k
		p.best = append(p.best, shapeBest{})
	}
	return k
}

// waves is how many rounds the job's phases need, one after another, on the
// whole empty cluster: the divisor that turns a job's runtime estimate into a
// task duration when all its tasks are alike.
func (p *Policy) waves(j *sched.Job) int64 {
	var w int64
	for _, ph := range j.Spec().Phases {
		slots := 0
		for _, g := range p.shapes.Groups() {
			slots += g.Count * ph.Request.CountIn(g.Capacity)
		}
		slots = max(slots, 1)
		w += int64((ph.Tasks + slots - 1) / slots)
	}
	return max(w, 1)
}

// AsksChanged keeps the set of runnable jobs.
func (p *Policy) AsksChanged(j *sched.Job) { p.update(j) }

// JobFinished drops the job.
func (p *Policy) JobFinished(j *sched.Job) { p.update(j) }

func (p *Policy) update(j *sched.Job) {
	p.markDirty(j)
	p.runnable.Update(j)
	in, at := p.runnable.Has(j), p.slot[j.ID()]
	switch {
	case in && at < 0:
		p.slot[j.ID()] = int32(len(p.members))
		p.members = append(p.members, j)
	case !in && at >= 0:
		last := p.members[len(p.members)-1]
		p.members[at] = last
		p.slot[last.ID()] = at
		p.members = p.members[:len(p.members)-1]
		p.slot[j.ID()] = -1
	}
}

// ContainerChanged keeps the fairness order and learns task durations from
// the transitions the resource manager observed.
func (p *Policy) ContainerChanged(c *sched.Container, _ sched.ContainerState) {
	s := c.State()
	if s != sched.Allocated && !s.Terminal() {
		return
	}
	j := c.Job()
	p.share[j.ID()] = j.Usage().DominantShare(p.capacity)
	p.runnable.Fix(j)
	p.markDirty(j)
	if s != sched.Completed || c.IsAM() || c.Phase() >= len(p.jobs[j.ID()].sum) { // an open job declares no phases
		return
	}
	start, ok := c.Time(sched.Running)
	end, _ := c.Time(sched.Completed)
	if !ok {
		return
	}
	d := end.Sub(start)
	info := &p.jobs[j.ID()]
	info.workValid = false
	info.sum[c.Phase()] += d
	info.count[c.Phase()]++
	info.seen++
	p.doneSum += d
	p.doneCount++
}

// taskDuration estimates the duration of a task of phase k of job j and
// reports whether it came from the cluster-wide mean.
func (p *Policy) taskDuration(j *sched.Job, k int) (clock.Duration, bool) {
	info := &p.jobs[j.ID()]
	if info.count[k] > 0 {
		return info.sum[k] / clock.Duration(info.count[k]), false
	}
	if info.estTask > 0 {
		return info.estTask, false
	}
	var sum clock.Duration
	var n int32
	for i := range info.count {
		sum += info.sum[i]
		n += info.count[i]
	}
	switch {
	case n > 0:
		return sum / clock.Duration(n), false
	case p.doneCount > 0:
		return p.doneSum / clock.Duration(p.doneCount), true
	}
	return clock.Second, true
}

// RemainingWork is W for job j: over its tasks not yet completed, estimated
// duration in seconds × request as a fraction of the cluster, summed over
// resources.
func (p *Policy) RemainingWork(j *sched.Job) float64 {
	info := &p.jobs[j.ID()]
	if info.workValid {
		return info.work
	}
	// A job with no estimate and no task of its own seen to end takes the
	// cluster-wide mean for every phase (taskDuration's last resort), which
	// moves with every completion, so its work is never cached: compute it
	// without taskDuration's search, in the same operations.
	if info.seen == 0 && info.estTask == 0 {
		d := clock.Second
		if p.doneCount > 0 {
			d = p.doneSum / clock.Duration(p.doneCount)
		}
		ds := d.Seconds()
		w := 0.0
		for k, ph := range j.Spec().Phases {
			if left := ph.Tasks - j.Phase(k).Completed; left > 0 {
				w += float64(left) * ds * info.size[k]
			}
		}
		return w
	}
	w := 0.0
	global := false
	for k, ph := range j.Spec().Phases {
		left := ph.Tasks - j.Phase(k).Completed
		if left <= 0 {
			continue
		}
		d, g := p.taskDuration(j, k)
		global = global || g
		w += float64(left) * d.Seconds() * info.size[k]
	}
	info.work, info.workValid = w, !global
	return w
}

// Alignment is the dot product of request and free, both divided by the
// node's capacity in each dimension.
func Alignment(request, free, capacity resource.Vector) float64 {
	a := 0.0
	for d := resource.Dim(0); d < resource.NumDims; d++ {
		if capacity[d] > 0 {
			a += float64(request[d]) / float64(capacity[d]) * float64(free[d]) / float64(capacity[d])
		}
	}
	return a
}

// Pick returns the task with the best score among the eligible jobs'
// outstanding asks that fit n. The index answers (see index); when it
// cannot, scan scores every candidate.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	if p.runnable.First(n, free) == nil {
		return nil // nothing fits: skip the scoring pass
	}
	p.refresh()
	if !n.Schedulable() {
		return nil // every ask is ineligible on it
	}
	capN, amRoom := n.Capacity(), p.v.AMRoomIn(resource.DominantCalculator, p.amLimit, p.v.Cluster().AMAllocated())
	a, how := p.pickIndexed(free, capN, amRoom)
	switch how {
	case answered:
	case noneEligible:
		a = p.walk(n, free, capN, amRoom)
	default:
		a = p.scan(n, free, capN, amRoom)
	}
	if checkPick != nil {
		scanned := a
		if how != undecided {
			scanned = p.scan(n, free, capN, amRoom)
		}
		checkPick(how, a, scanned, p.invariants())
	}
	return a
}

// checkPick, when set (by tests), hears every pick that got as far as
// scoring: how the index answered, its answer, the scan's, and what is wrong
// with the index.
var checkPick func(how answer, indexed, scanned *sched.Ask, broken error)

// scan scores every outstanding ask that fits n among the eligible jobs and
// returns the best.
//
// The eligible jobs are found by a cut rather than a walk in fairness order:
// the ⌈(1 − f)·N⌉-th smallest (share, id) is selected in linear time, and one
// flat pass scores every job at or below it. When none of them can use the
// node, the first job in fairness order that can gets it.
func (p *Policy) scan(n *cluster.Node, free, capN, amRoom resource.Vector) *sched.Ask {
	eligible := max(int(math.Ceil((1-p.cfg.F)*float64(len(p.members)))), 1)
	cut := rank{share: math.Inf(1)}
	if eligible < len(p.members) {
		p.ranks = p.ranks[:0]
		for _, j := range p.members {
			p.ranks = append(p.ranks, rank{p.share[j.ID()], j.ID()})
		}
		cut = selectRank(p.ranks, eligible-1)
	}
	p.stamp++
	p.touched, p.sumA, p.sumW = p.touched[:0], 0, 0
	for _, j := range p.members {
		r := rank{p.share[j.ID()], j.ID()}
		if cut.less(r) {
			continue
		}
		p.addCandidates(j, n, r, free, capN, amRoom)
	}
	if len(p.touched) == 0 {
		return p.walk(n, free, capN, amRoom)
	}
	return p.bestAsk()
}

// walk gives the node to the first job in fairness order that can use it,
// when no eligible job can.
func (p *Policy) walk(n *cluster.Node, free, capN, amRoom resource.Vector) *sched.Ask {
	p.stamp++
	p.touched, p.sumA, p.sumW = p.touched[:0], 0, 0
	p.runnable.Ascend(func(j *sched.Job) bool {
		p.addCandidates(j, n, rank{p.share[j.ID()], j.ID()}, free, capN, amRoom)
		return len(p.touched) == 0
	})
	return p.bestAsk()
}

// addCandidates scores j's outstanding asks that fit free (and, for an AM,
// the AM limit): it adds to the sums behind ε and keeps, per shape, the task
// with the least remaining work (ties: the job further below its share, then
// the job's earlier ask).
func (p *Policy) addCandidates(j *sched.Job, n *cluster.Node, r rank, free, capN, amRoom resource.Vector) {
	w := -1.0
	info := &p.jobs[j.ID()]
	for i := range j.Asks() {
		a := &j.Asks()[i]
		if a.Pending <= 0 || !a.Request.Fits(free) || (a.IsAM() && !a.Request.Fits(amRoom)) || !a.EligibleOn(n) {
			continue
		}
		if w < 0 {
			w = p.RemainingWork(j)
		}
		for i >= len(info.shape) { // an open job asks as it goes
			info.shape = append(info.shape, p.shapeIndex(j.Asks()[len(info.shape)].Request))
		}
		sb := &p.best[info.shape[i]]
		if sb.stamp != p.stamp {
			*sb = shapeBest{stamp: p.stamp, align: Alignment(a.Request, free, capN), work: w, rank: r, ask: a}
			p.touched = append(p.touched, info.shape[i])
		} else if w < sb.work || (w == sb.work && r.less(sb.rank)) {
			sb.work, sb.rank, sb.ask = w, r, a
		}
		p.sumA += sb.align
		p.sumW += w
	}
}

// bestAsk is choose over the candidates scored by addCandidates: the best
// of each shape's best.
func (p *Policy) bestAsk() *sched.Ask {
	if len(p.touched) == 0 {
		return nil
	}
	eps := 0.0
	if p.sumW > 0 {
		eps = p.cfg.M * p.sumA / p.sumW
	}
	var best *shapeBest
	bestScore := math.Inf(-1)
	for _, k := range p.touched {
		sb := &p.best[k]
		s := sb.align - eps*sb.work
		if s > bestScore || (s == bestScore && sb.rank.less(best.rank)) {
			best, bestScore = sb, s
		}
	}
	return best.ask
}

// selectRank returns the k-th smallest rank (from 0), reordering rs:
// quickselect with a median-of-three pivot, so the same input always takes
// the same steps.
func selectRank(rs []rank, k int) rank {
	lo, hi := 0, len(rs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if rs[mid].less(rs[lo]) {
			rs[mid], rs[lo] = rs[lo], rs[mid]
		}
		if rs[hi].less(rs[lo]) {
			rs[hi], rs[lo] = rs[lo], rs[hi]
		}
		if rs[hi].less(rs[mid]) {
			rs[hi], rs[mid] = rs[mid], rs[hi]
		}
		pivot := rs[mid]
		i, j := lo, hi
		for i <= j {
			for rs[i].less(pivot) {
				i++
			}
			for pivot.less(rs[j]) {
				j--
			}
			if i <= j {
				rs[i], rs[j] = rs[j], rs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return rs[k]
		}
	}
	return rs[k]
}

// choose returns the candidate with the highest a − ε·W, ε = m·ā/W̄; ties go
// to the job further below its fair share, then to the job's earlier ask. It
// is the rule Pick applies; Pick gets the same answer without listing every
// candidate (a test checks that they agree).
func choose(cands []candidate, m float64) *sched.Ask {
	if len(cands) == 0 {
		return nil
	}
	sa, sw := 0.0, 0.0
	for _, c := range cands {
		sa += c.align
		sw += c.work
	}
	eps := 0.0
	if sw > 0 {
		eps = m * sa / sw // the counts cancel in ā / W̄
	}
	best, bestScore := 0, math.Inf(-1)
	for i, c := range cands {
		s := c.align - eps*c.work
		if s > bestScore || (s == bestScore && c.rank.less(cands[best].rank)) {
			best, bestScore = i, s
		}
	}
	return cands[best].ask
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Policy            = (*Policy)(nil)
	_ sched.SubmitObserver    = (*Policy)(nil)
	_ sched.AskObserver       = (*Policy)(nil)
	_ sched.FinishObserver    = (*Policy)(nil)
	_ sched.ContainerObserver = (*Policy)(nil)
	_ sched.ClusterObserver   = (*Policy)(nil)
)
