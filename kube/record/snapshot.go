package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Input is one file of a snapshot: the output of `kubectl get pods -A -o
// json`, `kubectl get nodes -o json` or `kubectl get events -A -o json`
// (a List, or a single object), plain or gzipped.
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
}

// FileError is a snapshot file that cannot be read on: not JSON, cut
// short, or not a list of pods, nodes or events.
type FileError struct {
	File string
	Item int // -1 when the problem is not in an item
	Msg  string
}

func (e *FileError) Error() string {
	if e.Item >= 0 {
		return fmt.Sprintf("%s: items[%d]: %s", e.File, e.Item, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Snapshot converts a snapshot of a cluster into a workload: the pods'
// final states (kubectl keeps finished pods until they are
// garbage-collected, so a snapshot holds recent history), the nodes if
// given, and the events if given (their Scheduled events time each
// binding to the microsecond; pods they name that the pod list lacks were
// garbage-collected, and are counted). Each file is read as a stream, one
// item at a time: memory holds a compact record of each pod, never the
// files. A malformed item is counted, named in the summary and skipped; a
// file that is not a list of pods, nodes or events, or is cut short, is an
// error naming it.
func Snapshot(inputs []Input, opt SnapshotOptions) (*workload.Workload, *Summary, error) {
	col := &collector{}
	c, err := newCore(col, opt.Options)
	if err != nil {
		return nil, nil, err
	}
	s := &snapshot{c: c, opt: opt, jobs: map[string]*jobRec{}, bindAt: map[types.UID]time.Time{}, named: map[types.UID]bool{}}
	kinds := make([]string, len(inputs))
	for i, in := range inputs {
		if kinds[i], err = s.kindOf(in); err != nil {
			return nil, nil, err
		}
	}
	// Nodes first (pods count on them), events next (they time the
	// bindings), pods last.
	for _, want := range []string{"Node", "Event", "Pod"} {
		for i, in := range inputs {
			if kinds[i] == want {
				if err := s.read(in, want); err != nil {
					return nil, nil, err
				}
			}
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
	// outside are the intervals during which pods outside the workload
	// held resources on their nodes.
	outside    []interval
	podNodes   map[string]bool // nodes the pods name, for a snapshot without a node list
	nodesGiven bool
	latest     time.Time // the latest time any object states: the snapshot's end
	objects    int64
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

// open returns a buffered reader of the input, gunzipped when it starts
// with gzip's magic number.
func open(in Input) (*bufio.Reader, func(), error) {
	rc, err := in.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot input: %w", err)
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, nil, &FileError{File: in.Name, Item: -1, Msg: "gzip: " + err.Error()}
		}
		return bufio.NewReaderSize(zr, 64<<10), func() { rc.Close() }, nil
	}
	return br, func() { rc.Close() }, nil
}

// kindOf reads an input until its first item and returns the item's kind
// (Pod, Node or Event); "" for an empty list.
func (s *snapshot) kindOf(in Input) (string, error) {
	kind := ""
	errFound := errors.New("found")
	err := s.items(in, func(i int, dec *json.Decoder) error {
		var k struct{ Kind string }
		if err := dec.Decode(&k); err != nil || k.Kind == "" {
			if fatal(err) {
				return err
			}
			return &FileError{File: in.Name, Item: i, Msg: "an object without a kind: want a list of pods, nodes or events (kubectl get ... -o json)"}
		}
		kind = k.Kind
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return "", s.fileError(in, err)
	}
	switch kind {
	case "Pod", "Node", "Event", "":
		return kind, nil
	}
	return "", &FileError{File: in.Name, Item: 0, Msg: fmt.Sprintf("a list of %s: want pods, nodes or events (kubectl get pods|nodes|events -o json)", kind)}
}

// fatal reports whether a decoding error leaves the stream unreadable (a
// syntax error, a cut), rather than one value that did not fit its type.
func fatal(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// itemError is a file's stream broken at an item.
type itemError struct {
	item   int
	offset int64
	err    error
}

func (e *itemError) Error() string { return e.err.Error() }

// fileError names the file and the item of an error from items.
func (s *snapshot) fileError(in Input, err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	var ie *itemError
	if !errors.As(err, &ie) {
		return fmt.Errorf("snapshot input %s: %w", in.Name, err)
	}
	msg := ie.err.Error()
	if errors.Is(ie.err, io.EOF) || errors.Is(ie.err, io.ErrUnexpectedEOF) {
		msg = "the file ends in the middle of a value (cut short?)"
	}
	return &FileError{File: in.Name, Item: ie.item, Msg: fmt.Sprintf("%s (byte %d)", msg, ie.offset)}
}

// items calls fn for every item of the input's list (or for the input
// itself when it is a single object), streaming: fn decodes the item from
// dec, and must consume it whole.
func (s *snapshot) items(in Input, fn func(i int, dec *json.Decoder) error) error {
	br, closeFn, err := open(in)
	if err != nil {
		return err
	}
	defer closeFn()
	dec := json.NewDecoder(br)
	bad := func(item int, err error) error { return &itemError{item: item, offset: dec.InputOffset(), err: err} }
	tok, err := dec.Token()
	if err != nil {
		return bad(-1, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return &FileError{File: in.Name, Item: -1, Msg: "not a JSON object: want the output of kubectl get ... -o json"}
	}
	single := map[string]json.RawMessage{}
	hasItems := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return bad(-1, err)
		}
		key, _ := kt.(string)
		if key != "items" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return bad(-1, err)
			}
			single[key] = raw
			continue
		}
		hasItems = true
		if tok, err := dec.Token(); err != nil {
			return bad(-1, err)
		} else if d, ok := tok.(json.Delim); !ok || d != '[' {
			if tok == nil {
				continue // "items": null, an empty list
			}
			return &FileError{File: in.Name, Item: -1, Msg: "items is not a list"}
		}
		for i := 0; dec.More(); i++ {
			if err := fn(i, dec); err != nil {
				if fatal(err) {
					return bad(i, err)
				}
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return bad(-1, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return bad(-1, err)
	}
	if !hasItems {
		// A single object, as `kubectl get pod NAME -o json` prints.
		raw, err := json.Marshal(single)
		if err != nil {
			return bad(-1, err)
		}
		return fn(0, json.NewDecoder(bytes.NewReader(raw)))
	}
	return nil
}

// read handles every item of an input of the given kind. An item that
// does not fit its type is malformed: counted, named and skipped.
func (s *snapshot) read(in Input, kind string) error {
	err := s.items(in, func(i int, dec *json.Decoder) error {
		s.objects++
		where := fmt.Sprintf("%s: items[%d]", in.Name, i)
		switch kind {
		case "Node":
			var n v1.Node
			if err := dec.Decode(&n); err != nil {
				if fatal(err) {
					return err
				}
				s.c.malformed(where, err)
				return nil
			}
			s.nodesGiven = true
			s.c.nodes.node(&n)
		case "Event":
			var e v1.Event
			if err := dec.Decode(&e); err != nil {
				if fatal(err) {
					return err
				}
				s.c.malformed(where, err)
				return nil
			}
			s.event(&e)
		case "Pod":
			var p v1.Pod
			if err := dec.Decode(&p); err != nil {
				if fatal(err) {
					return err
				}
				s.c.malformed(where, err)
				return nil
			}
			if p.UID == "" || p.Name == "" {
				s.c.malformed(where, errors.New("a pod without a name or UID"))
				return nil
			}
			s.pod(&p, where)
		}
		return nil
	})
	if err != nil {
		return s.fileError(in, err)
	}
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
	if st.node != "" && !s.nodesGiven {
		if s.podNodes == nil {
			s.podNodes = map[string]bool{}
		}
		s.podNodes[st.node] = true
	}
	if cl := classify(p, &s.c.opt); cl != inWorkload {
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
	origin := s.latest
	if len(jobs) > 0 {
		origin = first(jobs[0])
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
