package forecast

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/workload"
)

const (
	// DefaultHorizon is how far ahead Run simulates when Options.Horizon
	// is 0.
	DefaultHorizon = 24 * time.Hour
	// MinRemaining is the least a running task is taken to have left: one
	// that has run longer than its estimate is about to end, not ended.
	MinRemaining = 5 * time.Second
	// DefaultEstimate is the duration of a job's tasks when neither it nor
	// the cluster has any estimate: nothing has finished yet.
	DefaultEstimate = time.Minute
	// seed is the simulation's seed: fixed, so that a forecast is a
	// function of its snapshot. The model is ideal (no delays), so the
	// seed moves nothing today.
	seed = 1
)

// model is a snapshot made into a workload that starts at the snapshot's
// Now (workload time 0), with what each of its jobs is.
type model struct {
	now  time.Time
	w    *workload.Workload
	jobs []Job
	// of[i] is the Job the workload's job i forecasts: its pending pods,
	// or one pinned running task (pinned[i]).
	of     []int
	pinned []bool
	pin    bool // running tasks are pinned, not load
	// amOwn is, by Job, when its running AM is estimated to end, before
	// any hold (zero without one); tasksEnd when its tasks are: its
	// running ones', and once simulated its pending ones' (the horizon's
	// end when they do not end by the end of the simulation). pinnedAM[i]
	// says workload job i is a pinned AM.
	amOwn, tasksEnd []time.Time
	pinnedAM        []bool
	// more[i] says workload job i is a running job's later waves (see
	// build); gate is, by Job, when they were taken to be asked for (zero
	// without them), and moreEnd when they were simulated to end.
	more          []bool
	gate, moreEnd []time.Time
}

// hold is what the next simulation holds a running job to (see Run):
// its AM until am, its later waves' asking until gate; zero: as
// estimated.
type hold struct{ am, gate time.Time }

// entry is one job of the model's workload, with the creation time that
// orders it and the Job it forecasts.
type entry struct {
	first time.Time
	job   workload.Job
	am    bool // a pinned AM
	more  bool // a running job's later waves
	// alone, when set, is the job as its pods are, used when no node
	// takes job's containers (see build).
	alone  *workload.Job
	of     int
	pinned bool
}

// pinLabel labels each node that runs pinned tasks with its name: a pinned
// task's node selector, which places it there and nowhere else.
const pinLabel = "forecast/node"

// moreArrival is when the running jobs' later waves arrive, with their
// AMs: just after the pinned tasks, so that an AM the simulation places
// where it finds room cannot take a pinned task's. arrival is when the
// waiting jobs arrive: just after them.
const (
	moreArrival = clock.Time(1)
	arrival     = clock.Time(2)
)

// build makes the model of s; with pin, running tasks are pinned (placed
// at time 0 on their nodes as jobs of their queues), else load on their
// nodes until their estimated end. holds, when not nil, holds each Job's
// running AM at least until holds[i].am, and its later waves until
// holds[i].gate (see Run).
func build(s *Snapshot, inst *record.Instant, est *estimates, pin bool, holds []hold) (*model, error) {
	m := &model{now: s.Now, pin: pin}

	nodes := map[string]*nodeLoad{}
	var names []string
	for _, n := range s.Nodes {
		if n == nil || n.Spec.Unschedulable {
			continue // cordoned: it takes no new work
		}
		c := podmap.NodeCapacity(n)
		if c[resource.VCores] <= 0 || c[resource.Memory] <= 0 {
			continue
		}
		if _, dup := nodes[n.Name]; dup {
			return nil, fmt.Errorf("forecast: snapshot: node %q listed twice", n.Name)
		}
		nodes[n.Name] = &nodeLoad{capacity: c, held: inst.Outside[n.Name], labels: n.Labels, taints: taints(n.Spec.Taints)}
		names = append(names, n.Name)
	}
	sort.Strings(names)

	// Without a configuration, the scheduler's: one queue, the default,
	// which takes every job.
	queues, def := s.Queues, s.DefaultQueue
	if len(queues) == 0 {
		queues, def = []workload.Queue{{Name: workload.DefaultQueue, Capacity: 1, MaxCapacity: 1}}, workload.DefaultQueue
	}
	listed := make([]string, len(queues))
	for i, q := range queues {
		listed[i] = q.Name
	}
	leaf, err := leaves(queues)
	if err != nil {
		return nil, err
	}
	var entries, pins, mores []entry
	selected := map[string]bool{} // the node labels some job selects by
	ids := map[string]int{}
	for k := range inst.Jobs {
		ij := &inst.Jobs[k]
		var running, pending []*record.InstantPod
		// started is the job's first start, tasksStarted its first
		// task's (not its AM's): where its runtime is counted from.
		var started, tasksStarted time.Time
		for i := range ij.Pods {
			p := &ij.Pods[i]
			switch {
			case p.Running():
				running = append(running, p)
			case p.Pending():
				pending = append(pending, p)
			}
			if !p.Started.IsZero() && (started.IsZero() || p.Started.Before(started)) {
				started = p.Started
			}
			if !p.AM && !p.Started.IsZero() && (tasksStarted.IsZero() || p.Started.Before(tasksStarted)) {
				tasksStarted = p.Started
			}
		}
		if tasksStarted.IsZero() {
			tasksStarted = started
		}
		if len(running) == 0 && len(pending) == 0 {
			continue // finished: history
		}
		e := est.of(ij)
		d, task := e.runtime, e.task
		queue := sched.ResolveQueue(listed, def, ij.ID.Queue)
		j := Job{Key: ij.Key, Namespace: namespace(ij), Queue: queue, Source: e.src,
			Waiting: len(pending) == len(ij.Pods)}
		if queue == "" || !leaf[sched.QueuePath(queue)] {
			// The scheduler holds such pods (no configured queue takes
			// them): they wait for good.
			pending = nil
			j.Beyond = j.Waiting
		}
		if !j.Waiting {
			j.Start = started
			if j.Start.IsZero() {
				j.Start = s.Now // bound, not started yet
			}
		}
		idx := len(m.jobs)
		var tasksEnd, amOwn time.Time
		// more is what a running job is taken to ask for once its
		// current tasks end, wave after wave (estimates.later): the AM
		// that asks for them (amPod) is the AM of a job of its own that
		// runs them (below), not pinned.
		var more []wave
		if pin && !j.Waiting && queue != "" && leaf[sched.QueuePath(queue)] {
			k, width := asked(ij)
			if more = est.later(ij.Name, k, width); !anyHolds(nodes, more) {
				more = nil
			}
		}
		var amPod *record.InstantPod
		for _, p := range running {
			if n := nodes[p.Node]; p.AM && len(more) > 0 && amPod == nil && n != nil && p.Request.Fits(n.capacity.Sub(n.held)) {
				// Its node keeps room for it (held) that the simulation
				// places (pinnedHeld), as for a pinned task.
				n.held = n.held.Add(p.Request)
				n.pinnedHeld = n.pinnedHeld.Add(p.Request)
				amPod = p
				continue
			}
			// A task is held for what its estimate leaves; an AM for what
			// its job's runtime leaves: it holds its node until the job
			// ends.
			left := leftOf(task, e.tasks, since(s.Now, p.Started))
			if p.AM {
				left = leftOf(d, e.runtimes, since(s.Now, tasksStarted))
				amOwn = latest(amOwn, s.Now.Add(left))
				if holds != nil && holds[idx].am.After(s.Now.Add(left)) {
					left = holds[idx].am.Sub(s.Now)
				}
			}
			end := s.Now.Add(left)
			if end.After(j.Finish) {
				j.Finish = end
			}
			if !p.AM && end.After(tasksEnd) {
				tasksEnd = end
			}
			n := nodes[p.Node]
			switch {
			case n == nil:
				// On a node the scheduler does not offer (cordoned, or
				// not listed): it holds nothing the forecast places on.
			case pin && queue != "" && leaf[sched.QueuePath(queue)] && p.Request.Fits(n.capacity.Sub(n.held)):
				// Pinned: a job of its own, the one task, placed on its
				// node at time 0 (see pinLabel), so that the policy counts
				// it in its queue's share.
				n.pinned = true
				n.held = n.held.Add(p.Request) // for the next one's fit
				n.pinnedHeld = n.pinnedHeld.Add(p.Request)
				pj := workload.Job{
					ID: "pin:" + p.Name, Name: ij.Name, Queue: queue, User: j.Namespace, Estimate: micros(d), Priority: ij.Priority,
					NodeSelector: map[string]string{pinLabel: p.Node}, Tolerations: tolerateAll,
					Phases: []workload.Phase{{Tasks: 1, StartAfter: 1, Request: p.Request, Durations: []clock.Duration{micros(left)}}},
				}
				if p.AM {
					pj.AM, pj.Phases[0].Request = pinnedAM(p.Request)
				}
				pins = append(pins, entry{first: p.Created, of: idx, pinned: true, am: p.AM, job: pj})
			default:
				n.held = n.held.Add(p.Request)
				n.ends = append(n.ends, release{at: micros(left), req: p.Request})
			}
		}
		m.jobs = append(m.jobs, j)
		m.amOwn, m.tasksEnd = append(m.amOwn, amOwn), append(m.tasksEnd, tasksEnd)
		m.gate, m.moreEnd = append(m.gate, time.Time{}), append(m.moreEnd, time.Time{})
		if amPod != nil {
			// The later waves: a job of the running job's queue and its
			// AM, adopted as it runs and placed as it arrives, just after
			// the pinned tasks (where the simulation finds room: a job's
			// node selector holds for every container, and the waves may
			// run anywhere), whose
			// one token task, taken out of the AM's request, lasts until
			// the current tasks end, the waves after it; the AM is held
			// until they end. So the policy sees the job's AM in its
			// usage when it asks for them, as it does live.
			gate := tasksEnd
			if gate.Before(s.Now) {
				gate = s.Now // no task runs: the AM asks next
			}
			if holds != nil && !holds[idx].gate.IsZero() {
				gate = holds[idx].gate // never before the running tasks' end: see holds
			}
			m.gate[idx] = gate
			am, gateReq := pinnedAM(amPod.Request)
			mj := workload.Job{ID: "more:" + amPod.Name, Name: ij.Name, Queue: queue, User: j.Namespace, Estimate: micros(d), Priority: ij.Priority,
				NodeSelector: amPod.NodeSelector, Tolerations: tolerations(amPod.Tolerations), AM: am,
				Phases: []workload.Phase{{Tasks: 1, StartAfter: 1, Request: gateReq, Durations: []clock.Duration{max(micros(gate.Sub(s.Now))-clock.Duration(moreArrival), 1)}}}}
			for _, w := range more {
				mj.Phases = append(mj.Phases, workload.Phase{Tasks: w.tasks, StartAfter: 1, Request: w.request,
					Durations: []clock.Duration{micros(max(w.duration, time.Second))}})
			}
			for k := range amPod.NodeSelector {
				selected[k] = true
			}
			mj.Submit = moreArrival
			mores = append(mores, entry{first: amPod.Created, of: idx, more: true, job: mj})
		}
		if len(pending) == 0 {
			continue
		}
		wj := workload.Job{Name: ij.Name, Queue: queue, User: j.Namespace, Estimate: micros(d), Priority: ij.Priority}
		var tasks []*record.InstantPod
		for _, p := range pending {
			// A pending AM of a job already running (its driver started
			// again) is one more container to place, as a task.
			if p.AM && j.Waiting && wj.AM.IsZero() {
				wj.AM = p.Request
				continue
			}
			tasks = append(tasks, p)
		}
		// alone is the job as its pods are, when the job it forecasts is
		// the typical run's (below): the forecast falls back on it when
		// no node the job may use takes the typical run's tasks.
		var alone *workload.Job
		switch {
		case len(tasks) == 0 && len(e.waves) > 0:
			// A driver waiting alone, its executors not asked for yet:
			// the job is taken to ask, once its driver runs, for what
			// the typical run of its kind (else of the cluster) asked
			// for, wave after wave.
			a := wj
			a.AM, a.Phases = resource.Vector{}, []workload.Phase{phase(pending, d)}
			alone = &a
			for _, w := range scaled(e.waves, ij.Hints.Demand) {
				wj.Phases = append(wj.Phases, workload.Phase{Tasks: w.tasks, StartAfter: 1, Request: w.request,
					Durations: []clock.Duration{micros(max(w.duration, time.Second))}})
			}
		case len(tasks) == 0:
			// A driver waiting alone, and no run known to go by: the
			// driver stands for the job, as a recording counts it, for
			// the job's runtime.
			wj.AM, wj.Phases = resource.Vector{}, []workload.Phase{phase(pending, d)}
		default:
			wj.Phases = []workload.Phase{phase(tasks, task)}
		}
		for k := range pending[0].NodeSelector {
			selected[k] = true
		}
		// Workload IDs must be unique; a name reused has one job per
		// UID.
		id := ij.Key
		if n := ids[ij.Key]; n > 0 {
			id = fmt.Sprintf("%s#%d", ij.Key, n+1)
		}
		ids[ij.Key]++
		for _, x := range []*workload.Job{&wj, alone} {
			if x == nil {
				continue
			}
			if j.Waiting && ij.MinMembers > 0 {
				x.MinMembers = min(ij.MinMembers, x.Phases[0].Tasks+btoi(!x.AM.IsZero()))
			}
			x.ID, x.Submit = id, arrival
			// Where it may run: its first pending pod's node selector
			// and tolerations (a job's pods normally share them).
			x.NodeSelector = pending[0].NodeSelector
			x.Tolerations = tolerations(pending[0].Tolerations)
		}
		entries = append(entries, entry{first: ij.Pods[0].Created, job: wj, alone: alone, of: idx})
	}
	// Arrival order is creation order: every waiting job arrives at once
	// (it was submitted by Now), and the simulator keeps the workload's
	// order among equal submit times, which FIFO follows. The pinned tasks
	// come first, at time 0, so that they are placed before anything else
	// is asked for; the running jobs' later waves a microsecond later (they
	// are the running jobs', ahead of every waiting job in FIFO order); the
	// waiting jobs a microsecond after that.
	sort.SliceStable(entries, func(a, b int) bool {
		if !entries[a].first.Equal(entries[b].first) {
			return entries[a].first.Before(entries[b].first)
		}
		return entries[a].job.ID < entries[b].job.ID
	})
	w := &workload.Workload{Version: workload.Version, Queues: queues}
	w.Cluster = workload.Cluster{Ideal: true, Calculator: s.Calculator, MapReduceAM: record.NoMapReduceAM}
	w.Cluster.Nodes = groups(names, nodes, selected)
	for _, e := range slices.Concat(pins, mores, entries) {
		if e.alone != nil && !(admitted(&e.job, w.Cluster.Nodes) && gangFits(&e.job, w.Cluster.Nodes)) {
			e.job = *e.alone
		}
		if e.more && !admitted(&e.job, w.Cluster.Nodes) {
			// No node its selector and tolerations admit takes waves like
			// the run's they were taken from (build checked capacity
			// alone): the job asks for none, and its AM's room is left
			// free.
			continue
		}
		if !e.pinned && !e.more && (!admitted(&e.job, w.Cluster.Nodes) || !gangFits(&e.job, w.Cluster.Nodes)) {
			// No node could ever hold it: it waits for good, as the
			// scheduler holds it.
			j := &m.jobs[e.of]
			j.Beyond, j.Finish = j.Waiting, time.Time{}
			continue
		}
		w.Jobs = append(w.Jobs, e.job)
		m.of = append(m.of, e.of)
		m.pinned = append(m.pinned, e.pinned)
		m.pinnedAM = append(m.pinnedAM, e.am)
		m.more = append(m.more, e.more)
	}
	w.ApplyDefaults()
	m.w = w
	return m, nil
}

// anyHolds reports whether each wave's request fits some node's capacity.
func anyHolds(nodes map[string]*nodeLoad, ws []wave) bool {
	for _, w := range ws {
		fits := false
		for _, n := range nodes {
			if fits = w.request.Fits(n.capacity); fits {
				break
			}
		}
		if !fits {
			return false
		}
	}
	return true
}

// token is the request of a pinned AM's one task: the least of each
// resource, taken out of the AM's own request (see pinnedAM).
var token = func() (v resource.Vector) {
	v[resource.VCores], v[resource.Memory] = 1, 1
	return v
}()

// pinnedAM splits a running AM's request r into a pinned job's AM and its
// one task. A simulated job runs as long as its tasks, and its AM cannot
// run alone, so a running AM is a job of an AM and one token task (a
// milli-vcore and a MiB) that lasts what the AM has left; the token is
// taken out of the AM's request, so that the two hold on the node exactly
// what the AM holds, where the forecast checked room for it. Where r is
// too small to give the token, the token comes on top.
func pinnedAM(r resource.Vector) (am, task resource.Vector) {
	if r[resource.VCores] > token[resource.VCores] && r[resource.Memory] > token[resource.Memory] {
		return r.Sub(token), token
	}
	return r, token
}

// scaled returns a typical run's waves for a job that declares the peak
// of its tasks' demand (spindle.io/demand, or Spark's executor settings):
// its widest wave asks for as many tasks of its request as fit in the
// demand, and every wave is scaled by the same ratio, rounded up. Without
// a declared demand, or one that holds no task, the waves as they are.
func scaled(ws []wave, demand resource.Vector) []wave {
	if demand.IsZero() || len(ws) == 0 {
		return ws
	}
	wide := 0
	for i := range ws {
		if ws[i].tasks > ws[wide].tasks {
			wide = i
		}
	}
	n := ws[wide].request.CountIn(demand)
	if n <= 0 || n == ws[wide].tasks {
		return ws
	}
	out := slices.Clone(ws)
	for i := range out {
		out[i].tasks = (ws[i].tasks*n + ws[wide].tasks - 1) / ws[wide].tasks
	}
	return out
}

// phase is one wave of pods, each taking d and asking for the largest
// request among them (as a recording raises a wave's requests).
func phase(pods []*record.InstantPod, d time.Duration) workload.Phase {
	ph := workload.Phase{Tasks: len(pods), StartAfter: 1, Durations: []clock.Duration{micros(d)}}
	for _, p := range pods {
		ph.Request = ph.Request.Max(p.Request)
	}
	return ph
}

// since is how long before now t was, 0 when t is not before now.
func since(now, t time.Time) time.Duration {
	if t.IsZero() || !t.Before(now) {
		return 0
	}
	return now.Sub(t)
}

// admitted reports whether each container of j fits, alone, some node
// group that admits j (its node selector and tolerations).
func admitted(j *workload.Job, gs []workload.NodeGroup) bool {
	fits := func(r resource.Vector) bool {
		if r.IsZero() {
			return true
		}
		for i := range gs {
			if r.Fits(gs[i].Capacity) && j.Admits(&gs[i]) {
				return true
			}
		}
		return false
	}
	if !fits(j.AM) {
		return false
	}
	for k := range j.Phases {
		if !fits(j.Phases[k].Request) {
			return false
		}
	}
	return true
}

// gangFits reports whether a gang's minimum (its AM, then tasks of its
// first phase) could fit the empty cluster together, counting how many
// tasks each admitted node holds beside the AM on the node that holds it:
// the simulator refuses a gang that never fits, and the scheduler holds
// it for good.
func gangFits(j *workload.Job, gs []workload.NodeGroup) bool {
	if j.MinMembers == 0 || len(j.Phases) == 0 {
		return true
	}
	need := j.MinMembers - btoi(!j.AM.IsZero())
	r := j.Phases[0].Request
	total, amBest := 0, -1 // tasks the cluster holds; the most lost to the AM's node
	for i := range gs {
		g := &gs[i]
		if !j.Admits(g) {
			continue
		}
		per := r.CountIn(g.Capacity)
		total += per * g.Count
		if !j.AM.IsZero() && j.AM.Fits(g.Capacity) {
			// Tasks the AM's node loses to it: the fewest over the nodes
			// that can hold it.
			if lost := per - r.CountIn(g.Capacity.Sub(j.AM)); amBest < 0 || lost < amBest {
				amBest = lost
			}
		}
	}
	if !j.AM.IsZero() {
		if amBest < 0 {
			return false
		}
		total -= amBest
	}
	return total >= need
}

// tolerateAll tolerates every taint: a pinned task runs where it runs.
var tolerateAll = []workload.Toleration{{Operator: workload.OpExists}}

// taints are a node's taints that keep pods off it, as the workload
// writes them.
func taints(ts []v1.Taint) []workload.Taint {
	var out []workload.Taint
	for _, t := range ts {
		if t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute {
			out = append(out, workload.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
		}
	}
	return out
}

// tolerations are a pod's tolerations as the workload writes them.
func tolerations(ts []v1.Toleration) []workload.Toleration {
	var out []workload.Toleration
	for _, t := range ts {
		op := workload.OpEqual
		if t.Operator == v1.TolerationOpExists {
			op = workload.OpExists
		}
		out = append(out, workload.Toleration{Key: t.Key, Operator: op, Value: t.Value, Effect: string(t.Effect)})
	}
	return out
}

// nodeLoad is what a node holds at Now that the simulation does not place:
// pods from outside, and the running tasks, each until its estimated end.
type nodeLoad struct {
	capacity resource.Vector
	labels   map[string]string // the Node's (read only)
	taints   []workload.Taint
	held     resource.Vector // everything at Now, pinned tasks too
	ends     []release
	// pinned says pinned tasks run there; pinnedHeld is what they hold,
	// in held but placed by the simulation, not external.
	pinned     bool
	pinnedHeld resource.Vector
}

type release struct {
	at  clock.Duration
	req resource.Vector
}

// groups makes the cluster's node groups: each node with load of its own
// or pinned tasks a group of one (its external steps release the running
// tasks one end at a time; pinLabel names it), the others grouped by
// capacity, taints and the labels some job selects by (selected).
func groups(names []string, nodes map[string]*nodeLoad, selected map[string]bool) []workload.NodeGroup {
	var out []workload.NodeGroup
	idle := map[string]int{}
	for _, name := range names {
		n := nodes[name]
		var labels map[string]string
		for k := range selected {
			if v, ok := n.labels[k]; ok {
				if labels == nil {
					labels = map[string]string{}
				}
				labels[k] = v
			}
		}
		g := workload.NodeGroup{Count: 1, Capacity: n.capacity, Labels: labels, Taints: n.taints}
		external := n.held.Sub(n.pinnedHeld)
		if external.IsZero() && !n.pinned {
			key := fmt.Sprint(n.capacity, sortedLabels(labels), n.taints)
			if i, ok := idle[key]; ok {
				out[i].Count++
				continue
			}
			idle[key] = len(out)
			out = append(out, g)
			continue
		}
		if n.pinned {
			if g.Labels == nil {
				g.Labels = map[string]string{}
			}
			g.Labels[pinLabel] = name
		}
		if !external.IsZero() {
			sort.SliceStable(n.ends, func(a, b int) bool { return n.ends[a].at < n.ends[b].at })
			g.External = []workload.HeldStep{{At: 0, Held: external}}
			held := external
			for _, e := range n.ends {
				held = held.Sub(e.req)
				if last := &g.External[len(g.External)-1]; last.At == e.at {
					last.Held = held
				} else {
					g.External = append(g.External, workload.HeldStep{At: e.at, Held: held})
				}
			}
		}
		out = append(out, g)
	}
	return out
}

// sortedLabels writes labels in key order, for a group's key.
func sortedLabels(labels map[string]string) []string {
	var out []string
	for k, v := range labels {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// gangs drops every gang's minimum, and reports whether there was one.
func (m *model) gangs() bool {
	any := false
	for i := range m.w.Jobs {
		if m.w.Jobs[i].MinMembers > 0 {
			m.w.Jobs[i].MinMembers, any = 0, true
		}
	}
	return any
}

// pinsHeld reports whether every pinned task started at time 0, and every
// running AM that asks for later waves as it arrived, as they run now: else the
// policy kept one from its node (the admission controller adopts them,
// see adopting), and the model is not the cluster's state.
func (m *model) pinsHeld(out []metrics.JobResult) bool {
	for i, r := range out {
		if !m.pinned[i] && !m.more[i] {
			continue
		}
		// A pinned AM starts with its job; a pinned task is its job's
		// first task.
		var held bool
		switch {
		case m.more[i]:
			held = r.AMStart == moreArrival
		case m.pinnedAM[i]:
			held = r.AMStart == 0
		default:
			held = r.FirstRun == 0
		}
		if !held {
			return false
		}
	}
	return true
}

// read takes the simulation's outcome into the jobs: a job is forecast to
// start when its first container (its AM, else a task) runs, and to finish
// when its last task ends.
func (m *model) read(out []metrics.JobResult, horizon time.Duration) {
	limit := micros(horizon)
	for i, r := range out {
		j := &m.jobs[m.of[i]]
		if m.pinned[i] {
			// A pinned task ends later than estimated only if it was
			// preempted and ran again.
			if r.Finish < 0 {
				continue
			}
			f := m.at(r.Finish)
			if f.After(j.Finish) {
				j.Finish = f
			}
			if !m.pinnedAM[i] && f.After(m.tasksEnd[m.of[i]]) {
				m.tasksEnd[m.of[i]] = f
			}
			continue
		}
		if m.more[i] {
			// A running job's later waves: it finishes when they do.
			if r.Finish < 0 {
				j.Finish = time.Time{} // not by the end of the simulation
				m.moreEnd[m.of[i]] = m.now.Add(horizon)
				continue
			}
			f := m.at(r.Finish)
			if f.After(j.Finish) && !j.Finish.IsZero() {
				j.Finish = f
			}
			m.moreEnd[m.of[i]] = f
			continue
		}
		first := r.FirstRun
		if !m.w.Jobs[i].AM.IsZero() {
			first = r.AMStart // (a job without an AM "starts" it on admission)
		}
		if j.Waiting {
			if first < 0 || clock.Duration(first) > limit {
				j.Beyond, j.Start, j.Finish = true, time.Time{}, time.Time{}
				continue
			}
			j.Start = m.at(first)
			j.Finish = time.Time{}
			if r.Finish >= 0 {
				j.Finish = m.at(r.Finish)
			}
			continue
		}
		// A running job's pending pods: it finishes when they do too.
		if r.Finish < 0 {
			j.Finish = time.Time{} // not by the end of the simulation
			m.tasksEnd[m.of[i]] = m.now.Add(horizon)
			continue
		}
		f := m.at(r.Finish)
		if f.After(j.Finish) {
			j.Finish = f
		}
		if f.After(m.tasksEnd[m.of[i]]) {
			m.tasksEnd[m.of[i]] = f
		}
	}
}

// holds returns, by Job, what the next simulation is to hold each
// running job to, from prev (what this one was held to; nil: nothing):
// its AM until its tasks, later waves too, were forecast to end, where
// that is after the AM's own estimated end; its later waves until
// its current tasks were forecast to end, where that is not the gate
// they were given (the pending tasks of its current wave may run later,
// or sooner, once its later waves wait for them). changed says whether
// anything moved.
func (m *model) holds(prev []hold) (out []hold, changed bool) {
	out = slices.Clone(prev)
	if out == nil {
		out = make([]hold, len(m.jobs))
	}
	for i := range m.jobs {
		if own := m.amOwn[i]; !own.IsZero() {
			var am time.Time // as estimated
			if t := latest(m.tasksEnd[i], m.moreEnd[i]); t.After(own) {
				am = t
			}
			if !am.Equal(out[i].am) {
				out[i].am, changed = am, true
			}
		}
		// tasksEnd is never before the running tasks' end: read only
		// moves it later.
		if g := m.gate[i]; !g.IsZero() && m.tasksEnd[i].After(m.now) && !m.tasksEnd[i].Equal(g) {
			out[i].gate, changed = m.tasksEnd[i], true
		}
	}
	return out, changed
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// at converts a simulation time to wall time, to the millisecond: the
// microsecond by which the waiting jobs arrive after the pinned tasks is
// not a forecast.
func (m *model) at(t clock.Time) time.Time {
	return m.now.Add((time.Duration(t) * time.Microsecond).Round(time.Millisecond))
}

// finish sorts the jobs by key, keeps the latest of two jobs of one key (a
// name reused while the first job's pods linger: the jobs come in creation
// order), and numbers each queue's waiting jobs in the order they are
// forecast to start (Beyond last), 1 first.
func finish(jobs []Job) []Job {
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Key < jobs[b].Key })
	out := jobs[:0]
	for _, j := range jobs {
		if len(out) > 0 && out[len(out)-1].Key == j.Key {
			out[len(out)-1] = j
			continue
		}
		out = append(out, j)
	}
	positions(out)
	return out
}

// positions numbers each queue's waiting jobs in the order they are
// forecast to start (Beyond last), 1 first.
func positions(jobs []Job) {
	var waiting []*Job
	for i := range jobs {
		if jobs[i].Waiting {
			waiting = append(waiting, &jobs[i])
		}
	}
	sort.SliceStable(waiting, func(a, b int) bool {
		x, y := waiting[a], waiting[b]
		if x.Queue != y.Queue {
			return x.Queue < y.Queue
		}
		if x.Beyond != y.Beyond {
			return y.Beyond
		}
		if !x.Start.Equal(y.Start) {
			return x.Start.Before(y.Start)
		}
		return x.Key < y.Key
	})
	for i, j := range waiting {
		j.Position = 1
		if i > 0 && waiting[i-1].Queue == j.Queue {
			j.Position = waiting[i-1].Position + 1
		}
	}
}

// leaves returns, by canonical path (sched.QueuePath), whether each queue
// is a leaf, checking the tree as the core will build it.
func leaves(qs []workload.Queue) (map[string]bool, error) {
	specs := make([]sched.QueueSpec, len(qs))
	for i, q := range qs {
		specs[i] = sched.QueueSpec{Name: q.Name, Capacity: q.Capacity, MaxCapacity: q.MaxCapacity, Weight: q.Weight, DisablePreemption: q.DisablePreemption}
	}
	l, err := sched.ValidateQueues(specs)
	if err != nil {
		return nil, fmt.Errorf("forecast: snapshot: queues: %w", err)
	}
	return l, nil
}

func namespace(j *record.InstantJob) string {
	ns, _, _ := strings.Cut(j.Pods[0].Name, "/")
	return ns
}

func micros(d time.Duration) clock.Duration { return clock.Duration(d / time.Microsecond) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pinnedIDs returns the workload IDs of the pinned jobs and the running
// jobs' later waves: both run already, admitted by the live core.
func (m *model) pinnedIDs() map[string]bool {
	out := map[string]bool{}
	for i, p := range m.pinned {
		if p || m.more[i] {
			out[m.w.Jobs[i].ID] = true
		}
	}
	return out
}
