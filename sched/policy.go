package sched

import (
	"cmp"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
)

// Policy decides which outstanding ask a node's free resources go to. It is
// the only thing a scheduling scheme must implement; it learns what happens
// through the optional observer interfaces below, each of which the core
// detects once, at construction.
type Policy interface {
	// Pick returns the ask to allocate one container for on node n, or nil
	// to leave n's remaining resources alone until something changes. The
	// ask must be outstanding (Pending > 0), placeable on n
	// (View.CanPlace: its request fits n.Free() and n meets its
	// constraints), and an AM ask may only be picked for an admitted job.
	// The core calls Pick only for nodes that take new containers. The core calls
	// Pick again after each allocation until it returns nil.
	Pick(n *cluster.Node) *Ask
}

// Reserver is implemented by policies that, like YARN's Fair and Capacity
// schedulers, reserve a node for a request too big for what it has free
// instead of letting smaller requests use it. When Reserves returns true,
// Pick may return an ask that does not fit n.Free() but fits n.Usable() (what
// the node offers when empty, its capacity less the external load) and is
// not yet reserved on as many nodes as it has containers pending: the core
// then holds n for it (a container in RESERVED), gives n nothing else, and on
// each later update of n allocates the reserved container once it fits, or
// cancels it (KILLED) when the ask no longer needs it or the node no longer
// offers enough for it when empty. Every node update then
// consults the policy, so reserving policies cost more to simulate.
type Reserver interface {
	Reserves() bool
}

// ReserveExpirer is implemented by reserving policies whose reservations
// expire: a reservation that has held its node for ReserveTimeout without
// the container fitting is cancelled (KILLED) at the node's next update, and
// for another ReserveTimeout the same ask may not reserve that node again
// (View.MayReserve), so later jobs may use it. A reservation can otherwise
// hold a node for good while what it waits for never frees (YuniKorn's
// YUNIKORN-3092, cancelled after a wait since YUNIKORN-3219). Zero or a
// policy without the method: reservations never expire, as in YARN.
type ReserveExpirer interface {
	ReserveTimeout() clock.Duration
}

// Admission decides which submitted jobs may start their AM at all.
type Admission interface {
	// Admit reports whether job j, waiting for admission, may start now.
	// The core asks in submission order and stops at the first refusal, on
	// every submission, node update, job end and tick.
	Admit(j *Job) bool
}

// SubmitObserver hears of every job as it arrives, before admission.
type SubmitObserver interface{ JobSubmitted(j *Job) }

// AdmitObserver hears of every job admission control lets in.
type AdmitObserver interface{ JobAdmitted(j *Job) }

// FinishObserver hears of every job whose AM has unregistered.
type FinishObserver interface{ JobFinished(j *Job) }

// AskObserver hears when a job's set of outstanding asks changes: an ask
// becomes outstanding (the AM after admission, a phase when its AM asks for
// it) or stops being outstanding (fully allocated, cancelled, or withdrawn
// because its job finished). A finishing job's asks are withdrawn, and the
// observers told, before FinishObserver hears of it, so a policy that keeps
// its set of wanting jobs by AsksChanged never holds a finished job.
type AskObserver interface{ AsksChanged(j *Job) }

// ContainerObserver hears of every container transition, with the time the
// resource manager observed it (c.Time(c.State())). The container is valid
// only during the call.
type ContainerObserver interface {
	ContainerChanged(c *Container, from ContainerState)
}

// NodeObserver hears of every node update (a heartbeat that carries reports
// or may lead to allocation), after its reports are applied and before any
// allocation on it. Heartbeats that could change nothing may be elided by a
// driver, so observers must not count heartbeats to measure time. On a live
// cluster nodes join (Core.AddNode) with IDs past those the core was built
// with: state kept per node in a slice must grow to the node's ID.
type NodeObserver interface{ NodeUpdated(n *cluster.Node) }

// Ticker is called every TickEvery, for periodic work such as re-tuning a
// reservation or re-planning. After a tick the core reconsiders every node,
// since the tick may have changed what the policy allows, unless every
// ticker that ran is a QuietTicker that changed nothing.
type Ticker interface {
	TickEvery() clock.Duration
	Tick(now clock.Time)
}

// QuietTicker is a Ticker that can say its last Tick changed nothing Pick
// reads. After a tick in which no ticker changed anything and admission let
// no job in, the core does not reconsider the nodes: their answers would be
// the ones they gave after the last change, so a driver that elides
// heartbeats need not deliver any (a policy must not pay for time in which
// nothing changed). TickChanged must err towards true.
type QuietTicker interface {
	Ticker
	TickChanged() bool
}

// View is the read-only window on the core that policies and admission
// controllers get: the cluster, queues and jobs as the resource manager
// knows them, and the current time.
type View struct{ c *Core }

// Now returns the time of the event being handled.
func (v *View) Now() clock.Time { return v.c.now }

// MayReserve reports whether ask a may reserve node n: not while a
// reservation of n for a expired less than the reservation timeout ago
// (ReserveExpirer).
func (v *View) MayReserve(a *Ask, n *cluster.Node) bool {
	e := v.c.expired
	if e == nil {
		return true
	}
	x := e[n.ID()]
	return x.ask != a || v.c.now >= x.until
}

// Cluster returns the cluster.
func (v *View) Cluster() *cluster.Cluster { return v.c.cl }

// Queues returns the queues in workload order, parents and leaves, without
// the root. Callers must not modify the slice.
func (v *View) Queues() []*Queue { return v.c.tree.queues }

// RootQueue returns the root of the queue tree: its children are the
// queues whose names have no dot, and its usage is the cluster's.
func (v *View) RootQueue() *Queue { return v.c.tree.root }

// Queue returns the queue named by its dotted path ("prod.etl", or
// "root.prod.etl"), or nil.
func (v *View) Queue(name string) *Queue {
	name = QueuePath(name)
	if name == RootQueue {
		return v.c.tree.root
	}
	return v.c.tree.byName[name]
}

// Job returns the job with the given id.
func (v *View) Job(id JobID) *Job { return v.c.jobs[id] }

// NumJobs returns the number of jobs submitted so far.
func (v *View) NumJobs() int { return len(v.c.jobs) }

// Waiting returns the jobs held by admission control, in submission order,
// in a new slice (tests and reports; admission controllers use
// AdmissionHeads).
func (v *View) Waiting() []*Job {
	out := make([]*Job, 0, v.c.nwaiting)
	for i := range v.c.waitq {
		out = append(out, v.c.waitq[i].waiting()...)
	}
	slices.SortFunc(out, func(a, b *Job) int { return cmp.Compare(a.id, b.id) })
	return out
}

// AdmissionHeads calls f, until it returns false, with the first job of
// each queue that waits for admission and is ready to be asked about: the
// job the core asks Admit about next in that queue. An admission
// controller that can tell when its answer changes uses it to ask for a
// retry (View.Reconsider) only when one would admit something.
func (v *View) AdmissionHeads(f func(j *Job) bool) {
	c := v.c
	if c.nwaiting == 0 {
		return
	}
	for i := range c.waitq {
		for _, j := range c.waitq[i].waiting() {
			if c.readyToAdmit(j) {
				if !f(j) {
					return
				}
				break
			}
		}
	}
}

// QueueWaiting returns the jobs of queue q that wait for admission, in the
// order admission control is asked about them (submission order). Callers
// must not modify the slice.
func (v *View) QueueWaiting(q *Queue) []*Job { return v.c.waitq[q.index].waiting() }

// LoadForecast returns what the resource manager is told of the external
// (non-YARN) load to come, as a fraction of every node's capacity over time;
// nil when the machines are dedicated. The load now in force is what each
// node's Usable capacity shows; the forecast may differ from it when it is
// noisy.
func (v *View) LoadForecast() *cluster.LoadCurve { return v.c.forecast }

// CanPlace reports whether ask a may get a container on node n now: its
// request fits n's free resources, n takes new containers (not removed, not
// cordoned, a container slot free) and n meets the ask's placement
// constraints. Policies test it wherever they would test
// a.Request.Fits(n.Free()); a simulated ask has no constraints and a
// simulated node no slot limit, so it costs three more loads.
func (v *View) CanPlace(a *Ask, n *cluster.Node) bool {
	return a.Request.Fits(n.Free()) && a.EligibleOn(n) && !n.Full()
}

// Reconsider tells the core that the policy's choices may have changed
// although no resources or asks did (a new plan, a new reservation ratio), so
// nodes it declined before should be offered again.
func (v *View) Reconsider() { v.c.reconsider() }

// Revisiter is implemented by drivers that can honour ReconsiderNode more
// precisely than Reconsider.
type Revisiter interface{ Revisit(n *cluster.Node) }

// ReconsiderNode is Reconsider for a policy that declines node n, during
// n's own update, although n has room and the policy would use it at n's
// next heartbeat (YARN's Fair scheduler assigns one container per
// heartbeat by default). The driver must deliver that heartbeat.
func (v *View) ReconsiderNode(n *cluster.Node) {
	c := v.c
	if !c.HasDemand() {
		return
	}
	if r, ok := c.driver.(Revisiter); ok {
		r.Revisit(n)
		return
	}
	c.driver.Reconsider()
}

// Reporter is implemented by policies and admission controllers with
// internals worth showing (a reservation ratio over time, job sets, a
// predicted reservation): Report names the section and returns a value that
// encodes to JSON. Runs put it in their summary under that name.
type Reporter interface {
	Report() (name string, data any)
}
