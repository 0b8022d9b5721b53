// Package kubescheduler is a model of Kubernetes' default scheduler
// (kube-scheduler v1.34 with its default profile), the baseline a recorded
// cluster ran under: 'spindle whatif' simulates it beside the recording to
// show that the simulator reproduces the recorded run before any other
// policy is trusted.
//
// What it models:
//   - One pod at a time, from a queue ordered as kube-scheduler's: higher
//     pod priority first (the job's priority: live, its pod's
//     spec.priority), then the order pods were created (asked for); a pod
//     that found no room goes back with its timestamp refreshed and an
//     exponential backoff (1 s, doubling, at most 10 s). Since v1.33 (SchedulerPopFromBackoffQ, on by
//     default) a pod in backoff is still popped when no other pod is ready,
//     so backoff orders pods and does not delay them: pods whose backoff
//     has expired come first, then those still backing off by expiry
//     (its end truncated to the whole second, as the backoff queue orders
//     pods in windows of a second; in one window, as the active queue).
//   - cycle (default 0) bounds how many waiting pods the scheduler tries
//     again between two events, for a scheduler too busy to try them all:
//     those not reached keep their place and come first next time. On the
//     live runs measured (BENCHMARKS.md, "The closed loop") kube-scheduler
//     made up to 1,260 attempts a second and was idle most of the time, so
//     the default leaves it off.
//   - Freed room is seen at once, by every waiting pod: kube-scheduler's
//     pod informer lists only non-terminal pods (newPodInformer's field
//     selector status.phase!=Succeeded,status.phase!=Failed,
//     pkg/scheduler/scheduler.go), so a pod that ends leaves the watch as a
//     deletion: deletePod drops it from the cache and sends
//     AssignedPodDelete (pkg/scheduler/eventhandlers.go), on which
//     NodeResourcesFit's queueing hint (isSchedulableAfterPodEvent,
//     framework/plugins/noderesources/fit.go) requeues every pod it had
//     rejected, whatever the freed resources (as read in kubernetes'
//     master branch, 2026). Deleting the finished pod later frees nothing
//     more.
//   - late (default false) puts pods asked for at the instant room frees
//     after every pod already waiting, backing off or not: live, they are
//     created by a driver or controller that first saw the end, so they
//     reach the queue after the end's event has moved the waiting pods
//     and the scheduler (popping backing-off pods when the active queue is
//     empty) has tried them. Off by default: on the recordings measured it
//     brought some classes closer and took others further (docs/record.md,
//     "When the baseline does not reproduce"); with a long queue the
//     scheduler reaches only part of it before the new pods exist.
//   - The scheduler's client-side limit on its calls to the apiserver
//     (clientConnection.qps 50 and burst 100 by default) is not the
//     policy's: under the Kubernetes timing preset the simulator binds
//     every placed pod through it, whichever scheduler placed it (the
//     cluster's api_qps and api_burst; sim/apilimit.go).
//   - No head-of-line blocking: a pod that fits no node is passed over.
//   - Filtering: the node has room for the pod's requests and may take it
//     (selectors, taints: the request's Eligible).
//   - Scoring: NodeResourcesFit with LeastAllocated plus
//     NodeResourcesBalancedAllocation, each weight 1, on CPU and memory,
//     each node's requested resources including what other workloads hold;
//     the highest score wins, ties to the lowest node (kube-scheduler draws
//     among them at random).
//   - Sampling: on clusters of more than 100 nodes kube-scheduler scores
//     only the first feasible nodes it finds (percentageOfNodesToScore's
//     adaptive default, 50 % − nodes/125, at least 5 % and 100 nodes),
//     starting where the last cycle stopped.
//   - No admission, no queues, no ApplicationMaster limit: every job's AM
//     and tasks are pods like any other. A simulated job's tasks are still
//     created only once its AM runs, as a Spark driver creates executors.
//
// What it does not: preemption by priority, inter-pod affinity and
// topology spreading (batch pods rarely carry them), image locality; by
// default the scheduler's own time per attempt (cycle), and the
// PodScheduled condition it patches when a pod first finds no room,
// through the same limited client, before it tries the next pod.
//
// The core offers nodes one at a time; the policy answers from a plan: the
// queue walked in order, each pod given its best node with the pods before
// it counted there, as kube-scheduler's assumed pods are. The plan is kept
// while nothing but its own placements changes.
package kubescheduler

import (
	"fmt"
	"math"
	"sort"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Config holds the policy's parameters.
type Config struct {
	// Backoff orders pods that found no room by kube-scheduler's backoff
	// (see the package comment); false keeps pure creation order.
	Backoff bool
	// Sample scores only part of a large cluster, as kube-scheduler does.
	Sample bool
	// Cycle is the scheduler's time per attempt at a pod that finds no
	// room (its scheduling cycle, in the run's time): it bounds how many
	// waiting pods are tried again between two events. 0: all of them,
	// at once.
	Cycle clock.Duration
	// Late puts pods asked for at the instant room may have appeared
	// after every pod already waiting (see the package comment).
	Late bool
}

// Params reads the parameters.
func Params(r *params.Reader) Config {
	return Config{
		Backoff: r.Bool("backoff", true, "order pods that found no room by kube-scheduler's backoff (1 s doubling to 10 s): those whose backoff expired first, then by expiry (default true; false: creation order only)"),
		Sample:  r.Bool("sample", true, "on more than 100 nodes score only the first feasible nodes found, as kube-scheduler's percentageOfNodesToScore does (default true)"),
		Late:    r.Bool("late", false, "pods asked for at the instant room frees (a job's next stage once its tasks end) come after every pod already waiting, backing off or not, as they reach kube-scheduler after the end has moved its waiting pods (default false: they join as new pods, ahead of those backing off)"),
		Cycle:   r.NonNegativeDuration("cycle", DefaultCycle, fmt.Sprintf("time kube-scheduler takes per attempt at a pod that finds no room; it bounds how many waiting pods are tried again between two events, so that a busy scheduler serves waiting pods in turn (0: every waiting pod is tried again at once) (default %v)", DefaultCycle)),
	}
}

// DefaultCycle is Config.Cycle's default.
const DefaultCycle clock.Duration = 0

// Backoff bounds, kube-scheduler's podInitialBackoffSeconds and
// podMaxBackoffSeconds.
const (
	initialBackoff = clock.Second
	maxBackoff     = 10 * clock.Second
)

// Policy is the kube-scheduler model.
type Policy struct {
	cfg   Config
	v     *sched.View
	seq   uint64
	pods  []*group            // waiting pods, in groups of one ask's identical pods
	byAsk map[askKey][]*group // the groups of each ask, oldest first
	known map[askKey]int      // pods of each ask in groups
	// wanting is every job AsksChanged has named that may still ask, in
	// the order first named (deterministic, unlike a map's). The core
	// tells AsksChanged only when an ask starts or stops being
	// outstanding; a count that moves between (a live job's next pod, an
	// adopted driver's executors, a MapReduce AM ramping reduces up or
	// asking again for those it preempted) is caught by catchUp.
	wanting   []*sched.Job
	isWanting map[sched.JobID]bool

	// The plan: for each node the groups placed there, in queue order.
	plan      map[cluster.NodeID][]planned
	planned   int             // pods the plan has yet to place
	pending   resource.Vector // what they request
	placed    int             // pods placed since the last extra pass was asked for
	dirty     bool
	freeAfter resource.Vector // the cluster's free resources once the plan is done
	next      int             // where the next scoring round starts (sampling)
	// freed says room may have appeared since the last plan: an event
	// that moves kube-scheduler's unschedulable pods back to be tried
	// again (a pod ended, a node changed). Arrivals alone retry nobody.
	freed bool
	// freedAt is the last instant room may have appeared (see freed):
	// pods that arrive at that instant were created in reaction to it and
	// come after every pod already waiting (the package comment).
	freedAt  clock.Time
	hasFreed bool
	// budget is how many attempts the scheduler could still make by
	// budgetAt (Cycle > 0): it grows with time, at most to one attempt
	// per waiting pod (an idle scheduler has tried them all).
	budget   float64
	budgetAt clock.Time
}

type askKey struct {
	job sched.JobID
	ask int32 // index in the job's Asks(): 0 the AM, 1+k phase k
}

// group is identical pods of one ask that arrived together (or failed
// together).
type group struct {
	key      askKey
	n        int
	seq      uint64     // arrival order
	prio     int32      // the job's priority: the pod's spec.priority live
	ts       clock.Time // queue timestamp: arrival, refreshed on each failed attempt
	attempts int        // failed attempts (kube-scheduler's UnschedulableCount)
	expiry   clock.Time // end of its backoff
	tried    clock.Time // its last attempt, counted once per instant
}

type planned struct {
	g *group
	n int
}

// New returns the policy.
func New(v *sched.View, cfg Config) *Policy {
	return &Policy{cfg: cfg, v: v, byAsk: map[askKey][]*group{}, known: map[askKey]int{}, isWanting: map[sched.JobID]bool{},
		plan: map[cluster.NodeID][]planned{}, dirty: true}
}

func (p *Policy) ask(k askKey) *sched.Ask {
	asks := p.v.Job(k.job).Asks()
	if int(k.ask) >= len(asks) {
		return nil
	}
	return &asks[k.ask]
}

// AsksChanged notes pods newly asked for (or withdrawn) by job j.
func (p *Policy) AsksChanged(j *sched.Job) {
	p.sync(j)
	if !p.isWanting[j.ID()] && j.State() != sched.Finished {
		p.isWanting[j.ID()] = true
		p.wanting = append(p.wanting, j)
	}
	p.dirty = true
}

// catchUp syncs every job that may still ask, and reports whether any
// ask's count had moved unannounced; finished jobs leave the list.
func (p *Policy) catchUp() bool {
	moved := false
	live := p.wanting[:0]
	for _, j := range p.wanting {
		if p.sync(j) {
			moved = true
		}
		if j.State() == sched.Finished {
			delete(p.isWanting, j.ID())
			continue
		}
		live = append(live, j)
	}
	clear(p.wanting[len(live):])
	p.wanting = live
	return moved
}

// JobFinished drops what the job still asked for.
func (p *Policy) JobFinished(j *sched.Job) {
	p.sync(j)
	p.dirty = true
}

// sync brings the groups of j's asks in line with what each asks for now:
// new pods join the queue's end; withdrawn ones leave from the newest. It
// reports whether any count moved.
func (p *Policy) sync(j *sched.Job) bool {
	now := p.v.Now()
	moved := false
	for i := range j.Asks() {
		a := &j.Asks()[i]
		k := askKey{j.ID(), int32(i)}
		want := a.Pending
		if j.State() == sched.Finished {
			want = 0
		}
		have := p.known[k]
		if want != have {
			moved = true
		}
		switch {
		case want > have:
			p.seq++
			g := &group{key: k, n: want - have, seq: p.seq, prio: j.Priority(), ts: now}
			p.pods = append(p.pods, g)
			p.byAsk[k] = append(p.byAsk[k], g)
		case want < have:
			gs := p.byAsk[k]
			for drop := have - want; drop > 0 && len(gs) > 0; {
				g := gs[len(gs)-1]
				d := min(drop, g.n)
				g.n -= d
				drop -= d
				if g.n == 0 {
					gs = gs[:len(gs)-1]
				}
			}
			p.byAsk[k] = gs
		}
		if want == 0 {
			delete(p.byAsk, k)
			delete(p.known, k)
		} else {
			p.known[k] = want
		}
	}
	return moved
}

// ContainerChanged keeps the plan while the only changes are its own
// placements (which Pick has accounted for) and containers starting;
// anything that frees resources makes it stale.
func (p *Policy) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	switch c.State() {
	case sched.Allocated:
		if from == sched.New {
			return
		}
	case sched.Acquired, sched.Running:
		return
	}
	p.roomMayHaveAppeared()
}

// ClusterChanged makes the plan stale when a node changes.
func (p *Policy) ClusterChanged(*cluster.Node) { p.roomMayHaveAppeared() }

// roomMayHaveAppeared notes an event on which kube-scheduler moves its
// unschedulable pods back to be tried again.
func (p *Policy) roomMayHaveAppeared() {
	p.dirty, p.freed = true, true
	p.freedAt, p.hasFreed = p.v.Now(), true
}

// Pick returns the next pod the plan puts on n.
func (p *Policy) Pick(n *cluster.Node) *sched.Ask {
	if p.v.Cluster().Free() != p.freeAfter.Add(p.pending) {
		// Room changed under the plan: another workload's load moved.
		p.roomMayHaveAppeared()
	}
	if !p.dirty && len(p.plan[n.ID()]) == 0 && p.catchUp() {
		// Pods asked for unannounced, which this node may take.
		p.dirty = true
	}
	if p.dirty {
		p.rebuild()
	}
	list := p.plan[n.ID()]
	for len(list) > 0 {
		head := &list[0]
		g := head.g
		a := p.ask(g.key)
		if g.n == 0 || a == nil || a.Pending == 0 {
			// Withdrawn meanwhile: the plan no longer holds.
			p.dirty = true
			return nil
		}
		if !p.v.CanPlace(a, n) {
			// The node changed under the plan.
			p.dirty = true
			return nil
		}
		head.n--
		if head.n == 0 {
			list = list[1:]
		}
		p.plan[n.ID()] = list
		p.planned--
		p.pending = p.pending.Sub(a.Request)
		p.placed++
		// The core allocates what Pick returns: the pod leaves its
		// group now.
		g.n--
		if p.known[g.key]--; p.known[g.key] <= 0 {
			delete(p.known, g.key)
			delete(p.byAsk, g.key)
		} else if gs := p.byAsk[g.key]; g.n == 0 {
			for i, x := range gs {
				if x == g {
					p.byAsk[g.key] = append(gs[:i], gs[i+1:]...)
					break
				}
			}
		}
		return a
	}
	delete(p.plan, n.ID())
	if p.planned > 0 {
		if p.placed > 0 {
			// Pods planned on nodes this pass has already offered: one
			// more pass.
			p.placed = 0
			p.v.Reconsider()
		} else {
			p.dirty = true
		}
	}
	return nil
}

// rebuild walks the queue in kube-scheduler's order and gives each pod its
// best node, counting the pods placed before it.
func (p *Policy) rebuild() {
	p.dirty = false
	p.catchUp()
	now := p.v.Now()
	clear(p.plan)
	p.planned = 0
	// Drop emptied groups.
	live := p.pods[:0]
	for _, g := range p.pods {
		if g.n > 0 {
			live = append(live, g)
		}
	}
	clear(p.pods[len(live):])
	p.pods = live
	order := append([]*group(nil), p.pods...)
	sort.SliceStable(order, func(a, b int) bool { return p.before(order[a], order[b], now) })

	cl := p.v.Cluster()
	nn := cl.NumNodes()
	used := make([]resource.Vector, nn) // what the plan adds to each node
	limited := p.cfg.Backoff && p.cfg.Cycle > 0
	if limited {
		waiting := 0
		for _, g := range p.pods {
			waiting += g.n
		}
		p.budget = min(p.budget+float64(now.Sub(p.budgetAt))/float64(p.cfg.Cycle), float64(waiting))
		p.budgetAt = now
	}
	for _, g := range order {
		a := p.ask(g.key)
		if a == nil || a.Pending == 0 {
			continue
		}
		left := min(g.n, a.Pending)
		placedHere := 0
		for left > 0 {
			best := p.best(a, used)
			if best < 0 {
				break
			}
			used[best] = used[best].Add(a.Request)
			id := cluster.NodeID(best)
			if l := p.plan[id]; len(l) > 0 && l[len(l)-1].g == g {
				l[len(l)-1].n++
			} else {
				p.plan[id] = append(p.plan[id], planned{g: g})
				p.plan[id][len(p.plan[id])-1].n = 1
			}
			p.planned++
			placedHere++
			left--
		}
		// A pod is tried when it is new, or when room may have appeared;
		// once per instant however many plans it sees; with a Cycle, only
		// as many as the scheduler had time for, in queue order: the
		// others keep their place (and their old timestamps) and come
		// first next time.
		if left > 0 && p.cfg.Backoff && (g.attempts == 0 || p.freed) && (g.tried != now || g.attempts == 0) {
			tried := left
			if limited {
				tried = min(left, int(p.budget))
				p.budget -= float64(tried)
			}
			if tried > 0 {
				p.failed(g, left, tried, placedHere, now)
			}
		}
	}
	p.freed = false
	var total resource.Vector
	for _, u := range used {
		total = total.Add(u)
	}
	p.pending = total
	p.freeAfter = cl.Free().Sub(total)
}

// failed records an unschedulable attempt for tried of the last left pods
// of g: if some of g were placed, the rest split off as a group of their
// own; if not all the rest were tried, the untried split off again and
// keep their state.
func (p *Policy) failed(g *group, left, tried, placed int, now clock.Time) {
	if placed > 0 {
		// The group's first pods go now; the others back off.
		g = p.split(g, left)
	}
	if tried < left {
		p.split(g, left-tried)
	}
	g.attempts++
	g.ts, g.tried = now, now
	g.expiry = window(now.Add(backoff(g.attempts)))
}

// split moves the last k pods of g into a group of their own, in the same
// state, placed after g, and returns it.
func (p *Policy) split(g *group, k int) *group {
	rest := &group{key: g.key, n: k, seq: g.seq, prio: g.prio, ts: g.ts, attempts: g.attempts, expiry: g.expiry, tried: g.tried}
	g.n -= k
	p.pods = append(p.pods, rest)
	gs := p.byAsk[g.key]
	for i, x := range gs {
		if x == g {
			gs = append(gs[:i+1], append([]*group{rest}, gs[i+1:]...)...)
			break
		}
	}
	p.byAsk[g.key] = gs
	return rest
}

// window truncates a backoff's end to the whole second, as kube-scheduler
// orders its backoff queue in windows of a second since v1.33
// (SchedulerPopFromBackoffQ): pods whose backoffs end in the same second
// are ordered as the active queue orders them.
func window(t clock.Time) clock.Time { return t / clock.Time(clock.Second) * clock.Time(clock.Second) }

// ready reports whether g's pods are out of backoff at now: never tried,
// or their backoff ended in an earlier window than now's (kube-scheduler's
// isPodBackingoff).
func (g *group) ready(now clock.Time) bool { return g.attempts == 0 || g.expiry < window(now) }

// late reports whether g's pods arrived at now, the instant room may have
// appeared: created in reaction to that event (a driver's next stage once
// its tasks end), they reach the scheduler after the event has moved the
// pods already waiting, and after those have been tried.
func (p *Policy) late(g *group, now clock.Time) bool {
	return p.cfg.Late && p.hasFreed && p.freedAt == now && g.attempts == 0 && g.ts == now
}

func backoff(attempts int) clock.Duration {
	d := initialBackoff
	for i := 1; i < attempts && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// before is kube-scheduler's queue order at now. Pods ready (never failed,
// or backoff expired) come first, in the activeQ's order (the PrioritySort
// plugin: higher priority first, then the earlier timestamp); then pods
// still backing off, by expiry and, at equal expiry, in the activeQ's order
// (lessBackoffCompletedWithPriority, since v1.33). Ties by arrival.
func (p *Policy) before(a, b *group, now clock.Time) bool {
	if p.cfg.Backoff {
		if la, lb := p.late(a, now), p.late(b, now); la != lb {
			return lb
		}
		ra, rb := a.ready(now), b.ready(now)
		if ra != rb {
			return ra
		}
		if !ra && a.expiry != b.expiry {
			return a.expiry < b.expiry
		}
		if a.prio != b.prio {
			return a.prio > b.prio
		}
		if a.ts != b.ts {
			return a.ts < b.ts
		}
		return a.seq < b.seq
	}
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	return a.seq < b.seq
}

// best returns the node kube-scheduler would give a pod of ask a, with
// used added to each node by the plan so far; -1 when none fits.
func (p *Policy) best(a *sched.Ask, used []resource.Vector) int {
	cl := p.v.Cluster()
	nn := cl.NumNodes()
	want := nn
	if p.cfg.Sample && nn > 100 {
		pct := max(50-nn/125, 5)
		want = max(nn*pct/100, 100)
	}
	best, bestScore := -1, math.Inf(-1)
	found, examined := 0, 0
	start := p.next % max(nn, 1)
	for i := 0; i < nn && found < want; i++ {
		id := (start + i) % nn
		examined++
		n := cl.Node(cluster.NodeID(id))
		free := n.Free().Sub(used[id])
		if !a.Request.Fits(free) || !a.EligibleOn(n) {
			continue
		}
		found++
		if s := score(n.Capacity(), n.Capacity().Sub(free).Add(a.Request)); s > bestScore || s == bestScore && id < best {
			best, bestScore = id, s
		}
	}
	if p.cfg.Sample && nn > 100 {
		p.next = (start + examined) % nn
	}
	return best
}

// score is NodeResourcesFit's LeastAllocated plus BalancedAllocation, on
// CPU and memory, for a node of capacity cp that would hold requested.
func score(cp, requested resource.Vector) float64 {
	var frac [2]float64
	least := 0.0
	for i, d := range []resource.Dim{resource.VCores, resource.Memory} {
		if cp[d] <= 0 {
			continue
		}
		frac[i] = min(float64(requested[d])/float64(cp[d]), 1)
		least += (1 - frac[i]) * 100
	}
	least /= 2
	// BalancedAllocation: 1 − the standard deviation of the fractions.
	mean := (frac[0] + frac[1]) / 2
	std := math.Sqrt(((frac[0]-mean)*(frac[0]-mean) + (frac[1]-mean)*(frac[1]-mean)) / 2)
	balanced := (1 - std) * 100
	// kube-scheduler scores each plugin in whole points.
	return math.Floor(least) + math.Floor(balanced)
}

var (
	_ sched.Policy            = (*Policy)(nil)
	_ sched.AskObserver       = (*Policy)(nil)
	_ sched.FinishObserver    = (*Policy)(nil)
	_ sched.ContainerObserver = (*Policy)(nil)
	_ sched.ClusterObserver   = (*Policy)(nil)
)
