package kube

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// syncNodeObject brings the core's node up to date with n, the informer's
// latest object (nil: the node is gone).
func (s *Scheduler) syncNodeObject(now clock.Time, name string, n *v1.Node) {
	ns := s.nodes[name]
	if n == nil {
		if ns == nil {
			return
		}
		s.removeNode(now, ns)
		return
	}
	if ns == nil {
		capacity := nodeCapacity(n)
		s.joining = n
		cn, err := s.core.AddNode(now, name, capacity)
		s.joining = nil
		if err != nil {
			s.o.Log.Error("node not added", "node", name, "err", err)
			return
		}
		ns = &nodeState{name: name, id: cn.ID(), cn: cn, cap: capacity, schedu: true}
		s.nodes[name] = ns
		for int(cn.ID()) >= len(s.nodeByID) {
			s.nodeByID = append(s.nodeByID, nil)
		}
		s.nodeByID[cn.ID()] = ns
		s.applyExternal(now, name)
	} else if c := nodeCapacity(n); c != ns.cap {
		if err := s.core.SetNodeCapacity(now, ns.id, c); err != nil {
			s.o.Log.Error("node capacity", "node", name, "err", err)
		}
		ns.cap = c
	}
	if sc := nodeSchedulable(n); sc != ns.schedu {
		if err := s.core.SetNodeSchedulable(now, ns.id, sc); err != nil {
			s.o.Log.Error("node schedulable", "node", name, "err", err)
		}
		ns.schedu = sc
	}
	old := ns.node
	ns.node = n
	if p := podmap.NodePods(n); p != ns.slots {
		ns.slots = p
		s.applySlots(now, ns)
	}
	if old != nil && !samePlacement(old, n) {
		// Pods that fit no node may fit this one now, or fit only here
		// before: the core checks them again.
		if err := s.core.ConstraintsChanged(now, ns.id); err != nil {
			s.o.Log.Error("node constraints", "node", name, "err", err)
		}
	}
	// Labels or taints may have changed which pods the node can take.
	s.dirty = true
}

// removeNode tells the core the node is gone: its containers end LOST. Our
// pods on it hold nothing any more; one whose binding is still in flight is
// asked again if that binding fails.
func (s *Scheduler) removeNode(now clock.Time, ns *nodeState) {
	if err := s.core.RemoveNode(now, ns.id); err != nil {
		s.o.Log.Error("node removal", "node", ns.name, "err", err)
	}
	for _, ps := range s.pods {
		if ps.node != ns.name || ps.ct == nil {
			continue
		}
		ps.ct = nil
		if ps.phase != podAssumed {
			s.ended(now, ps)
		}
	}
	ns.cn, ns.node = nil, nil
	delete(s.nodes, ns.name)
}

// applyExternal gives the core what pods we do not schedule request on the
// named node.
func (s *Scheduler) applyExternal(now clock.Time, name string) {
	ns := s.nodes[name]
	if ns == nil {
		return
	}
	if err := s.core.SetNodeExternal(now, ns.id, s.external[name]); err != nil {
		s.o.Log.Error("external load", "node", name, "err", err)
	}
	s.applySlots(now, ns)
}

// applySlots gives the core the node's "pods" allocatable and how many of
// its pods spindle does not schedule, as kube-scheduler counts them: a node
// whose pods fill its allocatable takes no more, whatever it has free.
func (s *Scheduler) applySlots(now clock.Time, ns *nodeState) {
	if ns.cn == nil {
		return
	}
	if err := s.core.SetNodeSlots(now, ns.id, ns.slots, s.foreignPods[ns.name]); err != nil {
		s.o.Log.Error("node pods", "node", ns.name, "err", err)
	}
}

// samePlacement reports whether two versions of a node look the same to a
// pod's node selector, required affinity and tolerations: same labels,
// fields the affinity may match, and taints.
func samePlacement(a, b *v1.Node) bool {
	return maps.Equal(a.Labels, b.Labels) && a.Name == b.Name && slices.EqualFunc(a.Spec.Taints, b.Spec.Taints, func(x, y v1.Taint) bool {
		return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect
	})
}

// syncForeign counts a pod spindle does not schedule against its node while
// it is bound and has not ended.
func (s *Scheduler) syncForeign(now clock.Time, key string, p *v1.Pod) {
	old, had := s.foreign[key]
	var cur foreignPod
	live := p != nil && p.Spec.NodeName != "" && !terminal(p)
	if live {
		cur = foreignPod{node: p.Spec.NodeName, req: externalRequest(p)}
	}
	if had == live && old == cur {
		return
	}
	if had {
		s.external[old.node] = s.external[old.node].Sub(old.req)
		if s.external[old.node].IsZero() {
			delete(s.external, old.node)
		}
		if s.foreignPods[old.node]--; s.foreignPods[old.node] <= 0 {
			delete(s.foreignPods, old.node)
		}
		delete(s.foreign, key)
		s.applyExternal(now, old.node)
	}
	if live {
		s.external[cur.node] = s.external[cur.node].Add(cur.req)
		s.foreignPods[cur.node]++
		s.foreign[key] = cur
		s.applyExternal(now, cur.node)
	}
}

// syncPodObject brings the driver's and the core's view of one pod up to
// date with p, the informer's latest object (nil: deleted).
func (s *Scheduler) syncPodObject(now clock.Time, key string, p *v1.Pod) {
	ps := s.pods[key]
	if ps != nil && (p == nil || string(p.UID) != ps.uid) {
		s.podGone(now, ps, "pod deleted")
		ps = nil
	}
	if p == nil || p.Spec.SchedulerName != s.o.SchedulerName {
		s.syncForeign(now, key, p)
		return
	}
	if ps == nil {
		if terminal(p) || (p.DeletionTimestamp != nil && p.Spec.NodeName == "") {
			return // ended or going before we had anything to do with it
		}
		ps = s.newPod(now, key, p)
		return
	}
	ps.pod = p
	if ps.awaits != "" && p.Spec.NodeName != "" {
		// Bound by someone else while it waited for its driver: it holds
		// room now, in whatever job it can join.
		s.podGone(now, ps, "bound elsewhere")
		s.newPod(now, key, p)
		return
	}
	if p.DeletionTimestamp != nil && p.Spec.NodeName == "" && (ps.phase == podAsked || ps.phase == podBackoff || ps.phase == podHeld) {
		s.podGone(now, ps, "pod being deleted")
		return
	}
	s.advance(now, ps)
}

// newPod starts tracking one of our pods: it joins (or submits) its job and
// is adopted where it is bound, else asked for.
func (s *Scheduler) newPod(now clock.Time, key string, p *v1.Pod) *podState {
	id := identify(p)
	req, reqErr := podmap.CheckedRequest(p)
	ps := &podState{key: key, uid: string(p.UID), pod: p, req: req, place: newPlacement(p)}
	s.pods[key] = ps
	if reqErr != nil {
		// Never bound, never part of a job: a count the core cannot hold
		// would bind it as if it asked for nothing.
		if p.Spec.NodeName != "" {
			s.o.Log.Warn("pod bound with requests spindle cannot count; not counted", "pod", key, "node", p.Spec.NodeName, "err", reqErr)
		}
		s.hold(ps, fmt.Sprintf("refused: %v", reqErr))
		return ps
	}
	if id.Conflict != "" && p.Spec.NodeName == "" {
		// Two conventions name two groups: guessing would put the pod in
		// a job its author did not mean. Held, it blocks no other job.
		s.hold(ps, "refused: "+id.Conflict)
		return ps
	}
	js := s.jobs[id.Job]
	if js != nil && js.ended {
		js = nil // a pod of a job that ended starts the job again
	}
	var gp groupPolicy
	if js == nil && id.Kind == podmap.KindPodGroup && s.groupLister != nil {
		g, err := s.groupLister.PodGroups(p.Namespace).Get(id.Group)
		if err != nil {
			// kube-scheduler's gang plugin waits for the PodGroup too:
			// its policy says whether the pods are a gang.
			ps.awaitsGroup = p.Namespace + "/" + id.Group
			s.hold(ps, fmt.Sprintf("waiting for its PodGroup %s (scheduling.k8s.io/v1beta1) to exist", ps.awaitsGroup))
			return ps
		}
		gp.min = podmap.PodGroupMin(g)
	}
	if js == nil && id.Kind == podmap.KindVolcano && s.volcanoGroups != nil {
		var why string
		if gp, why = s.volcanoPolicy(p, &id); why != "" {
			// Volcano too leaves a pod whose PodGroup is missing
			// pending; a PodGroup fixed or created is read again.
			ps.awaitsGroup = volcanoKey(p.Namespace + "/" + id.Group)
			s.hold(ps, why)
			return ps
		}
	}
	if js == nil && p.Spec.NodeName == "" && podmap.AwaitsDriver(p) {
		s.awaitDriver(ps, id.Job)
		return ps
	}
	if js == nil {
		var why string
		js, why = s.submit(now, id, p, gp)
		if js == nil {
			s.hold(ps, why)
			return ps
		}
	}
	s.join(now, ps, js, id.AM)
	// Executors that waited for a driver join the job now that it exists:
	// normally it came with its driver; if not (an executor found bound,
	// its driver gone), they would wait for ever.
	if w := s.awaiting[id.Job]; len(w) > 0 {
		for _, e := range w {
			e.awaits = ""
			s.join(now, e, js, false)
		}
		delete(s.awaiting, id.Job)
	}
	return ps
}

// groupPolicy is what a job's group object says: a Kubernetes PodGroup's
// gang minCount, a Volcano PodGroup's minMember, minResources and
// priority. The zero value: nothing (the pods' own words count).
type groupPolicy struct {
	min          int
	minResources resource.Vector
	priority     *int32
}

// volcanoPolicy reads the Volcano PodGroup pod p names: its minimum and
// minimum resources, its queue (into id, unless p names a spindle.io/queue,
// which is spindle's own word and wins) and its priorityClassName's value.
// why says what p waits for when the PodGroup is missing or unreadable.
func (s *Scheduler) volcanoPolicy(p *v1.Pod, id *podIdentity) (gp groupPolicy, why string) {
	key := p.Namespace + "/" + id.Group
	obj, ok, _ := s.volcanoGroups.GetByKey(key)
	u, isU := obj.(*unstructured.Unstructured)
	if !ok || !isU {
		return gp, fmt.Sprintf("waiting for its Volcano PodGroup %s (%s/%s) to exist", key, podmap.VolcanoGroup, podmap.VolcanoVersion)
	}
	vg, err := podmap.ParseVolcanoPodGroup(u.Object)
	if err != nil {
		return gp, fmt.Sprintf("refused: Volcano PodGroup %s: %v", key, err)
	}
	gp.min, gp.minResources = vg.Min(), vg.MinResources
	vg.ApplyQueue(id, key)
	if name := vg.PriorityClassName; name != "" {
		pc, err := s.priorityClasses.Get(name)
		if err != nil {
			// Volcano's own admission refuses such a PodGroup; a pod's
			// priority (its own class) still orders the job.
			s.o.Recorder.Eventf(p, v1.EventTypeWarning, "BadPodGroup", "Volcano PodGroup %s: priorityClassName %q: no such PriorityClass; the pod's own priority orders its job", key, name)
		} else {
			v := pc.Value
			gp.priority = &v
		}
	}
	return gp, ""
}

// syncGroup gives the pods that waited for PodGroup key (namespace/name,
// or volcanoKey's for a Volcano PodGroup) their job now that it may exist.
func (s *Scheduler) syncGroup(now clock.Time, key string) {
	var waiting []*podState
	for _, ps := range s.pods {
		if ps.awaitsGroup == key && ps.job == nil {
			waiting = append(waiting, ps)
		}
	}
	sort.Slice(waiting, func(a, b int) bool { return podBefore(waiting[a].pod, waiting[b].pod) })
	for _, ps := range waiting {
		delete(s.pods, ps.key)
		s.newPod(now, ps.key, ps.pod)
	}
}

// join makes pod ps part of job js, and adopts it where it is bound or
// asks for it.
func (s *Scheduler) join(now clock.Time, ps *podState, js *jobState, am bool) {
	ps.job = js
	js.pods[ps.key] = ps
	if am && js.am == nil && js.j.HasAM() {
		ps.am, js.am = true, ps
	}
	if ps.pod.Spec.NodeName != "" {
		s.adopt(now, ps, ps.pod.Spec.NodeName)
		return
	}
	s.ask(now, ps)
}

// awaitDriver keeps a Spark executor seen before its driver out of any
// job until the driver comes. Spark's driver creates its executors, so
// one always comes (or the executors are deleted with it); but pods
// created together, or listed at start, can be seen in any order, and a
// job submitted from an executor would have no AM: the executors would be
// bound at once and the driver counted as one of its tasks. Its wait is
// written only once it has lasted, as for any pod merely waiting its turn.
func (s *Scheduler) awaitDriver(ps *podState, job string) {
	ps.phase, ps.awaits = podHeld, job
	ps.held = "waiting for its driver pod: this Spark executor was seen before any driver of application " + job
	ps.askedAt = s.o.Now()
	s.awaiting[job] = append(s.awaiting[job], ps)
}

// submit gives the core a new job for pod p, its first pod seen (its AM
// when it has one: Spark's driver creates the executors).
func (s *Scheduler) submit(now clock.Time, id podIdentity, p *v1.Pod, gp groupPolicy) (*jobState, string) {
	queue := s.o.Config.resolveQueue(id.Queue)
	if strictQueue(id) && !s.o.Config.listed(id.Queue) {
		// YuniKorn and Volcano refuse an application whose queue does
		// not exist; sending it to default_queue would run it where its
		// author did not mean to.
		return nil, fmt.Sprintf("queue %q (%s) is not configured; list it in the configuration's queues", id.Queue, id.QueueFrom)
	}
	if queue == "" {
		return nil, fmt.Sprintf("queue %q is not configured and the configuration names no default_queue", id.Queue)
	}
	gang, err := podmap.PodGang(p)
	if err != nil {
		// A gang whose minimum cannot be read would be placed piecemeal,
		// which is what its author asked not to happen.
		return nil, fmt.Sprintf("refused: %v", err)
	}
	if gp.min > 0 {
		// The PodGroup object is the source of truth.
		gang.MinMembers, gang.MinResources = gp.min, gp.minResources
	}
	priority := podmap.Priority(p)
	if gp.priority != nil {
		priority = *gp.priority
	}
	h, err := readHints(p)
	if err != nil {
		s.o.Recorder.Eventf(p, v1.EventTypeWarning, "BadAnnotation", "ignoring this job's hints: %v", err)
		h = jobHints{}
	}
	gen := s.jobGen[id.Job] + 1
	s.jobGen[id.Job] = gen
	key := id.Job
	if gen > 1 {
		key = fmt.Sprintf("%s#%d", id.Job, gen)
	}
	spec := &sched.JobSpec{Key: key, Queue: queue, User: p.Namespace, Open: true, Estimate: h.Estimate, Priority: priority,
		MinMembers: gang.MinMembers, MinResources: gang.MinResources, GangTimeout: gang.Timeout}
	if h.Deadline > 0 {
		// The goal counts from the pod's creation, which a restarted
		// scheduler must not push back.
		spec.Deadline = h.Deadline
		if c := p.CreationTimestamp.Time; !c.IsZero() {
			spec.Deadline = max(h.Deadline-clock.Duration(s.o.Now().Sub(c)/time.Microsecond), 1)
		}
	}
	if id.AM {
		spec.AM, _ = podmap.CheckedRequest(p) // newPod checked it
	}
	if !h.Demand.IsZero() {
		spec.Demand = h.Demand.Add(spec.AM)
	}
	j, err := s.core.Submit(now, spec)
	if err != nil {
		return nil, fmt.Sprintf("job not accepted: %v", err)
	}
	js := &jobState{key: id.Job, j: j, pods: map[string]*podState{}, lone: id.Lone}
	s.jobs[id.Job] = js
	return js, ""
}

// ask hands the pod's request to the core.
func (s *Scheduler) ask(now clock.Time, ps *podState) {
	if ps.job.ended {
		s.hold(ps, fmt.Sprintf("its job %s has ended (its driver is gone)", ps.job.key))
		return
	}
	r := sched.Request{Key: ps.key, Resource: ps.req, Class: ps.place.class, Eligible: s.eligible(ps.place), AM: ps.am}
	if _, err := s.core.Ask(now, ps.job.j, r); err != nil {
		s.hold(ps, fmt.Sprintf("not schedulable: %v", err))
		return
	}
	ps.phase, ps.held = podAsked, ""
	ps.askedAt = s.o.Now()
	s.fresh = append(s.fresh, ps)
}

// eligible is the pod's node-side constraints as the core's predicate. It
// reads the node objects the event loop keeps, so only core calls (on the
// loop) may use it.
func (s *Scheduler) eligible(pl *placement) func(*cluster.Node) bool {
	return func(n *cluster.Node) bool {
		id := int(n.ID())
		if id >= len(s.nodeByID) || s.nodeByID[id] == nil || s.nodeByID[id].node == nil {
			// A node joining now (AddNode) is not recorded yet.
			return s.joining != nil && s.joining.Name == n.Name() && pl.fits(s.joining)
		}
		return pl.fits(s.nodeByID[id].node)
	}
}

// hold keeps a pod out of the core, saying why on the pod.
func (s *Scheduler) hold(ps *podState, why string) {
	ps.phase, ps.held = podHeld, why
	s.setWhy(ps, why)
}

// adopt records a pod found bound to a node: the core counts its resources
// from now on.
func (s *Scheduler) adopt(now clock.Time, ps *podState, node string) {
	ns := s.nodes[node]
	ps.node = node
	if ns == nil {
		ps.phase = podDone // bound to a node that is gone: it holds nothing
		return
	}
	ct, err := s.core.Adopt(now, ps.job.j, ns.id, ps.key, ps.req, ps.am)
	if err != nil {
		s.o.Log.Error("adopt", "pod", ps.key, "node", node, "err", err)
		ps.phase = podDone
		return
	}
	ps.ct, ps.phase = ct, podRunning
	s.advance(now, ps)
}

// advance applies what the pod's latest object says: bound, running, ended.
func (s *Scheduler) advance(now clock.Time, ps *podState) {
	p := ps.pod
	if ps.job == nil {
		return // held outside any job (bad requests, no queue): nothing to follow
	}
	switch ps.phase {
	case podAsked, podBackoff, podHeld:
		if p.Spec.NodeName != "" {
			// Bound by someone else (another replica, or our own binding
			// from before a restart whose answer was lost): take it as is.
			s.withdraw(now, ps)
			s.adopt(now, ps, p.Spec.NodeName)
			return
		}
	case podAssumed:
		if p.Spec.NodeName == "" {
			return
		}
		if p.Spec.NodeName != ps.node {
			s.refuse(now, ps, "bound elsewhere")
			s.withdraw(now, ps)
			s.adopt(now, ps, p.Spec.NodeName)
			return
		}
		ps.phase = podBound
		ps.gen++ // the binding's own answer is now moot
		fallthrough
	case podBound:
		if ps.am {
			s.driverBound(now, ps)
		}
		if p.Status.Phase == v1.PodRunning || terminal(p) {
			s.report(now, ps, sched.Running)
			ps.phase = podRunning
		}
	}
	if ps.phase == podRunning && terminal(p) {
		if p.Status.Phase == v1.PodSucceeded {
			delete(s.evicting, ps.key) // done before its eviction took
			s.report(now, ps, sched.Completed)
		} else {
			s.report(now, ps, s.endState(ps, sched.Failed))
		}
		s.ended(now, ps)
	}
}

func (s *Scheduler) report(now clock.Time, ps *podState, st sched.ContainerState) {
	if ps.ct == nil {
		return
	}
	if err := s.core.Report(now, ps.ct, st); err != nil {
		s.o.Log.Error("report", "pod", ps.key, "state", st, "err", err)
	}
	if st.Terminal() {
		ps.ct = nil
	}
}

// driverBound starts a job's AM once its driver pod's binding is confirmed
// (our binding's answer, or the watch showing the pod on our node), not
// once the pod runs: from then on the job's executor pods are placed.
//
// YARN places a job's tasks only after its AM registers, because only then
// does anyone ask for them. A pod that exists is an ask already made, so
// waiting for the driver to run protects nothing: what keeps drivers from
// filling the cluster is admission, and a bound driver's executors cannot
// be placed ahead of it. Waiting would only tie the executors to how fast
// the kubelet starts the driver: on a loaded cluster, minutes. A driver
// found bound when spindle starts is adopted as started for the same
// reason (Core.Adopt), so both paths agree.
func (s *Scheduler) driverBound(now clock.Time, ps *podState) {
	if ps.ct == nil || ps.job.j.State() != sched.Admitted {
		return
	}
	if err := s.core.AMStarted(now, ps.job.j); err != nil {
		s.o.Log.Error("AM started", "pod", ps.key, "err", err)
	}
}

// ended closes the books on a pod that ended or left: an AM's end ends its
// job; an AM-less job ends when none of its pods is left.
func (s *Scheduler) ended(now clock.Time, ps *podState) {
	ps.phase = podDone
	js := ps.job
	if js == nil {
		return
	}
	if ps.am {
		s.endJob(now, js)
		return
	}
	s.jobMaybeOver(now, js)
}

func (s *Scheduler) jobMaybeOver(now clock.Time, js *jobState) {
	if js.ended || js.j.HasAM() && js.am != nil && js.am.phase != podDone {
		return
	}
	for _, q := range js.pods {
		if q.phase != podDone {
			return
		}
	}
	s.endJob(now, js)
}

func (s *Scheduler) endJob(now clock.Time, js *jobState) {
	if js.ended {
		return
	}
	js.ended = true
	if js.j.State() == sched.Finished {
		// The core ended it already (its AM failed too often).
	} else if err := s.core.EndJob(now, js.j); err != nil {
		s.o.Log.Error("end job", "job", js.key, "err", err)
	}
	// Requests the job still had pending are dropped with it.
	for _, q := range js.pods {
		if q.phase == podAsked || q.phase == podBackoff {
			s.hold(q, fmt.Sprintf("its job %s has ended", js.key))
		}
	}
	if s.jobs[js.key] == js {
		delete(s.jobs, js.key)
	}
}

// podGone forgets a pod deleted from the apiserver (or replaced by one of
// the same name), whatever it was doing.
func (s *Scheduler) podGone(now clock.Time, ps *podState, why string) {
	switch ps.phase {
	case podAsked:
		s.withdraw(now, ps)
	case podAssumed:
		s.refuse(now, ps, why)
		s.withdraw(now, ps)
	case podBound, podRunning:
		s.report(now, ps, s.endState(ps, sched.Killed))
	}
	delete(s.evicting, ps.key)
	s.dropBackoff(ps)
	if ps.awaits != "" {
		w := slices.DeleteFunc(s.awaiting[ps.awaits], func(q *podState) bool { return q == ps })
		if len(w) == 0 {
			delete(s.awaiting, ps.awaits)
		} else {
			s.awaiting[ps.awaits] = w
		}
		ps.awaits = ""
	}
	ps.gen++
	delete(s.pods, ps.key)
	s.ended(now, ps)
	if ps.job != nil {
		delete(ps.job.pods, ps.key)
		s.jobMaybeOver(now, ps.job)
	}
}

// withdraw takes the pod's pending request back from the core.
func (s *Scheduler) withdraw(now clock.Time, ps *podState) {
	if ps.job != nil && !ps.job.ended && (ps.phase == podAsked || ps.phase == podAssumed) {
		if err := s.core.Cancel(now, ps.job.j, ps.key); err != nil {
			s.o.Log.Error("cancel", "pod", ps.key, "err", err)
		}
	}
	s.dropBackoff(ps)
	ps.phase = podHeld
}

// refuse undoes an assumed placement in the core: the request is pending
// again.
func (s *Scheduler) refuse(now clock.Time, ps *podState, why string) {
	if ps.ct != nil {
		if err := s.core.Refuse(now, ps.ct, why); err != nil {
			s.o.Log.Error("refuse", "pod", ps.key, "err", err)
		}
		ps.ct = nil
	}
	ps.phase = podAsked
	ps.node = ""
}

func (s *Scheduler) dropBackoff(ps *podState) {
	for i, q := range s.backoff {
		if q == ps {
			s.backoff = append(s.backoff[:i], s.backoff[i+1:]...)
			return
		}
	}
}

// retryBackoff asks again for the pods whose backoff has expired.
func (s *Scheduler) retryBackoff() {
	wall := s.o.Now()
	keep := s.backoff[:0]
	var due []*podState
	for _, ps := range s.backoff {
		if ps.retryAt.After(wall) {
			keep = append(keep, ps)
		} else {
			due = append(due, ps)
		}
	}
	s.backoff = keep
	for _, ps := range due {
		if ps.phase == podBackoff && s.pods[ps.key] == ps {
			s.ask(s.clockNow(), ps)
		}
	}
}
