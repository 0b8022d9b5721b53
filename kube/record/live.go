package record

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Recorder records a cluster from the pods and nodes a watch reports, in
// the order it reports them. Report the first list's nodes and pods with
// Node and Pod, call Begin, then every later event (Pod, PodDeleted, Node,
// NodeDeleted), Tick now and then, and Close at the end. It is not safe for
// concurrent use.
//
// It keeps only the jobs still running, the pods not yet deleted (the
// apiserver's own retention bounds those), a hash of each job name written,
// and the external load's steps (one per node group and load step at most):
// a finished job is written out at once.
type Recorder struct {
	c     *core
	jobs  map[string]*jobRec
	pods  map[types.UID]*livePod
	begun bool
	start time.Time
	seq   uint64 // sightings reported live so far
}

// livePod is what the recorder remembers of a pod it has seen.
type livePod struct {
	rec  *podRec         // nil for a pod outside the workload
	job  *jobRec         // nil for a pod outside the workload; written once the job is
	node string          // an outside pod: the node its held resources count on
	held resource.Vector // and what it holds there now (zero: nothing)
	out  bool            // outside the workload
}

// NewRecorder starts a recording that writes to out.
func NewRecorder(out *workload.Streamer, opt Options) (*Recorder, error) {
	c, err := newCore(out, opt)
	if err != nil {
		return nil, err
	}
	return &Recorder{c: c, jobs: map[string]*jobRec{}, pods: map[types.UID]*livePod{}}, nil
}

// Node records a node added or changed.
func (r *Recorder) Node(n *v1.Node) { r.c.nodes.node(n) }

// NodeDeleted records a node removed.
func (r *Recorder) NodeDeleted(n *v1.Node) { r.c.nodes.nodeGone(n.Name) }

// PodGroup records a PodGroup object (Volcano's scheduling.volcano.sh or
// Kubernetes' scheduling.k8s.io one, as its JSON) added or changed: the
// jobs whose pods name it get its minimum and queue when they are written.
// A deleted PodGroup is kept: a job still running keeps its group, and a
// PodGroup is a few fields.
func (r *Recorder) PodGroup(raw []byte) { r.c.podGroup("podgroup watch", raw) }

// Pod records a pod added or changed, seen at now. Before Begin, pods are
// the first list's: their times are their objects' own stamps.
func (r *Recorder) Pod(now time.Time, p *v1.Pod) error {
	if r.begun {
		r.c.nodes.advance(now)
	}
	return r.observe(now, p, r.begun, false)
}

// PodDeleted records a pod removed, seen at now.
func (r *Recorder) PodDeleted(now time.Time, p *v1.Pod) error {
	if r.begun {
		r.c.nodes.advance(now)
	}
	return r.observe(now, p, r.begun, true)
}

// Begin ends the first list, at now. Jobs none of whose pods still ran are
// left out (their pods may already be partly gone); the workload's time 0
// is the earliest creation among the others, or now.
func (r *Recorder) Begin(now time.Time) error {
	origin := now
	for _, j := range r.sortedJobs() {
		if j.live == 0 {
			r.c.left("pods of jobs that had ended before the recording began", int64(len(j.pods)))
			delete(r.jobs, j.key)
			j.written, j.pods, j.am = true, nil, nil
			continue
		}
		for _, p := range j.pods {
			if p.created.Before(origin) {
				origin = p.created
			}
		}
	}
	r.start = now
	r.c.b.origin = origin
	r.c.nodes.start(origin)
	r.begun = true
	r.c.nodes.advance(now)
	return nil
}

// Gone records, at now, the deletion of every pod followed that is not in
// seen: a new list after a watch expired lacks the pods deleted meanwhile.
func (r *Recorder) Gone(now time.Time, seen map[types.UID]bool) error {
	r.c.nodes.advance(now)
	var touched []*jobRec
	for uid, lp := range r.pods {
		if seen[uid] {
			continue
		}
		delete(r.pods, uid)
		switch {
		case lp.out:
			if lp.node != "" {
				r.c.nodes.hold(lp.node, lp.held, -1)
			}
		case lp.job != nil && !lp.job.written && lp.rec != nil && !lp.rec.over():
			r.seq++
			lp.rec.ended, lp.rec.deleted, lp.rec.endedSeq = now, true, r.seq
			lp.job.live--
			if lp.job.live == 0 {
				lp.job.quiet = now
			}
			touched = append(touched, lp.job)
		}
	}
	sortJobs(touched)
	for _, j := range touched {
		if !j.written {
			if err := r.maybeOver(now, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// observe applies one sighting of p: live when the watch reported it as it
// happened (its time refines the object's one-second stamps).
func (r *Recorder) observe(now time.Time, p *v1.Pod, live, deleted bool) error {
	if live {
		r.seq++
	}
	lp := r.pods[p.UID]
	if lp == nil {
		lp = r.newPod(now, p, live)
		if lp.rec != nil && live {
			lp.rec.createdSeq = r.seq
		}
		r.pods[p.UID] = lp
	}
	if deleted {
		delete(r.pods, p.UID)
	}
	switch {
	case lp.out:
		r.outside(lp, p, deleted)
	case lp.job == nil || lp.job.written:
		// A pod of a job already written, or of one over before the
		// recording began.
	default:
		r.update(now, lp, p, live, deleted)
		if r.begun {
			return r.maybeOver(now, lp.job)
		}
	}
	return nil
}

func (r *Recorder) newPod(now time.Time, p *v1.Pod, live bool) *livePod {
	if cl := classify(p, &r.c.opt); cl != inWorkload {
		r.c.external(cl.reason(), 1)
		return &livePod{out: true}
	}
	req, err := podmap.CheckedRequest(p)
	if err != nil {
		// The scheduler refuses such a pod; a workload cannot hold it.
		r.c.left(refusedRequests, 1)
		r.c.example(fmt.Sprintf("pod %s/%s: %v", p.Namespace, p.Name, err))
		return &livePod{out: true}
	}
	j, rec := podIn(r.jobs, p, req, r.c)
	rec.created = refine(p.CreationTimestamp.Time, now, live)
	if p.CreationTimestamp.IsZero() {
		r.c.problem("pods without a creation time, given the time they were seen", fmt.Sprintf("pod %s has no creationTimestamp", rec.name))
		rec.created = now
	}
	j.add(rec)
	return &livePod{rec: rec, job: j}
}

// update moves a workload pod's record on to what p says.
func (r *Recorder) update(now time.Time, lp *livePod, p *v1.Pod, live, deleted bool) {
	rec, j := lp.rec, lp.job
	if rec.over() {
		return
	}
	s := readStamps(p)
	if live {
		for _, st := range []time.Time{s.scheduled, s.started, s.finished} {
			if skewed(st, now) {
				r.c.problem("observations earlier than the pod's own timestamps (clock skew), the timestamps kept",
					fmt.Sprintf("pod %s: seen at %s, stamped %s", rec.name, now.Format(time.RFC3339Nano), st.Format(time.RFC3339)))
				break
			}
		}
	}
	if !live {
		// A listed pod: its stamps alone, settled against each other.
		r.settle(rec, s)
	} else {
		if rec.bound.IsZero() && s.node != "" {
			rec.bound = refine(s.scheduled, now, live)
		}
		if rec.started.IsZero() && !s.started.IsZero() {
			rec.started = refine(s.started, now, live)
		}
		switch {
		case s.terminal:
			fin := s.finished
			if fin.IsZero() {
				fin = now
			}
			rec.ended, rec.failed = refine(fin, now, live), s.failed
		case deleted:
			rec.ended, rec.deleted = now, true
		}
		// Order what the stamps may have left out of order (a kubelet's
		// clock behind the apiserver's): created ≤ bound ≤ started ≤
		// ended.
		r.order(rec)
	}
	if rec.over() {
		if live {
			rec.endedSeq = r.seq
		}
		j.live--
		if j.live == 0 {
			j.quiet = now
		}
	}
}

// settle sets a listed pod's times from its stamps (see settle).
func (r *Recorder) settle(rec *podRec, s stamps) {
	sp := []span{stampSpan(s.created), {}, stampSpan(s.started), {}}
	if s.node != "" {
		sp[1] = stampSpan(s.scheduled)
		if sp[1].lo.IsZero() {
			sp[1] = sp[2]
		}
	}
	if s.terminal {
		sp[3] = stampSpan(s.finished)
		if sp[3].lo.IsZero() {
			sp[3] = sp[0] // failed before it ran, or when is unknown
		}
	}
	ts, skew := settle(sp)
	if skew {
		r.c.problem("clock skew between pod timestamps, clamped", fmt.Sprintf("pod %s: a step stamped a whole second before the step before it", rec.name))
	}
	if !ts[0].IsZero() {
		rec.created = ts[0]
	}
	rec.bound, rec.started, rec.ended, rec.failed = ts[1], ts[2], ts[3], s.failed
}

func (r *Recorder) order(rec *podRec) {
	fix := func(t *time.Time, floor time.Time) {
		if t.IsZero() || !t.Before(floor) {
			return
		}
		// A stamp is the second its step happened in: a step seen late
		// (not refined) may be stamped in the very second of the step
		// before it, and then happened after that step within it. Only a
		// stamp whose whole second precedes the earlier step is skew.
		if !t.Add(time.Second).After(floor) {
			r.c.problem("clock skew between pod timestamps, clamped", fmt.Sprintf("pod %s: a later step stamped %s before an earlier one", rec.name, floor.Sub(*t).Round(time.Millisecond)))
		}
		*t = floor
	}
	fix(&rec.bound, rec.created)
	floor := rec.created
	if !rec.bound.IsZero() {
		floor = rec.bound
	}
	fix(&rec.started, floor)
	if !rec.started.IsZero() {
		floor = rec.started
	}
	fix(&rec.ended, floor)
}

// outside follows what a pod outside the workload holds on its node.
func (r *Recorder) outside(lp *livePod, p *v1.Pod, deleted bool) {
	var want resource.Vector
	node := p.Spec.NodeName
	if !deleted && node != "" && !podmap.Terminal(p) {
		want = podmap.Held(p)
	}
	if lp.node != "" && (lp.node != node || lp.held != want) {
		r.c.nodes.hold(lp.node, lp.held, -1)
		lp.node, lp.held = "", resource.Vector{}
	}
	if !want.IsZero() && lp.node == "" {
		r.c.nodes.hold(node, want, 1)
		lp.node, lp.held = node, want
	}
}

// maybeOver writes j out when it has ended: its AM ended and no pod of it
// runs (those never started are left out after JobIdle), or without an AM
// no pod of it has been left for JobIdle.
func (r *Recorder) maybeOver(now time.Time, j *jobRec) error {
	if !r.over(now, j) {
		return nil
	}
	delete(r.jobs, j.key)
	err := r.c.emit(j)
	// Its pods' later sightings must not start the job again; what they
	// were is no longer needed.
	j.written, j.pods, j.am = true, nil, nil
	return err
}

func (r *Recorder) over(now time.Time, j *jobRec) bool {
	idle := r.c.opt.JobIdle
	if j.live == 0 {
		// A lone pod's job gets no more pods (another pod of its name is
		// another pod), and one with an AM ends with it.
		return j.id.Lone || j.am != nil && j.am.over() || now.Sub(j.quiet) >= idle
	}
	if j.am == nil || !j.am.over() {
		return false
	}
	// The AM has ended; wait for running tasks, and give pods that never
	// started JobIdle to do so.
	for _, p := range j.pods {
		if !p.over() && p.ran() {
			return false
		}
	}
	if j.quiet.IsZero() || j.quiet.Before(j.am.ended) {
		j.quiet = now
	}
	return now.Sub(j.quiet) >= idle
}

// Tick writes out the jobs that have been idle long enough, advances the
// external load and prints progress.
func (r *Recorder) Tick(now time.Time) error {
	if !r.begun {
		return nil
	}
	r.c.nodes.advance(now)
	for _, j := range r.sortedJobs() {
		if err := r.maybeOver(now, j); err != nil {
			return err
		}
	}
	return nil
}

// sortedJobs lists the running jobs in a fixed order, so that a recording
// writes its jobs in the same order whatever the map's.
func (r *Recorder) sortedJobs() []*jobRec {
	out := make([]*jobRec, 0, len(r.jobs))
	for _, j := range r.jobs {
		out = append(out, j)
	}
	sortJobs(out)
	return out
}

// Progress describes the recording so far, in one line.
func (r *Recorder) Progress(now time.Time) string {
	running := 0
	for _, j := range r.jobs {
		running += j.live
	}
	return fmt.Sprintf("recording %s: %d jobs written (%d tasks), %d jobs running with %d live pods, %d nodes",
		now.Sub(r.start).Round(time.Second), r.c.jobs, r.c.tasks, len(r.jobs), running, r.c.nodes.count())
}

// Close ends the recording at end: the jobs still running are kept or left
// out as Options.Running says, the cluster is written, and the summary says
// what the workload holds and what it left out.
func (r *Recorder) Close(end time.Time) (*Summary, error) {
	if !r.begun {
		if err := r.Begin(end); err != nil {
			return nil, err
		}
	}
	r.c.nodes.finish(end)
	r.c.b.end = end
	for _, j := range r.sortedJobs() {
		if err := r.c.emit(j); err != nil {
			return nil, err
		}
	}
	r.jobs = nil
	return r.c.finish()
}
