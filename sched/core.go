// Package sched is spindle's scheduling core: a YARN-like resource manager
// holding cluster, queue, job and container state, the container lifecycle,
// each job's ApplicationMaster logic (phases asked for in order), and the
// narrow Policy and Admission interfaces through which every scheme decides.
//
// The core knows nothing of how time passes. A driver (the simulator, or a
// live cluster's driver) calls it when something happens — a job arrives, a
// node heartbeats with container reports, an AM heartbeats or, live, asks
// for a container, a node joins or leaves — and the core answers through the
// Driver interface (launch this container, wake that AM). Task durations
// never enter the core: it learns that a task ended only when a node reports
// the container COMPLETED (or FAILED, LOST...), exactly as a real resource
// manager. live.go holds what only a live cluster needs; docs/core.md gives
// the event contract.
package sched

import (
	"errors"
	"fmt"
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// Driver is what the core needs from whatever moves time and runs
// containers. Its methods are callbacks made while the core is mid-update:
// a driver must only record what they ask and act after the core's call
// returns, never call the core from inside one (a debug core panics if it
// does; reentry.go).
type Driver interface {
	// Launch starts container c on its node: an AM container when the
	// resource manager launches it, a task container when its AM does. The
	// driver reports RUNNING, and later COMPLETED, through Core.Report.
	Launch(c *Container)
	// Stop ends container c, which the core no longer wants: the AM of a
	// job that is done (the driver reports it COMPLETED through
	// Core.Report), or a task of a simulated job that its MapReduce AM
	// preempts (the driver stops it, discards its work, and reports it
	// KILLED).
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

// PolicyFactory builds a policy against the core's view. Drivers take one
// from whoever parsed the command line, so they need not know the registry.
type PolicyFactory func(v *View) (Policy, error)

// AdmissionFactory builds an admission controller against the core's view;
// a nil factory, or a nil controller, admits every job.
type AdmissionFactory func(v *View) (Admission, error)

// Config assembles a core.
type Config struct {
	Nodes []resource.Vector
	// NodeNames optionally names Nodes, in order, with the driver's names
	// (a live cluster's node names); more join later through AddNode.
	NodeNames []string
	Queues    []QueueSpec
	Driver    Driver
	// NewPolicy and NewAdmission build the policy and admission
	// controller against the core's read-only view.
	NewPolicy    PolicyFactory
	NewAdmission AdmissionFactory // nil: admit every job
	// Debug tracks every live container so Check can verify them; tests
	// set it.
	Debug bool
	// Forecast is what policies are told of the external load to come
	// (View.LoadForecast); nil when the machines are dedicated or nothing
	// is known. The load actually applied is the driver's to set
	// (SetExternalLoad).
	Forecast *cluster.LoadCurve
	// MaxAMAttempts is how many times a job's AM may fail before the job
	// ends failed (YARN's yarn.resourcemanager.am.max-attempts); 0 means
	// DefaultMaxAMAttempts.
	MaxAMAttempts int
	// Calculator is how the resource manager compares amounts of
	// resource, for the whole run (yarn.scheduler.capacity.resource-
	// calculator): the ApplicationMaster limit of every policy that has
	// one (View.AMRoom). The zero value is YARN's default, memory only.
	Calculator resource.Calculator
	// MapReduce is the ApplicationMaster the core runs for simulated jobs
	// whose phases start early (mr.go); the zero value is MRNone.
	MapReduce MapReduce
	// GangTimeout is how long an admitted gang may hold its room before
	// all its minimum members are placed (gang.go): past it the room is
	// released and the gang waits to fit together again. 0 means
	// DefaultGangTimeout, negative never; a job's own
	// JobSpec.GangTimeout, when set, overrides it.
	GangTimeout clock.Duration
}

// DefaultMaxAMAttempts is YARN's default for
// yarn.resourcemanager.am.max-attempts.
const DefaultMaxAMAttempts = 2

// Core is the resource manager.
type Core struct {
	cl     *cluster.Cluster
	ledger *cluster.Ledger
	view   View
	driver Driver

	policy    Policy
	admission Admission
	obs       observers

	tree *queueTree
	jobs []*Job
	// waitq is, per queue (by index), the jobs held by admission control
	// in submission order: a refusal holds back the later jobs of its own
	// queue only. nwaiting counts them all; cursor and blocked are
	// retryAdmission's scratch.
	waitq    []waitList
	nwaiting int
	cursor   []int
	blocked  []bool
	// gangs are the admitted gangs whose members are not all placed yet,
	// in admission order; gangScratch, gangFree and gangOrder are
	// gang.go's reused buffers.
	gangs []*Job
	// gangsReleased are the admitted gangs whose room a timeout released,
	// waiting to fit together again; gangTimeout is Config.GangTimeout
	// resolved.
	gangsReleased []*Job
	gangTimeout   clock.Duration
	gangScratch   []gangMember
	gangFree      []resource.Vector
	gangOrder     []int

	pool containerPool
	now  clock.Time

	// Reservations: the container holding each node for a request that
	// did not fit it, when the policy reserves (YARN's reservation).
	reserving    bool
	reservations []*Container // by node id
	reservedN    int
	// reserveTimeout, when positive, expires reservations (ReserveExpirer);
	// expired is, by node id, the ask whose reservation there expired last
	// and until when it may not reserve the node again.
	reserveTimeout clock.Duration
	expired        []expiredReservation
	pending        int // containers asked for and not allocated, all jobs
	active         int // admitted, unfinished jobs

	// acceptMin is the component-wise minimum of every request submitted:
	// a node whose free resources do not cover it can accept nothing.
	acceptMin resource.Vector
	anyAsk    bool

	progress uint64 // counts state changes but reservations, for stall detection
	// retried is progress when waiting jobs were last retried for
	// admission: a driver that elides node updates knows from it whether a
	// retry could now go differently.
	retried uint64

	forecast *cluster.LoadCurve
	extFrac  float64 // external load now applied, as a fraction of each node

	// callingOut is set while a debug core is inside a driver callback
	// (reentry.go).
	callingOut bool

	lastTick clock.Time

	// Utilisation: the integral over time of the cluster's dominant
	// allocated share, and its value at the last task completion.
	utilArea, utilAreaAtLastDone float64
	utilShare                    float64
	utilSince                    clock.Time
	lastTaskDone                 clock.Time

	debug bool
	live  map[*Container]struct{}
	err   error
	// checkHeld is Check's scratch space: what the live simulated
	// containers hold per node, then what their AMs hold, reused so that
	// checking every event allocates nothing.
	checkHeld []resource.Vector

	// Live-driver state: jobs and live containers by the driver's keys,
	// each node's live containers (a linked list through the containers,
	// so that a node leaving ends them all), and how containers ended.
	jobByKey  map[string]*Job
	keyed     map[string]*Container
	asked     map[string]*Job // keys wanted and not yet allocated
	onNode    []*Container    // each node's live containers of Open jobs
	counts    Counts
	maxAMFail int
	calc      resource.Calculator

	// The MapReduce AM (mr.go): its configuration and the jobs whose
	// reduces it ramps up while their maps run.
	mr     MapReduce
	mrJobs []*Job

	// pre is the preemption monitor, nil while preemption is off.
	pre *preemptor
}

type observers struct {
	submit    []SubmitObserver
	admit     []AdmitObserver
	finish    []FinishObserver
	asks      []AskObserver
	container []ContainerObserver
	node      []NodeObserver
	cluster   []ClusterObserver
	adopt     []AdoptObserver
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
	if h, ok := x.(ClusterObserver); ok {
		o.cluster = append(o.cluster, h)
	}
	if h, ok := x.(AdoptObserver); ok {
		o.adopt = append(o.adopt, h)
	}
	if h, ok := x.(Ticker); ok && h.TickEvery() > 0 {
		o.tick = append(o.tick, h)
	}
}

// NewCore builds a core.
func NewCore(cfg Config) (*Core, error) {
	if cfg.Driver == nil || cfg.NewPolicy == nil {
		return nil, errors.New("core needs a driver and a policy")
	}
	c := &Core{driver: cfg.Driver, lastTaskDone: -1, lastTick: -1, debug: cfg.Debug, forecast: cfg.Forecast,
		jobByKey: map[string]*Job{}, keyed: map[string]*Container{}, asked: map[string]*Job{}, maxAMFail: cfg.MaxAMAttempts, calc: cfg.Calculator, mr: cfg.MapReduce}
	if c.maxAMFail <= 0 {
		c.maxAMFail = DefaultMaxAMAttempts
	}
	c.gangTimeout = cfg.GangTimeout
	if c.gangTimeout == 0 {
		c.gangTimeout = DefaultGangTimeout
	}
	if !cfg.Calculator.Valid() {
		return nil, fmt.Errorf("core: %v is not a resource calculator", cfg.Calculator)
	}
	if m := cfg.MapReduce; m.Model > MRHadoop22 || !(m.RampupLimit >= 0 && m.RampupLimit <= 1) || !(m.PreemptionLimit >= 0 && m.PreemptionLimit <= 1) || m.PreemptDelay < 0 {
		return nil, fmt.Errorf("core: bad MapReduce AM configuration %+v", m)
	}
	if len(cfg.NodeNames) > 0 && len(cfg.NodeNames) != len(cfg.Nodes) {
		return nil, fmt.Errorf("%d node names for %d nodes", len(cfg.NodeNames), len(cfg.Nodes))
	}
	c.cl, c.ledger = cluster.New(cfg.Nodes)
	for i, name := range cfg.NodeNames {
		c.ledger.SetName(cluster.NodeID(i), name)
	}
	c.onNode = make([]*Container, len(cfg.Nodes))
	c.view = View{c: c}
	var err error
	if c.tree, err = newQueueTree(cfg.Queues); err != nil {
		return nil, err
	}
	c.waitq = make([]waitList, len(c.tree.queues))
	c.cursor = make([]int, len(c.tree.queues))
	c.blocked = make([]bool, len(c.tree.queues))
	if cfg.Debug {
		c.live = map[*Container]struct{}{}
		c.driver = &reentryGuard{c: c, d: cfg.Driver}
	}
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
	if pp, ok := c.policy.(Preempting); ok {
		if pc := pp.Preemption(); pc != nil {
			if err := pc.check(); err != nil {
				return nil, err
			}
			d, ok := cfg.Driver.(Preempter)
			if !ok {
				return nil, errors.New("preemption is on, but the driver cannot preempt containers")
			}
			if g, ok := c.driver.(*reentryGuard); ok {
				d = g
			}
			c.pre = newPreemptor(c, *pc, pp, d)
			c.obs.tick = append(c.obs.tick, c.pre)
		}
	}
	if r, ok := c.policy.(Reserver); ok && r.Reserves() {
		c.reserving = true
		c.reservations = make([]*Container, len(cfg.Nodes))
		if x, ok := c.policy.(ReserveExpirer); ok && x.ReserveTimeout() > 0 {
			c.reserveTimeout = x.ReserveTimeout()
			c.expired = make([]expiredReservation, len(cfg.Nodes))
		}
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
// jobs remain knows nothing can move. Reservations made and cancelled are
// not counted: they move no job.
func (c *Core) Progress() uint64 { return c.progress }

// HasDemand reports whether any job waits for a container or for admission,
// or a reservation holds a node.
func (c *Core) HasDemand() bool {
	return c.pending > 0 || c.nwaiting > 0 || c.reservedN > 0 || (c.pre != nil && c.pre.nEarmarks > 0)
}

// ActiveJobs returns the number of admitted, unfinished jobs.
func (c *Core) ActiveJobs() int { return c.active }

// WaitingJobs returns the number of jobs held by admission control.
func (c *Core) WaitingJobs() int { return c.nwaiting }

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
	if !n.Schedulable() || n.Full() {
		return false
	}
	if c.pre != nil && len(c.pre.earmarks[n.ID()]) > 0 {
		return true // room held for a preempted-for container
	}
	if c.reserving {
		return c.anyAsk
	}
	return c.anyAsk && c.acceptMin.Fits(n.Free())
}

// TickCycle returns the least common multiple of the periodic observers'
// intervals, the time after which their ticks fall at the same phases
// again, or 0 when none is registered.
func (c *Core) TickCycle() clock.Duration {
	var cycle int64
	for _, t := range c.obs.tick {
		e := int64(t.TickEvery())
		if cycle == 0 {
			cycle = e
			continue
		}
		g := cycle
		for b := e; b != 0; {
			g, b = b, g%b
		}
		if cycle/g > math.MaxInt64/e {
			return clock.Duration(math.MaxInt64)
		}
		cycle = cycle / g * e
	}
	return clock.Duration(cycle)
}

// NextTick returns the first instant after now at which some periodic
// observer is due or an admitted gang's timeout falls (gang.go), or
// clock.Never when there is neither.
func (c *Core) NextTick(now clock.Time) clock.Time {
	next := clock.Never
	for _, t := range c.obs.tick {
		e := clock.Time(t.TickEvery())
		next = min(next, (now/e+1)*e)
	}
	return min(next, c.gangDeadline(now))
}

// Utilization returns the integral of the cluster's dominant allocated share
// over time (in share-microseconds) up to the last task completion, and that
// completion's time (-1 if none).
func (c *Core) Utilization() (area float64, lastTaskDone clock.Time) {
	return c.utilAreaAtLastDone, c.lastTaskDone
}

// UtilizationUntil returns the integral of the dominant allocated share up to
// t, no earlier than the last change of allocation, and the share held then:
// what a run that stopped at t, deadlocked or not, held over its whole span
// and at its stop.
func (c *Core) UtilizationUntil(t clock.Time) (area, share float64) {
	return c.utilArea + c.utilShare*float64(max(0, t-c.utilSince)), c.utilShare
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
	c.enter("Submit")
	c.advance(now)
	q := c.tree.byName[QueuePath(spec.Queue)]
	switch {
	case q == nil:
		return nil, fmt.Errorf("job %s: unknown queue %q", spec.Key, spec.Queue)
	case !q.Leaf():
		return nil, fmt.Errorf("job %s: queue %q is a parent queue; jobs go to its leaves", spec.Key, spec.Queue)
	}
	switch {
	case spec.Open && len(spec.Phases) > 0:
		return nil, fmt.Errorf("job %s: an open job asks as it goes and declares no phases", spec.Key)
	case !spec.Open && len(spec.Phases) == 0:
		return nil, fmt.Errorf("job %s: no phases", spec.Key)
	case spec.Open && spec.Key == "":
		return nil, errors.New("open job without a key")
	case spec.Open && c.jobByKey[spec.Key] != nil && c.jobByKey[spec.Key].state != Finished:
		return nil, fmt.Errorf("job %s: submitted twice", spec.Key)
	case spec.AM.AnyNegative() || spec.Demand.AnyNegative():
		return nil, fmt.Errorf("job %s: negative AM request %v or demand %v", spec.Key, spec.AM, spec.Demand)
	}
	if err := checkGang(spec); err != nil {
		return nil, err
	}
	largest := c.cl.Largest()
	if !spec.Open && !c.fitsPool(spec.AM, spec.Eligible) {
		// An open job's AM may wait for a node that has not joined yet.
		return nil, fmt.Errorf("job %s: AM request %v fits no node", spec.Key, spec.AM)
	}
	for k, p := range spec.Phases {
		if p.Tasks <= 0 || p.Request.IsZero() || !p.Request.Fits(largest) || !c.fitsPool(p.Request, spec.Eligible) {
			return nil, fmt.Errorf("job %s phase %d: needs tasks > 0 and a non-zero request that fits a node", spec.Key, k)
		}
	}
	j := newJob(JobID(len(c.jobs)), spec, q, now, c.cl.Capacity())
	if j.IsGang() && !spec.Open {
		// A simulated cluster never changes: a gang that cannot fit it
		// would wait for ever.
		if members, _ := c.gangMembers(j); !c.gangFits(members, false) {
			return nil, fmt.Errorf("job %s: its %d min_members never fit the cluster together", spec.Key, spec.MinMembers)
		}
	}
	c.jobs = append(c.jobs, j)
	if spec.Open {
		c.jobByKey[spec.Key] = j
	}
	c.lowerAccept(j)
	c.progress++
	for _, o := range c.obs.submit {
		o.JobSubmitted(j)
	}
	c.waitq[q.index].push(j)
	c.nwaiting++
	c.retryAdmission()
	return j, nil
}

// fitsPool reports whether r fits the capacity of some node that eligible
// admits (every node when it is nil); the simulator's jobs must, since its
// nodes never change.
func (c *Core) fitsPool(r resource.Vector, eligible func(*cluster.Node) bool) bool {
	if eligible == nil {
		return r.Fits(c.cl.Largest())
	}
	for i := range c.cl.NumNodes() {
		if n := c.cl.Node(cluster.NodeID(i)); !n.Removed() && r.Fits(n.Capacity()) && eligible(n) {
			return true
		}
	}
	return false
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

// retryAdmission asks admission control about the waiting jobs, in
// submission order across queues: a job it refuses holds back the later
// jobs of its own queue, never those of another, and a job not ready for
// admission (its AM fits no node, or is not asked for yet: readyToAdmit)
// holds back nobody.
func (c *Core) retryAdmission() {
	if c.nwaiting > 0 {
		c.admitWaiting()
	}
	if len(c.gangsReleased) > 0 {
		// After the waiting jobs: a gang whose timeout released its room
		// queues again behind them, as kube-scheduler's coscheduling
		// puts a timed-out group back in its queue.
		c.gangRereserve()
	}
	c.retried = c.progress
}

func (c *Core) admitWaiting() {
	for i := range c.waitq {
		c.cursor[i], c.blocked[i] = c.waitq[i].head, false
	}
	for {
		best := -1
		var next *Job
		for i := range c.waitq {
			if c.blocked[i] {
				continue
			}
			w := &c.waitq[i]
			k := c.cursor[i]
			for k < len(w.jobs) && !c.readyToAdmit(w.jobs[k]) {
				k++
			}
			c.cursor[i] = k
			if k == len(w.jobs) {
				c.blocked[i] = true
				continue
			}
			if j := w.jobs[k]; next == nil || j.id < next.id {
				best, next = i, j
			}
		}
		if next == nil {
			return
		}
		if !c.admission.Admit(next) {
			c.blocked[best] = true
			continue
		}
		c.cursor[best] = c.waitq[best].remove(c.cursor[best])
		c.nwaiting--
		c.admit(next)
	}
}

// readyToAdmit reports whether admission control may be asked about
// waiting job j: an Open job with an AM is asked about once its AM has
// been asked for (its request and placement constraints are then known)
// and only while that request fits some node. A job that could never
// place its AM would otherwise hold what admission control reserves, and,
// at the head of the queue, everyone behind it.
func (c *Core) readyToAdmit(j *Job) bool {
	if j.IsGang() && !c.gangReady(j) {
		return false
	}
	if !j.spec.Open || !j.HasAM() {
		return true
	}
	a := &j.asks[0]
	return len(a.lv.keys) > 0 && !a.lv.unfit
}

// waitList is one queue's jobs waiting for admission, in submission order;
// jobs[head:] are still waiting.
type waitList struct {
	jobs []*Job
	head int
}

func (w *waitList) push(j *Job) { w.jobs = append(w.jobs, j) }

// remove takes out the job at index k and returns the index of the job
// that followed it.
func (w *waitList) remove(k int) int {
	if k == w.head {
		w.jobs[k] = nil
		w.head++
		// Reclaim the consumed prefix once it dominates the slice.
		if w.head > 64 && w.head*2 > len(w.jobs) {
			n := copy(w.jobs, w.jobs[w.head:])
			clear(w.jobs[n:])
			w.jobs = w.jobs[:n]
			w.head = 0
		}
		return w.head
	}
	copy(w.jobs[k:], w.jobs[k+1:])
	w.jobs[len(w.jobs)-1] = nil
	w.jobs = w.jobs[:len(w.jobs)-1]
	return k
}

// waiting returns the queue's waiting jobs in submission order.
func (w *waitList) waiting() []*Job { return w.jobs[w.head:] }

func (c *Core) admit(j *Job) {
	if j.IsGang() {
		c.gangAdmitted(j)
	}
	c.admitted(j)
	if !j.HasAM() {
		c.startAM(j)
		return
	}
	if j.spec.Open {
		// The driver's AM request, if already made, becomes allocatable.
		c.release(&j.asks[0])
	} else {
		c.addPending(&j.asks[0], 1)
	}
	c.reconsider()
}

// admitted records j's admission and tells the observers.
func (c *Core) admitted(j *Job) {
	j.state = Admitted
	j.admit = c.now
	addActive(j.queue, 1)
	c.active++
	c.progress++
	if c.pre != nil {
		c.pre.jobAdmitted(j)
	}
	for _, o := range c.obs.admit {
		o.JobAdmitted(j)
	}
}

// addPending makes n more containers of ask a outstanding (n < 0: fewer).
// Observers hear when the ask starts or stops being outstanding.
func (c *Core) addPending(a *Ask, n int) {
	was := a.Pending
	a.Pending += n
	a.job.pending += n
	c.pending += n
	if c.pre != nil {
		c.pre.pendingChanged(a, n)
	}
	if (was == 0) != (a.Pending == 0) {
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
// registered); the AM sends its first asks at once. An unknown job, or one
// that is not waiting for its AM, is refused with an error.
func (c *Core) AMStarted(now clock.Time, j *Job) error {
	c.enter("AMStarted")
	if !c.known(j) {
		return errors.New("AM started: unknown job")
	}
	c.advance(now)
	if j.state != Admitted || (j.HasAM() && j.am == nil) {
		err := fmt.Errorf("job %s: AM started in state %v", j.key, j.state)
		if !j.spec.Open {
			c.fail(err) // the simulator broke the lifecycle
		}
		return err
	}
	c.startAM(j)
	return nil
}

func (c *Core) startAM(j *Job) {
	j.state = Active
	j.amStart = c.now
	c.progress++
	// Task requests held while no AM ran (an Open job's early asks, or a
	// restarted attempt's) become allocatable.
	released := false
	for i := 1; i < len(j.asks); i++ {
		released = c.release(&j.asks[i]) || released
	}
	if released {
		c.reconsider()
	}
	if j.spec.Open {
		return
	}
	if j.amNews || len(j.toAcquire) > 0 {
		c.wakeAM(j) // a restarted attempt hears what the last one missed
	}
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
		if !c.mrStart(j, k) {
			c.addPending(&j.asks[1+k], j.spec.Phases[k].Tasks)
		}
		j.lastAsked = c.now
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
	c.enter("NodeUpdate")
	c.advance(now)
	for _, o := range c.obs.node {
		o.NodeUpdated(n)
	}
	c.retryAdmission()
	if !n.Schedulable() || n.Full() {
		return
	}
	if c.pre != nil && c.pre.nEarmarks > 0 && len(c.pre.earmarks[n.ID()]) > 0 && c.pre.serve(n) {
		return // the node stays held for the container preempted for
	}
	if c.reserving && c.reservations[n.ID()] != nil && !c.serveReservation(n) {
		return // the node stays held for its reservation
	}
	for c.pending > 0 && c.err == nil && (c.reserving || c.acceptMin.Fits(n.Free())) && !n.Full() {
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
	ct.job, ct.phase, ct.req = a.job, a.phase, a.Request
	ct.place(n)
	ct.times[New] = c.now
	if c.live != nil {
		c.live[ct] = struct{}{}
	}
	a.reserved++
	c.reservations[n.ID()] = ct
	c.reservedN++
	c.transition(ct, Reserved)
}

// serveReservation turns n's reservation into an allocation when it now
// fits, or cancels it (KILLED) when its ask has no more containers to give it
// or it no longer fits what the node offers when empty (the external load
// rose: a reservation must not hold a node for a request the node cannot
// take); it reports whether n is free for other allocations.
func (c *Core) serveReservation(n *cluster.Node) bool {
	ct := c.reservations[n.ID()]
	a := &ct.job.asks[ct.phase+1]
	if a.Pending < a.reserved || ct.job.state == Finished || !a.EligibleOn(n) || !ct.req.Fits(n.Usable()) {
		c.unreserve(ct, a)
		c.transition(ct, Killed)
		if c.live != nil {
			delete(c.live, ct)
		}
		c.pool.put(ct)
		return true
	}
	if !ct.req.Fits(n.Free()) {
		if c.reserveTimeout <= 0 || c.now.Sub(ct.times[New]) < c.reserveTimeout {
			return false
		}
		// Held for the timeout without fitting: the node goes back to
		// everyone, and this ask may not take it again for as long.
		c.expired[n.ID()] = expiredReservation{ask: a, until: c.now.Add(c.reserveTimeout)}
		c.unreserve(ct, a)
		c.transition(ct, Killed)
		if c.live != nil {
			delete(c.live, ct)
		}
		c.pool.put(ct)
		return true
	}
	c.unreserve(ct, a)
	c.allocate(n, a, ct)
	return true
}

// ReservationsExpire reports whether the policy's reservations expire
// (ReserveExpirer): a driver must then update each reserved node at its
// regular heartbeats, since the passing of time alone ends a reservation.
func (c *Core) ReservationsExpire() bool { return c.reserveTimeout > 0 }

// ReservationDeadline returns the earliest instant at which a reservation
// made at or before since expires, or clock.Never: a driver that detects
// stalls waits for it, as the node it frees may let others run. Reservations
// made later do not extend the wait, so that an ask moving its reservation
// from node to node cannot hide a run that no longer moves.
func (c *Core) ReservationDeadline(since clock.Time) clock.Time {
	next := clock.Never
	if c.reserveTimeout <= 0 || c.reservedN == 0 {
		return next
	}
	for _, ct := range c.reservations {
		if ct != nil && ct.times[New] <= since {
			next = min(next, ct.times[New].Add(c.reserveTimeout))
		}
	}
	return next
}

// expiredReservation is an ask whose reservation of a node expired, and
// until when it may not reserve that node again.
type expiredReservation struct {
	ask   *Ask
	until clock.Time
}

func (c *Core) unreserve(ct *Container, a *Ask) {
	a.reserved--
	c.reservations[ct.node.ID()] = nil
	c.reservedN--
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
	case !a.Request.Fits(n.Free()) && (!a.Request.Fits(n.Usable()) || a.Pending <= a.reserved):
		return fmt.Errorf("policy reserved %v for %v: it does not fit what the node offers when empty (%v), or the ask is reserved on enough nodes already", a.Request, n, n.Usable())
	case !a.Request.Fits(n.Free()) && !c.View().MayReserve(a, n):
		return fmt.Errorf("policy reserved %v for %v again before its expired reservation there cooled down", a.Request, n)
	case a.lv != nil && a.lv.eligible != nil && !a.lv.eligible(n):
		return fmt.Errorf("policy picked an ask of job %s phase %d for %v, which its placement constraints exclude", j.key, a.phase, n)
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
		ct.job, ct.phase, ct.req = j, a.phase, a.Request
		ct.place(n)
		ct.times[New] = c.now
		if c.pre != nil {
			ct.room = c.pre.serving
		}
		if c.live != nil {
			c.live[ct] = struct{}{}
		}
	}
	c.link(ct)
	if !am {
		if c.pre != nil {
			c.pre.allocated(ct)
		}
		if j.mr != nil {
			c.mrAllocated(j, ct)
		}
		p := &j.progress[a.phase]
		if r := j.retry; r != nil && len(r[a.phase]) > 0 {
			k := len(r[a.phase])
			ct.task = r[a.phase][k-1]
			r[a.phase] = r[a.phase][:k-1]
		} else {
			ct.task = p.allocated
			p.allocated++
		}
	}
	if a.lv != nil && len(a.lv.keys) > 0 {
		// The container fills the oldest request of the ask.
		ct.key = a.lv.keys[0]
		a.lv.keys[0] = ""
		a.lv.keys = a.lv.keys[1:]
		delete(c.asked, ct.key)
		c.keyed[ct.key] = ct
	}
	j.usage = j.usage.Add(a.Request)
	j.live++
	addUsage(j.queue, a.Request)
	if am {
		j.queue.amUsage = j.queue.amUsage.Add(a.Request)
		j.queue.amCount++
		j.am = ct
	}
	a.Pending--
	j.pending--
	c.pending--
	if c.pre != nil {
		c.pre.pendingChanged(a, -1)
	}
	if j.gang != nil {
		c.gangAllocated(j, a.Request)
	}
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
	if am || j.spec.Open {
		// The resource manager launches AM containers itself; an Open
		// job's AM runs outside the core, so the driver places its
		// tasks as soon as they are decided.
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
	ct.times[slot(to)] = c.now
	if to != Reserved && from != Reserved {
		// A reservation made or cancelled is no progress: it changes
		// no job's state, and under a varying external load a stuck
		// run would make and cancel them for ever.
		c.progress++
	}
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

// Report applies a node's report that container ct is now RUNNING, or ended:
// COMPLETED, or, on a live cluster, FAILED, KILLED, PREEMPTED or LOST. A
// driver calls it for each report a node heartbeat carries, then NodeUpdate.
// A container that ends otherwise than COMPLETED frees its resources and is
// counted apart (Counts, Job.Ends); what follows for its job is in endAbnormal.
// A stale handle (a container that already ended) or a state the container
// cannot reach is refused with an error and changes nothing.
func (c *Core) Report(now clock.Time, ct *Container, s ContainerState) error {
	c.enter("Report")
	if ct == nil || ct.job == nil {
		return fmt.Errorf("report %v: no such live container", s)
	}
	var err error
	switch {
	case s != Running && !s.Terminal():
		err = fmt.Errorf("%v: nodes report only RUNNING or an end, not %v", ct, s)
	case ct.state.Terminal() || ct.state < Allocated:
		err = fmt.Errorf("report %v: %v is not live (%v)", s, ct, ct.state)
	case !CanTransition(ct.state, s):
		err = fmt.Errorf("%v: illegal transition %v → %v", ct, ct.state, s)
	}
	if err != nil {
		if !ct.job.spec.Open {
			c.fail(err) // the simulator broke the lifecycle
		}
		return err
	}
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
		c.endAbnormal(ct, s, false)
	}
	return nil
}

func (c *Core) complete(ct *Container) {
	j := ct.job
	am := ct.IsAM()
	if !c.releaseContainer(ct) {
		return
	}
	if !am {
		if j.mr != nil {
			c.mrEnded(j, ct)
		}
		p := &j.progress[ct.phase]
		p.running--
		p.completedRM++
		j.lastDone = c.now
		c.lastTaskDone = c.now
		c.utilAreaAtLastDone = c.utilArea
		if !j.spec.Open {
			j.amNews = true
			c.wakeAM(j)
		}
	}
	c.progress++
	c.counts.Completed++
	j.ends[0]++ // COMPLETED
	c.transition(ct, Completed)
	if ct.victim {
		c.pre.ended(ct, Completed)
	}
	c.retire(ct)
	if am && j.spec.Open && j.state != Finished {
		c.finish(j) // the AM exited: the application is over
	}
	c.reconsider()
}

// releaseContainer returns what ct holds to its node, job and queue.
func (c *Core) releaseContainer(ct *Container) bool {
	j := ct.job
	am := ct.IsAM()
	if err := c.ledger.Release(ct.nodeID, ct.req, am); err != nil {
		c.fail(err)
		return false
	}
	c.unlink(ct)
	c.integrateUtil()
	j.usage = j.usage.Sub(ct.req)
	j.live--
	subUsage(j.queue, ct.req)
	if am {
		j.queue.amUsage = j.queue.amUsage.Sub(ct.req)
		j.queue.amCount--
		if j.am == ct {
			j.am = nil
		}
	}
	if ct.key != "" {
		delete(c.keyed, ct.key)
	}
	return true
}

// retire forgets an ended container.
func (c *Core) retire(ct *Container) {
	if c.live != nil {
		delete(c.live, ct)
	}
	c.pool.put(ct)
}

// AMHeartbeat runs job j's AM heartbeat: it acquires and launches the
// containers allocated since the last one, hears of completed tasks, asks for
// phases whose turn has come, and unregisters when every task is done.
func (c *Core) AMHeartbeat(now clock.Time, j *Job) {
	c.enter("AMHeartbeat")
	c.advance(now)
	j.wakeAM = false
	if j.state != Active || j.spec.Open {
		return
	}
	for i, ct := range j.toAcquire {
		c.transition(ct, Acquired)
		c.driver.Launch(ct)
		j.toAcquire[i] = nil
	}
	j.toAcquire = j.toAcquire[:0]
	if j.amNews {
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
		if j.mr != nil && int(j.progress[j.mr.m].completedAM) >= j.spec.Phases[j.mr.m].Tasks {
			// Every map done: the reduces are asked for whole, before
			// a later phase may start early in turn.
			c.mrEnd(j)
		}
		c.askReadyPhases(j)
	}
	if j.mr != nil {
		c.mrHeartbeat(j)
	}
}

func (c *Core) finish(j *Job) {
	was := j.state
	if j.mr != nil {
		c.mrEnd(j)
	}
	c.dropAsks(j)
	c.gangDone(j)
	j.state = Finished
	j.finish = c.now
	if len(j.toAcquire) == 0 {
		// The core keeps every job for its results; the buffer, sized by
		// the job's largest burst of allocations, is dead weight from here
		// (about 200 bytes a job on a run of 500,000 jobs).
		j.toAcquire = nil
	}
	if was == Waiting {
		c.unwait(j)
	} else {
		addActive(j.queue, -1)
		c.active--
	}
	for _, o := range c.obs.finish {
		o.JobFinished(j)
	}
	if j.am != nil && !j.spec.Open {
		c.driver.Stop(j.am)
	}
	c.retryAdmission()
	if j.spec.Open || j.failed {
		c.progress++
		c.reconsider()
	}
}

// SetExternalLoad applies an external (non-YARN) load of frac of every
// node's capacity from now on: what YARN may hold on each node shrinks to the
// rest (cluster.ExternalShare rounds the load up). Containers already running
// keep running, even where they now exceed what is usable; a driver measures
// that excess as external demand left unmet. When any node's usable capacity
// changes, the driver re-derives MayAccept for every node; when the load
// falls, nodes are reconsidered too. A rise only takes room away, so it
// needs no visit, unless it leaves a node reserved for a request the node can
// no longer take (its next update cancels the reservation): a policy whose
// choices could widen as the machines fill must call View.Reconsider itself. The change is not counted as progress: a
// load that keeps varying must not hide a run that can no longer move.
func (c *Core) SetExternalLoad(now clock.Time, frac float64) error {
	c.enter("SetExternalLoad")
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
		if n.Removed() {
			continue
		}
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
		if fell || c.reservationUnfit() {
			c.reconsider()
		}
	}
	return nil
}

// reservationUnfit reports whether some node is reserved for a request that
// no longer fits what the node offers when empty: its next update cancels
// the reservation (serveReservation), so a rising load that causes it must
// bring that update as a falling one does.
func (c *Core) reservationUnfit() bool {
	if c.reservedN == 0 {
		return false
	}
	for _, ct := range c.reservations {
		if ct != nil && !ct.req.Fits(ct.node.Usable()) {
			return true
		}
	}
	return false
}

// ExternalLoad returns the external load now applied, as a fraction of every
// node's capacity.
func (c *Core) ExternalLoad() float64 { return c.extFrac }

// Tick runs the periodic observers one of whose interval boundaries falls
// in (the previous Tick, now], then retries admission and reconsiders every
// node. The simulator calls it exactly at NextTick's instants; a live
// driver's timer may fire late, and other events may come in between, so
// what counts is the boundary crossed, not now being one.
func (c *Core) Tick(now clock.Time) {
	c.enter("Tick")
	c.advance(now)
	changed := false
	for _, t := range c.obs.tick {
		e := clock.Time(t.TickEvery())
		if now/e*e > c.lastTick {
			t.Tick(now)
			if q, ok := t.(QuietTicker); !ok || q.TickChanged() {
				changed = true
			}
		}
	}
	c.lastTick = now
	before := c.progress
	c.gangExpire()
	c.retryAdmission()
	if changed || c.progress != before {
		c.reconsider()
	}
}

func (c *Core) integrateUtil() {
	c.utilArea += c.utilShare * float64(c.now-c.utilSince)
	c.utilSince = c.now
	c.utilShare = c.cl.Allocated().DominantShare(c.cl.Capacity())
}
