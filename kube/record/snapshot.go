package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Input is one file of a snapshot: the output of `kubectl get pods -A -o
// json`, `kubectl get nodes -o json` or `kubectl get events -A -o json`,
// or of any tool that writes pods, nodes and events as JSON or YAML (see
// decode.go), plain or gzipped.
type Input struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// SnapshotOptions configure Snapshot.
type SnapshotOptions struct {
	Options
	// Machine is the allocatable of each node when the snapshot has no
	// node list; Nodes their number (0: the distinct nodes the pods name).
	Machine resource.Vector
	Nodes   int
	// Namespace, when set, keeps only the pods of that namespace (the
	// others are neither workload nor load), as kube record -n does.
	Namespace string
}

// FileError is a snapshot file that cannot be read on: not JSON or YAML,
// cut short, or in an encoding that is not read.
type FileError struct {
	File  string
	Where string // where in the file ("items[3]", "document 2", ...); "" for the file as a whole
	Msg   string
}

func (e *FileError) Error() string {
	if e.Where != "" {
		return e.File + ": " + e.Where + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// Snapshot converts a snapshot of a cluster into a workload: the pods'
// final states (kubectl keeps finished pods until they are
// garbage-collected, so a snapshot holds recent history), the nodes if
// given, and the events if given (their Scheduled events time each
// binding to the microsecond; pods they name that the pod list lacks were
// garbage-collected, and are counted). Each input may hold any mix of
// pods, nodes, events and other kinds (skipped and counted), as JSON or
// YAML (decode.go says which shapes). Each file is read twice as a stream,
// one object at a time: first its nodes and events and each pod's version
// (the same pod twice keeps its latest), then its pods; memory holds a
// compact record of each pod, never the files. A malformed object is
// counted, named in the summary and skipped; a file that cannot be read
// on is an error naming it and where.
func Snapshot(inputs []Input, opt SnapshotOptions) (*workload.Workload, *Summary, error) {
	col := &collector{}
	c, err := newCore(col, opt.Options)
	if err != nil {
		return nil, nil, err
	}
	s := &snapshot{c: c, opt: opt, jobs: map[string]*jobRec{}, bindAt: map[types.UID]time.Time{}, named: map[types.UID]bool{},
		versions: map[uint64]podVersion{}, seed: maphash.MakeSeed(), podNodes: map[string]bool{}}
	for _, in := range inputs {
		if err := eachObject(in, func(o *object) error { return s.scan(in.Name, o) }); err != nil {
			return nil, nil, err
		}
	}
	s.seq, s.objects = 0, 0
	for _, in := range inputs {
		if err := eachRawObject(in, func(o *object) error { return s.readPod(in.Name, o) }); err != nil {
			return nil, nil, err
		}
	}
	sum, err := s.finish()
	if sum != nil {
		sum.Objects = s.objects
	}
	if err != nil {
		return nil, sum, err
	}
	w := &workload.Workload{Version: workload.Version, Cluster: col.cluster, Queues: col.queues, Jobs: col.jobs}
	w.ApplyDefaults()
	if err := w.Validate(); err != nil {
		return nil, sum, fmt.Errorf("the converted workload is invalid: %w", err)
	}
	return w, sum, nil
}

// collector keeps the workload instead of writing it.
type collector struct {
	jobs    []workload.Job
	cluster workload.Cluster
	queues  []workload.Queue
}

func (c *collector) Job(j *workload.Job) error { c.jobs = append(c.jobs, *j); return nil }

func (c *collector) Close(cl *workload.Cluster, qs []workload.Queue) error {
	c.cluster, c.queues = *cl, qs
	return nil
}

type snapshot struct {
	c    *core
	opt  SnapshotOptions
	jobs map[string]*jobRec
	// bindAt is each pod's binding as its Scheduled event times it; named
	// the pods events name that the pod list has not had (yet).
	bindAt map[types.UID]time.Time
	named  map[types.UID]bool
	// versions is, for each pod UID (hashed), the pod object to keep: the
	// one with the highest resourceVersion, else the last seen; seq
	// numbers the pod objects in reading order.
	versions map[uint64]podVersion
	seed     maphash.Seed
	seq      int64
	// isPod marks, per object in reading order, the pods: the second
	// pass reads only those, without deciding kinds again.
	isPod []bool
	// outside are the intervals during which pods outside the workload
	// held resources on their nodes.
	outside    []interval
	podNodes   map[string]bool // nodes the pods name
	nodesGiven bool
	latest     time.Time // the latest time any object states: the snapshot's end
	objects    int64
}

type podVersion struct {
	seq int64
	rv  uint64 // 0 when not a number
}

type interval struct {
	from, to time.Time // to zero: still held at the end
	node     string
	held     resource.Vector
}

func (s *snapshot) see(t time.Time) {
	if t.After(s.latest) {
		s.latest = t
	}
}

// eventObject is a core/v1 Event, or an events.k8s.io/v1 one (which names
// its pod in regarding).
type eventObject struct {
	v1.Event
	Regarding                *v1.ObjectReference `json:"regarding"`
	DeprecatedFirstTimestamp metav1.Time         `json:"deprecatedFirstTimestamp"`
}

// scan is the first pass over an object: nodes and events are taken, pods
// noted by version, other kinds counted.
func (s *snapshot) scan(file string, o *object) error {
	s.objects++
	s.isPod = append(s.isPod, o.kind == "Pod")
	where := file + ": " + o.where
	switch o.kind {
	case "Node":
		var n v1.Node
		if err := json.Unmarshal(o.raw, &n); err != nil {
			s.c.malformed(where, err)
			return nil
		}
		if n.Name == "" {
			s.c.malformed(where, errors.New("a node without a name"))
			return nil
		}
		s.nodesGiven = true
		s.c.nodes.node(&n)
	case "Event":
		var e eventObject
		if err := json.Unmarshal(o.raw, &e); err != nil {
			s.c.malformed(where, err)
			return nil
		}
		if e.InvolvedObject.UID == "" && e.Regarding != nil {
			e.InvolvedObject = *e.Regarding
		}
		if e.FirstTimestamp.IsZero() {
			e.FirstTimestamp = e.DeprecatedFirstTimestamp
		}
		s.event(&e.Event)
	case "PodGroup":
		// Read in the first pass, so that they are there for every job.
		s.c.podGroup(where, o.raw)
	case "Pod":
		s.seq++
		if o.uid == "" {
			return nil // the second pass says what is wrong with it
		}
		key := maphash.String(s.seed, o.uid)
		rv, _ := strconv.ParseUint(o.version, 10, 64)
		if old, ok := s.versions[key]; ok && old.rv > 0 && rv > 0 && rv < old.rv {
			return nil // an older version seen after a newer one
		}
		s.versions[key] = podVersion{seq: s.seq, rv: rv}
	case "":
		if t := bytes.TrimSpace(o.raw); len(t) == 0 || t[0] != '{' {
			s.c.malformed(where, errors.New("not an object"))
			return nil
		}
		s.c.left("objects whose kind neither they, their list nor their shape tells", 1)
	default:
		s.c.left(o.kind+" objects (neither pods, nodes, events nor PodGroups)", 1)
	}
	return nil
}

// readPod is the second pass over an object: a pod's version to keep is
// read into the workload.
func (s *snapshot) readPod(file string, o *object) error {
	i := s.objects
	s.objects++
	if i >= int64(len(s.isPod)) {
		return &FileError{File: file, Where: o.where, Msg: "the file changed while it was read"}
	}
	if !s.isPod[i] {
		return nil
	}
	s.seq++
	where := file + ": " + o.where
	var p v1.Pod
	if err := json.Unmarshal(o.raw, &p); err != nil {
		s.c.malformed(where, err)
		return nil
	}
	if p.UID == "" || p.Name == "" {
		s.c.malformed(where, errors.New("a pod without a name or UID"))
		return nil
	}
	if v, ok := s.versions[maphash.String(s.seed, string(p.UID))]; ok && v.seq != s.seq {
		s.c.left("duplicate pods (the same UID again: overlapping dumps), the latest version kept", 1)
		return nil
	}
	if s.opt.Namespace != "" && p.Namespace != s.opt.Namespace {
		s.c.left("pods of other namespaces than --namespace", 1)
		return nil
	}
	s.pod(&p, where)
	return nil
}

// event notes a pod's Scheduled event (its time, to the microsecond when
// the event has one) and the pods events name.
func (s *snapshot) event(e *v1.Event) {
	if e.InvolvedObject.Kind != "Pod" || e.InvolvedObject.UID == "" {
		return
	}
	uid := e.InvolvedObject.UID
	s.named[uid] = true
	if e.Reason != "Scheduled" {
		return
	}
	t := e.EventTime.Time
	if t.IsZero() {
		t = e.FirstTimestamp.Time
	}
	if !t.IsZero() {
		s.bindAt[uid] = t
		s.see(t)
	}
}

func (s *snapshot) pod(p *v1.Pod, where string) {
	delete(s.named, p.UID)
	st := readStamps(p)
	for _, t := range []time.Time{st.created, st.scheduled, st.started, st.finished} {
		s.see(t)
	}
	if st.node != "" {
		s.podNodes[st.node] = true
	}
	cl := classify(p, &s.c.opt)
	if cl == inWorkload && longRunning(p, &st) {
		cl = loneService
	}
	if cl != inWorkload {
		s.c.external(cl.reason(), 1)
		if st.node == "" || st.scheduled.IsZero() && st.started.IsZero() {
			return
		}
		from := st.scheduled
		if from.IsZero() || !st.started.IsZero() && st.started.Before(from) {
			from = st.started
		}
		iv := interval{from: mid(from), node: st.node, held: podmap.Held(p)}
		if st.terminal {
			iv.to = mid(st.finished)
			if iv.to.IsZero() {
				return // ended, but when is unknown: it holds nothing now
			}
		}
		if !iv.held.IsZero() {
			s.outside = append(s.outside, iv)
		}
		return
	}
	if st.created.IsZero() {
		s.c.malformed(where, fmt.Errorf("pod %s/%s has no creationTimestamp", p.Namespace, p.Name))
		return
	}
	req, err := podmap.CheckedRequest(p)
	if err != nil {
		// The scheduler refuses such a pod; a workload cannot hold it.
		s.c.left(refusedRequests, 1)
		s.c.example(fmt.Sprintf("%s: pod %s/%s: %v", where, p.Namespace, p.Name, err))
		return
	}
	j, rec := podIn(s.jobs, p, req, s.c)
	// One-second stamps settled against each other, and against a binding
	// that a Scheduled event times to the microsecond.
	sp := []span{stampSpan(st.created), {}, stampSpan(st.started), {}}
	if st.node != "" {
		sp[1] = stampSpan(st.scheduled)
		if t, ok := s.bindAt[p.UID]; ok && (st.scheduled.IsZero() || !t.Before(st.scheduled) && t.Before(st.scheduled.Add(time.Second))) {
			sp[1] = exactSpan(t)
		}
		if sp[1].lo.IsZero() {
			sp[1] = sp[2]
		}
	}
	if st.terminal {
		sp[3] = stampSpan(st.finished)
		if sp[3].lo.IsZero() {
			if st.started.IsZero() {
				sp[3] = sp[0] // failed before it ran; when is unknown
			} else {
				s.c.problem("pods ended without a finish time, left as still running", fmt.Sprintf("%s: pod %s ended with no container finishedAt", where, rec.name))
			}
		}
	}
	ts, skew := settle(sp)
	if skew {
		s.c.problem("clock skew between pod timestamps, clamped", fmt.Sprintf("%s: pod %s: a step stamped a whole second before the step before it", where, rec.name))
	}
	rec.created, rec.bound, rec.started, rec.ended, rec.failed = ts[0], ts[1], ts[2], ts[3], st.failed
	s.c.restarted(rec, &st)
	j.add(rec)
}

func (s *snapshot) finish() (*Summary, error) {
	c := s.c
	if !s.nodesGiven {
		if err := s.machineNodes(); err != nil {
			return nil, err
		}
	}
	c.left("pods that events name but the pod list lacks (garbage-collected before the snapshot)", int64(len(s.named)))
	jobs := make([]*jobRec, 0, len(s.jobs))
	for _, j := range s.jobs {
		jobs = append(jobs, j)
	}
	first := func(j *jobRec) time.Time {
		t := j.pods[0].created
		for _, p := range j.pods {
			if p.created.Before(t) {
				t = p.created
			}
		}
		return t
	}
	sort.Slice(jobs, func(a, b int) bool {
		fa, fb := first(jobs[a]), first(jobs[b])
		if !fa.Equal(fb) {
			return fa.Before(fb)
		}
		return jobs[a].key < jobs[b].key
	})
	// The time origin is the first job the workload keeps: a job left
	// out (still running, never ran) must not move every time.
	origin := s.latest
	for _, j := range jobs {
		if j.kept(c.opt.Running) {
			origin = first(j)
			break
		}
	}
	if s.nodesGiven {
		s.unlistedNodes()
	}
	// The snapshot was taken after its last stamp's second began.
	end := s.latest.Add(time.Second)
	c.b.origin, c.b.end = origin, end
	s.applyOutside(origin, end)
	for _, j := range jobs {
		if err := c.emit(j); err != nil {
			return nil, err
		}
	}
	return c.finish()
}

// unlistedNodes warns of nodes the pods name that the node list lacks: a
// node list from another cluster, or nodes gone before it was taken. What
// pods outside the workload held there is dropped.
func (s *snapshot) unlistedNodes() {
	var missing []string
	for name := range s.podNodes {
		if r := s.c.nodes.byName[name]; r == nil || r.group < 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return
	}
	sort.Strings(missing)
	s.c.left("nodes the pods name that the node list lacks (another cluster's list, or nodes gone): load there dropped", int64(len(missing)))
	shown := missing[:min(len(missing), 5)]
	s.c.example("nodes missing from the node list: " + strings.Join(shown, ", "))
}

// machineNodes makes the cluster from the options when the snapshot has no
// node list: Nodes (or the distinct nodes the pods name) of Machine each.
func (s *snapshot) machineNodes() error {
	m := s.opt.Machine
	if m[resource.VCores] <= 0 || m[resource.Memory] <= 0 {
		return errors.New("the snapshot has no node list: pass kubectl get nodes -o json as well, or give each node's size (machine-vcores and machine-memory)")
	}
	n := s.opt.Nodes
	if n == 0 {
		n = len(s.podNodes)
	}
	if n == 0 {
		return errors.New("the snapshot has no node list and its pods name no node: give the number of nodes (nodes=N)")
	}
	names := make([]string, 0, len(s.podNodes))
	for name := range s.podNodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for len(names) < n {
		names = append(names, fmt.Sprintf("node-%d", len(names)))
	}
	for _, name := range names[:n] {
		s.c.nodes.node(machineNode(name, m))
	}
	s.c.adjust(fmt.Sprintf("nodes of %s each, as the options say (no node list in the snapshot)", m), int64(n))
	return nil
}

func machineNode(name string, m resource.Vector) *v1.Node {
	n := &v1.Node{}
	n.Name = name
	n.Status.Allocatable = v1.ResourceList{
		v1.ResourceCPU:    *apiresource.NewMilliQuantity(m[resource.VCores], apiresource.DecimalSI),
		v1.ResourceMemory: *apiresource.NewQuantity(m[resource.Memory]<<20, apiresource.BinarySI),
	}
	return n
}

// applyOutside feeds the outside pods' intervals to the node table in time
// order from origin.
func (s *snapshot) applyOutside(origin, end time.Time) {
	type change struct {
		at   time.Time
		node string
		held resource.Vector
		sign int64
	}
	var cs []change
	for _, iv := range s.outside {
		cs = append(cs, change{iv.from, iv.node, iv.held, 1})
		if !iv.to.IsZero() {
			cs = append(cs, change{iv.to, iv.node, iv.held, -1})
		}
	}
	s.outside = nil
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].at.Before(cs[b].at) })
	t := s.c.nodes
	t.start(origin)
	for _, ch := range cs {
		at := ch.at
		if at.Before(origin) {
			at = origin
		}
		t.advance(at)
		t.hold(ch.node, ch.held, ch.sign)
	}
	t.finish(end)
}
