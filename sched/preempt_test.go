package sched

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

// preemptRig drives a core with preemption on by hand: a driver that
// records what it is asked, and a policy that gives a node to the first
// job, in submission order, with an ask that fits.
type preemptRig struct {
	t       *testing.T
	c       *Core
	now     clock.Time
	killed  []*Container
	forQ    []string
	acquire []*Job
}

type rigDriver struct{ r *preemptRig }

func (d rigDriver) Launch(*Container) {}
func (d rigDriver) Stop(*Container)   {}
func (d rigDriver) WakeAM(j *Job)     { d.r.acquire = append(d.r.acquire, j) }
func (d rigDriver) Reconsider()       {}
func (d rigDriver) AcceptLowered()    {}
func (d rigDriver) Preempt(ct *Container, q *Queue) {
	d.r.killed = append(d.r.killed, ct)
	d.r.forQ = append(d.r.forQ, q.Name())
}

type rigPolicy struct {
	v   *View
	pre Preemption
}

func (p *rigPolicy) Pick(n *cluster.Node) *Ask {
	for i := range p.v.NumJobs() {
		j := p.v.Job(JobID(i))
		for k := range j.asks {
			a := &j.asks[k]
			if a.Pending > 0 && allocatable(a) && p.v.CanPlace(a, n) {
				return a
			}
		}
	}
	return nil
}
func (p *rigPolicy) Preemption() *Preemption { return &p.pre }
func (p *rigPolicy) Serves(*Ask) bool        { return true }

// newRig builds a core over nodes with the queues and preemption settings
// (Delay 0 unless set, so that a round kills what it picks).
func newRig(t *testing.T, nodes []resource.Vector, queues []QueueSpec, pre Preemption) *preemptRig {
	t.Helper()
	r := &preemptRig{t: t}
	c, err := NewCore(Config{Nodes: nodes, Queues: queues, Driver: rigDriver{r}, Debug: true,
		NewPolicy: func(v *View) (Policy, error) { return &rigPolicy{v: v, pre: pre}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	return r
}

// run submits spec at the rig's time and places, runs and reports RUNNING
// as many of its containers as the nodes, offered in order, take.
func (r *preemptRig) submit(spec JobSpec) *Job {
	r.t.Helper()
	j, err := r.c.Submit(r.now, &spec)
	if err != nil {
		r.t.Fatal(err)
	}
	r.settle()
	return j
}

// settle offers every node, acquires what was allocated, starts AMs and
// reports every acquired container RUNNING, until nothing changes.
func (r *preemptRig) settle() {
	r.t.Helper()
	for range 20 {
		for i := range r.c.cl.NumNodes() {
			r.c.NodeUpdate(r.now, r.c.cl.Node(cluster.NodeID(i)))
		}
		jobs := r.acquire
		r.acquire = nil
		for _, j := range jobs {
			r.c.AMHeartbeat(r.now, j)
		}
		moved := false
		for _, j := range r.c.jobs {
			if j.am != nil && j.am.state == Acquired {
				r.c.AMStarted(r.now, j)
				r.c.Report(r.now, j.am, Running)
				moved = true
			}
		}
		for ct := range r.c.live {
			if ct.state == Acquired && !ct.IsAM() {
				r.c.Report(r.now, ct, Running)
				moved = true
			}
		}
		if err := r.c.Check(); err != nil {
			r.t.Fatal(err)
		}
		if !moved && len(r.acquire) == 0 {
			return
		}
	}
}

// tick runs a preemption round at time at.
func (r *preemptRig) tick(at clock.Time) {
	r.now = at
	r.c.Tick(at)
	if err := r.c.Check(); err != nil {
		r.t.Fatal(err)
	}
}

// endKilled reports every container killed so far PREEMPTED.
func (r *preemptRig) endKilled() {
	for _, ct := range r.killed {
		if !ct.state.Terminal() {
			if err := r.c.Report(r.now, ct, Preempted); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	r.settle()
}

func names(cts []*Container) string {
	var s []string
	for _, ct := range cts {
		s = append(s, fmt.Sprintf("%s/%d", ct.job.key, ct.task))
	}
	return strings.Join(s, " ")
}

func tasksJob(key, queue string, prio int32, am resource.Vector, tasks int) JobSpec {
	return JobSpec{Key: key, Queue: queue, Priority: prio, AM: am,
		Phases: []PhaseSpec{{Tasks: tasks, Request: resource.New(1, 1024), StartAfter: 1}}}
}

var twoQueues = []QueueSpec{{Name: "prod", Capacity: 0.5, MaxCapacity: 1}, {Name: "batch", Capacity: 0.5, MaxCapacity: 1}}

func rigPreemption() Preemption {
	return Preemption{Interval: clock.Second, PerRound: 1, Natural: 1, Measure: DominantMeasure}
}

// The victims: the over queue's lowest-priority job first, then its
// youngest job, each job's newest container first; never an AM; never a
// job's last task while its AM runs.
func TestPreemptionVictimOrder(t *testing.T) {
	one := resource.New(1, 1024)
	tests := []struct {
		name  string
		batch []JobSpec
		want  string
	}{
		{"newest container first", []JobSpec{tasksJob("b1", "batch", 0, resource.Vector{}, 8)},
			"b1/7 b1/6 b1/5 b1/4"},
		{"the youngest job first", []JobSpec{tasksJob("b1", "batch", 0, resource.Vector{}, 4), tasksJob("b2", "batch", 0, resource.Vector{}, 4)},
			"b2/3 b2/2 b2/1 b2/0"},
		{"the lowest priority first, however old", []JobSpec{tasksJob("b1", "batch", -1, resource.Vector{}, 4), tasksJob("b2", "batch", 0, resource.Vector{}, 4)},
			"b1/3 b1/2 b1/1 b1/0"},
		// b1 (priority 0) holds its AM and three tasks, b2 (priority 1)
		// four tasks: b1's newest two go first, but its last task and
		// its AM stay; then b2's newest two.
		{"never the AM, never the last task beside it", []JobSpec{tasksJob("b1", "batch", 0, one, 3), tasksJob("b2", "batch", 1, resource.Vector{}, 4)},
			"b1/2 b1/1 b2/3 b2/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, []resource.Vector{resource.New(8, 8192)}, twoQueues, rigPreemption())
			for _, j := range tt.batch {
				r.submit(j)
			}
			if got := r.c.cl.Free(); !got.IsZero() {
				t.Fatalf("batch left %v free", got)
			}
			r.submit(tasksJob("p", "prod", 0, resource.Vector{}, 4))
			r.tick(clock.Time(clock.Second))
			if got := names(r.killed); got != tt.want {
				t.Errorf("killed %s, want %s", names(r.killed), tt.want)
			}
			for i, q := range r.forQ {
				if q != "prod" || r.killed[i].IsAM() {
					t.Errorf("%v killed for %s", r.killed[i], q)
				}
			}
		})
	}
}

// The room a kill frees is held for the container it was taken for: the
// node gives it nothing else, and its next update allocates it there.
func TestPreemptionHoldsTheRoom(t *testing.T) {
	r := newRig(t, []resource.Vector{resource.New(4, 4096)}, twoQueues, rigPreemption())
	r.submit(tasksJob("b", "batch", 0, resource.Vector{}, 4))
	p := r.submit(tasksJob("p", "prod", 0, resource.Vector{}, 2))
	r.tick(clock.Time(clock.Second))
	if len(r.killed) != 2 {
		t.Fatalf("killed %s", names(r.killed))
	}
	if a := &p.asks[1]; a.Pending != 0 || a.Earmarked() != 2 || !r.c.HasDemand() || !r.c.MayAccept(r.c.cl.Node(0)) {
		t.Fatalf("ask pending %d, earmarked %d, demand %v", a.Pending, a.Earmarked(), r.c.HasDemand())
	}
	// One victim ends: the room stays held, not given to b's re-asked
	// task, until it fits p's container.
	r.c.Report(r.now, r.killed[0], Preempted)
	r.settle()
	if p.live != 1 {
		t.Fatalf("p holds %d containers after the first victim ended", p.live)
	}
	r.endKilled()
	if p.live != 2 || p.asks[1].Earmarked() != 0 {
		t.Fatalf("p holds %d containers, %d earmarked", p.live, p.asks[1].Earmarked())
	}
	for ct := range r.c.live {
		if ct.job == p && !ct.IntoPreemptedRoom() {
			t.Errorf("%v not allocated into the held room", ct)
		}
	}
	st := r.c.PreemptionStats()
	if st.Killed != 2 || st.Preempted != 2 || st.Served != 2 || st.ByQueue["batch"].TakenFrom != 2 || st.ByQueue["prod"].TakenFor != 2 {
		t.Errorf("stats %+v", st)
	}
	// b's two tasks are asked for again, to be redone.
	if b := r.c.jobs[0]; b.pending != 2 || b.Ends(Preempted) != 2 {
		t.Errorf("b pending %d, preempted %d", b.pending, b.Ends(Preempted))
	}
}

// A room held for a victim the driver never ends (an eviction refused) is
// given back after a while.
func TestPreemptionRoomExpires(t *testing.T) {
	r := newRig(t, []resource.Vector{resource.New(2, 2048)}, twoQueues, rigPreemption())
	r.submit(tasksJob("b", "batch", 0, resource.Vector{}, 2))
	p := r.submit(tasksJob("p", "prod", 0, resource.Vector{}, 1))
	r.tick(clock.Time(clock.Second))
	if len(r.killed) != 1 || p.asks[1].Earmarked() != 1 {
		t.Fatalf("killed %s, earmarked %d", names(r.killed), p.asks[1].Earmarked())
	}
	ttl := r.c.pre.earmarkTTL()
	for at := clock.Time(2 * clock.Second); at <= clock.Time(clock.Second)+clock.Time(ttl)+clock.Time(2*clock.Second); at += clock.Time(clock.Second) {
		r.tick(at)
	}
	if p.asks[1].Earmarked() != 0 || p.asks[1].Pending != 1 || r.c.PreemptionStats().Expired != 1 {
		t.Errorf("after the TTL: earmarked %d, pending %d, stats %+v", p.asks[1].Earmarked(), p.asks[1].Pending, r.c.PreemptionStats())
	}
	// The victim was not killed again: it is marked as taken.
	if len(r.killed) != 1 {
		t.Errorf("killed %s", names(r.killed))
	}
}

// With a delay, a victim is marked first and killed only once it has been
// marked that long; a mark the next round does not renew is forgotten.
func TestPreemptionDelay(t *testing.T) {
	pre := rigPreemption()
	pre.Delay = 3 * clock.Second
	r := newRig(t, []resource.Vector{resource.New(4, 4096)}, twoQueues, pre)
	r.submit(tasksJob("b", "batch", 0, resource.Vector{}, 4))
	r.submit(tasksJob("p", "prod", 0, resource.Vector{}, 2))
	for s := 1; s <= 3; s++ {
		r.tick(clock.Time(s) * clock.Time(clock.Second))
		if len(r.killed) != 0 {
			t.Fatalf("killed at %ds, before the delay", s)
		}
	}
	if st := r.c.PreemptionStats(); st.Marked != 2 {
		t.Fatalf("marked %d", st.Marked)
	}
	r.tick(clock.Time(4 * clock.Second))
	if names(r.killed) != "b/3 b/2" {
		t.Fatalf("killed %s at 4s", names(r.killed))
	}
}

// The budget of a round: the excess of each queue over its share, all of
// it at most PerRound of the cluster, then Natural of that.
func TestPreemptionBudgets(t *testing.T) {
	tr, err := newQueueTree([]QueueSpec{{Name: "a", Capacity: 0.5, MaxCapacity: 1}, {Name: "b", Capacity: 0.5, MaxCapacity: 1}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := tr.byName["a"], tr.byName["b"]
	for _, tt := range []struct {
		excess        [2]float64
		perRound, nat float64
		wantA, wantB  float64
	}{
		{[2]float64{0.3, 0.1}, 1, 1, 0.3, 0.1},
		{[2]float64{0.3, 0.1}, 1, 0.2, 0.06, 0.02},
		{[2]float64{0.3, 0.1}, 0.1, 1, 0.075, 0.025},
		{[2]float64{0.3, 0.1}, 0.1, 0.2, 0.015, 0.005},
	} {
		p := &preemptor{cfg: Preemption{PerRound: tt.perRound, Natural: tt.nat}, over: []*Queue{a, b}, budget: make([]float64, 2)}
		p.budget[a.index], p.budget[b.index] = tt.excess[0], tt.excess[1]
		p.budgets()
		if d := p.budget[a.index] - tt.wantA; d > 1e-12 || d < -1e-12 || p.budget[b.index]-tt.wantB > 1e-12 || tt.wantB-p.budget[b.index] > 1e-12 {
			t.Errorf("%+v: budgets %v", tt, p.budget)
		}
	}
}

func TestFitCount(t *testing.T) {
	for _, tt := range []struct {
		free, req resource.Vector
		want      int
	}{
		{resource.New(4, 4096), resource.New(1, 1024), 4},
		{resource.New(4, 2048), resource.New(1, 1024), 2},
		{resource.New(0, 4096), resource.New(1, 1024), 0},
		{resource.New(3, 4096), resource.New(2, 0), 1},
		{resource.Vector{}, resource.New(1, 1024), 0},
	} {
		if got := fitCount(tt.free, tt.req); got != tt.want {
			t.Errorf("fitCount(%v, %v) = %d, want %d", tt.free, tt.req, got, tt.want)
		}
	}
}

// The order the monitor keeps moves by is the policy's: Capacity's usage
// over guarantee; Fair's needy queues first, then usage over weight.
func TestPreemptionOrder(t *testing.T) {
	tr, err := newQueueTree([]QueueSpec{{Name: "a", Capacity: 0.5, MaxCapacity: 1, Weight: 1}, {Name: "b", Capacity: 0.2, MaxCapacity: 1, Weight: 3}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := tr.byName["a"], tr.byName["b"]
	for _, tt := range []struct {
		byWeight bool
		ua, ub   float64
		aFirst   bool
	}{
		{false, 0.4, 0.3, true},  // 0.8 of its guarantee against 1.5
		{false, 0.6, 0.2, false}, // 1.2 against 1
		{true, 0.4, 0.3, true},   // a below its minimum share, b above
		{true, 0.6, 0.25, false}, // neither: 0.6 over 1 against 0.25 over 3
		{true, 0.3, 0.1, false},  // both below: 0.6 of its share against 0.5
	} {
		total := resource.New(1000, 1000*1024)
		p := &preemptor{cfg: Preemption{ByWeight: tt.byWeight, Measure: DominantMeasure}, usedV: make([]resource.Vector, 2), total: total}
		at := func(u float64) resource.Vector { return resource.New(int64(u*1000+0.5), int64(u*1000+0.5)*1024) }
		p.usedV[a.index], p.usedV[b.index] = at(tt.ua), at(tt.ub)
		if got := p.before(a, b); got != tt.aFirst {
			t.Errorf("%+v: a first %v", tt, got)
		}
	}
	sa, sb := meet(tr.byName["a"], tr.byName["b"])
	if sa != a || sb != b {
		t.Errorf("meet of siblings: %v %v", sa.Name(), sb.Name())
	}
}

// Preemption needs a driver that can preempt, and sane settings.
func TestPreemptionConfig(t *testing.T) {
	bad := []Preemption{{}, {Interval: 1, PerRound: 2, Natural: 1, Measure: DominantMeasure},
		{Interval: 1, PerRound: 1, Natural: 0, Measure: DominantMeasure}, {Interval: 1, Delay: -1, PerRound: 1, Natural: 1, Measure: DominantMeasure},
		{Interval: 1, PerRound: 1, Natural: 1}}
	for _, p := range bad {
		if err := p.check(); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	_, err := NewCore(Config{Nodes: []resource.Vector{resource.New(1, 1024)}, Driver: noPreempt{},
		NewPolicy: func(v *View) (Policy, error) { return &rigPolicy{v: v, pre: rigPreemption()}, nil }})
	if err == nil || !strings.Contains(err.Error(), "cannot preempt") {
		t.Errorf("a driver that cannot preempt: %v", err)
	}
}

type noPreempt struct{}

func (noPreempt) Launch(*Container) {}
func (noPreempt) Stop(*Container)   {}
func (noPreempt) WakeAM(*Job)       {}
func (noPreempt) Reconsider()       {}
func (noPreempt) AcceptLowered()    {}
