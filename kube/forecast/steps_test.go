package forecast

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

func vec(cpu int64) resource.Vector { return resource.Vector{resource.VCores: cpu * 1000} }

func TestGroups(t *testing.T) {
	s := func(d int) clock.Duration { return clock.Duration(d) * clock.Second }
	taint := []workload.Taint{{Key: "k", Effect: workload.EffectNoSchedule}}
	cases := []struct {
		name     string
		nodes    map[string]*nodeLoad
		selected map[string]bool
		want     []workload.NodeGroup
	}{{
		// Only the labels some job selects by split groups; taints do.
		name: "labels and taints",
		nodes: map[string]*nodeLoad{"a": {capacity: vec(4), labels: map[string]string{"pool": "x", "host": "a"}},
			"b": {capacity: vec(4), labels: map[string]string{"pool": "x", "host": "b"}},
			"c": {capacity: vec(4), labels: map[string]string{"pool": "x", "host": "c"}, taints: taint}},
		selected: map[string]bool{"pool": true},
		want: []workload.NodeGroup{{Count: 2, Capacity: vec(4), Labels: map[string]string{"pool": "x"}},
			{Count: 1, Capacity: vec(4), Labels: map[string]string{"pool": "x"}, Taints: taint}},
	}, {
		name:  "idle nodes of one size are one group",
		nodes: map[string]*nodeLoad{"a": {capacity: vec(4)}, "b": {capacity: vec(4)}, "c": {capacity: vec(8)}},
		want:  []workload.NodeGroup{{Count: 2, Capacity: vec(4)}, {Count: 1, Capacity: vec(8)}},
	}, {
		// Outside load 1 CPU; running tasks of 2 CPUs ending at 10 s and
		// 1 CPU at 10 s too, then 1 at 30 s: one step per instant.
		name: "load released at each end",
		nodes: map[string]*nodeLoad{"a": {capacity: vec(8), held: vec(1).Add(vec(2)).Add(vec(1)).Add(vec(1)),
			ends: []release{{s(30), vec(1)}, {s(10), vec(2)}, {s(10), vec(1)}}}},
		want: []workload.NodeGroup{{Count: 1, Capacity: vec(8), External: []workload.HeldStep{
			{At: 0, Held: vec(5)}, {At: s(10), Held: vec(2)}, {At: s(30), Held: vec(1)}}}},
	}, {
		// Pinned tasks are not external load: a node with only those has
		// no steps, and its label.
		name: "pinned",
		nodes: map[string]*nodeLoad{"a": {capacity: vec(4), held: vec(2), pinned: true, pinnedHeld: vec(2)},
			"b": {capacity: vec(4), held: vec(3), pinned: true, pinnedHeld: vec(2)}},
		want: []workload.NodeGroup{
			{Count: 1, Capacity: vec(4), Labels: map[string]string{pinLabel: "a"}},
			{Count: 1, Capacity: vec(4), Labels: map[string]string{pinLabel: "b"}, External: []workload.HeldStep{{At: 0, Held: vec(1)}}}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var names []string
			for _, n := range []string{"a", "b", "c"} {
				if c.nodes[n] != nil {
					names = append(names, n)
				}
			}
			if got := groups(names, c.nodes, c.selected); !reflect.DeepEqual(got, c.want) {
				t.Errorf("groups:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestFinish(t *testing.T) {
	j := func(key, queue string, waiting, beyond bool, start int) Job {
		out := Job{Key: key, Queue: queue, Waiting: waiting, Beyond: beyond}
		if !beyond {
			out.Start = at(start)
		}
		return out
	}
	in := []Job{
		j("d", "q", true, false, 50), j("a", "q", true, true, 0), j("c", "q", true, false, 10),
		j("b", "q", false, false, -5), j("e", "r", true, false, 99), j("c", "q", true, false, 20),
	}
	got := finish(in)
	want := []struct {
		key      string
		position int
		start    int
	}{{"a", 3, 0}, {"b", 0, -5}, {"c", 1, 20}, {"d", 2, 50}, {"e", 1, 99}}
	if len(got) != len(want) {
		t.Fatalf("%d jobs, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Key != w.key || got[i].Position != w.position || !got[i].Beyond && !got[i].Start.Equal(at(w.start)) {
			t.Errorf("job %d: %s position %d start %v, want %s %d %v", i, got[i].Key, got[i].Position, got[i].Start.Sub(now), w.key, w.position, w.start)
		}
	}
}

func TestLeaves(t *testing.T) {
	qs := []workload.Queue{{Name: "root.prod", Capacity: 0.5, MaxCapacity: 1}, {Name: "prod.etl", Capacity: 1, MaxCapacity: 1},
		{Name: "dev", Capacity: 0.5, MaxCapacity: 1}}
	if l, err := leaves(qs); err != nil || l["prod"] || !l["prod.etl"] || !l["dev"] {
		t.Errorf("leaves %v (%v): want prod.etl and dev, not prod", l, err)
	}
	if _, err := leaves([]workload.Queue{{Name: "a", Capacity: 2, MaxCapacity: 1}}); err == nil || !strings.Contains(err.Error(), "queues") {
		t.Errorf("a bad tree: err %v", err)
	}
}

func TestFinished(t *testing.T) {
	p := func(am bool, started, ended int, unknown bool) record.InstantPod {
		out := record.InstantPod{AM: am, Created: at(started - 1), EndUnknown: unknown}
		if started != none {
			out.Started = at(started)
		}
		if ended != none {
			out.Ended = at(ended)
		}
		return out
	}
	cases := []struct {
		name    string
		pods    []record.InstantPod
		runtime time.Duration
		tasks   []time.Duration
		ok      bool
	}{
		{"tasks", []record.InstantPod{p(false, 0, 20, false), p(false, 5, 45, false)}, 45 * time.Second, []time.Duration{20 * time.Second, 40 * time.Second}, true},
		{"the AM is not a task", []record.InstantPod{p(true, -10, 60, false), p(false, 0, 20, false)}, 20 * time.Second, []time.Duration{20 * time.Second}, true},
		{"an AM alone is its task", []record.InstantPod{p(true, 0, 30, false)}, 30 * time.Second, []time.Duration{30 * time.Second}, true},
		{"still running", []record.InstantPod{p(false, 0, 20, false), p(false, 0, none, false)}, 0, nil, false},
		{"end unknown", []record.InstantPod{p(false, 0, 20, true)}, 0, nil, false},
		{"never started", []record.InstantPod{p(false, none, 20, false)}, 0, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rt, ts, ok := finished(&record.InstantJob{Pods: c.pods})
			if rt != c.runtime || ok != c.ok || !reflect.DeepEqual(ts, c.tasks) {
				t.Errorf("finished = %v %v %v, want %v %v %v", rt, ts, ok, c.runtime, c.tasks, c.ok)
			}
		})
	}
}

func TestEstimateOrder(t *testing.T) {
	// etl ran 100 s (one task of 100 s), ml 300 s (tasks of 50 s), a
	// job without a name 20 s (tasks of 10 and 30 s): the cluster's
	// median runtime is 100 s of 20, 100, 300, its median task 30 s of
	// 10, 30, 50, 100 (the lower middle).
	h := NewHistory()
	h.Add("k1", "etl", 100*time.Second, []time.Duration{100 * time.Second})
	h.Add("k2", "ml", 300*time.Second, []time.Duration{50 * time.Second})
	h.Add("k3", "", 20*time.Second, []time.Duration{10 * time.Second, 30 * time.Second})
	e := newEstimates(h, &record.Instant{})
	job := func(name string, declared time.Duration) *record.InstantJob {
		j := &record.InstantJob{Name: name}
		j.Hints.Estimate = micros(declared)
		return j
	}
	cases := []struct {
		name    string
		e       *estimates
		j       *record.InstantJob
		runtime time.Duration
		task    time.Duration
		src     Source
	}{
		{"history first", e, job("etl", 30*time.Second), 100 * time.Second, 100 * time.Second, SourceHistory},
		{"history's tasks", e, job("ml", 0), 300 * time.Second, 50 * time.Second, SourceHistory},
		{"then the annotation", e, job("bi", 30*time.Second), 30 * time.Second, 30 * time.Second, SourceAnnotation},
		{"then the cluster's runtime and task medians", e, job("bi", 0), 100 * time.Second, 30 * time.Second, SourceCluster},
		{"then the default", &estimates{}, job("bi", 0), DefaultEstimate, DefaultEstimate, SourceCluster},
		{"at least a second", &estimates{}, job("bi", time.Millisecond), time.Second, time.Second, SourceAnnotation},
	}
	for _, c := range cases {
		got := c.e.of(c.j)
		if got.runtime != c.runtime || got.task != c.task || got.src != c.src {
			t.Errorf("%s: %v, tasks %v, %s; want %v, %v, %s", c.name, got.runtime, got.task, got.src, c.runtime, c.task, c.src)
		}
		// Only the cluster's estimate is a median of a distribution
		// that a running job's remaining time is read from.
		if cluster := got.src == SourceCluster && len(c.e.runtimes) > 0; cluster != (got.runtimes != nil) || cluster != (got.tasks != nil) {
			t.Errorf("%s: distributions %v and %v", c.name, got.runtimes, got.tasks)
		}
	}
}

func TestLeftOf(t *testing.T) {
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	ds := []time.Duration{s(10), s(20), s(30), s(60), s(120)}
	cases := []struct {
		name    string
		d       time.Duration
		ds      []time.Duration
		elapsed time.Duration
		want    time.Duration
	}{
		{"the estimate less what has run", s(30), nil, s(10), s(20)},
		{"past its estimate: about to end", s(30), nil, s(40), MinRemaining},
		{"not started: the median", s(30), ds, 0, s(30)},
		// 25 s in: of those longer, 30, 60 and 120 s, the median 60 s.
		{"the median of the longer ones", s(30), ds, s(25), s(35)},
		// Exactly 30 s in: 30 s is not longer; of 60 and 120, 60.
		{"longer, not as long", s(30), ds, s(30), s(30)},
		{"near the longer median", s(30), ds, s(58), MinRemaining},
		{"past every one", s(30), ds, s(200), MinRemaining},
	}
	for _, c := range cases {
		if got := leftOf(c.d, c.ds, c.elapsed); got != c.want {
			t.Errorf("%s: leftOf(%v, %v, %v) = %v, want %v", c.name, c.d, c.ds, c.elapsed, got, c.want)
		}
	}
}

func TestWavesOf(t *testing.T) {
	p := func(am bool, cpu int64, created, started, ended int) record.InstantPod {
		out := record.InstantPod{AM: am, Request: vec(cpu), Created: at(created), Started: at(started)}
		if ended != none {
			out.Ended = at(ended)
		}
		return out
	}
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	cases := []struct {
		name string
		pods []record.InstantPod
		want []wave
	}{{
		// Two maps (3 s each, the first ending at 3 s), then a reduce
		// created at 4 s, after a map ended: a second wave. The AM is
		// no task.
		name: "maps then a reduce",
		pods: []record.InstantPod{p(true, 1, -1, -1, 7), p(false, 1, 0, 0, 3), p(false, 2, 0, 1, 4), p(false, 1, 4, 4, 6)},
		want: []wave{{tasks: 2, request: vec(2), duration: s(3)}, {tasks: 1, request: vec(1), duration: s(2)}},
	}, {
		// Asked for at 0 and 2 s, before either ended: one wave, of 5 and
		// 4 s.
		name: "asked for over time, before any ended",
		pods: []record.InstantPod{p(false, 1, 0, 0, 5), p(false, 1, 2, 2, 6)},
		want: []wave{{tasks: 2, request: vec(1), duration: 4500 * time.Millisecond}},
	}, {
		// Created the second the first task ended (the stamps are to the
		// second): after it, a new wave.
		name: "created as one ended",
		pods: []record.InstantPod{p(false, 1, 0, 0, 3), p(false, 1, 3, 3, 9)},
		want: []wave{{tasks: 1, request: vec(1), duration: s(3)}, {tasks: 1, request: vec(1), duration: s(6)}},
	}, {
		// A wave is new after an end in the wave before it, not after
		// any end: the second wave's second task, asked for once the
		// first wave had ended, is still of the second wave.
		name: "the current wave's ends",
		pods: []record.InstantPod{p(false, 1, 0, 0, 2), p(false, 1, 2, 2, 10), p(false, 1, 4, 4, 10)},
		want: []wave{{tasks: 1, request: vec(1), duration: s(2)}, {tasks: 2, request: vec(1), duration: s(7)}},
	}, {
		name: "an AM alone",
		pods: []record.InstantPod{p(true, 1, 0, 0, 9)},
	}, {
		name: "a task that never ended",
		pods: []record.InstantPod{p(false, 1, 0, 0, none)},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := wavesOf(&record.InstantJob{Pods: c.pods}); !reflect.DeepEqual(got, c.want) {
				t.Errorf("wavesOf = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestScaled(t *testing.T) {
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	mr := []wave{{tasks: 4, request: vec(1), duration: s(12)}, {tasks: 1, request: vec(1), duration: s(6)}}
	cases := []struct {
		name   string
		ws     []wave
		demand resource.Vector
		want   []wave
	}{
		{"no demand declared", mr, resource.Vector{}, mr},
		{"as typical", mr, vec(4), mr},
		// 60 tasks of 1 CPU: the maps' wave 15 times wider, and the
		// reduces' too.
		{"wider", mr, vec(60), []wave{{tasks: 60, request: vec(1), duration: s(12)}, {tasks: 15, request: vec(1), duration: s(6)}}},
		// 2 of 4: half as wide, the one reduce rounded up.
		{"narrower", mr, vec(2), []wave{{tasks: 2, request: vec(1), duration: s(12)}, {tasks: 1, request: vec(1), duration: s(6)}}},
		// The widest wave is the second; its tasks of 2 CPUs, 3 in 6.
		{"by the widest wave", []wave{{tasks: 1, request: vec(1), duration: s(5)}, {tasks: 2, request: vec(2), duration: s(9)}}, vec(6),
			[]wave{{tasks: 2, request: vec(1), duration: s(5)}, {tasks: 3, request: vec(2), duration: s(9)}}},
		{"a demand that holds no task", mr, resource.Vector{resource.Memory: 100}, mr},
		{"no waves", nil, vec(8), nil},
	}
	for _, c := range cases {
		if got := scaled(c.ws, c.demand); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: scaled = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestTypical(t *testing.T) {
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	w := func(n int) []wave { return []wave{{tasks: n, duration: s(1)}} }
	e := &estimates{runs: []pastRun{
		{name: "etl", runtime: s(50), waves: w(1)}, {name: "etl", runtime: s(10), waves: w(2)},
		{name: "ml", runtime: s(30), waves: w(3)}, {name: "etl", runtime: s(30), waves: w(4)},
		{name: "etl", runtime: s(90), waves: w(5)}, {name: "ml", runtime: s(30), waves: w(6)},
	}, byRuns: map[string][]int{"etl": {0, 1, 3, 4}, "ml": {2, 5}}}
	cases := []struct {
		name string
		want int // waves' tasks, 0 for none
	}{
		// etl: 10, 30, 50, 90 s: the lower middle, 30 s.
		{"etl", 4},
		// ml: two of 30 s: the earlier.
		{"ml", 3},
		// Every run: 10, 30, 30, 30, 50, 90: the lower middle is the
		// second of 30 s in the history's order (ml's, etl's, ml's).
		{"", 4},
		{"bi", 0},
	}
	for _, c := range cases {
		got := 0
		if r := e.typical(c.name); r != nil {
			got = r.waves[0].tasks
		}
		if got != c.want {
			t.Errorf("typical(%q): the run of %d tasks, want %d", c.name, got, c.want)
		}
	}
}

func TestGangFits(t *testing.T) {
	g := func(count int, cpu int64) workload.NodeGroup {
		return workload.NodeGroup{Count: count, Capacity: vec(cpu)}
	}
	job := func(min int, am, task int64) *workload.Job {
		j := &workload.Job{MinMembers: min, Phases: []workload.Phase{{Tasks: 10, Request: vec(task)}}}
		if am > 0 {
			j.AM = vec(am)
		}
		return j
	}
	cases := []struct {
		name string
		j    *workload.Job
		gs   []workload.NodeGroup
		want bool
	}{
		{"no gang", job(0, 0, 8), []workload.NodeGroup{g(1, 4)}, true},
		{"exactly", job(4, 0, 2), []workload.NodeGroup{g(2, 4)}, true},
		{"one short", job(5, 0, 2), []workload.NodeGroup{g(2, 4)}, false},
		// The AM takes 1 CPU of a 4-CPU node: that node holds one task
		// of 2 CPUs instead of two; the 6-CPU node holds three.
		{"the AM's node loses a task", job(5, 1, 2), []workload.NodeGroup{g(1, 4), g(1, 6)}, true},
		{"the AM's node loses too many", job(6, 1, 2), []workload.NodeGroup{g(1, 4), g(1, 6)}, false},
		{"an AM that fits nowhere", job(2, 8, 1), []workload.NodeGroup{g(2, 4)}, false},
	}
	for _, c := range cases {
		if got := gangFits(c.j, c.gs); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
