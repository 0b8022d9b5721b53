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
		// Node pools: a job selecting n1's pool runs its two tasks one
		// after the other there; a job that does not tolerate n2's taint
		// waits for n1 too; one that tolerates it runs on n2 at once.
		name: "node selectors and taints",
		nodes: func() []*v1.Node {
			n1, n2 := mkNode("n1", 4), mkNode("n2", 4)
			n1.Labels = map[string]string{"pool": "gpu", "kubernetes.io/hostname": "n1"}
			n2.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "x", Effect: v1.TaintEffectNoSchedule}}
			return []*v1.Node{n1, n2}
		}(),
		pods: pods(
			tasks(2, pb{job: "a", cpu: 4, created: -30, estimate: "10s", selector: map[string]string{"pool": "gpu"}}),
			tasks(1, pb{job: "b", cpu: 4, created: -20, estimate: "10s"}),
			tasks(1, pb{job: "c", cpu: 4, created: -10, estimate: "10s", tolerate: "dedicated"})),
		policy: "fifo",
		want: map[string]want{
			"team/a": {start: 0, finish: 20, waiting: true, source: SourceAnnotation, position: 1},
			"team/b": {start: 20, finish: 30, waiting: true, source: SourceAnnotation, position: 3},
			"team/c": {start: 0, finish: 10, waiting: true, source: SourceAnnotation, position: 2},
		},
	}, {
		// A selector no node matches: held for good.
		name:   "selector matches no node",
		nodes:  one,
		pods:   pods(tasks(1, pb{job: "a", cpu: 1, created: -30, estimate: "10s", selector: map[string]string{"pool": "none"}})),
		policy: "fifo",
		want: map[string]want{
			"team/a": {start: none, finish: none, waiting: true, beyond: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// A gang of 4 waits until all 4 fit: one CPU is held for 30 s
		// more, so it starts at 30 s, not at once with 3. A gang of 5
		// never fits 4 CPUs: held for good, and the rest is forecast.
		name:  "gangs",
		nodes: one,
		pods: pods(
			tasks(1, pb{job: "r", cpu: 1, created: -60, node: "n1", started: ip(-30), estimate: "60s"}),
			tasks(4, pb{job: "g", cpu: 1, created: -20, estimate: "10s", gang: "4"}),
			tasks(5, pb{job: "huge", cpu: 1, created: -10, estimate: "10s", gang: "5"})),
		policy: "fifo",
		want: map[string]want{
			"team/r":    {start: -30, finish: 30, source: SourceAnnotation},
			"team/g":    {start: 30, finish: 40, waiting: true, source: SourceAnnotation, position: 1},
			"team/huge": {start: none, finish: none, waiting: true, beyond: true, source: SourceAnnotation, position: 2},
		},
	}, {
		// History knows the kind's runtime (40 s, the policy's estimate)
		// and its tasks' (10 s each, run one at a time): a waiting job
		// of four tasks that fill the node one by one takes 4 × 10 s.
		name:  "tasks from history",
		nodes: one,
		pods:  pods(tasks(4, pb{job: "wave-000002", cpu: 4, created: -5})),
		hist: func() *History {
			h := NewHistory()
			h.Add("team/wave-000001#", "wave", 40*time.Second, []time.Duration{10 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second})
			return h
		}(),
		policy: "fifo",
		want: map[string]want{
			"team/wave-000002": {start: 0, finish: 40, waiting: true, source: SourceHistory, position: 1},
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
		// A driver waiting alone, its executors not asked for yet, runs
		// what the cluster's typical finished job ran: old's two tasks
		// of 10 s, then, asked for once one had ended, a third of 5 s.
		// On 2 CPUs, beside the driver, one task at a time: 0-10,
		// 10-20, 20-25. (The driver alone for old's runtime, 15 s, was
		// the forecast before it knew the waves.)
		name:  "driver alone, as the typical run",
		nodes: []*v1.Node{mkNode("n1", 2)},
		pods: pods(
			[]pb{{job: "old", name: "old-m0", cpu: 1, created: -100, node: "n1", started: ip(-100), ended: ip(-90)},
				{job: "old", name: "old-m1", cpu: 1, created: -100, node: "n1", started: ip(-100), ended: ip(-90)},
				{job: "old", name: "old-r", cpu: 1, created: -90, node: "n1", started: ip(-90), ended: ip(-85)}},
			[]pb{{job: "new", name: "new-driver", am: true, cpu: 1, created: -5}}),
		policy: "fifo",
		want: map[string]want{
			"team/new": {start: 0, finish: 25, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// The typical run's task (8 CPUs) fits no node the driver may
		// use (pool small, 4 CPUs): the driver stands for its job, for
		// the cluster's median runtime, 10 s, rather than wait for good.
		name:  "driver alone, the typical run does not fit",
		nodes: smallPool(),
		pods: pods(
			[]pb{{job: "big", name: "big-0", cpu: 8, created: -100, node: "n2", started: ip(-100), ended: ip(-90)}},
			[]pb{{job: "d", name: "d-driver", am: true, cpu: 1, created: -5, selector: map[string]string{"pool": "small"}}}),
		policy: "fifo",
		want: map[string]want{
			"team/d": {start: 0, finish: 10, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// The same, with n1 running a task of 4 CPUs for 20 s more (as
		// its annotation says): the driver, held to pool small, waits
		// for n1, though n2 is free.
		name:  "driver alone, where it may run",
		nodes: smallPool(),
		pods: pods(
			[]pb{{job: "big", name: "big-0", cpu: 8, created: -100, node: "n2", started: ip(-100), ended: ip(-90)}},
			tasks(1, pb{job: "busy", cpu: 4, created: -20, node: "n1", started: ip(-10), estimate: "30s"}),
			[]pb{{job: "d", name: "d-driver", am: true, cpu: 1, created: -5, selector: map[string]string{"pool": "small"}}}),
		policy: "fifo",
		want: map[string]want{
			"team/busy": {start: -10, finish: 20, source: SourceAnnotation},
			"team/d":    {start: 20, finish: 30, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// A running AM holds its node until its job's last task ends. r
		// (20 s by its annotation) runs t1 since -5 s and waits for t2:
		// its AM is first taken to end with t1, at 15 s, when t2 starts
		// in t1's place and ends at 35 s; the AM is then held until 35
		// s, and w, behind it, starts when it ends.
		name:  "running AM held until its tasks end",
		nodes: []*v1.Node{mkNode("n1", 2)},
		pods: pods(
			[]pb{{job: "r", name: "r-am", am: true, cpu: 1, created: -31, node: "n1", started: ip(-30), estimate: "20s"},
				{job: "r", name: "r-t1", cpu: 1, created: -6, node: "n1", started: ip(-5)},
				{job: "r", name: "r-t2", cpu: 1, created: -6}},
			tasks(1, pb{job: "w", cpu: 1, created: -1, estimate: "10s"})),
		policy: "fifo",
		want: map[string]want{
			"team/r": {start: -30, finish: 35, source: SourceAnnotation},
			"team/w": {start: 35, finish: 45, waiting: true, source: SourceAnnotation, position: 1},
		},
	}, {
		// Nothing has finished anywhere: DefaultEstimate. The replay's
		// true duration on the pod is not read.
		name:   "no estimate at all",
		nodes:  one,
		pods:   pods(tasks(1, pb{job: "new", cpu: 1, created: -5, replay: "7s"})),
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
	}, {
		// One queue configured and no default queue: a job of another
		// queue is held, as the scheduler holds it (sched.ResolveQueue),
		// not put in the only queue.
		name:   "one queue, no default",
		nodes:  one,
		pods:   pods(tasks(1, pb{job: "lost", queue: "nowhere", cpu: 1, created: -10, estimate: "30s"})),
		policy: "fifo",
		queues: []workload.Queue{{Name: "a", Capacity: 1, MaxCapacity: 1}},
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
		{"bad queues", snapshot(nil, nil, nil, workload.Queue{Name: "a", Capacity: 2, MaxCapacity: 1}), Options{Policy: fifo}, "forecast: snapshot: queues:"},
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

// TestRunConsistentOverTime: when the estimates are exact, a forecast taken
// later, from the state the first forecast predicted, predicts the same.
// At 0 s, R's two tasks (100 s, 40 s in) hold the node until 60 s; A (two
// tasks of 2 CPUs, 30 s, queue a) and then B (four of 1 CPU, 20 s, queue
// b) wait. At 60 s, FIFO starts both of A's tasks, A finishes at 90 s and B
// runs from 90 s to 110 s; fair shares the node between the queues: one
// task of A and two of B at 60 s, B's other two at 80 s, A's second at 90
// s. The later snapshot, at 70 s, is the state each predicts then.
func TestRunConsistentOverTime(t *testing.T) {
	h := hist(map[string]time.Duration{"r": 100 * time.Second, "a": 30 * time.Second, "b": 20 * time.Second})
	nodes := []*v1.Node{mkNode("n1", 4)}
	first := snapshot(nodes, pods(
		tasks(2, pb{job: "r-000001", cpu: 2, created: -41, node: "n1", started: ip(-40)}),
		tasks(2, pb{job: "a-000001", queue: "a", cpu: 2, created: -20}),
		tasks(4, pb{job: "b-000001", queue: "b", cpu: 1, created: -10})), h, twoQueues...)
	r := tasks(2, pb{job: "r-000001", cpu: 2, created: -41, node: "n1", started: ip(-40), ended: ip(60)})
	a, b := tasks(2, pb{job: "a-000001", queue: "a", cpu: 2, created: -20}), tasks(4, pb{job: "b-000001", queue: "b", cpu: 1, created: -10})
	run := func(ps []pb, n int) []pb {
		out := append([]pb(nil), ps...)
		for i := range n {
			out[i].node, out[i].started = "n1", ip(60)
		}
		return out
	}
	cases := []struct {
		policy       string
		later        []*v1.Pod
		aStart, aEnd int
		bStart, bEnd int
	}{
		{"fifo", pods(r, run(a, 2), b), 60, 90, 90, 110},
		{"fair", pods(r, run(a, 1), run(b, 2)), 60, 120, 60, 100},
	}
	for _, c := range cases {
		later := snapshot(nodes, c.later, h, twoQueues...)
		later.Now = at(70)
		x, y := byKey(forecastOf(t, first, c.policy)), byKey(forecastOf(t, later, c.policy))
		want := map[string][2]int{"team/a-000001": {c.aStart, c.aEnd}, "team/b-000001": {c.bStart, c.bEnd}}
		for key, w := range want {
			for when, f := range map[string]map[string]Job{"0 s": x, "70 s": y} {
				if j := f[key]; !j.Start.Equal(at(w[0])) || !j.Finish.Equal(at(w[1])) {
					t.Errorf("%s: %s forecast at %s: %v to %v, want %d s to %d s", c.policy, key, when, j.Start.Sub(now), j.Finish.Sub(now), w[0], w[1])
				}
			}
		}
		if _, ok := y["team/r-000001"]; ok {
			t.Errorf("%s: R, ended, is forecast at 70 s", c.policy)
		}
	}
}

// smallPool is n1, 4 CPUs labelled pool=small, beside n2, 16 CPUs
// unlabelled: the cluster of the cases where a driver may use n1 only.
func smallPool() []*v1.Node {
	n1, n2 := mkNode("n1", 4), mkNode("n2", 16)
	n1.Labels = map[string]string{"pool": "small"}
	return []*v1.Node{n1, n2}
}
