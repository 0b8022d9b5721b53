package sim_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// The preemption property test: random queue trees, priorities and
// workloads under capacity, fair and drf with preemption on, the core's
// invariants (Core.Check) and the properties below checked on every event:
//
//   - no ApplicationMaster is ever preempted;
//   - no container is preempted for a queue that then does not use the
//     room: after a container taken for queue S ends PREEMPTED on node n,
//     n's next allocation goes to S, and by the end every such room was
//     used;
//   - every job completes (no deadlock), and the run is deterministic;
//   - with the whole excess taken per round (preempt_per_round=1,
//     preempt_natural=1, no dead zone) and one shape of container, a leaf
//     holding a container or more less than its share of the ideal
//     division (sched.Divide),
//     while a leaf over its own runs a task container that, moved to it,
//     (not the last of a job whose ApplicationMaster runs: preemption
//     never strands an AM)
//     would leave it no later than that leaf in the policy's order, is
//     given a container within the delay plus one round (plus the node
//     heartbeats that report the kill and then the end): no leaf waits
//     longer so starved, from when it became starved, its deficit grew, it
//     was last given a container or the division last changed (new demand
//     anywhere may rightly put another leaf first).
//
// With random per-round caps, termination factors, dead zones and mixed
// container shapes (TestPreemptionPropertiesMixed) the timing bound does not
// hold (YARN converges geometrically), and the other properties must.

// propStats sums what the runs exercised, so that a test that checks
// nothing fails.
type propStats struct {
	runs, withPreemption, preempted, spells int
	longest                                 clock.Duration
	// withBoth counts runs in which the MapReduce AM also killed reduces
	// of its own (required of TestPreemptionPropertiesMapReduce, whose
	// generator leads AMs there).
	withBoth int
	// deadlockedAlone counts runs of workloads that deadlock without
	// preemption too (they must hold every other property).
	deadlockedAlone int
}

func (s *propStats) check(t *testing.T) {
	t.Helper()
	t.Logf("%d runs, %d with preemption (%d also with reduces their AM killed), %d containers preempted, %d starvation spells, the longest %v; %d workloads deadlock without preemption too",
		s.runs, s.withPreemption, s.withBoth, s.preempted, s.spells, s.longest, s.deadlockedAlone/2)
	if s.withPreemption < s.runs/2 {
		t.Errorf("only %d of %d runs preempted anything: the generator lost its point", s.withPreemption, s.runs)
	}
}

// traceRounds prints every preemption round (for debugging a failure).
var traceRounds = os.Getenv("SPINDLE_TRACE_PREEMPTION") != ""

// propRuns is how many random workloads each test runs; more with
//
//	go test ./sim -run PreemptionProperties -preemption-runs 2000
var propRuns = 60

func init() {
	flag.IntVar(&propRuns, "preemption-runs", propRuns, "random workloads per preemption property test")
}

func TestPreemptionProperties(t *testing.T) {
	var stats propStats
	for i := range propRuns {
		seed := uint64(1000 + i)
		r := rand.New(rand.NewPCG(seed, 7))
		w := randomTenancy(r, false)
		pol := []string{"capacity", "fair", "drf"}[i%3]
		interval := clock.Duration(1+r.IntN(3)) * clock.Second
		delay := clock.Duration(r.IntN(4)) * interval
		spec := fmt.Sprintf("%s:preemption=on,preempt_interval=%v,preempt_delay=%v,preempt_per_round=1,preempt_natural=1,preempt_deadzone=0,preempt_min_utilization=0",
			pol, interval, delay)
		// Starvation ends when the victims' ends are reported and their
		// room allocated: a node heartbeat after the kill. The ideal
		// division is judged on allocations, and a container's end is
		// reported up to a heartbeat after the task's; one more period
		// covers that.
		bound := delay + interval + 2*w.Cluster.NodeHeartbeat
		if w.Cluster.Ideal {
			bound = delay + interval
		}
		runProperty(t, &stats, seed, w, spec, bound)
		if t.Failed() {
			t.Logf("workload %d under %s:\n%s", seed, spec, dump(w))
			return
		}
	}
	stats.check(t)
	if stats.spells == 0 {
		t.Error("no starvation spell: the bound was never tested")
	}
}

func TestPreemptionPropertiesMixed(t *testing.T) {
	var stats propStats
	for i := range propRuns {
		seed := uint64(5000 + i)
		r := rand.New(rand.NewPCG(seed, 11))
		w := randomTenancy(r, true)
		pol := []string{"capacity", "fair", "drf"}[i%3]
		spec := fmt.Sprintf("%s:preemption=on,preempt_interval=%v,preempt_delay=%v,preempt_per_round=%.2f,preempt_natural=%.2f,preempt_deadzone=%.2f,preempt_min_utilization=%.1f",
			pol, clock.Duration(1+r.IntN(4))*clock.Second, clock.Duration(r.IntN(9000))*clock.Millisecond,
			0.05+0.95*r.Float64(), 0.1+0.9*r.Float64(), 0.2*r.Float64(), 0.5*r.Float64())
		if pol == "capacity" && r.IntN(2) == 0 {
			spec += ",preempt_balance=on"
		}
		runProperty(t, &stats, seed, w, spec, -1)
		if t.Failed() {
			t.Logf("workload %d under %s:\n%s", seed, spec, dump(w))
			return
		}
	}
	stats.check(t)
}

// TestPreemptionPropertiesMapReduce runs the properties on workloads where
// MapReduce AMs kill their own reduces while queue preemption takes
// containers (mrTenancy): the core's guards keep the two from killing one
// container twice, which the simulator's Check mode catches, and the kills
// the simulator made must be the sum of the two counts.
func TestPreemptionPropertiesMapReduce(t *testing.T) {
	var stats propStats
	for i := range propRuns {
		seed := uint64(9000 + i)
		r := rand.New(rand.NewPCG(seed, 13))
		w := mrTenancy(r)
		pol := []string{"capacity", "fair", "drf"}[i%3]
		interval := clock.Duration(1+r.IntN(3)) * clock.Second
		delay := clock.Duration(r.IntN(4)) * interval
		spec := fmt.Sprintf("%s:preemption=on,preempt_interval=%v,preempt_delay=%v", pol, interval, delay)
		if r.IntN(2) == 0 {
			spec += ",preempt_per_round=1,preempt_natural=1"
		}
		runProperty(t, &stats, seed, w, spec, -1)
		if t.Failed() {
			t.Logf("workload %d under %s:\n%s", seed, spec, dump(w))
			return
		}
	}
	stats.check(t)
	// About one run in four reaches both kinds of kill (16 of the default
	// 60, 256 of 1000 with -preemption-runs 1000); one in twelve is the
	// floor.
	if min := propRuns / 12; stats.withBoth < min {
		t.Errorf("only %d of %d runs had both queue preemption and reduces their AM killed, want at least %d", stats.withBoth, stats.runs, min)
	}
}

// runProperty runs w under spec twice (determinism), checking the
// properties on every event; bound < 0 skips the starvation bound.
func runProperty(t *testing.T, stats *propStats, seed uint64, w *workload.Workload, spec string, bound clock.Duration) {
	t.Helper()
	var sums [2]*metrics.Summary
	for k := range sums {
		f, _, err := policy.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		var wt *watch
		opt := sim.Options{Seed: seed, Check: true, MaxEvents: 2_000_000,
			Policy: func(v *sched.View) (sched.Policy, error) {
				p, err := f(v)
				if err != nil {
					return nil, err
				}
				if traceRounds {
					p.(sched.Preempting).Preemption().Trace = func(f string, a ...any) { fmt.Printf(f+"\n", a...) }
				}
				wt = newWatch(t, v, p, bound)
				wt.oneShape = bound >= 0
				return wt, nil
			}}
		res, err := sim.Run(w, opt)
		if err != nil {
			t.Fatalf("seed %d %s: %v", seed, spec, err)
		}
		if wt.failed != "" {
			t.Fatalf("seed %d %s: %s", seed, spec, wt.failed)
		}
		wt.finish()
		if wt.failed != "" {
			t.Fatalf("seed %d %s: %s", seed, spec, wt.failed)
		}
		jobs := metrics.Jobs(w, &res.Outcome)
		s := metrics.Summarize(w, &res.Outcome, jobs, metrics.Run{Policy: spec})
		s.Reports = res.Reports()
		if s.Deadlocked || s.JobsCompleted != len(w.Jobs) {
			// Preemption never takes an ApplicationMaster, so it cannot
			// undo the AM deadlock a policy walks into by itself
			// (AutoAdmin's problem); it must not cause one.
			if k == 0 && !deadlocksAlone(t, seed, w, spec) {
				t.Fatalf("seed %d %s: %d of %d jobs completed, deadlocked %v %v, though without preemption every job completes",
					seed, spec, s.JobsCompleted, len(w.Jobs), s.Deadlocked, s.StuckJobs)
			}
			stats.deadlockedAlone++
		}
		st := res.Preemption
		if st == nil {
			t.Fatalf("seed %d %s: preemption did not run", seed, spec)
		}
		if st.Expired != 0 || st.Served != st.Earmarks || st.Preempted > st.Killed {
			t.Fatalf("seed %d %s: rooms held %d, served %d, expired %d; killed %d, preempted %d", seed, spec, st.Earmarks, st.Served, st.Expired, st.Killed, st.Preempted)
		}
		// Every task container the simulator killed, it killed once (Check
		// mode fails the run otherwise), either for its AM or for
		// preemption: the two counts add up to the kills.
		if res.ReducesPreempted+st.Preempted != res.TasksKilled {
			t.Fatalf("seed %d %s: %d reduces their AM killed and %d containers preempted, but the simulator killed %d", seed, spec, res.ReducesPreempted, st.Preempted, res.TasksKilled)
		}
		if st.Preempted != wt.preempted {
			t.Fatalf("seed %d %s: the monitor counts %d preempted, the observer saw %d", seed, spec, st.Preempted, wt.preempted)
		}
		if k == 0 {
			stats.runs++
			stats.preempted += st.Preempted
			stats.spells += wt.spellsSeen
			stats.longest = max(stats.longest, wt.longest)
			if st.Preempted > 0 {
				stats.withPreemption++
				if res.ReducesPreempted > 0 {
					stats.withBoth++
				}
			}
		}
		s.WallS = 0
		sums[k] = s
	}
	if !reflect.DeepEqual(sums[0], sums[1]) {
		t.Fatalf("seed %d %s: two runs differ:\n%+v\n%+v", seed, spec, sums[0], sums[1])
	}
}

// deadlocksAlone reports whether w deadlocks under spec's policy with
// preemption off.
func deadlocksAlone(t *testing.T, seed uint64, w *workload.Workload, spec string) bool {
	t.Helper()
	name, _, _ := strings.Cut(spec, ":")
	f, _, err := policy.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(w, sim.Options{Seed: seed, Policy: f, MaxEvents: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	return res.Deadlocked
}

// randomTenancy returns a random workload: a tree of two or three levels,
// jobs in its leaves with random priorities, arrivals that let some queues
// fill the cluster before the others ask. Without mixed, every container
// (AMs too) is one vcore and 1 GiB and the leaves' guarantees sum to the
// cluster; with mixed, shapes and capacities vary.
func randomTenancy(r *rand.Rand, mixed bool) *workload.Workload {
	w := &workload.Workload{}
	nodes := 1 + r.IntN(4)
	per := int64(4 + 2*r.IntN(4))
	w.Cluster.Nodes = []workload.NodeGroup{{Count: nodes, Capacity: resource.New(per, per*1024)}}
	if mixed {
		w.Cluster.Nodes = append(w.Cluster.Nodes, workload.NodeGroup{Count: 1 + r.IntN(2), Capacity: resource.New(per+4, (per+4)*2048)})
	}
	w.Cluster.Ideal = r.IntN(4) == 0
	if !w.Cluster.Ideal {
		w.Cluster.LaunchDelay = clock.Second
		w.Cluster.LaunchJitter = 0.25
	}
	// The tree: the root's children, some with children of their own.
	var leaves []string
	split := func(n int) []float64 {
		cs := make([]float64, n)
		sum := 0.0
		for i := range cs {
			cs[i] = 1 + r.Float64()*3
			sum += cs[i]
		}
		for i := range cs {
			cs[i] = math.Round(cs[i]/sum*1000) / 1000
		}
		// Guarantees sum to exactly 1 (within the format's slack).
		s := 0.0
		for _, c := range cs[:n-1] {
			s += c
		}
		cs[n-1] = math.Round((1-s)*1000) / 1000
		if mixed {
			for i := range cs {
				cs[i] *= 0.7 + 0.3*r.Float64()
			}
		}
		return cs
	}
	top := 2 + r.IntN(2)
	for i, c := range split(top) {
		name := fmt.Sprintf("q%d", i)
		q := workload.Queue{Name: name, Capacity: c, MaxCapacity: 1, Weight: 1 + float64(r.IntN(3))}
		if mixed && r.IntN(3) == 0 {
			q.MaxCapacity = math.Min(1, c+0.3)
		}
		w.Queues = append(w.Queues, q)
		if mixed && r.IntN(5) == 0 {
			q.DisablePreemption = true // and so its children
		}
		if r.IntN(2) == 0 {
			kids := 2
			for k, cc := range split(kids) {
				kn := fmt.Sprintf("%s.c%d", name, k)
				w.Queues = append(w.Queues, workload.Queue{Name: kn, Capacity: cc, MaxCapacity: 1, Weight: 1})
				leaves = append(leaves, kn)
			}
		} else {
			leaves = append(leaves, name)
		}
	}
	if mixed && r.IntN(3) == 0 {
		// A queue guaranteed nothing, running on what the others leave.
		w.Queues = append(w.Queues, workload.Queue{Name: "spare", MaxCapacity: 1})
		leaves = append(leaves, "spare")
	}
	// Each leaf may always start one ApplicationMaster whatever its AM
	// limit, so on a cluster of few containers per leaf the AMs alone can
	// fill it: the deadlock AutoAdmin is about, which a policy walks into
	// with or without preemption (preemption never takes an AM, so it
	// cannot undo one). The cluster has at least three containers per
	// leaf.
	for int64(nodes)*per < 3*int64(len(leaves)) {
		nodes++
	}
	w.Cluster.Nodes[0].Count = nodes
	unit := resource.New(1, 1024)
	shapes := []resource.Vector{unit}
	if mixed {
		shapes = append(shapes, resource.New(2, 2048), resource.New(1, 3072), resource.New(3, 1024))
	}
	jobs := 3 + r.IntN(6)
	for j := range jobs {
		leaf := leaves[r.IntN(len(leaves))]
		submit := clock.Time(0)
		if j > 0 {
			submit = clock.Time(r.IntN(60)) * clock.Time(clock.Second)
		}
		job := workload.Job{ID: fmt.Sprintf("j%d", j), Queue: leaf, Submit: submit, Priority: int32(r.IntN(3) - 1)}
		job.AM = unit
		if r.IntN(4) == 0 {
			job.AM = resource.Vector{}
		}
		phases := 1 + r.IntN(2)
		for k := range phases {
			tasks := 1 + r.IntN(int(per)*nodes)
			d := clock.Duration(5+r.IntN(60)) * clock.Second
			p := workload.Phase{Tasks: tasks, Request: shapes[r.IntN(len(shapes))], Durations: []clock.Duration{d}, StartAfter: 1}
			if k > 0 && r.IntN(2) == 0 {
				p.StartAfter = 0.5
			}
			job.Phases = append(job.Phases, p)
		}
		w.Jobs = append(w.Jobs, job)
	}
	w.ApplyDefaults()
	if err := w.Validate(); err != nil {
		panic(err)
	}
	return w
}

func dump(w *workload.Workload) string {
	var b strings.Builder
	if err := workload.Write(&b, w, workload.YAML); err != nil {
		return err.Error()
	}
	return b.String()
}

// watch wraps the policy under test, forwarding everything to it, and
// checks the properties from the observer callbacks, which the core makes
// on every change of a container or an ask.
type watch struct {
	t     *testing.T
	v     *sched.View
	inner sched.Policy
	pre   sched.Preempting
	bound clock.Duration
	// oneShape says every container has one shape, so that each victim
	// frees exactly one container's room, which the queue it was taken
	// for must take before any other allocation there.
	oneShape bool

	// debts lists, per node, the queues that containers preempted there
	// were taken for, whose room the next allocations there must go to.
	debts      map[cluster.NodeID][]*sched.Queue
	running    []resource.Vector    // per queue index: RUNNING task containers
	jobTasks   map[sched.JobID]int  // RUNNING task containers per job
	amRunning  map[sched.JobID]bool // jobs whose AM is RUNNING
	spells     []spell              // per queue index
	spellsSeen int
	longest    clock.Duration
	ideal      []float64
	prevIdeal  []float64
	demand     []float64
	preempted  int
	failed     string
}

type spell struct {
	start   clock.Time // -1 when the leaf is not starved
	deficit float64    // how far below its share it was when the clock started
	granted clock.Time // when the leaf was last allocated a container
}

func newWatch(t *testing.T, v *sched.View, p sched.Policy, bound clock.Duration) *watch {
	n := len(v.Queues())
	w := &watch{t: t, v: v, inner: p, bound: bound, debts: map[cluster.NodeID][]*sched.Queue{},
		jobTasks: map[sched.JobID]int{}, amRunning: map[sched.JobID]bool{},
		running: make([]resource.Vector, n), spells: make([]spell, n), ideal: make([]float64, n), prevIdeal: make([]float64, n), demand: make([]float64, n)}
	w.pre, _ = p.(sched.Preempting)
	for i := range w.spells {
		w.spells[i].start = -1
	}
	return w
}

func (w *watch) fail(format string, a ...any) {
	if w.failed == "" {
		w.failed = fmt.Sprintf("at %v: ", w.v.Now()) + fmt.Sprintf(format, a...)
	}
}

func (w *watch) Pick(n *cluster.Node) *sched.Ask { return w.inner.Pick(n) }

func (w *watch) Reserves() bool {
	r, ok := w.inner.(sched.Reserver)
	return ok && r.Reserves()
}

func (w *watch) Preemption() *sched.Preemption { return w.pre.Preemption() }
func (w *watch) Serves(a *sched.Ask) bool      { return w.pre.Serves(a) }

func (w *watch) JobSubmitted(j *sched.Job) {
	if o, ok := w.inner.(sched.SubmitObserver); ok {
		o.JobSubmitted(j)
	}
}

func (w *watch) JobAdmitted(j *sched.Job) {
	if o, ok := w.inner.(sched.AdmitObserver); ok {
		o.JobAdmitted(j)
	}
}

func (w *watch) JobFinished(j *sched.Job) {
	if o, ok := w.inner.(sched.FinishObserver); ok {
		o.JobFinished(j)
	}
	w.starvation()
}

func (w *watch) AsksChanged(j *sched.Job) {
	if o, ok := w.inner.(sched.AskObserver); ok {
		o.AsksChanged(j)
	}
	w.starvation()
}

func (w *watch) NodeUpdated(n *cluster.Node) {
	if o, ok := w.inner.(sched.NodeObserver); ok {
		o.NodeUpdated(n)
	}
}

func (w *watch) ClusterChanged(n *cluster.Node) {
	if o, ok := w.inner.(sched.ClusterObserver); ok {
		o.ClusterChanged(n)
	}
}

func (w *watch) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	if o, ok := w.inner.(sched.ContainerObserver); ok {
		o.ContainerChanged(c, from)
	}
	q := c.Job().Queue()
	node := c.NodeID()
	switch s := c.State(); {
	case s == sched.Preempted:
		if c.IsAM() {
			w.fail("%v, an ApplicationMaster, was preempted", c)
		}
		if q.PreemptionDisabled() {
			w.fail("%v was preempted from %s, a queue with preemption disabled", c, q.Name())
		}
		forq := w.v.PreemptedFor(c)
		if forq == nil || !c.Preempted() {
			w.fail("%v ended PREEMPTED without preemption taking it", c)
			return
		}
		w.preempted++
		w.debts[node] = append(w.debts[node], forq)
	case s == sched.Allocated:
		w.spells[q.Index()].granted = w.v.Now()
		d := w.debts[node]
		if len(d) == 0 {
			break
		}
		if !w.oneShape {
			// A container may take the room of several victims, and
			// what a bigger victim leaves over is anyone's: the queue
			// a room was taken for must use some of it (checked at the
			// end), not all of it first.
			kept := d[:0:0]
			for _, fq := range d {
				if fq != q {
					kept = append(kept, fq)
				}
			}
			w.debts[node] = kept
			break
		}
		// One shape: each victim's room is one container, which only
		// the queue it was taken for may take, into the room held for
		// it. (A room held whose victim finished on its own instead is
		// served without a debt.)
		found := false
		for i, fq := range d {
			if fq == q && c.IntoPreemptedRoom() {
				w.debts[node] = append(d[:i:i], d[i+1:]...)
				found = true
				break
			}
		}
		if !found && !c.IntoPreemptedRoom() {
			w.fail("node %d's room, preempted for %s, went to %s (%v)", node, d[0].Name(), q.Name(), c)
		}
	}
	id := c.Job().ID()
	switch {
	case c.IsAM():
		w.amRunning[id] = c.State() == sched.Running
	case c.State() == sched.Running:
		w.running[q.Index()] = w.running[q.Index()].Add(c.Request())
		w.jobTasks[id]++
	case c.State().Ended() && from == sched.Running:
		w.running[q.Index()] = w.running[q.Index()].Sub(c.Request())
		w.jobTasks[id]--
	}
	w.starvation()
}

// finish checks what must hold once the run is over.
func (w *watch) finish() {
	for n, d := range w.debts {
		if len(d) > 0 {
			w.fail("node %d: room preempted for %s never used", n, d[0].Name())
		}
	}
}

// starvation tracks, per leaf, how long it has held less than its share of
// the ideal division while the queues over theirs run enough task
// containers to make up every starved leaf's deficit.
func (w *watch) starvation() {
	if w.bound < 0 || w.failed != "" {
		return
	}
	v := w.v
	total := v.Cluster().Capacity()
	pc := w.pre.Preemption()
	qs := v.Queues()
	usedV := make([]resource.Vector, len(qs))
	demV := make([]resource.Vector, len(qs))
	for i := range v.NumJobs() {
		j := v.Job(sched.JobID(i))
		if j.State() == sched.Finished || j.State() == sched.Waiting {
			continue
		}
		var pend resource.Vector
		for k := range j.Asks() {
			a := &j.Asks()[k]
			if a.Pending > 0 && w.pre.Serves(a) {
				pend = pend.Add(a.Request.Mul(int64(a.Pending)))
			}
			pend = pend.Add(a.Request.Mul(int64(a.Earmarked())))
		}
		for q := j.Queue(); q.Index() >= 0; q = q.Parent() {
			demV[q.Index()] = demV[q.Index()].Add(pend)
		}
	}
	for i, q := range qs {
		usedV[i] = q.Usage()
		w.demand[i] = pc.Measure(usedV[i].Add(demV[i]), total)
	}
	used := make([]float64, len(qs))
	for i := range qs {
		used[i] = pc.Measure(usedV[i], total)
	}
	sched.Divide(v.RootQueue(), sched.DivideInput{Demand: w.demand, ByWeight: pc.ByWeight, Used: used, Balance: pc.Balance}, w.ideal)
	unit := pc.Measure(resource.New(1, 1024), total)
	tol := unit / 100
	// A new division (demand arrived or went anywhere) is a new plan: the
	// monitor may rightly serve another leaf first.
	replanned := false
	for i := range w.ideal {
		replanned = replanned || math.Abs(w.ideal[i]-w.prevIdeal[i]) > tol
	}
	copy(w.prevIdeal, w.ideal)
	// The policy's order of two siblings (capacity: usage over guarantee;
	// fair and drf: below the minimum share first, then usage over
	// weight), as the policy's tree walk applies it.
	before := func(a, b *sched.Queue, u []float64) bool {
		ua, ub := u[a.Index()], u[b.Index()]
		if !pc.ByWeight {
			return ua/a.AbsCapacity() < ub/b.AbsCapacity()
		}
		na, nb := ua < a.AbsCapacity(), ub < b.AbsCapacity()
		switch {
		case na && nb:
			return ua/a.AbsCapacity() < ub/b.AbsCapacity()
		case na != nb:
			return na
		}
		return ua/a.Weight() < ub/b.Weight()
	}
	path := func(q *sched.Queue, d float64, u []float64) {
		for ; q.Index() >= 0; q = q.Parent() {
			u[q.Index()] += d
		}
	}
	meet := func(a, b *sched.Queue) (*sched.Queue, *sched.Queue) {
		for a.Depth() > b.Depth() {
			a = a.Parent()
		}
		for b.Depth() > a.Depth() {
			b = b.Parent()
		}
		for a.Parent() != b.Parent() {
			a, b = a.Parent(), b.Parent()
		}
		return a, b
	}
	// Leaves with a task container preemption may take: never a job's
	// last while its ApplicationMaster runs.
	takeable := make([]bool, len(qs))
	for i := range v.NumJobs() {
		j := v.Job(sched.JobID(i))
		if n := w.jobTasks[j.ID()]; n >= 2 || (n == 1 && !w.amRunning[j.ID()]) {
			takeable[j.Queue().Index()] = true
		}
	}
	now := v.Now()
	for i, q := range qs {
		if !q.Leaf() {
			continue
		}
		sp := &w.spells[i]
		d := w.ideal[i] - used[i]
		// Starved: below its share by a container at least (by a
		// fiftieth more, for the monitor divides from what it holds
		// net of victims on their way out, a hair apart), while a
		// leaf over its share runs a task whose container, moved to it,
		// would leave it no later than that leaf in the policy's order
		// (a move the scheduler would keep).
		starved := false
		for k, o := range qs {
			if !o.Leaf() || k == i || d < unit+2*tol || used[k]-w.ideal[k] <= tol || !takeable[k] {
				continue
			}
			path(q, unit, used)
			path(o, -unit, used)
			sa, so := meet(q, o)
			if !before(so, sa, used) {
				starved = true
			}
			path(q, -unit, used)
			path(o, unit, used)
		}
		switch {
		case !starved:
			sp.start = -1
		case sp.start < 0 || d > sp.deficit+tol || sp.granted > sp.start || replanned:
			// A new spell; or a deficit that grew (new demand, or its
			// own containers ending and their room, rightly, going to
			// a queue more under-served); or a container given: the
			// bound is on each container's wait, so the clock starts
			// again.
			sp.start, sp.deficit = max(now, sp.granted), d
			w.spellsSeen++
		case now.Sub(sp.start) <= w.bound:
			w.longest = max(w.longest, now.Sub(sp.start))
		default:
			w.fail("queue %s has held %.3f of its ideal %.3f since %v, longer than %v, while a leaf over its share runs a task to give it",
				q.Name(), used[i], w.ideal[i], sp.start, w.bound)
		}
	}
}

// The property tests' wrapper must keep every interface the core looks for.
var (
	_ sched.Policy            = (*watch)(nil)
	_ sched.Reserver          = (*watch)(nil)
	_ sched.Preempting        = (*watch)(nil)
	_ sched.SubmitObserver    = (*watch)(nil)
	_ sched.AdmitObserver     = (*watch)(nil)
	_ sched.FinishObserver    = (*watch)(nil)
	_ sched.AskObserver       = (*watch)(nil)
	_ sched.ContainerObserver = (*watch)(nil)
	_ sched.NodeObserver      = (*watch)(nil)
	_ sched.ClusterObserver   = (*watch)(nil)
)

// mrTenancy returns a random workload of the shape that makes a MapReduce
// ApplicationMaster kill its own reduces (maps larger in memory than
// reduces, reduces at slow-start, nodes of 4 to 8 GB, often under a
// periodic external load) in a tree where another queue, below its
// guarantee, asks for containers while those reduces run: the runs in
// which queue preemption and the AM's kills meet.
func mrTenancy(r *rand.Rand) *workload.Workload {
	w := &workload.Workload{}
	nodes := 1 + r.IntN(3)
	memGB := int64(4 + r.IntN(5))
	w.Cluster.Nodes = []workload.NodeGroup{{Count: nodes, Capacity: resource.New(int64(8+4*r.IntN(3)), memGB*1024)}}
	w.Cluster.Ideal = r.IntN(4) == 0
	if !w.Cluster.Ideal {
		w.Cluster.LaunchDelay = clock.Second
		w.Cluster.LaunchJitter = 0.25
		w.Cluster.NodeHeartbeat = clock.Duration(1+r.IntN(4)) * clock.Second
	}
	if r.IntN(2) == 0 {
		lo := 0.1 + 0.05*r.Float64()
		period := clock.Duration(60+r.IntN(120)) * clock.Second
		w.Cluster.ExternalLoad = &workload.ExternalLoad{Period: period,
			Points: []workload.LoadPoint{{At: 0, Frac: lo}, {At: period / 2, Frac: lo + 0.05 + 0.15*r.Float64()}}}
	}
	if r.IntN(2) == 0 {
		w.Cluster.MapReduceAM = workload.DefaultMapReduceAM
		w.Cluster.MapReduceAM.Model = workload.MRHadoop22
	}
	// Two queues at the root: the MapReduce jobs' and the other's, which
	// asks later; either may be split in two leaves.
	c0 := math.Round((0.3+0.4*r.Float64())*1000) / 1000
	caps := []float64{c0, math.Round((1-c0)*1000) / 1000}
	var leaves [2][]string
	for i, c := range caps {
		name := fmt.Sprintf("q%d", i)
		w.Queues = append(w.Queues, workload.Queue{Name: name, Capacity: c, MaxCapacity: 1, Weight: 1 + float64(r.IntN(2))})
		if r.IntN(3) == 0 {
			for k, cc := range []float64{0.5, 0.5} {
				kn := fmt.Sprintf("%s.c%d", name, k)
				w.Queues = append(w.Queues, workload.Queue{Name: kn, Capacity: cc, MaxCapacity: 1, Weight: 1})
				leaves[i] = append(leaves[i], kn)
			}
		} else {
			leaves[i] = append(leaves[i], name)
		}
	}
	gb := func(n int64) resource.Vector { return resource.New(1, n*1024) }
	// A node keeps room, at the external load's peak, for an AM, a map and
	// a reduce: tight, yet never too small for the job to finish.
	peak := 0.0
	if l := w.Cluster.ExternalLoad; l != nil {
		peak = l.Points[1].Frac
	}
	// The smallest job, a <1 GB> AM, <2 GB> maps and <1 GB> reduces,
	// always fits.
	for float64(memGB*1024)*(1-peak) < 4*1024 {
		memGB++
	}
	w.Cluster.Nodes[0].Capacity[resource.Memory] = memGB * 1024
	room := int64(float64(memGB*1024) * (1 - peak))
	mrJobs := 1 + r.IntN(2)
	for j := range mrJobs {
		redMem := int64(1 + r.IntN(2))
		mapMem := redMem + 1 + int64(r.IntN(2))
		amMem := int64(1 + r.IntN(2))
		for (amMem+mapMem+redMem)*1024 > room {
			switch {
			case amMem > 1:
				amMem--
			case mapMem > redMem+1:
				mapMem--
			default:
				redMem--
				mapMem--
			}
		}
		job := workload.Job{ID: fmt.Sprintf("mr%d", j), Queue: leaves[0][r.IntN(len(leaves[0]))],
			Submit: clock.Time(r.IntN(10)) * clock.Time(clock.Second), AM: gb(amMem)}
		job.Phases = []workload.Phase{
			{Tasks: 8 + r.IntN(30), Request: gb(mapMem), Durations: []clock.Duration{clock.Duration(10+r.IntN(25)) * clock.Second}, StartAfter: 1},
			{Tasks: 4 + r.IntN(20), Request: gb(redMem), Durations: []clock.Duration{clock.Duration(15+r.IntN(30)) * clock.Second}, StartAfter: 0.03 + 0.2*r.Float64()},
		}
		w.Jobs = append(w.Jobs, job)
	}
	others := 2 + r.IntN(5)
	for j := range others {
		job := workload.Job{ID: fmt.Sprintf("o%d", j), Queue: leaves[1][r.IntN(len(leaves[1]))],
			Submit: clock.Time(5+r.IntN(300)) * clock.Time(clock.Second), AM: gb(1)}
		if r.IntN(4) == 0 {
			job.AM = resource.Vector{}
		}
		job.Phases = []workload.Phase{{Tasks: 4 + r.IntN(6*nodes), Request: gb(1 + int64(r.IntN(2))),
			Durations: []clock.Duration{clock.Duration(10+r.IntN(40)) * clock.Second}, StartAfter: 1}}
		w.Jobs = append(w.Jobs, job)
	}
	w.ApplyDefaults()
	if err := w.Validate(); err != nil {
		panic(err)
	}
	return w
}
