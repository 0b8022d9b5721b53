package autoadmin

import (
	"math"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Controller is AutoAdmin as a spindle admission controller: the core asks
// Admit for the first waiting job of each queue on every submission, node
// update, job end and tick, which is ARC's waiting queue retried in order
// (one queue per tenant: a job one tenant cannot start never holds back
// another's).
type Controller struct {
	v        *sched.View
	cfg      Config
	capacity resource.Vector
	shapes   []nodeShape
	nodeCaps [resource.NumDims][][2]int64 // per dimension: capacity and count of each shape
	// slots caches Pairs per dimension for the last average sizes, which
	// change far less often than Admit is asked.
	slots [resource.NumDims]slotsMemo
	ric   *RIC

	// amHeld is ARC's TotalAMC_R: the AMs of admitted jobs, counted from
	// admission until their container ends, so that a burst admitted in
	// one instant counts its AMs before any is allocated.
	amHeld resource.Vector
	// gangExtra is, per admitted gang, what amHeld counts of it beyond its
	// AM (admitHeld), returned when the job finishes.
	gangExtra map[sched.JobID]resource.Vector
	running   int // APPLIST_RUN: admitted, unfinished jobs
	waiting   int // APPLIST_WAIT
	forced    int
	kicked    bool // a retry was requested and no Admit call came since

	// What the unfinished jobs declare, for the cold start: the sums of
	// their AM and first-phase task requests.
	declN          int
	declAM, declTC resource.Vector

	// taskSizes counts, per dimension, the unfinished jobs by their
	// largest declared task, for Safe. Safe's granularity is the greatest
	// common divisor of reqGran, every request seen, and nodeGran, the
	// capacities of the nodes that take containers now: the latter is
	// recomputed from the node shapes as they change, so that a node of
	// odd size that has left no longer makes it finer.
	taskSizes [resource.NumDims]map[int64]int
	reqGran   resource.Vector
	nodeGran  resource.Vector

	// Task demand, for Demand: per job what its tasks hold and ask for,
	// and the sum over jobs with any.
	demand     []resource.Vector
	demandSum  resource.Vector
	demandJobs int

	// guard is the deadlock test (Config.Guard), nil without it; tasks is
	// scratch for a job's task requests.
	guard *guard
	tasks []resource.Vector
	// With HoldEarly: hold is scratch for a job's early-starting tasks,
	// and held follows the ones the guard counts.
	hold []resource.Vector
	held *holds

	// With Backlog: per admitted job, its task containers waiting for
	// allocation as last seen, and their sum.
	backlog  map[sched.JobID]int
	backlogN int

	// nodeCap is, per node, the capacity counted in capacity and shapes:
	// its capacity while it takes containers, else zero. ClusterChanged
	// keeps it, and what is summed from it, current as nodes change.
	nodeCap []resource.Vector
	// pools are, by placement class, the nodes a job that may not use
	// every node may use (pools.go), in poolList in creation order too;
	// each follows the cluster's changes.
	pools    map[string]*pool
	poolList []*pool
	// guardPool is the pool under which the guard counted an admitted
	// job's task shapes, for the job's end: the pool may have come to
	// cover every node, or stopped covering them, in between.
	guardPool map[sched.JobID]string

	rec recorder
}

// nodeShape is a node capacity and how many nodes have it, listed in the
// order the shapes first appeared (node order for the nodes there at
// start), so that sums over nodes run in a fixed order.
type nodeShape struct {
	capacity resource.Vector
	count    int
}

// New returns a controller over the core's view.
func New(v *sched.View, cfg Config) *Controller {
	cl := v.Cluster()
	c := &Controller{v: v, cfg: cfg, ric: NewRIC(cl.NumNodes())}
	for i := range cl.NumNodes() {
		n := cl.Node(cluster.NodeID(i))
		var nc resource.Vector
		if n.Schedulable() {
			nc = n.Capacity()
		}
		c.nodeCap = append(c.nodeCap, nc)
		c.capacity = c.capacity.Add(nc)
		c.reshape(nc, 1)
	}
	if cfg.Guard {
		c.guard = newGuard(cl, sustainedLoad(v.LoadForecast()), v.LoadForecast() != nil)
		c.guard.poolNodes = c.poolNodes
		if cfg.HoldEarly {
			c.held = newHolds(cl.NumNodes())
			c.guard.sizes = true
		}
	}
	if cfg.Backlog {
		c.backlog = map[sched.JobID]int{}
	}
	c.rec.init(cfg.Dims)
	return c
}

// reshape counts delta more nodes of capacity nc in the node shapes (zero
// capacity, a node that takes no containers, is not a shape).
func (c *Controller) reshape(nc resource.Vector, delta int) {
	if nc.IsZero() {
		return
	}
	k := slices.IndexFunc(c.shapes, func(s nodeShape) bool { return s.capacity == nc })
	if k < 0 {
		c.shapes = append(c.shapes, nodeShape{capacity: nc})
		k = len(c.shapes) - 1
	}
	if c.shapes[k].count += delta; c.shapes[k].count <= 0 {
		c.shapes = slices.Delete(c.shapes, k, k+1)
	}
	c.nodeGran = resource.Vector{}
	for d := range c.nodeCaps {
		c.nodeCaps[d] = c.nodeCaps[d][:0]
		for _, s := range c.shapes {
			c.nodeCaps[d] = append(c.nodeCaps[d], [2]int64{s.capacity[d], int64(s.count)})
			c.nodeGran[d] = gcd(c.nodeGran[d], s.capacity[d])
		}
	}
	c.slots = [resource.NumDims]slotsMemo{}
}

// Reservation returns the current R_R in every configured dimension.
func (c *Controller) Reservation() resource.Vector {
	_, r := c.predict()
	return r
}

// predict runs RRP in every configured dimension and returns the capacity
// it divided (C_R, or what containers can fill with Packing) and R_R.
func (c *Controller) predict() (capacity, reserve resource.Vector) {
	capacity = c.capacity
	u := c.ric.Total()
	for _, d := range c.cfg.Dims {
		if c.capacity[d] <= 0 {
			continue
		}
		in := InputsFor(c.capacity, u, d)
		if in.Known && c.cfg.Demand && c.demandJobs > 0 {
			in.AvgTC = float64(c.demandSum[d]) / float64(c.demandJobs)
		}
		if !in.Known && c.cfg.ColdStart && c.declN > 0 && c.declTC[d] > 0 {
			in.Known = true
			in.AvgAM = float64(c.declAM[d]) / float64(c.declN)
			in.AvgTC = float64(c.declTC[d]) / float64(c.declN)
		}
		if c.cfg.Slots && in.Known {
			if p, ok := c.pairs(d, in.AvgAM, in.AvgTC); ok {
				in.C = float64(p) * (in.AvgAM + in.AvgTC)
				capacity[d] = int64(math.Floor(in.C))
			}
		}
		if c.cfg.Packing && in.Known {
			in.C = 0
			for _, s := range c.shapes {
				in.C += float64(s.count) * Fill(float64(s.capacity[d]), in.AvgAM, in.AvgTC)
			}
			capacity[d] = int64(math.Floor(in.C))
		}
		reserve[d] = c.cfg.Predict(in, unitOf(d)).Value
		if c.cfg.TasksPerAM > 0 && in.Known {
			// Counted on the whole cluster, then moved into the frame of
			// the capacity divided above, which Slots or Packing may have
			// cut: the AM room left is what matters to ARC.
			whole := PerAMReserve(float64(c.capacity[d]), in.AvgAM, in.AvgTC, c.cfg.TasksPerAM, unitOf(d))
			reserve[d] = max(reserve[d], whole-(c.capacity[d]-capacity[d]))
		}
		if c.cfg.Safe {
			reserve[d] = max(reserve[d], roundUp(float64(c.safeReserve(d)), unitOf(d)))
		}
	}
	return capacity, reserve
}

// slotsMemo is the last answer of Pairs in one dimension.
type slotsMemo struct {
	set      bool
	am, task float64
	pairs    int64
	ok       bool
}

// pairs is Pairs over the cluster's nodes in dimension d, cached.
func (c *Controller) pairs(d resource.Dim, am, task float64) (int64, bool) {
	m := &c.slots[d]
	if !m.set || m.am != am || m.task != task {
		nodes := make([][2]float64, len(c.shapes))
		for i, s := range c.shapes {
			nodes[i] = [2]float64{float64(s.capacity[d]), float64(s.count)}
		}
		p, ok := Pairs(nodes, am, task)
		*m = slotsMemo{set: true, am: am, task: task, pairs: p, ok: ok}
	}
	return m.pairs, m.ok
}

// safeReserve is SafeReserve for the largest task an unfinished job
// declares in dimension d.
func (c *Controller) safeReserve(d resource.Dim) int64 {
	var task int64
	for size := range c.taskSizes[d] {
		task = max(task, size) // the maximum does not depend on map order
	}
	return SafeReserve(c.nodeCaps[d], task, gcd(c.nodeGran[d], c.reqGran[d]))
}

// admissible applies ARC's test to an AM of the given size.
func (c *Controller) admissible(am resource.Vector) bool {
	capacity, reserve := c.predict()
	return Admissible(capacity, c.amHeld, am, reserve, c.cfg.Dims)
}

// RIC returns the collector.
func (c *Controller) RIC() *RIC { return c.ric }

// admitHeld is what ARC counts job j as holding from its admission: its
// AM, or, for a gang, its whole minimum (sched.Job.GangMinimum), since
// the members are placed together and stay, as a driver stays for its
// job's life. A burst of gangs is then admitted only as far as their
// minimums leave R_R for tasks, as a burst of drivers is.
func admitHeld(j *sched.Job) resource.Vector {
	return j.GangMinimum().Max(j.Spec().AM)
}

// holdAdmitted counts admitted job j in amHeld.
func (c *Controller) holdAdmitted(j *sched.Job) {
	held := admitHeld(j)
	c.amHeld = c.amHeld.Add(held)
	if extra := held.Sub(j.Spec().AM); !extra.IsZero() {
		if c.gangExtra == nil {
			c.gangExtra = map[sched.JobID]resource.Vector{}
		}
		c.gangExtra[j.ID()] = extra
	}
}

// wouldAdmit applies ARC's test and, with Guard, the deadlock test.
func (c *Controller) wouldAdmit(j *sched.Job) bool {
	if !c.admissible(admitHeld(j)) {
		return false
	}
	p := c.poolOf(j)
	if p.key != "" {
		if _, _, ok := c.poolTest(p, j.Spec().AM); !ok {
			return false
		}
	}
	if c.backlog != nil && c.backlogN > c.v.Cluster().NumNodes() {
		return false
	}
	if c.guard != nil {
		c.tasks = taskShapes(c.tasks, j)
		return c.guard.safe(j.Spec().AM, c.tasks, c.heldOf(j), p.key)
	}
	return true
}

// heldOf returns job j's tasks that the guard holds like AMs: none without
// HoldEarly.
func (c *Controller) heldOf(j *sched.Job) []resource.Vector {
	if !c.cfg.HoldEarly {
		return nil
	}
	c.hold = heldTasks(c.hold, j)
	return c.hold
}

// Admit applies ARC's test (and the guard) to the first waiting job. A job
// is also let in when nothing at all is admitted, since then no release can
// ever change the answer: that happens for an AM larger than C_R minus the
// idle reservation, which no workload of the paper has, and, with the
// guard, for a job whose own AM may land on the only node its task fits.
func (c *Controller) Admit(j *sched.Job) bool {
	c.kicked = false
	am := j.Spec().AM
	if !c.wouldAdmit(j) {
		if c.running > 0 || !c.amHeld.IsZero() {
			return false
		}
		c.forced++
	}
	if c.guard != nil {
		c.tasks = taskShapes(c.tasks, j)
		key := c.poolOf(j).key
		c.guard.admit(am, c.tasks, c.heldOf(j), key)
		if key != "" {
			if c.guardPool == nil {
				c.guardPool = map[sched.JobID]string{}
			}
			c.guardPool[j.ID()] = key
		}
		if c.held != nil {
			c.held.admit(j)
		}
	}
	c.holdAdmitted(j)
	c.followBacklog(j)
	c.running++
	c.waiting--
	c.note()
	return true
}

// JobSubmitted counts the job as waiting; the core asks Admit next.
func (c *Controller) JobSubmitted(j *sched.Job) {
	c.waiting++
	c.declare(j, 1)
	c.note()
}

// JobFinished takes the job off the running queue. Its AM still holds
// resources until its container ends.
func (c *Controller) JobFinished(j *sched.Job) {
	if j.AdmittedAt() < 0 { // a live job can end while it waits
		c.waiting--
		c.declare(j, -1)
		c.note()
		return
	}
	c.running--
	if extra, ok := c.gangExtra[j.ID()]; ok {
		c.amHeld = c.amHeld.Sub(extra) // its AM's part ends with its container
		delete(c.gangExtra, j.ID())
	}
	c.followBacklog(j)
	if c.guard != nil {
		c.tasks = taskShapes(c.tasks, j)
		key := c.guardPool[j.ID()]
		delete(c.guardPool, j.ID())
		c.guard.finish(c.tasks, key)
	}
	if c.held != nil {
		c.held.finish(j, c.touch)
	}
	c.declare(j, -1)
	c.note()
}

// declare adds (sign 1) or removes (-1) a job's declared requests: its AM,
// and its first phase, one task of it or, with Demand, all of them.
func (c *Controller) declare(j *sched.Job, sign int64) {
	sp := j.Spec()
	c.declN += int(sign)
	c.declAM = c.declAM.Add(sp.AM.Mul(sign))
	var first resource.Vector // an open job declares no phases
	if len(sp.Phases) > 0 {
		first = sp.Phases[0].Request
	}
	if c.cfg.Demand && len(sp.Phases) > 0 {
		first = first.Mul(int64(sp.Phases[0].Tasks))
	}
	c.declTC = c.declTC.Add(first.Mul(sign))
	for d := range c.reqGran {
		c.reqGran[d] = gcd(c.reqGran[d], sp.AM[d])
		for _, p := range sp.Phases {
			c.reqGran[d] = gcd(c.reqGran[d], p.Request[d])
		}
	}
	for _, d := range c.cfg.Dims {
		var largest int64
		for _, p := range sp.Phases {
			largest = max(largest, p.Request[d])
		}
		if c.taskSizes[d] == nil {
			c.taskSizes[d] = map[int64]int{}
		}
		if c.taskSizes[d][largest] += int(sign); c.taskSizes[d][largest] == 0 {
			delete(c.taskSizes[d], largest)
		}
	}
	if sign < 0 && c.cfg.Demand {
		c.updateDemand(j)
	}
}

// AsksChanged follows a job's task demand as its AM asks for a phase.
func (c *Controller) AsksChanged(j *sched.Job) {
	if c.cfg.Demand {
		c.updateDemand(j)
	}
	c.followBacklog(j)
}

// followBacklog refreshes, with Backlog, what job j's tasks wait for: the
// containers its task asks still want while it is admitted and unfinished.
// The core announces a phase's asks (AsksChanged) and every allocation
// (ContainerChanged), which are how the count rises and falls.
func (c *Controller) followBacklog(j *sched.Job) {
	if c.backlog == nil {
		return
	}
	n := 0
	if j.AdmittedAt() >= 0 && j.State() != sched.Finished {
		n = j.Pending()
		if asks := j.Asks(); len(asks) > 0 {
			n -= asks[0].Pending // the AM's own ask
		}
	}
	if old, ok := c.backlog[j.ID()]; ok || n != 0 {
		c.backlogN += n - old
		if n == 0 {
			delete(c.backlog, j.ID())
		} else {
			c.backlog[j.ID()] = n
		}
	}
}

// updateDemand recomputes what job j's tasks hold and ask for.
func (c *Controller) updateDemand(j *sched.Job) {
	for int(j.ID()) >= len(c.demand) {
		c.demand = append(c.demand, resource.Vector{})
	}
	var now resource.Vector
	if j.State() != sched.Finished {
		now = j.Usage()
		if j.AM() != nil {
			now = now.Sub(j.AM().Request())
		}
		asks := j.Asks()
		for i := 1; i < len(asks); i++ {
			now = now.Add(asks[i].Request.Mul(int64(asks[i].Pending)))
		}
	}
	old := &c.demand[j.ID()]
	if !old.IsZero() {
		c.demandJobs--
	}
	if !now.IsZero() {
		c.demandJobs++
	}
	c.demandSum = c.demandSum.Sub(*old).Add(now)
	*old = now
}

// NodeUpdated refreshes the node's record on its heartbeat (Alg. 1). The
// record is already current: allocations and releases refresh it as the
// resource manager makes them (ContainerChanged).
func (c *Controller) NodeUpdated(n *cluster.Node) { c.updateNode(n) }

// touch refreshes node id's records.
func (c *Controller) touch(id int) { c.updateNode(c.v.Cluster().Node(cluster.NodeID(id))) }

// updateNode refreshes node n's record in the RIC and the guard.
func (c *Controller) updateNode(n *cluster.Node) {
	c.ric.Update(n)
	c.guardNode(n)
}

// guardNode refreshes node n's record in the guard, if any: what it
// offers and what AMs, and tasks held like them, hold there.
func (c *Controller) guardNode(n *cluster.Node) {
	if c.guard == nil {
		return
	}
	am := n.AMAllocated()
	if c.held != nil {
		am = am.Add(c.held.at(n.ID()))
	}
	c.guard.node(n, am)
}

// ContainerChanged keeps the RIC current as containers are allocated and
// released, and returns an AM's resources to ARC when its container ends.
// When the change lets the first waiting job in, it asks the core to retry
// soon, as the next node update in YARN would.
func (c *Controller) ContainerChanged(ct *sched.Container, _ sched.ContainerState) {
	s := ct.State()
	if s != sched.Allocated && !s.Terminal() {
		return
	}
	_, wasAllocated := ct.Time(sched.Allocated)
	if c.held != nil && !ct.IsAM() {
		switch {
		case s == sched.Allocated:
			c.held.allocated(ct, c.guard, c.touch)
		case wasAllocated:
			c.held.ended(ct, c.touch)
		}
	}
	c.updateNode(ct.Node())
	if c.guard != nil && s == sched.Allocated && ct.IsAM() {
		c.guard.place(ct.Request())
	}
	if c.cfg.Demand && !ct.IsAM() {
		c.updateDemand(ct.Job())
	}
	if !ct.IsAM() {
		c.followBacklog(ct.Job())
	}
	if s.Terminal() && ct.IsAM() && wasAllocated {
		c.amHeld = c.amHeld.Sub(ct.Request())
	}
	c.note()
	if c.waiting > 0 && !c.kicked {
		c.v.AdmissionHeads(func(j *sched.Job) bool {
			if c.wouldAdmit(j) {
				c.kicked = true
				c.v.Reconsider()
				return false
			}
			return true
		})
	}
}

// note records the state after a change.
func (c *Controller) note() {
	c.rec.note(c.v.Now(), c.Reservation(), c.running, c.waiting)
}

// Report is the "autoadmin" section of a run's summary: the configuration,
// R_R over time and the queue lengths.
func (c *Controller) Report() (string, any) { return "autoadmin", c.rec.report(c.cfg, c.forced) }

// recorder keeps R_R(t) and the queue lengths as a step function, exactly for
// the statistics and thinned to one point per sampleGap for the series, so
// a long run does not produce a series as long as its event log.
type recorder struct {
	dims []resource.Dim

	started  bool
	last     clock.Time
	reserve  resource.Vector
	running  int
	waiting  int
	area     [resource.NumDims]float64 // ∫ R_R dt, in unit·µs
	first    clock.Time
	min, max resource.Vector
	maxRun   int
	maxWait  int

	lastPoint clock.Time
	t         []float64
	r         [resource.NumDims][]float64
	admitted  []int
	waits     []int
}

// sampleGap is the least time between two points of the series; each point
// holds the state at the end of the changes within sampleGap of it.
const sampleGap = clock.Second

func (r *recorder) init(dims []resource.Dim) { r.dims = dims }

func (r *recorder) note(now clock.Time, reserve resource.Vector, running, waiting int) {
	if r.started && reserve == r.reserve && running == r.running && waiting == r.waiting {
		return
	}
	if !r.started {
		r.started, r.first, r.min, r.max = true, now, reserve, reserve
	} else {
		for _, d := range r.dims {
			r.area[d] += float64(r.reserve[d]) * float64(now-r.last)
		}
	}
	r.last, r.reserve, r.running, r.waiting = now, reserve, running, waiting
	r.min, r.max = r.min.Min(reserve), r.max.Max(reserve)
	r.maxRun, r.maxWait = max(r.maxRun, running), max(r.maxWait, waiting)

	n := len(r.t)
	if n == 0 || now >= r.lastPoint.Add(sampleGap) {
		r.lastPoint = now
		r.t = append(r.t, now.Seconds())
		for _, d := range r.dims {
			r.r[d] = append(r.r[d], display(d, reserve[d]))
		}
		r.admitted = append(r.admitted, running)
		r.waits = append(r.waits, waiting)
		return
	}
	for _, d := range r.dims {
		r.r[d][n-1] = display(d, reserve[d])
	}
	r.admitted[n-1], r.waits[n-1] = running, waiting
}

// display converts a stored amount to its unit in reports: vcores, MiB.
func display(d resource.Dim, x int64) float64 {
	if d == resource.VCores {
		return float64(x) / resource.MilliPerVCore
	}
	return float64(x)
}

// Report is the JSON form of the "autoadmin" section.
type Report struct {
	Config string `json:"config"`
	// Reserve statistics by dimension name, in vcores or MiB; the
	// average is over time, from the first submission to the last change.
	ReserveMin map[string]float64 `json:"reserve_min"`
	ReserveMax map[string]float64 `json:"reserve_max"`
	ReserveAvg map[string]float64 `json:"reserve_avg"`
	// AdmittedMax and WaitingMax are the longest running and waiting
	// queues.
	AdmittedMax int `json:"admitted_max"`
	WaitingMax  int `json:"waiting_max"`
	// Forced counts jobs let in only because nothing else was admitted.
	Forced int    `json:"forced_admissions"`
	Series Series `json:"series"`
}

// Series is R_R(t) and the queue lengths, one point per second at most,
// in columns.
type Series struct {
	T        []float64            `json:"t_s"`
	Reserve  map[string][]float64 `json:"reserve"`
	Admitted []int                `json:"admitted"`
	Waiting  []int                `json:"waiting"`
}

func (r *recorder) report(cfg Config, forced int) Report {
	rep := Report{
		Config:     cfg.String(),
		ReserveMin: map[string]float64{}, ReserveMax: map[string]float64{}, ReserveAvg: map[string]float64{},
		AdmittedMax: r.maxRun, WaitingMax: r.maxWait, Forced: forced,
		Series: Series{T: r.t, Reserve: map[string][]float64{}, Admitted: r.admitted, Waiting: r.waits},
	}
	if rep.Series.T == nil {
		rep.Series.T, rep.Series.Admitted, rep.Series.Waiting = []float64{}, []int{}, []int{}
	}
	span := float64(r.last - r.first)
	for _, d := range r.dims {
		name := d.Name()
		rep.ReserveMin[name], rep.ReserveMax[name] = display(d, r.min[d]), display(d, r.max[d])
		avg := float64(r.reserve[d])
		if span > 0 {
			avg = r.area[d] / span
		}
		if d == resource.VCores {
			avg /= resource.MilliPerVCore
		}
		rep.ReserveAvg[name] = math.Round(avg*1000) / 1000
		rep.Series.Reserve[name] = r.r[d]
		if rep.Series.Reserve[name] == nil {
			rep.Series.Reserve[name] = []float64{}
		}
	}
	return rep
}

// ForcedAdmissions counts the jobs let in only because nothing else was
// admitted: the one case in which the guard cannot promise progress.
func (r Report) ForcedAdmissions() int { return r.Forced }

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Admission         = (*Controller)(nil)
	_ sched.SubmitObserver    = (*Controller)(nil)
	_ sched.AskObserver       = (*Controller)(nil)
	_ sched.FinishObserver    = (*Controller)(nil)
	_ sched.ContainerObserver = (*Controller)(nil)
	_ sched.NodeObserver      = (*Controller)(nil)
	_ sched.AdoptObserver     = (*Controller)(nil)
	_ sched.Explainer         = (*Controller)(nil)
	_ sched.Reporter          = (*Controller)(nil)
	_ sched.ClusterObserver   = (*Controller)(nil)
)
