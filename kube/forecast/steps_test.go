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

func TestResolveQueue(t *testing.T) {
	qs := []workload.Queue{{Name: "root.prod"}, {Name: "prod.etl"}, {Name: "dev"}}
	cases := []struct {
		queues    []workload.Queue
		def, name string
		want      string
	}{
		{qs, "dev", "prod.etl", "prod.etl"},
		{qs, "dev", "root.prod.etl", "prod.etl"},
		{qs, "dev", "team", "dev"},
		{qs, "", "team", ""},
		{[]workload.Queue{{Name: "default"}}, "", "team", "default"},
	}
	for _, c := range cases {
		if got := ResolveQueue(c.queues, c.def, c.name); got != c.want {
			t.Errorf("ResolveQueue(%v, %q, %q) = %q, want %q", c.queues, c.def, c.name, got, c.want)
		}
	}
	qs = []workload.Queue{{Name: "root.prod", Capacity: 0.5, MaxCapacity: 1}, {Name: "prod.etl", Capacity: 1, MaxCapacity: 1},
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
	e := &estimates{median: 40 * time.Second}
	e.byName.Observe("etl", micros(100*time.Second))
	e.byName.Observe("ml", micros(300*time.Second))
	e.tasksByName.Observe("ml", micros(50*time.Second))
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
		{"then the cluster's median", e, job("bi", 0), 40 * time.Second, 40 * time.Second, SourceCluster},
		{"then the default", &estimates{}, job("bi", 0), DefaultEstimate, DefaultEstimate, SourceCluster},
		{"at least a second", &estimates{}, job("bi", time.Millisecond), time.Second, time.Second, SourceAnnotation},
	}
	for _, c := range cases {
		if d, task, src := c.e.of(c.j); d != c.runtime || task != c.task || src != c.src {
			t.Errorf("%s: %v, tasks %v, %s; want %v, %v, %s", c.name, d, task, src, c.runtime, c.task, c.src)
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
