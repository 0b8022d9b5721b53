package forecast

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/workload"
)

// want is one job's expected forecast: start and finish in seconds from
// now (-1: zero time), and the rest.
type want struct {
	start, finish int
	waiting       bool
	beyond        bool
	source        Source
	position      int
}

// none is a want's zero time.
const none = -1 << 30

func tm(s int) time.Time {
	if s == none {
		return time.Time{}
	}
	return at(s)
}

func check(t *testing.T, r *Result, wants map[string]want) {
	t.Helper()
	got := byKey(r)
	if len(got) != len(wants) {
		t.Errorf("%d jobs forecast, want %d: %+v", len(got), len(wants), r.Jobs)
	}
	for k, w := range wants {
		j, ok := got[k]
		if !ok {
			t.Errorf("job %s: no forecast", k)
			continue
		}
		if !j.Start.Equal(tm(w.start)) || !j.Finish.Equal(tm(w.finish)) {
			t.Errorf("job %s: start %v finish %v, want %v and %v", k, j.Start.Sub(now), j.Finish.Sub(now), tm(w.start).Sub(now), tm(w.finish).Sub(now))
		}
		if j.Waiting != w.waiting || j.Beyond != w.beyond || j.Source != w.source || j.Position != w.position {
			t.Errorf("job %s: waiting %v beyond %v source %q position %d, want %v %v %q %d", k, j.Waiting, j.Beyond, j.Source, j.Position,
				w.waiting, w.beyond, w.source, w.position)
		}
	}
}

// hist is a History that has seen job name take runtime (one task).
func hist(runs map[string]time.Duration) *History {
	h := NewHistory()
	for name, d := range runs {
		h.Add("done/"+name, name, d, []time.Duration{d})
	}
	return h
}

func TestRunHandComputed(t *testing.T) {
	one := []*v1.Node{mkNode("n1", 4)}
	cases := []struct {
		name   string
		nodes  []*v1.Node
		pods   []*v1.Pod
		hist   *History
		policy string
		queues []workload.Queue
		want   map[string]want
	}{{
		// The case: a running job of 2 tasks whose kind took 100
		// s, 40 s in, fills the node; a waiting job of 4 tasks starts
		// when they end, and takes its kind's 30 s.
		name:  "running then waiting",
		nodes: one,
		pods: pods(
			tasks(2, pb{job: "etl-000002", cpu: 2, created: -41, node: "n1", started: ip(-40)}),
			tasks(4, pb{job: "batch-000007", cpu: 1, created: -10})),
		hist:   hist(map[string]time.Duration{"etl": 100 * time.Second, "batch": 30 * time.Second}),
		policy: "fifo",
		want: map[string]want{
			"team/etl-000002":   {start: -40, finish: 60, source: SourceHistory},
			"team/batch-000007": {start: 60, finish: 90, waiting: true, source: SourceHistory, position: 1},
		},
	}, {
		// A task that has run past its estimate is taken to end within
		// MinRemaining.
		name:  "overdue running task",
		nodes: one,
		pods: pods(
			tasks(1, pb{job: "etl-000002", cpu: 4, created: -200, node: "n1", started: ip(-150)}),
			tasks(1, pb{job: "w", cpu: 4, created: -10, estimate: "20s"})),
		hist:   hist(map[string]time.Duration{"etl": 100 * time.Second}),
		policy: "fifo",
		want: map[string]want{
			"team/etl-000002": {start: -150, finish: 5, source: SourceHistory},
			"team/w":          {start: 5, finish: 25, waiting: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// FIFO runs the jobs in creation order, whatever their queue.
		name:   "fifo order",
		nodes:  []*v1.Node{mkNode("n1", 2)},
		pods:   orderPods,
		policy: "fifo",
		queues: twoQueues,
		want: map[string]want{
			"team/a1": {start: 0, finish: 100, waiting: true, source: SourceAnnotation, position: 1},
			"team/a2": {start: 0, finish: 10, waiting: true, source: SourceAnnotation, position: 2},
			"team/b1": {start: 10, finish: 20, waiting: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// Fair gives the second slot to the queue that holds nothing:
		// b1 runs before a2 although it came later.
		name:   "fair order",
		nodes:  []*v1.Node{mkNode("n1", 2)},
		pods:   orderPods,
		policy: "fair",
		queues: twoQueues,
		want: map[string]want{
			"team/a1": {start: 0, finish: 100, waiting: true, source: SourceAnnotation, position: 1},
			"team/a2": {start: 10, finish: 20, waiting: true, source: SourceAnnotation, position: 2},
			"team/b1": {start: 0, finish: 10, waiting: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// Fair counts what runs: queue a's running task (pinned on n1)
		// makes queue b's job go first on the one free CPU, although
		// a2 came before it.
		name:  "fair sees running tasks",
		nodes: []*v1.Node{mkNode("n1", 2)},
		pods: pods(
			tasks(1, pb{job: "r", queue: "a", cpu: 1, created: -60, node: "n1", started: ip(-50), estimate: "1000s"}),
			tasks(1, pb{job: "a2", queue: "a", cpu: 1, created: -20, estimate: "10s"}),
			tasks(1, pb{job: "b1", queue: "b", cpu: 1, created: -10, estimate: "10s"})),
		policy: "fair",
		queues: twoQueues,
		want: map[string]want{
			"team/r":  {start: -50, finish: 950, source: SourceAnnotation},
			"team/a2": {start: 10, finish: 20, waiting: true, source: SourceAnnotation, position: 1},
			"team/b1": {start: 0, finish: 10, waiting: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// A Job deleted and made again under its name while the first
		// one's pod still runs: one forecast for the key, the latest
		// job's; the first one's pod still holds the node.
		name:  "a name reused",
		nodes: []*v1.Node{mkNode("n1", 2)},
		pods: pods(
			[]pb{{job: "etl", name: "etl-old", batchUID: "u1", cpu: 2, created: -100, node: "n1", started: ip(-100), estimate: "130s"},
				{job: "etl", name: "etl-new", batchUID: "u2", cpu: 2, created: -10, estimate: "20s"}}),
		policy: "fifo",
		want: map[string]want{
			"team/job/etl": {start: 30, finish: 50, waiting: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// No history and no annotation: the cluster's median finished
		// task (20, 40, 60 s: 40 s) stands in. The finished job is
		// history, not forecast.
		name:  "cluster median",
		nodes: one,
		pods: pods(
			[]pb{{job: "old", name: "old-0", cpu: 1, created: -300, node: "n1", started: ip(-300), ended: ip(-280)},
				{job: "old", name: "old-1", cpu: 1, created: -300, node: "n1", started: ip(-300), ended: ip(-260)},
				{job: "old", name: "old-2", cpu: 1, created: -300, node: "n1", started: ip(-300), ended: ip(-240)}},
			tasks(2, pb{job: "new", cpu: 2, created: -5})),
		policy: "fifo",
		want: map[string]want{
			"team/new": {start: 0, finish: 40, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// Nothing has finished anywhere: DefaultEstimate.
		name:   "no estimate at all",
		nodes:  one,
		pods:   pods(tasks(1, pb{job: "new", cpu: 1, created: -5})),
		policy: "fifo",
		want: map[string]want{
			"team/new": {start: 0, finish: 60, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// Another scheduler's pod holds 3 of the node's 4 CPUs for good:
		// a 1-CPU job starts now, a 2-CPU one never (Beyond).
		name:  "external load",
		nodes: one,
		pods: pods(
			[]pb{{job: "x", name: "x-0", scheduler: "default-scheduler", cpu: 3, created: -100, node: "n1", started: ip(-100)}},
			tasks(1, pb{job: "small", cpu: 1, created: -10, estimate: "30s"}),
			tasks(1, pb{job: "big", cpu: 2, created: -20, estimate: "30s"})),
		policy: "fifo",
		want: map[string]want{
			"team/small": {start: 0, finish: 30, waiting: true, source: SourceAnnotation, position: 1},
			"team/big":   {start: none, finish: none, waiting: true, beyond: true, source: SourceAnnotation, position: 2},
		},
	}, {
		// A running job that holds the node for 2 h pushes the waiting
		// job past the 1 h horizon.
		name:  "beyond the horizon",
		nodes: one,
		pods: pods(
			tasks(1, pb{job: "long", cpu: 4, created: -60, node: "n1", started: ip(-60), estimate: "2h"}),
			tasks(1, pb{job: "w", cpu: 1, created: -10, estimate: "30s"})),
		policy: "fifo",
		want: map[string]want{
			"team/long": {start: -60, finish: 7140, source: SourceAnnotation},
			"team/w":    {start: none, finish: none, waiting: true, beyond: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// A job partly running: its pending task waits for the node's
		// first running task to end (its own j-0, at 10 s), and the job
		// finishes when that task does (70 s).
		name:  "running job with pending tasks",
		nodes: []*v1.Node{mkNode("n1", 2)},
		pods: pods(
			tasks(1, pb{job: "other", cpu: 1, created: -100, node: "n1", started: ip(-100), estimate: "120s"}),
			[]pb{{job: "j", name: "j-0", cpu: 1, created: -50, node: "n1", started: ip(-50), estimate: "60s"},
				{job: "j", name: "j-1", cpu: 1, created: -50, estimate: "60s"}}),
		policy: "fifo",
		want: map[string]want{
			"team/other": {start: -100, finish: 20, source: SourceAnnotation},
			"team/j":     {start: -50, finish: 70, source: SourceAnnotation},
		},
	}, {
		// A request larger than any node, and a cordoned node: the
		// scheduler would hold these jobs for good.
		name: "fits no node",
		nodes: []*v1.Node{mkNode("n1", 2), func() *v1.Node {
			n := mkNode("n2", 8)
			n.Spec.Unschedulable = true
			return n
		}()},
		pods: pods(
			tasks(1, pb{job: "huge", cpu: 4, created: -10, estimate: "30s"}),
			tasks(1, pb{job: "fine", cpu: 2, created: -5, estimate: "30s"})),
		policy: "fifo",
		want: map[string]want{
			"team/huge": {start: none, finish: none, waiting: true, beyond: true, source: SourceAnnotation, position: 2},
			"team/fine": {start: 0, finish: 30, waiting: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// A job whose queue is not configured, with no default queue:
		// the scheduler holds it.
		name:   "no queue takes it",
		nodes:  one,
		pods:   pods(tasks(1, pb{job: "lost", queue: "nowhere", cpu: 1, created: -10, estimate: "30s"})),
		policy: "fifo",
		queues: twoQueues,
		want: map[string]want{
			"team/lost": {start: none, finish: none, waiting: true, beyond: true, source: SourceAnnotation, position: 1},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := snapshot(c.nodes, c.pods, c.hist, c.queues...)
			r, err := Run(s, Options{PolicyName: c.policy, Policy: factory(t, c.policy), Horizon: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if r.Policy != c.policy || !r.At.Equal(now) || !r.Pinned {
				t.Errorf("result for %q at %v pinned %v, want %q at %v pinned", r.Policy, r.At, r.Pinned, c.policy, now)
			}
			check(t, r, c.want)
		})
	}
}

// orderPods are three jobs of one 1-CPU task: a1 (100 s) and a2 (10 s)
// in queue a, then b1 (10 s) in queue b.
var orderPods = pods(
	tasks(1, pb{job: "a1", queue: "a", cpu: 1, created: -30, estimate: "100s"}),
	tasks(1, pb{job: "a2", queue: "a", cpu: 1, created: -20, estimate: "10s"}),
	tasks(1, pb{job: "b1", queue: "b", cpu: 1, created: -10, estimate: "10s"}))

var twoQueues = []workload.Queue{{Name: "a", Capacity: 0.5, MaxCapacity: 1}, {Name: "b", Capacity: 0.5, MaxCapacity: 1}}

func TestRunDeterministic(t *testing.T) {
	s := snapshot([]*v1.Node{mkNode("n1", 4), mkNode("n2", 8)}, pods(
		tasks(3, pb{job: "etl-000002", queue: "a", cpu: 2, created: -41, node: "n1", started: ip(-40)}),
		tasks(5, pb{job: "b", queue: "a", cpu: 3, created: -20}),
		tasks(2, pb{job: "c", queue: "b", cpu: 1, created: -10, estimate: "45s"})), hist(map[string]time.Duration{"etl": 90 * time.Second}), twoQueues...)
	for _, p := range []string{"fifo", "fair", "dress"} {
		a, b := forecastOf(t, s, p), forecastOf(t, s, p)
		a.CPU, b.CPU = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ:\n%+v\n%+v", p, a, b)
		}
	}
}

func TestRunErrors(t *testing.T) {
	fifo := factory(t, "fifo")
	good := snapshot([]*v1.Node{mkNode("n1", 4)}, pods(tasks(1, pb{job: "w", cpu: 1})), nil)
	dup := snapshot([]*v1.Node{mkNode("n1", 4), mkNode("n1", 4)}, nil, nil)
	cases := []struct {
		name string
		s    *Snapshot
		o    Options
		want string
	}{
		{"no snapshot", nil, Options{Policy: fifo}, "no snapshot"},
		{"no policy", good, Options{}, "no policy"},
		{"no now", &Snapshot{}, Options{Policy: fifo}, "Now"},
		{"negative horizon", good, Options{Policy: fifo, Horizon: -time.Second}, "negative horizon"},
		{"node twice", dup, Options{Policy: fifo}, `node "n1" listed twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(c.s, c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestRunUnpinned: DRESS keeps many of the running tasks of the benchmark's
// cluster from their nodes at time 0 (its large-demand pool is full), so
// the forecast falls back to the running tasks as load, and says so; its
// forecast keeps the properties of any.
func TestRunUnpinned(t *testing.T) {
	s := bigSnapshot()
	r := forecastOf(t, s, "dress")
	if r.Pinned {
		t.Fatal("dress placed every running task at time 0; this test wants a case where it does not")
	}
	waiting := 0
	for _, j := range r.Jobs {
		if j.Waiting {
			waiting++
			if !j.Beyond && (j.Start.Before(now) || j.Finish.Before(j.Start)) {
				t.Errorf("job %s: %+v", j.Key, j)
			}
		} else if j.Finish.IsZero() || !j.Finish.After(now) {
			t.Errorf("running job %s finishes at %v", j.Key, j.Finish)
		}
	}
	if waiting != 100 || len(r.Jobs) != 1100 {
		t.Errorf("%d jobs, %d waiting; want 1100, 100", len(r.Jobs), waiting)
	}
	if f := forecastOf(t, s, "fifo"); !f.Pinned {
		t.Error("fifo did not place the running tasks at time 0")
	}
}
