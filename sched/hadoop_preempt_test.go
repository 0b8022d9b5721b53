package sched

import (
	"fmt"
	"maps"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Cases from Hadoop's own tests of its Capacity scheduler's preemption
// monitor (TestProportionalCapacityPreemptionPolicy, ...PreemptToBalance,
// ...InterQueueWithDRF, in hadoop-yarn-server-resourcemanager): each states
// a cluster, per queue its guarantee, maximum, used and pending, and how
// many containers one round of the monitor preempts from which
// application. The facts are theirs; the cases are written here as spindle
// states, on one node, and run with the settings those tests use:
// total_preemption_per_round 1, natural_termination_factor 1, a 3 s
// interval, max_wait_before_kill 10 s, max_ignored_over_capacity 0.1
// (YARN's default, which the tests keep).
//
// Each queue's used containers are held by its apps, split evenly, all
// RUNNING; its pending containers are asked for by one more job that holds
// nothing. A container is one unit of every resource unless the case says
// otherwise. Hadoop asserts the containers one round marks; spindle marks
// at 3 s and kills at 15 s (the first round 10 s after), and the test
// counts what it kills then and that no later round kills more.

// hadoopQueue is one queue of a case.
type hadoopQueue struct {
	name     string
	guar     float64 // absolute capacity, a share of the cluster
	max      float64 // absolute maximum capacity; 0 means 1
	used     int     // containers held
	apps     int     // jobs holding them, split evenly; 0 means 1
	pending  int     // containers asked for
	disabled bool    // disable_preemption
}

type hadoopCase struct {
	test    string          // the Hadoop test the facts come from
	unit    resource.Vector // one container; zero means <1 vcore, 1024 MB>
	total   resource.Vector // the cluster, one node; zero means 100 units
	queues  []hadoopQueue
	am      bool // each app's first container is its AM (setAMContainer)
	balance bool // preemption-to-balance-queue-after-satisfied
	// hadoop is what Hadoop asserts is preempted, per queue (summed over
	// its apps); want is what spindle takes. They differ only where
	// why says.
	hadoop, want map[string]int
	why          string
}

var hadoopCases = []hadoopCase{
	{test: "(issue 35's own: the floating-point tie)",
		queues: []hadoopQueue{{name: "a", guar: 0.5, used: 100}, {name: "b", guar: 0.5, pending: 50}},
		hadoop: map[string]int{"a": 50}, want: map[string]int{"a": 50}},
	{test: "TestProportionalCapacityPreemptionPolicy.testSkipAMContainer",
		// A holds 100 in four apps of 25 (AM included), B asks 50.
		// Hadoop takes 24 from appD, 24 from appC and 2 from appB, never
		// an AM; spindle also never a job's last task beside its AM, so
		// it takes 23 from D, 23 from C and 4 from B: 50 either way.
		queues: []hadoopQueue{{name: "a", guar: 0.5, used: 100, apps: 4, pending: 20}, {name: "b", guar: 0.5, pending: 50}},
		am:     true,
		hadoop: map[string]int{"a": 50}, want: map[string]int{"a": 50},
		why: "per app 23/23/4 where Hadoop takes 24/24/2: spindle keeps each job's last task beside its AM"},
	{test: "TestProportionalCapacityPreemptionPolicy.testPreemptSkippedAMContainers",
		// Containers of 5 units; A (10 %) holds 100 in four apps of five
		// (AM included), B (90 %) asks 90. Hadoop takes 18: appD's 5 and
		// appC's 5, their AMs too once the tasks are not enough, appB's 4
		// and appA's 4. spindle never takes an AM or a job's last task
		// beside it: three of each app's five, 12, and B runs 12 of its 18
		// until A's jobs end.
		unit:   resource.New(5, 5*1024),
		total:  resource.New(100, 100*1024),
		queues: []hadoopQueue{{name: "a", guar: 0.1, used: 20, apps: 4, pending: 4}, {name: "b", guar: 0.9, pending: 18}},
		am:     true,
		hadoop: map[string]int{"a": 18}, want: map[string]int{"a": 12},
		why: "never an AM, never a job's last task beside its AM (docs/queues.md): Hadoop takes AMs when tasks are not enough"},
	{test: "TestProportionalCapacityPreemptionPolicyInterQueueWithDRF.testInterQueuePreemptionWithMultipleResource",
		// <memory 100, vcores 200>; containers <2, 4>; a (50 %) holds 20
		// and asks 15 (its pending <30, 70> in whole containers), b (50 %)
		// holds 30 and asks 10. Hadoop: <10, 20> from b, 5 containers.
		unit:  resource.New(4, 2*1024),
		total: resource.New(200, 100*1024),
		queues: []hadoopQueue{{name: "a", guar: 0.5, used: 20, pending: 15},
			{name: "b", guar: 0.5, used: 30, pending: 10}},
		hadoop: map[string]int{"b": 5}, want: map[string]int{"b": 5}},
	{test: "TestProportionalCapacityPreemptionPolicy.testOverCapacityImbalance",
		// Both A and B above their guarantees: capped at what they hold,
		// neither is owed anything.
		queues: []hadoopQueue{{name: "a", guar: 0.4, used: 55, pending: 10}, {name: "b", guar: 0.4, used: 45, pending: 10},
			{name: "c", guar: 0.2}},
		hadoop: map[string]int{}, want: map[string]int{}},
	{test: "TestProportionalCapacityPreemptionPolicy.testProportionalPreemption",
		queues: []hadoopQueue{{name: "a", guar: 0.1, used: 30, pending: 20}, {name: "b", guar: 0.4, used: 60, pending: 5},
			{name: "c", guar: 0.2, used: 10, pending: 20}, {name: "d", guar: 0.3}},
		hadoop: map[string]int{"a": 10}, want: map[string]int{"a": 10}},
	{test: "TestProportionalCapacityPreemptionPolicyPreemptToBalance.testPreemptionToBalanceDisabled",
		queues: []hadoopQueue{{name: "a", guar: 0.3, used: 10, pending: 30}, {name: "b", guar: 0.3, used: 40, pending: 30},
			{name: "c", guar: 0.3, used: 50, pending: 30}, {name: "d", guar: 0.1}},
		hadoop: map[string]int{"b": 5, "c": 15}, want: map[string]int{"b": 5, "c": 15}},
	{test: "TestProportionalCapacityPreemptionPolicyPreemptToBalance.testPreemptionToBalanceEnabled",
		queues: []hadoopQueue{{name: "a", guar: 0.3, used: 10, pending: 30}, {name: "b", guar: 0.3, used: 40, pending: 30},
			{name: "c", guar: 0.3, used: 50, pending: 30}, {name: "d", guar: 0.1}},
		balance: true,
		hadoop:  map[string]int{"b": 7, "c": 17}, want: map[string]int{"b": 6, "c": 17},
		why: "a is owed 23⅓ containers (ideal 33⅓ each): spindle takes the 23 whole ones it is owed, 17 from c (the most over, " +
			"up to one past its excess) then 6 from b; Hadoop rounds up to 24. A 24th from b would leave a at 34 and b at 33: " +
			"the scheduler would hand b the next free container, and the monitor take it back"},
	{test: "TestProportionalCapacityPreemptionPolicyPreemptToBalance.testPreemptionToBalanceUsedPlusPendingLessThanGuaranteed",
		queues: []hadoopQueue{{name: "a", guar: 0.3, used: 10, pending: 6}, {name: "b", guar: 0.3, used: 40, pending: 30},
			{name: "c", guar: 0.3, used: 50, pending: 30}, {name: "d", guar: 0.1}},
		balance: true,
		hadoop:  map[string]int{"c": 8}, want: map[string]int{"c": 8}},
	{test: "TestProportionalCapacityPreemptionPolicy.testPerQueueDisablePreemption",
		// B may not be preempted: its 54 count as its own, and A's 10
		// come from C alone.
		queues: []hadoopQueue{{name: "a", guar: 0.55, pending: 10}, {name: "b", guar: 0.25, used: 54, disabled: true},
			{name: "c", guar: 0.2, used: 46}},
		hadoop: map[string]int{"c": 10}, want: map[string]int{"c": 10}},
}

func TestHadoopPreemptionCases(t *testing.T) {
	for _, tc := range hadoopCases {
		t.Run(tc.test, func(t *testing.T) {
			got, rounds := runHadoopCase(t, tc, false)
			t.Logf("Hadoop %v, spindle %v", tc.hadoop, got)
			if !maps.Equal(got, tc.want) {
				t.Errorf("took %v, want %v (Hadoop asserts %v)", got, tc.want, tc.hadoop)
			}
			if tc.why == "" && !maps.Equal(tc.want, tc.hadoop) {
				t.Errorf("spindle's %v differs from Hadoop's %v without a reason", tc.want, tc.hadoop)
			}
			// Marks are stable while nothing changes: every victim
			// dies in the first round that may kill, none later.
			if len(rounds) > 1 {
				t.Errorf("kills spread over rounds %v: a mark moved while nothing changed", rounds)
			}
		})
	}
}

// Observe mode picks and counts what the round would take, takes nothing,
// and counts each container once however many rounds pick it again.
func TestHadoopPreemptionCasesObserved(t *testing.T) {
	for _, tc := range hadoopCases {
		t.Run(tc.test, func(t *testing.T) {
			got, rounds := runHadoopCase(t, tc, true)
			if len(got) != 0 || len(rounds) != 0 {
				t.Fatalf("observe mode killed %v", got)
			}
		})
	}
}

// runHadoopCase builds the case's state, runs rounds to 60 s, and returns
// the containers killed per queue and the rounds that killed any. Observe
// runs it in observe mode and checks what it counts against tc.want.
func runHadoopCase(t *testing.T, tc hadoopCase, observe bool) (map[string]int, []clock.Time) {
	t.Helper()
	unit, total := tc.unit, tc.total
	if unit.IsZero() {
		unit = resource.New(1, 1024)
	}
	if total.IsZero() {
		total = unit.Mul(100)
	}
	var specs []QueueSpec
	for _, q := range tc.queues {
		specs = append(specs, QueueSpec{Name: q.name, Capacity: q.guar, MaxCapacity: max(q.max, 1), DisablePreemption: q.disabled})
		if q.max == 0 {
			specs[len(specs)-1].MaxCapacity = 1
		}
	}
	pre := Preemption{Interval: 3 * clock.Second, Delay: 10 * clock.Second, PerRound: 1, Natural: 1, Deadzone: 0.1,
		Measure: DominantMeasure, Balance: tc.balance, Observe: observe}
	r := newRig(t, []resource.Vector{total}, specs, pre)
	job := func(key, queue string, am bool, tasks int) JobSpec {
		s := JobSpec{Key: key, Queue: queue, Phases: []PhaseSpec{{Tasks: tasks, Request: unit, StartAfter: 1}}}
		if am {
			s.AM = unit
			s.Phases[0].Tasks--
		}
		return s
	}
	for _, q := range tc.queues {
		apps := max(q.apps, 1)
		for k := range apps {
			if n := q.used / apps; n > 0 && q.used > 0 {
				r.submit(job(fmt.Sprintf("%s-app%d", q.name, k), q.name, tc.am, n))
			}
		}
	}
	for _, q := range tc.queues {
		if q.pending > 0 {
			r.submit(job(q.name+"-pending", q.name, false, q.pending))
		}
	}
	for _, q := range tc.queues {
		if got := r.c.tree.byName[q.name].usage; got != unit.Mul(int64(q.used)) {
			t.Fatalf("queue %s holds %v, the case says %d × %v", q.name, got, q.used, unit)
		}
	}
	var rounds []clock.Time
	for s := 3; s <= 60; s += 3 {
		n := len(r.killed)
		r.tick(clock.Time(s) * clock.Time(clock.Second))
		if len(r.killed) > n {
			rounds = append(rounds, r.now)
		}
		r.endKilled()
	}
	got := map[string]int{}
	for _, ct := range r.killed {
		if ct.IsAM() {
			t.Errorf("%v: an AM was preempted", ct)
		}
		got[ct.job.queue.Name()]++
	}
	st := r.c.PreemptionStats()
	if observe {
		would := map[string]int{}
		sum := 0
		for _, q := range tc.queues {
			if n := st.ByQueue[q.name].WouldTakeFrom; n > 0 {
				would[q.name] = n
				sum += n
			}
		}
		if !maps.Equal(would, tc.want) || st.Observed != sum || !st.Observe {
			t.Errorf("observe mode counted %v (%d in all, mode %v), want %v", would, st.Observed, st.Observe, tc.want)
		}
		if s := st.Summary(); s.Mode != "observe" || s.WouldPreempt != sum || s.Containers != 0 || s.Earmarks != 0 {
			t.Errorf("observe summary %+v", s)
		}
	}
	return got, rounds
}
