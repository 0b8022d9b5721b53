package sched

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// This file holds what a live driver needs beyond the simulator: a cluster
// whose nodes come and go, applications whose AM runs outside the core and
// asks as it goes, containers that end otherwise than COMPLETED, decisions
// the driver may refuse, and containers adopted on start. Every method is
// called from the driver's one event-loop goroutine with the driver's clock,
// leaves the invariants (Check) true, and answers a stale or unknown handle
// with an error, changing nothing.

// Request is one container a driver asks for on behalf of an Open job's AM
// (in Kubernetes: one pending pod).
type Request struct {
	// Key is the driver's handle for this one container, e.g. a pod's
	// namespace/name; unique among requests and live containers.
	Key      string
	Resource resource.Vector
	// Class groups requests: those of one job with the same Resource and
	// Class share an Ask. The driver derives it from the placement
	// constraints, so requests of one class must have the same Eligible.
	Class string
	// Eligible is the node-side constraints (node selector, required
	// affinity, taints and tolerations): nil admits any node. It is kept
	// from the first request of its ask.
	Eligible func(n *cluster.Node) bool
	// AM marks the job's own AM container (the Spark driver pod): it fills
	// the job's AM ask, its Resource must equal JobSpec.AM, and it is
	// allocatable once admission control lets the job in. The contract's
	// "AM ask" is spelled as this flag so that the AM carries a key and
	// constraints like any other request.
	AM bool
}

// Counts is how the core's containers ended, and what became of jobs whose
// AM failed; failures are kept apart from completions.
type Counts struct {
	Completed, Killed, Failed, Preempted, Lost int
	// Refused counts allocations the driver could not carry out
	// (Core.Refuse); they are not in Killed.
	Refused int
	// AMRetries counts AM attempts started again after an AM ended other
	// than COMPLETED; JobsFailed the jobs that ran out of attempts.
	AMRetries, JobsFailed int
	// ReducesPreempted counts the tasks of simulated jobs that their
	// MapReduce AM killed to make room for the phase before (a reduce
	// preempted for maps; mr.go). They are in Killed too; their work is
	// lost and done again.
	ReducesPreempted int
}

// ClusterObserver hears of every change to the set of nodes or to a node's
// capacity, schedulability or held capacity, after it is applied. Policies
// that derive state from the cluster at construction implement it to follow
// a live cluster.
type ClusterObserver interface{ ClusterChanged(n *cluster.Node) }

// AdoptObserver hears of every job admitted because a container of it was
// found running (Core.Adopt) rather than by Admission.Admit, right after
// the AdmitObservers: an admission controller that counts what Admit let in
// counts these too.
type AdoptObserver interface{ JobAdopted(j *Job) }

// Explainer is implemented by admission controllers that can say why a
// waiting job waits (e.g. "AutoAdmin: 3 vcores free for AMs, AM needs 1;
// reserve R_R = 40 vcores for tasks"); a live driver shows it on the job's AM.
type Explainer interface{ WaitReason(j *Job) string }

// Counts returns how containers ended so far.
func (c *Core) Counts() Counts { return c.counts }

// JobByKey returns the Open job submitted with JobSpec.Key key (the latest
// one, if a finished job's key was used again), or nil.
func (c *Core) JobByKey(key string) *Job { return c.jobByKey[key] }

// ContainerByKey returns the live container that fills request key, or nil.
func (c *Core) ContainerByKey(key string) *Container { return c.keyed[key] }

// AskedBy returns the job whose pending request has key key, or nil.
func (c *Core) AskedBy(key string) *Job { return c.asked[key] }

// ContainersOn calls f for every live container of an Open job on node n
// until f returns false. The containers must not change during the walk.
func (c *Core) ContainersOn(n cluster.NodeID, f func(ct *Container) bool) {
	if int(n) < 0 || int(n) >= len(c.onNode) {
		return
	}
	for ct := c.onNode[n]; ct != nil; ct = ct.next {
		if !f(ct) {
			return
		}
	}
}

// WaitReason says why job j is not yet running: for a job waiting for
// admission, that its AM fits no node (or is not asked for yet), that it
// waits behind an earlier job of its queue, or the admission controller's
// words when it is an Explainer; for an admitted gang whose timeout
// released its room, why its members wait; else where j stands.
func (c *Core) WaitReason(j *Job) string {
	if !c.known(j) {
		return "unknown job"
	}
	if why := c.GangReleasedReason(j); why != "" {
		return why
	}
	if j.state != Waiting {
		return j.Describe()
	}
	if j.spec.Open && j.HasAM() {
		switch a := &j.asks[0]; {
		case len(a.lv.keys) == 0:
			return "its AM has not been asked for yet"
		case a.lv.unfit:
			return fmt.Sprintf("its AM request %v fits no node it may use; admission control is not asked about it, and it holds nobody back", a.Request)
		}
	}
	if j.IsGang() {
		if why := c.gangWaitReason(j); why != "" {
			return why
		}
	}
	for _, h := range c.waitq[j.queue.index].waiting() {
		if h == j {
			break
		}
		if c.readyToAdmit(h) {
			return fmt.Sprintf("waits behind job %s, which admission control holds: a queue's jobs are admitted in submission order (queue %s)", h.key, j.queue.Name())
		}
	}
	if e, ok := c.admission.(Explainer); ok {
		return e.WaitReason(j)
	}
	return j.Describe()
}

func (c *Core) known(j *Job) bool {
	return j != nil && int(j.id) >= 0 && int(j.id) < len(c.jobs) && c.jobs[j.id] == j
}

func (c *Core) node(id cluster.NodeID) (*cluster.Node, error) {
	n := c.cl.Lookup(id)
	if n == nil {
		return nil, fmt.Errorf("no node %d", id)
	}
	if n.Removed() {
		return nil, fmt.Errorf("%v has left the cluster", n)
	}
	return n, nil
}

// allocatable reports whether ask a may be allocated in its job's present
// state: an AM while the job is admitted and has none, tasks while the AM
// runs.
func allocatable(a *Ask) bool {
	j := a.job
	if a.lv != nil && a.lv.unfit {
		return false // no node it may use is large enough
	}
	if j.gang != nil && j.gang.released {
		return false // a gang whose timeout released its room (gang.go)
	}
	if a.IsAM() {
		return j.state == Admitted && j.am == nil
	}
	return j.state == Active
}

// want adds n wanted containers to ask a: pending when allocatable, else
// held until the job's state allows them.
func (c *Core) want(a *Ask, n int) {
	if allocatable(a) {
		c.addPending(a, n)
	} else {
		a.held += n
	}
}

// release makes ask a's held containers pending when it has become
// allocatable, and reports whether there were any.
func (c *Core) release(a *Ask) bool {
	if a.held == 0 || !allocatable(a) {
		return false
	}
	n := a.held
	a.held = 0
	c.addPending(a, n)
	return true
}

// hold withdraws ask a's pending containers into held (the job left the
// state that allows them), earmarked ones too.
func (c *Core) hold(a *Ask) {
	if n := a.Pending; n > 0 {
		c.addPending(a, -n)
		a.held += n
	}
	if c.pre != nil {
		c.pre.dropMarks(a, true)
	}
}

// dropAsks withdraws everything job j still wants.
func (c *Core) dropAsks(j *Job) {
	for i := range j.asks {
		a := &j.asks[i]
		if a.lv != nil {
			for _, k := range a.lv.keys {
				delete(c.asked, k)
			}
			a.lv.keys = nil
		}
		a.held = 0
		if a.Pending > 0 {
			c.addPending(a, -a.Pending)
		}
		if c.pre != nil {
			c.pre.dropMarks(a, false)
		}
	}
}

// unwait takes job j out of the admission queue.
func (c *Core) unwait(j *Job) {
	w := &c.waitq[j.queue.index]
	for i := w.head; i < len(w.jobs); i++ {
		if w.jobs[i] == j {
			w.remove(i)
			c.nwaiting--
			return
		}
	}
}

// fitsSomeNode reports whether ask a's request fits the capacity of some
// node that has not left and that its placement constraints admit,
// whatever that node holds now. One that fits none can never be placed
// until the nodes change.
func (c *Core) fitsSomeNode(a *Ask) bool {
	for i := range c.cl.NumNodes() {
		n := c.cl.Node(cluster.NodeID(i))
		if !n.Removed() && a.Request.Fits(n.Capacity()) && (a.lv == nil || a.lv.eligible == nil || a.lv.eligible(n)) {
			return true
		}
	}
	return false
}

// refit re-derives, after nodes joined, left or changed in size or in what
// placement constraints they meet, which of the Open jobs' asks fit no
// node: one that fits again becomes allocatable, one that fits no more is
// held (Ask.Unfit). It reports whether any became allocatable.
func (c *Core) refit() bool {
	if len(c.jobByKey) == 0 {
		return false
	}
	freed := false
	for _, j := range c.jobs {
		if !j.spec.Open || j.state == Finished {
			continue
		}
		for i := range j.asks {
			a := &j.asks[i]
			fit := c.fitsSomeNode(a)
			switch {
			case a.lv.unfit && fit:
				a.lv.unfit = false
				freed = c.release(a) || freed
				if i == 0 && j.state == Waiting {
					freed = true // the job may now be admitted
				}
			case !a.lv.unfit && !fit:
				a.lv.unfit = true
				c.hold(a)
			}
		}
	}
	return freed
}

// ConstraintsChanged tells the core that the driver's placement
// predicates (Request.Eligible) may now answer differently for node n (its
// labels or taints changed): asks that fit no node, or fit only there, are
// checked again.
func (c *Core) ConstraintsChanged(now clock.Time, n cluster.NodeID) error {
	c.enter("ConstraintsChanged")
	node, err := c.node(n)
	if err != nil {
		return fmt.Errorf("constraints changed: %w", err)
	}
	c.advance(now)
	c.clusterChanged(node, c.refit())
	return nil
}

func (c *Core) lowerAcceptVec(r resource.Vector) {
	if !c.anyAsk {
		c.acceptMin, c.anyAsk = r, true
	} else if m := c.acceptMin.Min(r); m != c.acceptMin {
		c.acceptMin = m
	} else {
		return
	}
	c.driver.AcceptLowered()
}

// link lists ct on its node. Only Open jobs' containers are listed: a live
// cluster's nodes leave, the simulator's never do, so it pays nothing.
func (c *Core) link(ct *Container) {
	if !ct.job.spec.Open {
		return
	}
	id := ct.node.ID()
	ct.prev, ct.next = nil, c.onNode[id]
	if ct.next != nil {
		ct.next.prev = ct
	}
	c.onNode[id] = ct
}

func (c *Core) unlink(ct *Container) {
	if !ct.job.spec.Open {
		return
	}
	if ct.prev != nil {
		ct.prev.next = ct.next
	} else {
		c.onNode[ct.node.ID()] = ct.next
	}
	if ct.next != nil {
		ct.next.prev = ct.prev
	}
	ct.prev, ct.next = nil, nil
}

// Ask records one request of Open job j's AM (or, with r.AM, the job's own
// AM container) and returns the ask it joins. Task requests are allocatable
// only while the job is Active (its AM has started, AMStarted): executors are
// never placed before their driver; earlier ones are held (Ask.Held) until
// then.
func (c *Core) Ask(now clock.Time, j *Job, r Request) (*Ask, error) {
	c.enter("Ask")
	switch {
	case !c.known(j):
		return nil, fmt.Errorf("ask %q: unknown job", r.Key)
	case !j.spec.Open:
		return nil, fmt.Errorf("ask %q: job %s is not open (its AM is the core's)", r.Key, j.key)
	case j.state == Finished:
		return nil, fmt.Errorf("ask %q: job %s has ended", r.Key, j.key)
	case r.Key == "":
		return nil, fmt.Errorf("job %s: request without a key", j.key)
	case c.asked[r.Key] != nil || c.keyed[r.Key] != nil:
		return nil, fmt.Errorf("ask %q: already asked for or placed", r.Key)
	case r.Resource.IsZero() || r.Resource.AnyNegative():
		return nil, fmt.Errorf("ask %q: request %v must be non-zero and non-negative", r.Key, r.Resource)
	}
	var a *Ask
	if r.AM {
		a = &j.asks[0]
		switch {
		case !j.HasAM():
			return nil, fmt.Errorf("ask %q: job %s runs without an AM", r.Key, j.key)
		case r.Resource != j.spec.AM:
			return nil, fmt.Errorf("ask %q: AM request %v differs from job %s's declared AM %v", r.Key, r.Resource, j.key, j.spec.AM)
		case j.am != nil || len(a.lv.keys) > 0:
			return nil, fmt.Errorf("ask %q: job %s already has its AM asked for or running", r.Key, j.key)
		}
		a.lv.class, a.lv.eligible = r.Class, r.Eligible
		a.lv.unfit = !c.fitsSomeNode(a)
	} else {
		for i := 1; i < len(j.asks); i++ {
			if b := &j.asks[i]; b.Request == r.Resource && b.lv.class == r.Class {
				a = b
				break
			}
		}
		if a == nil {
			j.asks = append(j.asks, Ask{job: j, phase: int32(len(j.asks) - 1), Request: r.Resource, lv: &askLive{class: r.Class, eligible: r.Eligible}})
			j.progress = append(j.progress, phaseProgress{asked: true})
			a = &j.asks[len(j.asks)-1]
			a.lv.unfit = !c.fitsSomeNode(a)
		}
	}
	c.advance(now)
	a.lv.keys = append(a.lv.keys, r.Key)
	c.asked[r.Key] = j
	c.progress++
	c.lowerAcceptVec(r.Resource)
	c.want(a, 1)
	if (r.AM || j.IsGang()) && j.state == Waiting {
		c.retryAdmission() // the job may now be ready to be asked about
	}
	c.reconsider()
	return a, nil
}

// Cancel withdraws the pending request key of job j (a pod deleted before
// it was bound).
func (c *Core) Cancel(now clock.Time, j *Job, key string) error {
	c.enter("Cancel")
	if !c.known(j) || c.asked[key] != j {
		return fmt.Errorf("cancel %q: no such pending request", key)
	}
	c.advance(now)
	for i := range j.asks {
		a := &j.asks[i]
		for k, x := range a.lv.keys {
			if x != key {
				continue
			}
			a.lv.keys = append(a.lv.keys[:k:k], a.lv.keys[k+1:]...)
			delete(c.asked, key)
			if j.gang != nil {
				// A member withdrawn is room no longer owed: later
				// gangs must not wait for it for ever.
				c.gangAllocated(j, a.Request)
			}
			switch {
			case a.held > 0:
				a.held--
			case a.Pending == 0 && a.marked > 0:
				c.pre.dropOne(a) // the request room was held for is gone
			default:
				c.addPending(a, -1)
			}
			c.progress++
			c.reconsider() // a reservation for it may now be released
			return nil
		}
	}
	c.fail(fmt.Errorf("cancel %q: indexed for job %s but in none of its asks", key, j.key))
	return c.err
}

// EndJob ends Open job j because its AM exited, whatever it still asks for:
// its pending requests are dropped; its containers still live are the
// driver's to report as they end.
func (c *Core) EndJob(now clock.Time, j *Job) error {
	c.enter("EndJob")
	switch {
	case !c.known(j):
		return errors.New("end job: unknown job")
	case !j.spec.Open:
		return fmt.Errorf("end job %s: not open (its AM is the core's)", j.key)
	case j.state == Finished:
		return fmt.Errorf("end job %s: already ended", j.key)
	}
	c.advance(now)
	c.finish(j)
	return nil
}

// Refuse undoes the allocation of ct, which the driver could not carry out
// (the bind failed, the pod changed): its resources are freed and its
// request is pending again, at the head of its ask. Only a container not yet
// RUNNING can be refused. It ends KILLED and is counted in Counts.Refused.
func (c *Core) Refuse(now clock.Time, ct *Container, reason string) error {
	c.enter("Refuse")
	if ct == nil || ct.job == nil || (ct.state != Allocated && ct.state != Acquired) {
		return fmt.Errorf("refuse (%s): no allocated, unstarted container", reason)
	}
	c.advance(now)
	c.endAbnormal(ct, Killed, true)
	return nil
}

// endAbnormal ends live container ct in state s (KILLED, FAILED, PREEMPTED,
// LOST) or, when refused, undoes its allocation. What follows for its job:
//   - a refused request is pending again at the head of its ask;
//   - a simulated job's task that ended unfinished is asked for again (its
//     AM re-asks, and the task keeps its index); an Open job's AM re-asks
//     itself, through the driver, so nothing is re-opened for it;
//   - an AM that ended otherwise than COMPLETED: see amEnded.
func (c *Core) endAbnormal(ct *Container, s ContainerState, refused bool) {
	j := ct.job
	am := ct.IsAM()
	from := ct.state
	key, task := ct.key, ct.task
	if from == Allocated && !am && !j.spec.Open {
		for i, x := range j.toAcquire {
			if x == ct {
				j.toAcquire = append(j.toAcquire[:i], j.toAcquire[i+1:]...)
				break
			}
		}
	}
	if !c.releaseContainer(ct) {
		return
	}
	if !am && from == Running {
		j.progress[ct.phase].running--
	}
	switch {
	case refused:
		c.counts.Refused++
	case s == Killed:
		c.counts.Killed++
	case s == Failed:
		c.counts.Failed++
	case s == Preempted:
		c.counts.Preempted++
	case s == Lost:
		c.counts.Lost++
	}
	j.ends[s-Completed]++
	c.progress++
	a := &j.asks[ct.phase+1]
	// A simulated job's task ends KILLED only when its MapReduce AM
	// preempted it; the driver may still hold events for it, so its memory
	// is not reused (containerPool.put).
	amKilled := !am && !j.spec.Open && s == Killed && !refused
	// Any end of a reduce leaves its MapReduce AM's lists (a reduce queue
	// preemption took among them); one the AM killed goes back to it.
	backToAM := !am && c.mrEnded(j, ct) && amKilled
	if amKilled {
		c.counts.ReducesPreempted++
	}
	c.transition(ct, s)
	if ct.victim {
		c.pre.ended(ct, s)
	}
	c.retire(ct)
	switch {
	case j.state == Finished:
	case am:
		c.amEnded(j, s, refused, key)
	case refused && j.spec.Open:
		c.requeue(a, key)
	case !j.spec.Open:
		if j.retry == nil {
			j.retry = make([][]int32, len(j.progress))
		}
		j.retry[a.phase] = append(j.retry[a.phase], task)
		if backToAM {
			// The AM hears of the kill and asks for the reduce again
			// when its ramp-up allows (mrSchedule).
			j.mr.pending++
			c.wakeAM(j)
		} else {
			c.want(a, 1)
		}
	}
	c.reconsider()
}

// requeue puts request key back at the head of ask a.
func (c *Core) requeue(a *Ask, key string) {
	a.lv.keys = append(a.lv.keys, "")
	copy(a.lv.keys[1:], a.lv.keys)
	a.lv.keys[0] = key
	c.asked[key] = a.job
	c.want(a, 1)
}

// amEnded applies YARN's AM-attempt rule to job j, whose AM container just
// ended in state s. An AM that FAILED counts as a failed attempt; one that
// was KILLED, PREEMPTED or LOST does not (YARN does not count preemption or
// node loss against yarn.resourcemanager.am.max-attempts), nor does a
// refusal. After MaxAMAttempts failed attempts the job ends, failed.
// Otherwise a new attempt starts: the job is admitted again (it keeps its
// admission), its pending task requests are held until the new AM runs, its
// task containers keep running (YARN's keep-containers-across-attempts), and
// its AM ask is open again: at once for a simulated job, for an Open job
// when the driver asks for the new AM pod (or, after a refusal, with the
// same key).
func (c *Core) amEnded(j *Job, s ContainerState, refused bool, key string) {
	if s == Failed && !refused {
		j.amFailures++
		if int(j.amFailures) >= c.maxAMFail {
			j.failed = true
			c.counts.JobsFailed++
			c.finish(j)
			return
		}
	}
	if !refused {
		c.counts.AMRetries++
	}
	if j.state == Active {
		j.state = Admitted
		for i := 1; i < len(j.asks); i++ {
			c.hold(&j.asks[i])
		}
	}
	switch {
	case refused && j.spec.Open:
		c.requeue(&j.asks[0], key)
	case !j.spec.Open:
		c.want(&j.asks[0], 1)
	}
}

// Adopt records a container already RUNNING on node n when the driver starts
// (it re-reads the cluster): queues, shares, admission control and every
// observer count it from the first decision. Adopting an AM makes its job
// Active, admitted without asking admission control; adopting a task of a
// job still waiting admits the job too (its containers run already). Only
// Open jobs' containers are adopted. r may exceed what n has free: the node
// is then over its usable capacity until containers end.
func (c *Core) Adopt(now clock.Time, j *Job, n cluster.NodeID, key string, r resource.Vector, am bool) (*Container, error) {
	c.enter("Adopt")
	switch {
	case !c.known(j):
		return nil, fmt.Errorf("adopt %q: unknown job", key)
	case !j.spec.Open:
		return nil, fmt.Errorf("adopt %q: job %s is not open", key, j.key)
	case j.state == Finished:
		return nil, fmt.Errorf("adopt %q: job %s has ended", key, j.key)
	case key == "" || c.keyed[key] != nil:
		return nil, fmt.Errorf("adopt %q: no key, or already placed", key)
	case c.asked[key] != nil:
		return nil, fmt.Errorf("adopt %q: pending as a request; cancel it first", key)
	case r.IsZero() || r.AnyNegative():
		return nil, fmt.Errorf("adopt %q: request %v must be non-zero and non-negative", key, r)
	case am && !j.HasAM():
		return nil, fmt.Errorf("adopt %q: job %s runs without an AM", key, j.key)
	case am && r != j.spec.AM:
		return nil, fmt.Errorf("adopt %q: AM request %v differs from job %s's declared AM %v", key, r, j.key, j.spec.AM)
	case am && j.am != nil:
		return nil, fmt.Errorf("adopt %q: job %s's AM already runs", key, j.key)
	}
	node, err := c.node(n)
	if err != nil {
		return nil, fmt.Errorf("adopt %q: %w", key, err)
	}
	c.advance(now)
	if j.state == Waiting {
		c.unwait(j)
		c.admitted(j)
		for _, o := range c.obs.adopt {
			o.JobAdopted(j)
		}
	}
	phase := int32(AMPhase)
	if am {
		// The running AM supersedes any request for one.
		a := &j.asks[0]
		for _, k := range a.lv.keys {
			delete(c.asked, k)
		}
		a.lv.keys, a.held = nil, 0
		if a.Pending > 0 {
			c.addPending(a, -a.Pending)
		}
	} else {
		phase = -2
		for i := 1; i < len(j.asks); i++ {
			if j.asks[i].Request == r && j.asks[i].lv.class == "" {
				phase = int32(i - 1)
				break
			}
		}
		if phase == -2 {
			phase = int32(len(j.asks) - 1)
			j.asks = append(j.asks, Ask{job: j, phase: phase, Request: r, lv: &askLive{}})
			j.progress = append(j.progress, phaseProgress{asked: true})
		}
	}
	if err := c.ledger.Adopt(n, r, am); err != nil {
		c.fail(err)
		return nil, err
	}
	c.integrateUtil()
	ct := c.pool.get()
	ct.job, ct.phase, ct.req, ct.key = j, phase, r, key
	ct.place(node)
	ct.times[New] = c.now
	if c.live != nil {
		c.live[ct] = struct{}{}
	}
	c.link(ct)
	c.keyed[key] = ct
	j.usage = j.usage.Add(r)
	j.live++
	addUsage(j.queue, r)
	if am {
		j.queue.amUsage = j.queue.amUsage.Add(r)
		j.queue.amCount++
		j.am = ct
	} else {
		if c.pre != nil {
			c.pre.allocated(ct)
		}
		p := &j.progress[phase]
		ct.task = p.allocated
		p.allocated++
		p.running++
		if j.firstRun < 0 {
			j.firstRun = c.now
		}
	}
	c.progress++
	c.transition(ct, Allocated)
	c.transition(ct, Acquired)
	c.transition(ct, Running)
	if j.state == Admitted && (am || !j.HasAM()) {
		c.startAM(j)
	}
	c.retryAdmission()
	c.reconsider()
	return ct, nil
}

// AddNode adds a node that joined the cluster.
func (c *Core) AddNode(now clock.Time, name string, capacity resource.Vector) (*cluster.Node, error) {
	c.enter("AddNode")
	n, err := c.ledger.AddNode(name, capacity)
	if err != nil {
		return nil, err
	}
	c.advance(now)
	c.onNode = append(c.onNode, nil)
	if c.reserving {
		c.reservations = append(c.reservations, nil)
		if c.expired != nil {
			c.expired = append(c.expired, expiredReservation{})
		}
	}
	if c.pre != nil {
		c.pre.nodeAdded()
	}
	c.refit()
	c.clusterChanged(n, true)
	return n, nil
}

// RemoveNode takes node n out of the cluster: every live container on it
// ends LOST (see endAbnormal for what follows), a reservation on it is
// cancelled, and n stays as a tombstone with no capacity.
func (c *Core) RemoveNode(now clock.Time, n cluster.NodeID) error {
	c.enter("RemoveNode")
	node, err := c.node(n)
	if err != nil {
		return fmt.Errorf("remove node: %w", err)
	}
	c.advance(now)
	for c.onNode[n] != nil {
		c.endAbnormal(c.onNode[n], Lost, false)
	}
	// A simulated job's containers are not listed; with Config.Debug
	// (tests) they are found among the live ones.
	var sim []*Container
	for ct := range c.live {
		if ct.node == node && ct.state >= Allocated && !ct.state.Terminal() {
			sim = append(sim, ct)
		}
	}
	slices.SortFunc(sim, func(a, b *Container) int { return cmp.Compare(a.id, b.id) })
	for _, ct := range sim {
		c.endAbnormal(ct, Lost, false)
	}
	c.cancelReservation(node)
	if c.pre != nil {
		for len(c.pre.earmarks[n]) > 0 {
			c.pre.release(int(n), 0) // no room will free there
		}
	}
	if err := c.ledger.RemoveNode(n); err != nil {
		c.fail(err)
		return err
	}
	c.clusterChanged(node, c.refit())
	return nil
}

// SetNodeCapacity changes what node n offers (its allocatable changed).
// Containers on it keep running even where they now exceed it.
func (c *Core) SetNodeCapacity(now clock.Time, n cluster.NodeID, capacity resource.Vector) error {
	c.enter("SetNodeCapacity")
	node, err := c.node(n)
	if err != nil {
		return fmt.Errorf("set node capacity: %w", err)
	}
	grew := !capacity.Fits(node.Capacity())
	if err := c.ledger.SetCapacity(n, capacity); err != nil {
		return err
	}
	c.advance(now)
	if ct := c.reservedOn(node); ct != nil && !ct.req.Fits(capacity) {
		c.cancelReservation(node) // it could never be served now
	}
	c.clusterChanged(node, c.refit() || grew)
	return nil
}

// SetNodeSchedulable marks node n as taking new containers or not (cordoned,
// NotReady); its containers keep running either way. A reservation on a node
// that stops taking containers is cancelled.
func (c *Core) SetNodeSchedulable(now clock.Time, n cluster.NodeID, schedulable bool) error {
	c.enter("SetNodeSchedulable")
	node, err := c.node(n)
	if err != nil {
		return fmt.Errorf("set node schedulable: %w", err)
	}
	if err := c.ledger.SetSchedulable(n, schedulable); err != nil {
		return err
	}
	c.advance(now)
	if !schedulable {
		c.cancelReservation(node)
	}
	c.clusterChanged(node, schedulable)
	return nil
}

// SetNodeSlots limits node n to slots containers at once (0: no limit),
// held of them taken by things the scheduler does not own: Kubernetes'
// "pods" allocatable, which kube-scheduler counts as a resource. A node
// whose slots are all taken takes no new container (Node.Full) whatever it
// has free; containers on it keep running even where they now exceed it.
func (c *Core) SetNodeSlots(now clock.Time, n cluster.NodeID, slots, held int) error {
	c.enter("SetNodeSlots")
	node, err := c.node(n)
	if err != nil {
		return fmt.Errorf("set node slots: %w", err)
	}
	room := func() int {
		if node.Slots() == 0 {
			return math.MaxInt
		}
		return node.Slots() - node.HeldSlots() - node.AMContainers() - node.TaskContainers()
	}
	before := room()
	if err := c.ledger.SetSlots(n, slots, held); err != nil {
		return err
	}
	c.advance(now)
	if after := room(); after != before {
		c.clusterChanged(node, after > before)
	}
	return nil
}

// SetNodeExternal records what things the scheduler does not own hold of
// node n (other schedulers' pods, daemonsets): the scheduler may place only
// into the rest. It is the per-node form of SetExternalLoad, which sets every
// node from one cluster-wide fraction; whichever was called last for a node
// holds for it.
func (c *Core) SetNodeExternal(now clock.Time, n cluster.NodeID, held resource.Vector) error {
	c.enter("SetNodeExternal")
	node, err := c.node(n)
	if err != nil {
		return fmt.Errorf("set node external: %w", err)
	}
	before := node.Usable()
	if err := c.ledger.SetHeld(n, held); err != nil {
		return err
	}
	c.advance(now)
	if node.Usable() != before {
		c.clusterChanged(node, !node.Usable().Fits(before))
	}
	return nil
}

// clusterChanged tells the observers and the driver that node n changed;
// more says it may now take more than before, so nodes are reconsidered.
func (c *Core) clusterChanged(n *cluster.Node, more bool) {
	c.progress++
	for _, o := range c.obs.cluster {
		o.ClusterChanged(n)
	}
	c.driver.AcceptLowered()
	if more {
		c.retryAdmission()
		c.reconsider()
	} else if c.reservationUnfit() {
		c.reconsider()
	}
}

// reservedOn returns the container reserving node n, or nil.
func (c *Core) reservedOn(n *cluster.Node) *Container {
	if !c.reserving {
		return nil
	}
	return c.reservations[n.ID()]
}

// cancelReservation ends the reservation holding node n, if any.
func (c *Core) cancelReservation(n *cluster.Node) {
	if !c.reserving || c.reservations[n.ID()] == nil {
		return
	}
	ct := c.reservations[n.ID()]
	c.unreserve(ct, &ct.job.asks[ct.phase+1])
	c.transition(ct, Killed)
	c.retire(ct)
	c.reconsider()
}
