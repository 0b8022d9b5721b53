// Package dress is DRESS (Mao et al., "DRESS: Dynamic RESource-reservation
// Scheme for Congested Data-intensive Computing Platforms"): jobs are
// classified at submission as small-demand (SD) or large-demand (LD), each
// category has its own pool of the cluster, first in, first out inside a
// pool, and the share reserved for small jobs, the reserve ratio δ, is
// re-tuned every adjustment interval by Algorithm 3 from the pending demand
// of each category and an estimate of the containers running jobs will
// release soon.
//
// The estimate comes from observed container transitions only (Estimator:
// Algorithms 1 and 2, Equations 1, 5 and 9); the policy never sees a task's
// duration. Pools are measured in units of the cluster's dominant resource
// (see Total), which with uniform containers is the paper's container count.
// There is no preemption: a pool whose share shrinks gives its excess back as
// its containers end.
//
// DRESS keeps YARN Capacity's ApplicationMaster limit (max_am_percent of the
// cluster, compared under the run's resource calculator, at least one AM
// always allowed: sched.View.AMRoom, as Capacity's single default queue
// has it), so that it differs from the Capacity baseline by its pools
// alone. The workload's queues are not used:
// the two pools are DRESS's queues.
package dress

import (
	"fmt"
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/internal/jobq"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Category is a job's DRESS class.
type Category int8

// The two categories; the paper's category 1 and 2.
const (
	SD Category = iota // small demand
	LD                 // large demand
)

func (c Category) String() string { return [...]string{"SD", "LD"}[c] }

// Config holds the policy's parameters.
type Config struct {
	// Variant names the scheme in reports: "dress" or an improved
	// variant built on the same machinery.
	Variant string
	// Theta is the classification threshold θ: a job is LD when its
	// demand exceeds θ·X.
	Theta float64
	// ClassifyAvailable makes X the resources available at submission
	// (the paper's literal A_c) instead of the whole cluster (Tot_R).
	ClassifyAvailable bool
	// Delta0 is the initial reserve ratio; DeltaMin and DeltaMax clamp it.
	Delta0, DeltaMin, DeltaMax float64
	// PW is the phase window, TS and TE the start and end thresholds of
	// the estimator, in tasks.
	PW     clock.Duration
	TS, TE int
	// Interval is how often Algorithm 3 runs; Horizon how far ahead the
	// releases are predicted (0: one interval, the paper's F(t+1)).
	Interval, Horizon clock.Duration
	// Estimator off makes F ≡ 0: the ablation.
	Estimator    bool
	MaxAMPercent float64

	// The dress+ changes, each off in the faithful scheme.
	//
	// Release chooses the release estimate: ReleasePaper (Algorithms 1
	// and 2), ReleasePhase (observed per-phase task durations) or
	// ReleaseConst (a fixed rate). Ignored when Estimator is off.
	Release string
	// ConstRate is ReleaseConst's rate, in task containers per second.
	ConstRate float64
	// Usable counts as pending only the demand that could take a
	// container now: a job whose ApplicationMaster the AM limit holds
	// back, or that admission control holds, wants nothing yet.
	Usable bool
	// Lend lets a pool take room the other pool leaves unused on a node
	// once neither pool can place a container within its own limit. The
	// lender gets its room back as the borrowed containers end, since a
	// pool under its limit is served before one over it.
	Lend bool
	// LendAMs lets large jobs' ApplicationMasters borrow too; small jobs'
	// always may when Lend is on.
	LendAMs bool
	// Floor bounds δ so that a category with usable pending demand always
	// owns at least this share of the cluster: no category waits without
	// bound behind the other.
	Floor float64
}

// The release estimates.
const (
	ReleasePaper = "paper"
	ReleasePhase = "phase"
	ReleaseConst = "const"
)

// Defaults are the paper's settings (§V-A1) where it gives them.
var Defaults = Config{
	Variant: "dress", Theta: 0.1, Delta0: 0.1, DeltaMin: 0.01, DeltaMax: 0.99,
	PW: 10 * clock.Second, TS: 5, TE: 5, Interval: clock.Second, Estimator: true, MaxAMPercent: 0.1,
	Release: ReleasePaper, ConstRate: 5,
}

// PlusDefaults are dress+: DRESS with demand that counts only when it can
// be served, lending of unused room between the pools and a floor for each
// category.
var PlusDefaults = func() Config {
	c := Defaults
	c.Variant = "dress+"
	c.Usable, c.Lend, c.Floor = true, true, 0.2
	c.Release = ReleasePhase
	return c
}()

// Params reads the parameters over the given defaults.
func Params(r *params.Reader, def Config) Config {
	c := def
	c.Theta = r.Float("theta", def.Theta, 0, 1, fmt.Sprintf("classification threshold θ: a job is large-demand when its demand (AM + largest phase, dominant share) exceeds θ·X (default %v)", def.Theta))
	classify := "total"
	if def.ClassifyAvailable {
		classify = "available"
	}
	c.ClassifyAvailable = r.Choice("classify", classify, []string{"total", "available"},
		"X in the classification: total = the whole cluster (Tot_R, default), available = what is free at submission (the paper's literal A_c)") == "available"
	c.Delta0 = r.Float("delta0", def.Delta0, 0, 1, fmt.Sprintf("initial reserve ratio δ for small-demand jobs (default %v)", def.Delta0))
	c.DeltaMin = r.Float("delta_min", def.DeltaMin, 0, 1, fmt.Sprintf("lower clamp of δ, > 0 (default %v)", def.DeltaMin))
	c.DeltaMax = r.Float("delta_max", def.DeltaMax, 0, 1, fmt.Sprintf("upper clamp of δ, < 1 (default %v)", def.DeltaMax))
	c.PW = r.Duration("pw", def.PW, fmt.Sprintf("phase window of Algorithms 1 and 2 (default %v)", def.PW))
	c.TS = r.Int("ts", def.TS, 0, math.MaxInt32, fmt.Sprintf("tasks starting within pw that mark a phase start, Algorithm 1's t_s (default %d)", def.TS))
	c.TE = r.Int("te", def.TE, 0, math.MaxInt32, fmt.Sprintf("tasks completing within pw that mark the start of a phase's release, Algorithm 2's t_e; filters heading tasks (default %d)", def.TE))
	c.Interval = r.Duration("interval", def.Interval, fmt.Sprintf("how often Algorithm 3 re-tunes δ (default %v)", def.Interval))
	c.Horizon = r.Duration("horizon", def.Horizon, "how far ahead releases are predicted (default: one interval, the paper's F(t+1))")
	c.Estimator = r.Choice("estimator", onOff(def.Estimator), []string{"on", "off"}, "release-pattern estimator; off makes F ≡ 0 (the ablation)") == "on"
	c.MaxAMPercent = r.Float("max_am_percent", def.MaxAMPercent, 0, 1, fmt.Sprintf("fraction of the cluster ApplicationMasters may hold, as in Capacity (default %v); one AM may always run", def.MaxAMPercent))
	c.Release = r.Choice("release", def.Release, []string{ReleasePaper, ReleasePhase, ReleaseConst},
		fmt.Sprintf("release estimate when estimator=on: paper = Algorithms 1-2 and Equation 9, phase = each running task ends after its phase's mean observed duration, const = const_rate task containers per second (default %s)", def.Release))
	c.ConstRate = r.Float("const_rate", def.ConstRate, 0, math.MaxFloat64, fmt.Sprintf("release=const: task containers released per second (default %v)", def.ConstRate))
	c.Usable = r.Choice("demand", demandName(def.Usable), []string{"all", "usable"},
		fmt.Sprintf("pending demand in Algorithm 3: all = every unfinished job's (the paper), usable = only jobs that could take a container now, not those the AM limit or admission holds back (default %s)", demandName(def.Usable))) == "usable"
	c.Lend = r.Choice("lend", onOff(def.Lend), []string{"on", "off"},
		fmt.Sprintf("lend a pool's unused room on a node to the other pool when neither can place within its limit; returned as the borrowed containers end (default %s)", onOff(def.Lend))) == "on"
	c.LendAMs = r.Choice("lend_am", onOff(def.LendAMs), []string{"on", "off"},
		fmt.Sprintf("with lend=on, let large jobs' ApplicationMasters borrow too (small jobs' always may) (default %s)", onOff(def.LendAMs))) == "on"
	c.Floor = r.Float("floor", def.Floor, 0, 0.5, fmt.Sprintf("share of the cluster each category keeps while it has usable pending demand: δ stays in [floor, 1-floor]; 0 = none (default %v)", def.Floor))
	return c
}

func demandName(usable bool) string {
	if usable {
		return "usable"
	}
	return "all"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Validate checks what the per-key ranges cannot.
func (c Config) Validate() error {
	switch {
	case c.DeltaMin <= 0 || c.DeltaMax >= 1 || c.DeltaMin > c.DeltaMax:
		return fmt.Errorf("%s: need 0 < delta_min <= delta_max < 1, got delta_min=%v, delta_max=%v", c.Variant, c.DeltaMin, c.DeltaMax)
	case c.Delta0 < c.DeltaMin || c.Delta0 > c.DeltaMax:
		return fmt.Errorf("%s: delta0=%v is outside [delta_min, delta_max] = [%v, %v]", c.Variant, c.Delta0, c.DeltaMin, c.DeltaMax)
	case c.Theta <= 0:
		return fmt.Errorf("%s: theta must be positive", c.Variant)
	}
	return nil
}

// Policy is DRESS.
type Policy struct {
	v       *sched.View
	cfg     Config
	horizon clock.Duration
	m       *meter
	// amLimit is max_am_percent of the cluster, as Capacity's single
	// default queue has; the core's AM-limit test (sched.View.AMRoom)
	// applies it to every AM, one always allowed when none runs.
	amLimit resource.Vector

	delta float64
	// tickChanged says the last Tick moved the pools' limits.
	tickChanged bool
	jobs        []jobInfo // by job id
	pools       [2]pool
	live        [2][]*sched.Job // unfinished jobs of each category, by submission
	est         *Estimator
	phEst       *PhaseEstimator // release=phase
	tasks       int             // task containers running
	// taskUnits is what the running task containers of each category
	// hold, for release=const.
	taskUnits [2]int64
	// held is every container holding resources, by its category: a
	// cluster whose capacity changes (a live cluster's nodes joining
	// after the scheduler started) re-measures them in the new units.
	held map[*sched.Container]Category

	rec recorder
	rt  retune
}

type jobInfo struct {
	cat    Category
	demand int64 // AM plus largest phase, in units
	am     int64 // the AM container, in units

	// The re-tune's bookkeeping (retune.go): where the job's demand is
	// kept and the value counted, whether it changed since, and whether
	// the estimator forecasts its releases.
	where          uint8
	counted        int64
	dirty, tracked bool
}

// waiting reports whether the pool has a job asking for a container.
func (pl *pool) waiting() bool { return pl.tasks.Len() > 0 || pl.ams.Len() > 0 }

type pool struct {
	used int64 // units held by the category's containers
	// taskContainers counts the category's task containers held: while
	// it is 0 the pool may take one that could never fit its limit.
	taskContainers int
	tasks          *jobq.Queue // jobs asking for task containers, by submission
	ams            *jobq.Queue // jobs waiting for their AM container, by submission
}

// New returns a DRESS policy.
func New(v *sched.View, cfg Config) (*Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	capacity := v.Cluster().Capacity()
	p := &Policy{v: v, cfg: cfg, horizon: cfg.Horizon, m: newMeter(capacity), delta: cfg.Delta0, held: map[*sched.Container]Category{}}
	if p.horizon <= 0 {
		p.horizon = cfg.Interval
	}
	p.amLimit = sched.AMLimit(capacity, cfg.MaxAMPercent)
	for i := range p.pools {
		p.pools[i] = pool{tasks: jobq.ByID(jobq.TaskAsks), ams: jobq.ByID(jobq.AMAsks)}
	}
	if cfg.Estimator {
		switch cfg.Release {
		case ReleasePhase:
			p.phEst = NewPhaseEstimator()
		case ReleaseConst:
		default:
			p.est = NewEstimator(cfg.PW, cfg.TS, cfg.TE)
		}
	}
	p.rec.init(cfg.Delta0)
	return p, nil
}

// Delta returns the current reserve ratio.
func (p *Policy) Delta() float64 { return p.delta }

// CategoryOf returns the category job j was given at submission.
func (p *Policy) CategoryOf(j *sched.Job) Category { return p.jobs[j.ID()].cat }

// Estimator returns the release-pattern estimator, nil when it is off.
func (p *Policy) Estimator() *Estimator { return p.est }

// JobSubmitted classifies the job: LD when its demand exceeds θ·X, X being
// the whole cluster or, with classify=available, what is free now.
func (p *Policy) JobSubmitted(j *sched.Job) {
	x := 1.0
	if p.cfg.ClassifyAvailable {
		x = float64(p.available()) / float64(Total)
	}
	cat := SD
	if j.Demand().DominantShare(p.v.Cluster().Capacity()) > p.cfg.Theta*x+1e-12 {
		cat = LD
	}
	info := jobInfo{cat: cat}
	p.measure(j, &info)
	for int(j.ID()) >= len(p.jobs) {
		p.jobs = append(p.jobs, jobInfo{})
	}
	p.jobs[j.ID()] = info
	p.live[cat] = append(p.live[cat], j)
	p.rec.classified(cat)
	p.touch(j)
}

// measure sets the job's declared demand and AM in units: the AM plus its
// largest phase.
func (p *Policy) measure(j *sched.Job, info *jobInfo) {
	info.am, info.demand = p.m.size(j.Spec().AM), 0
	for _, ph := range j.Spec().Phases {
		info.demand = max(info.demand, int64(ph.Tasks)*p.m.size(ph.Request))
	}
	info.demand += info.am
	if j.Open() {
		// A live application declares no phases: its declared peak, AM
		// included, when it gives one, else its AM alone.
		info.demand = max(p.m.size(j.Demand()), info.am)
	}
}

// JobAdmitted marks the job for the re-tune: with demand=usable, a job
// counts only once admitted.
func (p *Policy) JobAdmitted(j *sched.Job) { p.touch(j) }

// AsksChanged files the job under its pool's AM or task asks.
func (p *Policy) AsksChanged(j *sched.Job) {
	pl := &p.pools[p.jobs[j.ID()].cat]
	pl.ams.Update(j)
	pl.tasks.Update(j)
	p.touch(j)
}

// JobFinished drops the job.
func (p *Policy) JobFinished(j *sched.Job) {
	p.AsksChanged(j)
	cat := p.jobs[j.ID()].cat
	live := p.live[cat]
	for i, x := range live {
		if x == j {
			p.live[cat] = append(live[:i], live[i+1:]...)
			break
		}
	}
	if p.est != nil {
		p.est.Forget(int(j.ID()))
	}
	if p.phEst != nil {
		p.phEst.Forget(int(j.ID()))
	}
}

// ContainerChanged keeps the pools' usage and feeds the estimator the
// observed RUNNING and COMPLETED times of task containers.
func (p *Policy) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	j := c.Job()
	cat := p.jobs[j.ID()].cat
	size := p.m.size(c.Request())
	at, _ := c.Time(c.State())
	p.touch(j)
	switch c.State() {
	case sched.Allocated:
		p.held[c] = cat
		p.pools[cat].used += size
		if !c.IsAM() {
			p.pools[cat].taskContainers++
		}
	case sched.Running:
		if !c.IsAM() {
			p.tasks++
			p.taskUnits[cat] += size
			if p.est != nil {
				p.est.Start(int(j.ID()), uint64(c.ID()), at, size)
				p.track(j, cat)
			}
			if p.phEst != nil {
				p.phEst.Start(int(j.ID()), cat, c.Phase(), uint64(c.ID()), at, size)
				p.track(j, cat)
			}
		}
	case sched.Completed, sched.Killed, sched.Failed, sched.Preempted, sched.Lost:
		if from == sched.New || from == sched.Reserved {
			return // never held resources
		}
		delete(p.held, c)
		p.pools[cat].used -= size
		if !c.IsAM() {
			p.pools[cat].taskContainers--
		}
		if !c.IsAM() && from == sched.Running {
			p.tasks--
			p.taskUnits[cat] -= size
			if p.est != nil {
				p.est.Complete(uint64(c.ID()), at)
			}
			if p.phEst != nil {
				p.phEst.Complete(uint64(c.ID()), at)
			}
			p.rec.released(at)
		}
	}
}

// available is A_c in units: what no container holds, and no more than the
// nodes report free.
func (p *Policy) available() int64 {
	return min(max(0, Total-p.pools[SD].used-p.pools[LD].used), p.m.units(p.v.Cluster().Free()))
}

// limit returns the pool limits in units: δ·Tot_R for small jobs and the
// rest for large ones.
func (p *Policy) limit() (sd, ld int64) {
	sd = int64(math.Round(p.delta * float64(Total)))
	return sd, Total - sd
}

// maxLimit is the most a category's pool can be given, in units: δ at
// delta_max for small jobs, at delta_min for large ones.
func (p *Policy) maxLimit(cat Category) int64 {
	if cat == SD {
		return int64(math.Round(p.cfg.DeltaMax * float64(Total)))
	}
	return Total - int64(math.Round(p.cfg.DeltaMin*float64(Total)))
}

// ClusterChanged follows a cluster whose capacity changes: the pools and
// the AM limit are shares of the cluster, so they are measured again
// against the new capacity, and every count in units is made again in the
// new units: what each pool holds, what its running tasks hold (also in
// the release estimate), and each job's declared demand, which the next
// re-tune counts afresh. A job keeps the category it was given at
// submission. Live, 'spindle kube schedule' starts before
// the nodes it will schedule on have joined (a replay creates them): with
// the capacity of the cluster at its start, dress and dress+ kept an AM
// limit and pools sized for the nodes present then, and held most of a
// larger cluster idle (a replay came out at utilization 0.34 against 0.73
// simulated).
func (p *Policy) ClusterChanged(*cluster.Node) {
	capacity := p.v.Cluster().Capacity()
	if capacity == p.m.capacity {
		return
	}
	p.m = newMeter(capacity)
	p.amLimit = sched.AMLimit(capacity, p.cfg.MaxAMPercent)
	p.pools[SD].used, p.pools[LD].used = 0, 0
	p.taskUnits = [2]int64{}
	for c, cat := range p.held {
		size := p.m.size(c.Request())
		p.pools[cat].used += size
		if !c.IsAM() && c.State() == sched.Running {
			p.taskUnits[cat] += size
			if p.est != nil {
				p.est.Resize(uint64(c.ID()), size)
			}
			if p.phEst != nil {
				p.phEst.Resize(uint64(c.ID()), size)
			}
		}
	}
	for id := range p.jobs {
		j := p.v.Job(sched.JobID(id))
		p.measure(j, &p.jobs[id])
		p.touch(j)
	}
}

// Pick serves the small-demand pool first, then the large: in each, the
// earliest-submitted job whose next container fits the node and the pool's
// room (and, for an AM, the AM limit). A pool holding no task container may
// start one that could never fit it.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	free := n.Free()
	sdLimit, ldLimit := p.limit()
	amRoom := p.v.AMRoom(p.amLimit, p.v.Cluster().AMAllocated())
	for cat, limit := range [2]int64{sdLimit, ldLimit} {
		pl := &p.pools[cat]
		if pl.tasks.Len() == 0 && pl.ams.Len() == 0 {
			continue
		}
		roomUnits := limit - pl.used
		if roomUnits <= 0 && pl.taskContainers > 0 {
			continue
		}
		room := free.Min(p.m.room(roomUnits))
		task := pl.tasks.First(n, room)
		if task == nil && pl.taskContainers == 0 {
			// A pool that holds no task container may start one that
			// would not fit it even at its largest share, as an AM
			// limit lets one AM start: δ stays within [delta_min,
			// delta_max], and on a small cluster a job's AM and one
			// task can need more than a pool can ever have; the job
			// would wait for ever, its AM holding a container.
			if a := pl.tasks.First(n, free); a != nil && !a.Request.Fits(p.m.room(p.maxLimit(Category(cat))-pl.used)) {
				task = a
			}
		}
		var am *sched.Ask
		if pl.ams.Len() > 0 {
			am = pl.ams.First(n, room.Min(amRoom))
		}
		if am != nil && (task == nil || am.Job().ID() < task.Job().ID()) {
			return am
		}
		if task != nil {
			return task
		}
	}
	if p.cfg.Lend {
		return p.borrow(n, free, amRoom)
	}
	return nil
}

// borrow is dress+'s lending: once neither pool can place a container
// within its own limit, the earliest ask of either pool that fits the node
// takes it, small jobs first. The borrower's pool then stands over its
// limit, so it gets nothing more within its limits until the borrowed
// containers end, and the lender is served first meanwhile.
//
// Large jobs borrow only for tasks unless lend_am=on: a large job's ApplicationMaster holds
// its container, and a share of the AM limit, for the job's whole life, so
// room lent for it would not come back as tasks end, and AMs of large jobs
// started on borrowed room can fill the AM limit and hold back small jobs.
// A small job's AM may borrow: its life is short.
func (p *Policy) borrow(n *cluster.Node, free, amRoom resource.Vector) *sched.Ask {
	for cat := range p.pools {
		pl := &p.pools[cat]
		task := pl.tasks.First(n, free)
		var am *sched.Ask
		if (cat == int(SD) || p.cfg.LendAMs) && pl.ams.Len() > 0 {
			am = pl.ams.First(n, free.Min(amRoom))
		}
		if am != nil && (task == nil || am.Job().ID() < task.Job().ID()) {
			return am
		}
		if task != nil {
			return task
		}
	}
	return nil
}

// TickChanged reports whether the last re-tune raised the limit of a pool
// that has jobs waiting. The limits (δ, rounded to units) are the only state
// of Pick's that a tick changes: the pools' use, their queues and the AM
// room move with containers and jobs, which the core reconsiders on its own.
// Since the two limits sum to the whole, a re-tune that moves them raises
// one; a lower limit only lets its pool take less, and a higher one for a
// pool with nothing waiting changes no answer (a borrowed container, under
// lending, needs room on the node, which every node lacked for every
// waiting ask when the core last asked).
func (p *Policy) TickChanged() bool { return p.tickChanged }

// TickEvery is the adjustment interval.
func (p *Policy) TickEvery() clock.Duration { return p.cfg.Interval }

// Tick runs Algorithm 3 and records the interval. Its inputs come from
// state kept as jobs change (retune.go), not from a walk of every job.
func (p *Policy) Tick(now clock.Time) {
	sdBefore, ldBefore := p.limit()
	defer func() {
		sd, ld := p.limit()
		p.tickChanged = (sd > sdBefore && p.pools[SD].waiting()) || (ld > ldBefore && p.pools[LD].waiting())
	}()
	p.rec.closeWindows(now)
	in := p.inputsFast(now)
	delta, branch := adjustSets(in.AdjustInput, &p.rt.demand[SD], &p.rt.demand[LD])
	if verifyRetune {
		p.verify(now, in, delta, branch)
	}
	sdPending, ldPending := p.rt.demand[SD].n > 0, p.rt.demand[LD].n > 0
	p.untemp()
	p.delta = min(max(delta, p.cfg.DeltaMin), p.cfg.DeltaMax)
	if p.cfg.Floor > 0 {
		p.delta = applyFloor(p.delta, p.cfg.Floor, sdPending, ldPending)
	}
	p.rec.adjusted(now, p.delta, branch, in.predicted, p.horizon, p.tasks > 0)
}

type inputs struct {
	AdjustInput
	predicted float64 // containers expected to be released, both categories
}

// inputsFull gathers Algorithm 3's quantities in units by walking every
// unfinished job: the reference that inputsFast must equal (tests compare
// them on every tick). A_c is split by the pool limits, a pool over its
// limit (after δ shrank) having nothing available and the other pool no
// more than is actually free.
func (p *Policy) inputsFull(now clock.Time) inputs {
	in := inputs{AdjustInput: AdjustInput{Delta: p.delta, Total: float64(Total)}}
	sdLimit, ldLimit := p.limit()
	ac := p.available()
	a1 := min(max(0, sdLimit-p.pools[SD].used), ac)
	a2 := min(max(0, ldLimit-p.pools[LD].used), ac-a1)
	in.A1, in.A2 = float64(a1), float64(a2)
	var f [2]float64
	amUsed := p.v.Cluster().AMAllocated()
	for cat := range p.live {
		for _, j := range p.live[cat] {
			if p.est != nil {
				n, u := p.est.Predict(int(j.ID()), now, p.horizon)
				f[cat] += u
				in.predicted += n
			}
			if p.phEst != nil {
				n, u := p.phEst.predictFull(int(j.ID()), now, p.horizon)
				f[cat] += u
				in.predicted += n
			}
			if p.cfg.Usable && !p.usable(j, &amUsed) {
				continue
			}
			if r := p.remaining(j); r > 0 {
				if cat == int(SD) {
					in.SD = append(in.SD, float64(r))
				} else {
					in.LD = append(in.LD, float64(r))
				}
			}
		}
	}
	p.constRelease(&f, &in.predicted)
	in.F1, in.F2 = f[SD], f[LD]
	return in
}

// constRelease replaces the forecast f and its count of releases with
// release=const's, when that is the estimate: a fixed number of releases
// per second, weighed at the mean running task and split by what each
// category's tasks hold. The full walk and the incremental re-tune share it.
func (p *Policy) constRelease(f *[2]float64, predicted *float64) {
	if !p.cfg.Estimator || p.cfg.Release != ReleaseConst || p.tasks == 0 {
		return
	}
	n := p.cfg.ConstRate * p.horizon.Seconds()
	n = min(n, float64(p.tasks))
	mean := float64(p.taskUnits[SD]+p.taskUnits[LD]) / float64(p.tasks)
	for cat := range f {
		f[cat] = n * mean * float64(p.taskUnits[cat]) / float64(p.taskUnits[SD]+p.taskUnits[LD])
	}
	*predicted = n
}

// usable reports whether job j could take a container now: it is admitted,
// and if it waits for its ApplicationMaster, the AM fits what the AM limit
// leaves beside amUsed, which the AMs counted so far add to, small jobs
// first.
func (p *Policy) usable(j *sched.Job, amUsed *resource.Vector) bool {
	switch j.State() {
	case sched.Waiting, sched.Finished:
		return false
	case sched.Admitted:
		if j.AM() != nil {
			return true // allocated, starting
		}
		am := j.Spec().AM
		if !am.Fits(p.v.AMRoom(p.amLimit, *amUsed)) {
			return false
		}
		*amUsed = amUsed.Add(am)
	}
	return true
}

// applyFloor keeps δ within [floor, 1-floor] for a category that has
// pending demand, so that neither waits without bound behind the other.
func applyFloor(delta, floor float64, sdPending, ldPending bool) float64 {
	if sdPending {
		delta = max(delta, floor)
	}
	if ldPending {
		delta = min(delta, 1-floor)
	}
	return delta
}

// remaining is a pending job's resource demand r_i in units: a job none of
// whose tasks has been given a container still wants its declared demand
// (less its AM once that runs), the paper's "resource demands of jobs
// obtained from the resource requests"; a job under way wants what its
// outstanding asks request.
func (p *Policy) remaining(j *sched.Job) int64 {
	if j.State() == sched.Finished {
		return 0
	}
	if j.Open() {
		return p.remainingOpen(j)
	}
	started := false
	for k := range j.Spec().Phases {
		if j.Phase(k).Allocated > 0 {
			started = true
			break
		}
	}
	if !started {
		info := p.jobs[j.ID()]
		if j.AM() != nil {
			return info.demand - info.am
		}
		return info.demand
	}
	var r int64
	for i := range j.Asks() {
		if a := &j.Asks()[i]; a.Pending > 0 {
			r += int64(a.Pending) * p.m.size(a.Request)
		}
	}
	return r
}

// remainingOpen is remaining for a live application, which declares no
// phases and asks as it goes: what its requests want now, pending or held
// until its driver starts (its driver's own included while it waits), or,
// before it has asked for any executor, its declared demand less its
// running driver. Counting only declared phases, as for a simulated job,
// would leave a running driver's executors out of Algorithm 3 altogether:
// with nothing else pending, δ then shrinks to delta_min and the small
// pool, holding the driver, has no room left for its executors.
func (p *Policy) remainingOpen(j *sched.Job) int64 {
	var r int64
	asks := j.Asks()
	for i := range asks {
		a := &asks[i]
		r += int64(a.Pending+a.Held()) * p.m.size(a.Request)
	}
	if len(asks) == 1 { // no executor asked for yet
		info := p.jobs[j.ID()]
		declared := info.demand
		if j.AM() != nil {
			declared -= info.am
		}
		r = max(r, declared)
	}
	return r
}

// Report returns δ over time and the estimator's accuracy under "dress".
func (p *Policy) Report() (string, any) {
	return "dress", p.rec.report(p)
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
	_ sched.QuietTicker       = (*Policy)(nil)
	_ sched.ClusterObserver   = (*Policy)(nil)
	_ sched.Reporter          = (*Policy)(nil)
)
