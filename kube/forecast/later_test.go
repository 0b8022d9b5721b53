package forecast

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/resource"
)

// twoWaves is a finished job of two waves, as a MapReduce job's maps and
// reduce: an AM, two 1-CPU tasks from -100 s to -90 s, then one asked for
// once they ended, -89 s to -79 s (a runtime of 21 s, tasks of 10 s).
func twoWaves(job, uid string) []pb {
	t := func(name string, created, ended int) pb {
		return pb{job: job, name: name, batchUID: uid, cpu: 1, created: created, node: "n1", started: ip(created), ended: ip(ended)}
	}
	return []pb{
		{job: job, name: job + "-am", batchUID: uid, am: true, cpu: 1, created: -101, node: "n1", started: ip(-101), ended: ip(-79)},
		t(job+"-m0", -100, -90), t(job+"-m1", -100, -90), t(job+"-r0", -89, -79),
	}
}

// running is job r (a batch Job of uid) now: its AM since -6 s and four
// 1-CPU tasks of its first wave, running since -5 s on n1, and pending
// more tasks of that wave.
func running(uid string, pending int) []pb {
	out := []pb{{job: "r", name: "r-am", batchUID: uid, am: true, cpu: 1, created: -6, node: "n1", started: ip(-6)}}
	run := 4 - pending
	for i := 0; i < 4; i++ {
		p := pb{job: "r", name: "r-t" + string(rune('0'+i)), batchUID: uid, cpu: 1, created: -5}
		if i < run {
			p.node, p.started = "n1", ip(-5)
		}
		out = append(out, p)
	}
	return out
}

// TestRunLaterWaves: a running job is taken to ask, once its current
// tasks end, for the waves a finished run asked for after as many as it
// has asked for, scaled to its width, and under FIFO they come before a
// job that waits behind it. Every figure is hand-computed; before later
// waves were forecast, w was forecast at 5 s in the first and third
// cases, and r to finish at 16 s in the first and fourth.
func TestRunLaterWaves(t *testing.T) {
	// w waits for 4 CPUs: one batch task, no AM; the cluster's median
	// task (10 s) is its estimate.
	w := []pb{{job: "w", name: "w-0", cpu: 4, created: -2}}
	oneWave := []pb{
		{job: "h", name: "h-am", batchUID: "h1", am: true, cpu: 1, created: -101, node: "n1", started: ip(-101), ended: ip(-90)},
		{job: "h", name: "h-m0", batchUID: "h1", cpu: 1, created: -100, node: "n1", started: ip(-100), ended: ip(-90)},
		{job: "h", name: "h-m1", batchUID: "h1", cpu: 1, created: -100, node: "n1", started: ip(-100), ended: ip(-90)},
		{job: "h", name: "h-m2", batchUID: "h1", cpu: 1, created: -100, node: "n1", started: ip(-100), ended: ip(-90)},
	}
	// threeWaves is an earlier run of r itself: three waves of two 1-CPU
	// tasks of 10 s, -100 s to -70 s.
	var threeWaves []pb
	threeWaves = append(threeWaves, pb{job: "r", name: "r-old-am", batchUID: "r0", am: true, cpu: 1, created: -101, node: "n1", started: ip(-101), ended: ip(-70)})
	for k := 0; k < 3; k++ {
		for i := 0; i < 2; i++ {
			threeWaves = append(threeWaves, pb{job: "r", name: "r-old-" + string(rune('a'+k)) + string(rune('0'+i)), batchUID: "r0", cpu: 1,
				created: -100 + 10*k, node: "n1", started: ip(-100 + 10*k), ended: ip(-90 + 10*k)})
		}
	}
	cases := []struct {
		name string
		cpu  int // n1's
		pods [][]pb
		want map[string]want
	}{{
		// The cluster's runs of at least one wave: h, whose second wave
		// is one task for two in its first. r (4 wide) is taken to ask
		// for two more 10-s tasks when its running ones end (5 s: 10 s
		// each, 5 s run), 5-15 s, and its AM is held until they end
		// (not for the cluster's median runtime less what r has run, 21
		// - 5 = 16 s). On 6 CPUs w's 4 do not fit beside r's AM and the
		// two (3 free) until the wave ends: 15-25 s.
		name: "cluster's run of two waves",
		cpu:  6,
		pods: [][]pb{twoWaves("h", "h1"), running("r1", 0), w},
		want: map[string]want{
			"team/job/r": {start: -6, finish: 15, source: SourceCluster},
			"team/w":     {start: 15, finish: 25, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// Runs of one wave ask for no more: w starts when r's tasks and
		// AM end (the median runtime, 10 s, less 5 s run).
		name: "cluster's run of one wave",
		cpu:  6,
		pods: [][]pb{oneWave, running("r1", 0), w},
		want: map[string]want{
			"team/job/r": {start: -6, finish: 5, source: SourceCluster},
			"team/w":     {start: 5, finish: 15, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// r's own earlier run asked for two more waves of two: r (4
		// wide) asks for 4 tasks at 5 s and 4 at 15 s, its AM held 30 -
		// 5 = 25 s (its name's runtime). Each wave leaves 1 CPU: w waits
		// until 25 s, 10 s (the cluster's median task) to 35 s.
		name: "its name's run of three waves",
		cpu:  6,
		pods: [][]pb{threeWaves, twoWaves("h", "h1"), running("r1", 0), w},
		want: map[string]want{
			"team/job/r": {start: -6, finish: 25, source: SourceHistory},
			"team/w":     {start: 25, finish: 35, waiting: true, source: SourceCluster, position: 1},
		},
	}, {
		// Two of r's four first-wave tasks wait, on 4 CPUs: one runs at
		// once (1 CPU free), 0-10 s, the other when the running two end,
		// 5-15 s. The later wave (two tasks) waits for them: the first
		// simulation gives it 5 s, the second 15 s, so 15-25 s.
		name: "later waves wait for the current wave's pending tasks",
		cpu:  4,
		pods: [][]pb{twoWaves("h", "h1"), running("r1", 2)},
		want: map[string]want{
			"team/job/r": {start: -6, finish: 25, source: SourceCluster},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := snapshot([]*v1.Node{mkNode("n1", c.cpu)}, pods(c.pods...), nil)
			r := forecastOf(t, s, "fifo")
			if !r.Pinned {
				t.Error("running tasks were not pinned")
			}
			check(t, r, c.want)
		})
	}
}

// TestWaveNumbers: a task created once a task of the wave before had
// ended starts a wave; one not ended (running, pending, or its end not
// known) ends none.
func TestWaveNumbers(t *testing.T) {
	p := func(created, ended int, unknown bool) *record.InstantPod {
		ip := &record.InstantPod{Created: at(created), EndUnknown: unknown}
		if ended != none {
			ip.Ended = at(ended)
		}
		return ip
	}
	cases := []struct {
		name string
		pods []*record.InstantPod
		want []int
	}{
		{"none", nil, []int{}},
		{"one wave, none ended", []*record.InstantPod{p(0, none, false), p(1, none, false)}, []int{0, 0}},
		{"created before the first end", []*record.InstantPod{p(0, 10, false), p(0, 20, false), p(9, 30, false)}, []int{0, 0, 0}},
		{"created at the first end", []*record.InstantPod{p(0, 10, false), p(0, 20, false), p(10, none, false)}, []int{0, 0, 1}},
		{"three waves", []*record.InstantPod{p(0, 5, false), p(6, 8, false), p(9, none, false), p(9, none, false)}, []int{0, 1, 2, 2}},
		{"an unknown end ends nothing", []*record.InstantPod{p(0, 5, true), p(6, none, false)}, []int{0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := waveNumbers(c.pods)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestLater: which run a running job's later waves come from, and how
// they are scaled.
func TestLater(t *testing.T) {
	v := func(cpu int64) resource.Vector {
		var r resource.Vector
		r[resource.VCores] = cpu * 1000
		return r
	}
	wv := func(tasks int) wave { return wave{tasks: tasks, request: v(1), duration: 10 * time.Second} }
	e := &estimates{byRuns: map[string][]int{"etl": {3, 4}}, runs: []pastRun{
		{runtime: 10 * time.Second, waves: []wave{wv(2)}},
		{runtime: 20 * time.Second, waves: []wave{wv(2), wv(1)}},
		{runtime: 30 * time.Second, waves: []wave{wv(4), wv(2), wv(2)}},
		{name: "etl", runtime: 40 * time.Second, waves: []wave{wv(2), wv(6)}},
		{name: "etl", runtime: 50 * time.Second, waves: []wave{wv(3), wv(3), wv(3)}},
	}}
	tasks := func(ws []wave) []int {
		out := []int{}
		for _, w := range ws {
			out = append(out, w.tasks)
		}
		return out
	}
	cases := []struct {
		name     string
		job      string
		k, width int
		want     []int
	}{
		// Runs of at least 1 wave, by waves then runtime: 10 s (1), 20
		// s (2), 40 s (2), 30 s (3), 50 s (3): the lower middle is 40 s's.
		{"cluster, one wave asked", "", 1, 2, []int{6}},
		{"cluster, scaled up", "", 1, 4, []int{12}},
		{"cluster, scaled down, at least one", "", 1, 1, []int{3}},
		// At least 2: 20 s (2), 40 s (2), 30 s (3), 50 s (3): 40 s's,
		// which asked for no more.
		{"cluster, two waves asked", "", 2, 2, []int{}},
		{"cluster, more than any", "", 4, 2, []int{}},
		// etl's typical run is the lower middle of its two: 40 s.
		{"by name", "etl", 1, 4, []int{12}},
		{"unknown name: the cluster's", "other", 1, 2, []int{6}},
		{"nothing asked yet", "", 0, 0, []int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tasks(e.later(c.job, c.k, c.width))
			if len(got) != len(c.want) {
				t.Fatalf("later(%q, %d, %d) = %v, want %v", c.job, c.k, c.width, got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("later(%q, %d, %d) = %v, want %v", c.job, c.k, c.width, got, c.want)
				}
			}
		})
	}
}

// TestHolds: what the next simulation holds a running job to, from what
// this one found (each case one job; times in seconds from now, none for
// zero).
func TestHolds(t *testing.T) {
	cases := []struct {
		name                     string
		amOwn, tasksEnd, moreEnd int
		gate                     int
		prev                     *hold
		wantAM, wantGate         int
		changed                  bool
	}{
		{name: "nothing to hold", amOwn: none, tasksEnd: 10, moreEnd: none, gate: none, wantAM: none, wantGate: none},
		{name: "AM outlives its tasks", amOwn: 20, tasksEnd: 10, moreEnd: none, gate: none, wantAM: none, wantGate: none},
		{name: "tasks outlive the AM", amOwn: 20, tasksEnd: 30, moreEnd: none, gate: none, wantAM: 30, wantGate: none, changed: true},
		{name: "later waves outlive the AM", amOwn: 20, tasksEnd: 10, moreEnd: 40, gate: 10, wantAM: 40, wantGate: none, changed: true},
		{name: "the current wave ends after the gate", amOwn: none, tasksEnd: 15, moreEnd: 25, gate: 5, wantAM: none, wantGate: 15, changed: true},
		{name: "settled", amOwn: 20, tasksEnd: 15, moreEnd: 25, gate: 15, prev: &hold{am: at(25), gate: at(15)}, wantAM: 25, wantGate: 15},
		{name: "an AM hold no longer needed is let go", amOwn: 20, tasksEnd: 15, moreEnd: none, gate: none, prev: &hold{am: at(30)}, wantAM: none, wantGate: none, changed: true},
		{name: "the gate moves sooner", amOwn: none, tasksEnd: 15, moreEnd: 25, gate: 20, prev: &hold{gate: at(20)}, wantAM: none, wantGate: 15, changed: true},
		{name: "no task left: the gate is now", amOwn: none, tasksEnd: none, moreEnd: 10, gate: 0, wantAM: none, wantGate: none},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &model{now: now, jobs: make([]Job, 1), amOwn: []time.Time{tm(c.amOwn)}, tasksEnd: []time.Time{tm(c.tasksEnd)},
				moreEnd: []time.Time{tm(c.moreEnd)}, gate: []time.Time{tm(c.gate)}}
			var prev []hold
			if c.prev != nil {
				prev = []hold{*c.prev}
			}
			got, changed := m.holds(prev)
			if changed != c.changed || !got[0].am.Equal(tm(c.wantAM)) || !got[0].gate.Equal(tm(c.wantGate)) {
				t.Errorf("holds = {am %v, gate %v}, changed %v; want {am %v, gate %v}, changed %v",
					got[0].am.Sub(now), got[0].gate.Sub(now), changed, tm(c.wantAM).Sub(now), tm(c.wantGate).Sub(now), c.changed)
			}
		})
	}
}

// TestAnyHolds: later waves are asked for only when each fits some node.
func TestAnyHolds(t *testing.T) {
	v := func(cpu int64) resource.Vector {
		var r resource.Vector
		r[resource.VCores] = cpu * 1000
		return r
	}
	nodes := map[string]*nodeLoad{"a": {capacity: v(4)}, "b": {capacity: v(8)}}
	cases := []struct {
		name string
		cpus []int64
		want bool
	}{
		{"none", nil, true},
		{"fits the larger node", []int64{8}, true},
		{"one wave fits none", []int64{2, 9}, false},
	}
	for _, c := range cases {
		var ws []wave
		for _, cpu := range c.cpus {
			ws = append(ws, wave{tasks: 1, request: v(cpu)})
		}
		if got := anyHolds(nodes, ws); got != c.want {
			t.Errorf("%s: anyHolds = %v, want %v", c.name, got, c.want)
		}
	}
}
