// Package sched is spindle's scheduling core: a YARN-like resource manager
// holding cluster, queue, job and container state, the container lifecycle,
// each job's ApplicationMaster logic (phases asked for in order), and the
// narrow Policy and Admission interfaces through which every scheme decides.
//
// The core knows nothing of how time passes. A driver (the simulator, later a
// live server) calls it when something happens — a job arrives, a node
// heartbeats with container reports, an AM heartbeats — and the core answers
// through the Driver interface (launch this container, wake that AM). Task
// durations never enter the core: it learns that a task ended only when a
// node reports the container COMPLETED, exactly as a real resource manager.
package sched

import (
	"errors"
	"fmt"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// Driver is what the core needs from whatever moves time and runs
// containers.
type Driver interface {
	// Launch starts container c on its node: an AM container when the
	// resource manager launches it, a task container when its AM does. The
	// driver reports RUNNING, and later COMPLETED, through Core.Report.
	Launch(c *Container)
	// Stop ends AM container c because its job is done; the driver reports
	// it COMPLETED through Core.Report.
	Stop(c *Container)
	// WakeAM asks for job j's next AM heartbeat (Core.AMHeartbeat).
	WakeAM(j *Job)
	// Reconsider says demand, resources or policy limits changed: every
	// node for which Core.MayAccept holds should get a node update
	// (Core.NodeUpdate) within one heartbeat interval.
	Reconsider()
	// AcceptLowered says MayAccept may have changed for any node: it may
	// now hold for nodes for which it did not before, because a smaller
	// request was submitted or the external load fell, or no longer hold
	// because the external load rose. The driver re-derives it for every
	// node.
	AcceptLowered()
}

// Config assembles a core.
type Config struct {
	Nodes  []resource.Vector
	Queues []QueueSpec
	Driver Driver
	// NewPolicy and NewAdmission build the policy and admission
	// controller against the core's read-only view.
	NewPolicy    func(v *View) (Policy, error)
	NewAdmission func(v *View) (Admission, error)
	// Debug tracks every live container so Check can verify them; tests
	// set it.
	Debug bool
	// Forecast is what policies are told of the external load to come
	// (View.LoadForecast); nil when the machines are dedicated or nothing
	// is known. The load actually applied is the driver's to set
	// (SetExternalLoad).
	Forecast *cluster.LoadCurve
}

// Core is the resource manager.
type Core struct {
	cl     *cluster.Cluster
	ledger *cluster.Ledger
	view   View
	driver Driver

	policy    Policy
	admission Admission
	obs       observers

	queues      []*Queue
	queueByName map[string]*Queue
	jobs        []*Job
	waiting     []*Job // admission FIFO; waiting[waitHead:] are still waiting
	waitHead    int

	pool containerPool
	now  clock.Time

	// Reservations: the container holding each node for a request that
	// did not fit it, when the policy reserves (YARN's reservation).
	reserving    bool
	reservations []*Container // by node id
	reservedN    int
	pending      int // containers asked for and not allocated, all jobs
	active       int // admitted, unfinished jobs

	// acceptMin is the component-wise minimum of every request submitted:
	// a node whose free resources do not cover it can accept nothing.
	acceptMin resource.Vector
	anyAsk    bool

	progress uint64 // counts state changes, for stall detection
	// retried is progress when waiting jobs were last retried for
	// admission: a driver that elides node updates knows from it whether a
	// retry could now go differently.
	retried uint64

	forecast *cluster.LoadCurve
	extFrac  float64 // external load now applied, as a fraction of each node

	// Utilisation: the integral over time of the cluster's dominant
	// allocated share, and its value at the last task completion.
	utilArea, utilAreaAtLastDone float64
	utilShare                    float64
	utilSince                    clock.Time
	lastTaskDone                 clock.Time

	debug bool
	live  map[*Container]struct{}
	err   error
}

type observers struct {
	submit    []SubmitObserver
	admit     []AdmitObserver
	finish    []FinishObserver
	asks      []AskObserver
	container []ContainerObserver
	node      []NodeObserver
	tick      []Ticker
}

func (o *observers) add(x any) {
	if x == nil {
		return
	}
	if h, ok := x.(SubmitObserver); ok {
		o.submit = append(o.submit, h)
	}
	if h, ok := x.(AdmitObserver); ok {
		o.admit = append(o.admit, h)
	}
	if h, ok := x.(FinishObserver); ok {
		o.finish = append(o.finish, h)
	}
	if h, ok := x.(AskObserver); ok {
		o.asks = append(o.asks, h)
	}
	if h, ok := x.(ContainerObserver); ok {
		o.container = append(o.container, h)
	}
	if h, ok := x.(NodeObserver); ok {
		o.node = append(o.node, h)
	}
	if h, ok := x.(Ticker); ok && h.TickEvery() > 0 {
		o.tick = append(o.tick, h)
	}
}

// NewCore builds a core.
func NewCore(cfg Config) (*Core, error) {
	if len(cfg.Nodes) == 0 {
		return nil, errors.New("cluster has no nodes")
	}
	if cfg.Driver == nil || cfg.NewPolicy == nil {
		return nil, errors.New("core needs a driver and a policy")
	}
	c := &Core{driver: cfg.Driver, queueByName: map[string]*Queue{}, lastTaskDone: -1, debug: cfg.Debug, forecast: cfg.Forecast}
	c.cl, c.ledger = cluster.New(cfg.Nodes)
	c.view = View{c: c}
	specs := cfg.Queues
	if len(specs) == 0 {
		specs = []QueueSpec{{Name: "default", Capacity: 1, MaxCapacity: 1}}
	}
	for i, s := range specs {
		if _, dup := c.queueByName[s.Name]; dup {
			return nil, fmt.Errorf("queue %q defined twice", s.Name)
		}
		q := &Queue{index: i, spec: s}
		c.queues = append(c.queues, q)
		c.queueByName[s.Name] = q
	}
	if cfg.Debug {
		c.live = map[*Container]struct{}{}
	}
	var err error
	if c.policy, err = cfg.NewPolicy(&c.view); err != nil {
		return nil, err
	}
	c.admission = admitAll{}
	if cfg.NewAdmission != nil {
		if c.admission, err = cfg.NewAdmission(&c.view); err != nil {
			return nil, err
		}
	}
	c.obs.add(c.policy)
	c.obs.add(c.admission)
	if r, ok := c.policy.(Reserver); ok && r.Reserves() {
		c.reserving = true
		c.reservations = make([]*Container, len(cfg.Nodes))
	}
	return c, nil
}

type admitAll struct{}

func (admitAll) Admit(*Job) bool { return true }

// View returns the read-only view policies get.
func (c *Core) View() *View { return &c.view }

// Cluster returns the cluster.
func (c *Core) Cluster() *cluster.Cluster { return c.cl }

// Policy returns the policy.
func (c *Core) Policy() Policy { return c.policy }

// Admission returns the admission controller.
func (c *Core) Admission() Admission { return c.admission }

// Jobs returns every job submitted, by id. Callers must not modify it.
func (c *Core) Jobs() []*Job { return c.jobs }

// Err returns the first internal error (a policy breaking its contract, an
// illegal transition); once set, the run's results are not to be trusted.
func (c *Core) Err() error { return c.err }

// Progress counts state changes; a driver that sees it stand still while
// jobs remain knows nothing can move.
func (c *Core) Progress() uint64 { return c.progress }

// HasDemand reports whether any job waits for a container or for admission,
// or a reservation holds a node.
func (c *Core) HasDemand() bool {
	return c.pending > 0 || c.waitHead < len(c.waiting) || c.reservedN > 0
}

// ActiveJobs returns the number of admitted, unfinished jobs.
func (c *Core) ActiveJobs() int { return c.active }

// WaitingJobs returns the number of jobs held by admission control.
func (c *Core) WaitingJobs() int { return len(c.waiting) - c.waitHead }

// AdmissionStale reports whether jobs wait for admission and the state
// changed since they were last retried, so that the next node update could
// admit one.
func (c *Core) AdmissionStale() bool { return c.WaitingJobs() > 0 && c.retried != c.progress }

// MayAccept reports whether node n has room for the smallest request ever
// submitted: a node for which it is false cannot take anything, so a driver
// may skip its heartbeats until it changes.
//
// With a reserving policy every node may: any node update can reserve the
// node for a request too big for what is free.
func (c *Core) MayAccept(n *cluster.Node) bool {
	if c.reserving {
		return c.anyAsk
	}
	return c.anyAsk && c.acceptMin.Fits(n.Free())
}

// NextTick returns the first instant after now at which some periodic
// observer is due, or clock.Never when none is registered.
func (c *Core) NextTick(now clock.Time) clock.Time {
	next := clock.Never
	for _, t := range c.obs.tick {
		e := clock.Time(t.TickEvery())
		next = min(next, (now/e+1)*e)
	}
	return next
}

// Utilization returns the integral of the cluster's dominant allocated share
// over time (in share-microseconds) up to the last task completion, and that
// completion's time (-1 if none).
func (c *Core) Utilization() (area float64, lastTaskDone clock.Time) {
	return c.utilAreaAtLastDone, c.lastTaskDone
}

func (c *Core) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

func (c *Core) advance(now clock.Time) {
	if now < c.now {
		c.fail(fmt.Errorf("time went backwards: %v after %v", now, c.now))
	}
	c.now = now
}

// Submit hands the core a job arriving now.
func (c *Core) Submit(now clock.Time, spec *JobSpec) (*Job, error) {
	c.advance(now)
	q := c.queueByName[spec.Queue]
	if q == nil {
		return nil, fmt.Errorf("job %s: unknown queue %q", spec.Key, spec.Queue)
	}
	if len(spec.Phases) == 0 {
		return nil, fmt.Errorf("job %s: no phases", spec.Key)
	}
	largest := c.cl.Largest()
	if !spec.AM.Fits(largest) {
		return nil, fmt.Errorf("job %s: AM request %v fits no node", spec.Key, spec.AM)
	}
	for k, p := range spec.Phases {
		if p.Tasks <= 0 || p.Request.IsZero() || !p.Request.Fits(largest) {
			return nil, fmt.Errorf("job %s phase %d: needs tasks > 0 and a non-zero request that fits a node", spec.Key, k)
		}
	}
	j := newJob(JobID(len(c.jobs)), spec, q, now, c.cl.Capacity())
	c.jobs = append(c.jobs, j)
	c.lowerAccept(j)
	c.progress++
	for _, o := range c.obs.submit {
		o.JobSubmitted(j)
	}
	c.waiting = append(c.waiting, j)
	c.retryAdmission()
	return j, nil
}

func (c *Core) lowerAccept(j *Job) {
	old, had := c.acceptMin, c.anyAsk
	for i := range j.asks {
		r := j.asks[i].Request
		if r.IsZero() {
			continue // a job without an AM container
		}
		if !c.anyAsk {
			c.acceptMin, c.anyAsk = r, true
		} else {
			c.acceptMin = c.acceptMin.Min(r)
		}
	}
	if !had || c.acceptMin != old {
		c.driver.AcceptLowered()
	}
}

func (c *Core) retryAdmission() {
	for c.waitHead < len(c.waiting) {
		j := c.waiting[c.waitHead]
		if !c.admission.Admit(j) {
			break
		}
		c.waiting[c.waitHead] = nil
		c.waitHead++
		c.admit(j)
	}
	c.retried = c.progress
	// Reclaim the consumed prefix once it dominates the slice.
	if c.waitHead > 64 && c.waitHead*2 > len(c.waiting) {
		n := copy(c.waiting, c.waiting[c.waitHead:])
		clear(c.waiting[n:])
		c.waiting = c.waiting[:n]
		c.waitHead = 0
	}
}

func (c *Core) admit(j *Job) {
	j.state = Admitted
	j.admit = c.now
	j.queue.active++
	c.active++
	c.progress++
	for _, o := range c.obs.admit {
		o.JobAdmitted(j)
	}
	if !j.HasAM() {
		c.startAM(j)
		return
	}
	c.addPending(&j.asks[0], 1)
	c.reconsider()
}

// addPending makes n more containers of ask a outstanding.
func (c *Core) addPending(a *Ask, n int) {
	was := a.Pending
	a.Pending += n
	a.job.pending += n
	c.pending += n
	if was == 0 {
		for _, o := range c.obs.asks {
			o.AsksChanged(a.job)
		}
	}
}

func (c *Core) reconsider() {
	if c.HasDemand() {
		c.driver.Reconsider()
	}
}

// AMStarted tells the core that job j's AM container is running (the AM has
// registered); the AM sends its first asks at once.
func (c *Core) AMStarted(now clock.Time, j *Job) {
	c.advance(now)
	if j.state != Admitted {
		c.fail(fmt.Errorf("job %s: AM started in state %v", j.key, j.state))
		return
	}
	c.startAM(j)
}

func (c *Core) startAM(j *Job) {
	j.state = Active
	j.amStart = c.now
	c.progress++
	c.askReadyPhases(j)
}

// askReadyPhases asks for every phase whose start condition the AM now
// knows to hold.
func (c *Core) askReadyPhases(j *Job) {
	asked := false
	for k := range j.progress {
		p := &j.progress[k]
		if p.asked {
			continue
		}
		if !j.phaseReady(k) {
			break
		}
		p.asked = true
		c.addPending(&j.asks[1+k], j.spec.Phases[k].Tasks)
		asked = true
	}
	if asked {
		c.progress++
		c.reconsider()
	}
}

// NodeUpdate handles a heartbeat of node n after its container reports:
// observers hear of it, waiting jobs are retried for admission, and the
// policy allocates on n for as long as it picks something.
func (c *Core) NodeUpdate(now clock.Time, n *cluster.Node) {
	c.advance(now)
	for _, o := range c.obs.node {
		o.NodeUpdated(n)
	}
	c.retryAdmission()
	if c.reserving && c.reservations[n.ID()] != nil && !c.serveReservation(n) {
		return // the node stays held for its reservation
	}
	for c.pending > 0 && c.err == nil && (c.reserving || c.acceptMin.Fits(n.Free())) {
		a := c.policy.Pick(n)
		if a == nil {
			return
		}
		if err := c.checkPick(n, a); err != nil {
			c.fail(err)
			return
		}
		if !a.Request.Fits(n.Free()) {
			c.reserve(n, a)
			return
		}
		c.allocate(n, a, nil)
	}
}

// reserve holds node n for ask a, which does not fit what n has free: a
// container is created RESERVED on n and n takes nothing else until enough
// frees for it or the ask no longer needs it.
func (c *Core) reserve(n *cluster.Node, a *Ask) {
	ct := c.pool.get()
	ct.job, ct.node, ct.phase, ct.req = a.job, n, a.phase, a.Request
	ct.times[New] = c.now
	if c.live != nil {
		c.live[ct] = struct{}{}
	}
	a.reserved++
	c.reservations[n.ID()] = ct
	c.reservedN++
	c.progress++
	c.transition(ct, Reserved)
}

// serveReservation turns n's reservation into an allocation when it now
// fits, or cancels it (KILLED) when its ask has no more containers to give it;
// it reports whether n is free for other allocations.
func (c *Core) serveReservation(n *cluster.Node) bool {
	ct := c.reservations[n.ID()]
	a := &ct.job.asks[ct.phase+1]
	if a.Pending < a.reserved || ct.job.state == Finished {
		c.unreserve(ct, a)
		c.transition(ct, Killed)
		if c.live != nil {
			delete(c.live, ct)
		}
		c.pool.put(ct)
		return true
	}
	if !ct.req.Fits(n.Free()) {
		return false
	}
	c.unreserve(ct, a)
	c.allocate(n, a, ct)
	return true
}

func (c *Core) unreserve(ct *Container, a *Ask) {
	a.reserved--
	c.reservations[ct.node.ID()] = nil
	c.reservedN--
	c.progress++
}

func (c *Core) checkPick(n *cluster.Node, a *Ask) error {
	j := a.job
	if j == nil || int(j.id) >= len(c.jobs) || c.jobs[j.id] != j || a.phase < AMPhase || int(a.phase)+1 >= len(j.asks) || &j.asks[a.phase+1] != a {
		return fmt.Errorf("policy picked an unknown ask")
	}
	switch {
	case a.Pending <= 0:
		return fmt.Errorf("policy picked an ask of job %s phase %d with nothing pending", j.key, a.phase)
	case !a.Request.Fits(n.Free()) && !c.reserving:
		return fmt.Errorf("policy picked %v for %v, which has only %v free", a.Request, n, n.Free())
	case !a.Request.Fits(n.Free()) && (!a.Request.Fits(n.Capacity()) || a.Pending <= a.reserved):
		return fmt.Errorf("policy reserved %v for %v: it fits no node of that size, or the ask is reserved on enough nodes already", a.Request, n)
	case a.IsAM() && j.state != Admitted, !a.IsAM() && j.state != Active:
		return fmt.Errorf("policy picked an ask of job %s phase %d while the job is %v", j.key, a.phase, j.state)
	}
	return nil
}

// allocate gives one container of ask a on node n; ct is the reserved
// container being fulfilled, or nil for a fresh one.
func (c *Core) allocate(n *cluster.Node, a *Ask, ct *Container) {
	j := a.job
	am := a.IsAM()
	if err := c.ledger.Allocate(n.ID(), a.Request, am); err != nil {
		c.fail(err)
		return
	}
	c.integrateUtil()
	if ct == nil {
		ct = c.pool.get()
		ct.job, ct.node, ct.phase, ct.req = j, n, a.phase, a.Request
		ct.times[New] = c.now
		if c.live != nil {
			c.live[ct] = struct{}{}
		}
	}
	if !am {
		p := &j.progress[a.phase]
		ct.task = p.allocated
		p.allocated++
	}
	j.usage = j.usage.Add(a.Request)
	j.live++
	j.queue.usage = j.queue.usage.Add(a.Request)
	if am {
		j.queue.amUsage = j.queue.amUsage.Add(a.Request)
		j.queue.amCount++
		j.am = ct
	}
	a.Pending--
	j.pending--
	c.pending--
	c.progress++
	c.transition(ct, Allocated)
	if a.Pending == 0 {
		for _, o := range c.obs.asks {
			o.AsksChanged(j)
		}
	}
	if a.Pending == 0 || a.Pending < a.reserved {
		// The ask leaving can unblock asks behind it in a policy that
		// serves in strict order, or free a node reserved for it, on
		// any node.
		c.reconsider()
	}
	if am {
		// The resource manager launches AM containers itself.
		c.transition(ct, Acquired)
		c.driver.Launch(ct)
		return
	}
	j.toAcquire = append(j.toAcquire, ct)
	c.wakeAM(j)
}

func (c *Core) transition(ct *Container, to ContainerState) {
	from := ct.state
	if !CanTransition(from, to) {
		c.fail(fmt.Errorf("%v: illegal transition %v → %v", ct, from, to))
		return
	}
	ct.state = to
	ct.times[to] = c.now
	c.progress++
	for _, o := range c.obs.container {
		o.ContainerChanged(ct, from)
	}
}

func (c *Core) wakeAM(j *Job) {
	if !j.wakeAM {
		j.wakeAM = true
		c.driver.WakeAM(j)
	}
}

// Report applies a node's report that container ct is now RUNNING or
// COMPLETED. A driver calls it for each report a node heartbeat carries,
// then NodeUpdate.
func (c *Core) Report(now clock.Time, ct *Container, s ContainerState) {
	c.advance(now)
	switch s {
	case Running:
		c.transition(ct, Running)
		c.progress++
		if !ct.IsAM() {
			j := ct.job
			j.progress[ct.phase].running++
			if j.firstRun < 0 {
				j.firstRun = c.now
			}
		}
	case Completed:
		c.complete(ct)
	default:
		c.fail(fmt.Errorf("%v: nodes report only RUNNING or COMPLETED, not %v", ct, s))
	}
}

func (c *Core) complete(ct *Container) {
	j := ct.job
	am := ct.IsAM()
	if err := c.ledger.Release(ct.node.ID(), ct.req, am); err != nil {
		c.fail(err)
		return
	}
	c.integrateUtil()
	j.usage = j.usage.Sub(ct.req)
	j.live--
	j.queue.usage = j.queue.usage.Sub(ct.req)
	if am {
		j.queue.amUsage = j.queue.amUsage.Sub(ct.req)
		j.queue.amCount--
		j.am = nil
	} else {
		p := &j.progress[ct.phase]
		p.running--
		p.completedRM++
		j.lastDone = c.now
		c.lastTaskDone = c.now
		c.utilAreaAtLastDone = c.utilArea
		j.amNews = true
		c.wakeAM(j)
	}
	c.progress++
	c.transition(ct, Completed)
	if c.live != nil {
		delete(c.live, ct)
	}
	c.pool.put(ct)
	c.reconsider()
}

// AMHeartbeat runs job j's AM heartbeat: it acquires and launches the
// containers allocated since the last one, hears of completed tasks, asks for
// phases whose turn has come, and unregisters when every task is done.
func (c *Core) AMHeartbeat(now clock.Time, j *Job) {
	c.advance(now)
	j.wakeAM = false
	if j.state != Active {
		return
	}
	for i, ct := range j.toAcquire {
		c.transition(ct, Acquired)
		c.driver.Launch(ct)
		j.toAcquire[i] = nil
	}
	j.toAcquire = j.toAcquire[:0]
	if !j.amNews {
		return
	}
	j.amNews = false
	done := true
	for k := range j.progress {
		p := &j.progress[k]
		p.completedAM = p.completedRM
		done = done && int(p.completedAM) == j.spec.Phases[k].Tasks
	}
	c.progress++
	if done {
		c.finish(j)
		return
	}
	c.askReadyPhases(j)
}

func (c *Core) finish(j *Job) {
	j.state = Finished
	j.finish = c.now
	j.queue.active--
	c.active--
	for _, o := range c.obs.finish {
		o.JobFinished(j)
	}
	if j.am != nil {
		c.driver.Stop(j.am)
	}
	c.retryAdmission()
}

// SetExternalLoad applies an external (non-YARN) load of frac of every
// node's capacity from now on: what YARN may hold on each node shrinks to the
// rest (cluster.ExternalShare rounds the load up). Containers already running
// keep running, even where they now exceed what is usable; a driver measures
// that excess as external demand left unmet. When any node's usable capacity
// changes, the driver re-derives MayAccept for every node; when the load
// falls, nodes are reconsidered too. A rise only takes room away, so it
// needs no visit: a policy whose choices could widen as the machines fill
// must call View.Reconsider itself. The change is not counted as progress: a
// load that keeps varying must not hide a run that can no longer move.
func (c *Core) SetExternalLoad(now clock.Time, frac float64) error {
	c.advance(now)
	if !(frac >= 0 && frac <= 1) {
		return fmt.Errorf("external load %v outside [0, 1]", frac)
	}
	if frac == c.extFrac {
		return nil
	}
	fell := frac < c.extFrac
	c.extFrac = frac
	changed := false
	var lastCap, lastExt resource.Vector // nodes mostly share a few shapes
	for i := range c.cl.NumNodes() {
		n := c.cl.Node(cluster.NodeID(i))
		if cp := n.Capacity(); i == 0 || cp != lastCap {
			lastCap, lastExt = cp, cluster.ExternalShare(cp, frac)
		}
		if lastExt == n.External() {
			continue
		}
		if err := c.ledger.SetExternal(n.ID(), lastExt); err != nil {
			return err
		}
		changed = true
	}
	if changed {
		c.driver.AcceptLowered()
		if fell {
			c.reconsider()
		}
	}
	return nil
}

// ExternalLoad returns the external load now applied, as a fraction of every
// node's capacity.
func (c *Core) ExternalLoad() float64 { return c.extFrac }

// Tick runs the periodic observers whose interval divides now, then retries
// admission and reconsiders every node.
func (c *Core) Tick(now clock.Time) {
	c.advance(now)
	for _, t := range c.obs.tick {
		if now%clock.Time(t.TickEvery()) == 0 {
			t.Tick(now)
		}
	}
	c.retryAdmission()
	c.reconsider()
}

func (c *Core) integrateUtil() {
	c.utilArea += c.utilShare * float64(c.now-c.utilSince)
	c.utilSince = c.now
	c.utilShare = c.cl.Allocated().DominantShare(c.cl.Capacity())
}
