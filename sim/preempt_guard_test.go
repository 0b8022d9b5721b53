package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// guardLog is the property tests' observer, recording besides when each
// task container ended early and how.
type guardLog struct {
	*watch
	ends []string
}

func (g *guardLog) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	g.watch.ContainerChanged(c, from)
	if s := c.State(); !c.IsAM() && (s == sched.Killed || s == sched.Preempted) {
		g.ends = append(g.ends, fmt.Sprintf("%v %v %v->%v", g.v.Now(), c, from, s))
	}
}

// guardDoc is the workload of TestMapReduceKillGuards; %s is the
// mapreduce_am's extra settings.
const guardDoc = `version: 1
cluster:
  nodes:
    - {count: 1, vcores: 16, memory_mb: 8192}
  node_heartbeat: 10s
  am_heartbeat: 1s
  launch_delay: 0s
  launch_jitter: 0
  mapreduce_am: {model: hadoop-2.8, reduce_rampup_limit: 1%s}
queues:
  - {name: a, capacity: 0.2}
  - {name: b, capacity: 0.8}
jobs:
  - id: mr
    submit: 0s
    queue: a
    am: {vcores: 1, memory_mb: 1024}
    phases:
      - {tasks: 5, request: {vcores: 1, memory_mb: 4096}, duration: [10s, 10s, 20s, 10s, 10s]}
      - {tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 100s, start_after: 0.2}
  - {id: o, submit: 58s, queue: b, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 6, request: {vcores: 1, memory_mb: 1024}, duration: 300s}]}
`

// TestMapReduceKillGuards puts a reduce in both kill sets at one instant:
// what its MapReduce AM is killing and what queue preemption wants, the
// kill of either pending until the node's next heartbeat (every 10 s). The
// guards that keep them apart (preemption skips and discounts the reduces
// the AM is killing; the AM's kill skips a container preemption took) are
// otherwise almost never reached by the property tests.
//
// Hand computation, 1 node <16, 8 GB>, memory dominant; the seed puts the
// node's heartbeats at 9.709062 s + 10 k s and the AM heartbeats (every
// 1 s from its start) on the same fraction. A task starts when allocated
// (launch delay 0) and its RUNNING and end reach the core on the next node
// heartbeat. Queue a is 0.2 (1.6 GB), b 0.8; preemption runs every 3 s
// (rounds at multiples of 3 s), with no per-round cap, and kills a victim
// at once (preempt_delay 0) in the first two rows; in the third, only once
// a round has picked it again 3 s (one interval) after marking it.
//
//   - 19.7 s map M1 (4 GB; AM 1 GB) gets the node, done by 29.7; 29.7 M2,
//     done by 39.7. At 29.7 the AM hears M1 done (1/5 ≥ start_after 0.2)
//     and ramps up the reduces (rampup limit 1).
//   - 39.7: M3 (20 s) and reduce R1 (container 5) allocated; 49.7: R2
//     (container 6): a holds AM + M3 + R1 + R2 = 7 GB.
//   - o (queue b, 6 × 1 GB) arrives at 58 s. 59.7: M3 done; b is the most
//     under-served, o takes the 5 GB free; M4 (4 GB) cannot fit and no
//     map runs: the AM's condition to kill reduces holds (headroom 0 <
//     4 GB), R1 and R2 both RUNNING, a at 3 GB = 0.375 > 0.2 + dead zone,
//     b at 0.625 with a container pending: starved.
//
// Row "am first" (reducer_preempt_delay 0): the AM kills at its heartbeat
// at 59.7 (toPreempt min(max(4, 2), 8) = 4, capped at its 2 reduces): R1
// and R2. Rounds at 60–69 s see a over but its job's running tasks all
// being killed (2 running − 2 killing − its AM < 1): no victim. At 69.7 both
// end KILLED. Without preemption's amKilling guards the round at 60 s takes
// R2, the newest, which is already ending: a kill counted that never happens.
//
// Row "monitor first" (reducer_preempt_delay 52 s from when the AM asked for
// its maps, when it started): the AM does not kill at 59.7; the round at
// 60 s takes R2, the newest of a's job (b needs one container),
// PREEMPTED at 69.7. The delay runs out before the AM's heartbeat at
// 62.7: it kills 2 reduces, R2 is preemption's, so only R1. At 69.7 R1
// ends KILLED; asked again, its new container 13 (allocated 69.7) is killed
// by the AM at once as maps still wait, KILLED at 79.7. Without mrKill's
// guard the AM kills R2 too: killed twice, which Check mode fails.
//
// Row "marked then am" (reducer_preempt_delay 52 s as above, preempt_delay
// 3 s): the round at 60 s picks R2 as in "monitor first" but only marks it
// (marked 1). The AM's heartbeat at 62.7 kills R1 and R2: neither is a
// victim, a mark is not a kill. The round at 63 s keeps R2's mark (b still
// needs its one container) and offers it first; candidate refuses it, as
// its AM is killing it; the unmarked walk finds a's job with 2 running − 2
// killing − its AM < 1: no victim, so the mark is forgotten. The rounds at
// 66 and 69 s pick nothing either. At 69.7 R1 and R2 end KILLED and go back
// to the AM, which asks for no reduce until a map gets a container; o's
// sixth task takes 1 GB of the 2 GB freed, and M4 (4 GB) waits for o's
// tasks to end. Without candidate's amKilling check (the only guard a mark
// from an earlier round meets) the round at 63 s takes marked R2, its mark
// 3 s old: killed 1. The simulator's kill skips it (R2's KILLED report is
// already on its way), so R2 still ends KILLED at 69.7 and only the count
// shows the kill preemption wrongly counted as done.
//
// Marked counts are 0, 1, 1: in "am first" no round picks anything; in
// "monitor first" the round at 60 s marks R2 and kills it at once.
//
// Every row then runs to completion (o's tasks end, M4, M5 and the reduces
// run).
func TestMapReduceKillGuards(t *testing.T) {
	for _, tc := range []struct {
		name, mr, delay                   string
		marked, killed, preempted, amKill int
		ends                              []string
	}{
		{name: "am first", mr: "", delay: "0s", marked: 0, killed: 0, preempted: 0, amKill: 2, ends: []string{
			"1m9.709062s container 5 (mr phase 1 task 0) RUNNING->KILLED",
			"1m9.709062s container 6 (mr phase 1 task 1) RUNNING->KILLED",
		}},
		{name: "monitor first", mr: ", reducer_preempt_delay: 52s", delay: "0s", marked: 1, killed: 1, preempted: 1, amKill: 2, ends: []string{
			"1m9.709062s container 6 (mr phase 1 task 1) RUNNING->PREEMPTED",
			"1m9.709062s container 5 (mr phase 1 task 0) RUNNING->KILLED",
			"1m19.709062s container 13 (mr phase 1 task 0) ACQUIRED->KILLED",
		}},
		{name: "marked then am", mr: ", reducer_preempt_delay: 52s", delay: "3s", marked: 1, killed: 0, preempted: 0, amKill: 2, ends: []string{
			"1m9.709062s container 5 (mr phase 1 task 0) RUNNING->KILLED",
			"1m9.709062s container 6 (mr phase 1 task 1) RUNNING->KILLED",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := workload.Parse([]byte(fmt.Sprintf(guardDoc, tc.mr)), "guard.yaml")
			if err != nil {
				t.Fatal(err)
			}
			f, _, err := policy.Parse("capacity:preemption=on,preempt_interval=3s,preempt_delay=" + tc.delay + ",preempt_per_round=1,preempt_natural=1")
			if err != nil {
				t.Fatal(err)
			}
			var g *guardLog
			var picks []string
			res, err := sim.Run(w, sim.Options{Seed: 1, Check: true, MaxEvents: 1_000_000,
				Policy: func(v *sched.View) (sched.Policy, error) {
					p, err := f(v)
					if err != nil {
						return nil, err
					}
					p.(sched.Preempting).Preemption().Trace = func(f string, a ...any) {
						if s := fmt.Sprintf(f, a...); strings.Contains(s, " for ") {
							picks = append(picks, s)
						}
					}
					g = &guardLog{watch: newWatch(t, v, p, -1)}
					return g, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if g.failed != "" {
				t.Fatal(g.failed)
			}
			st := res.Preemption
			if st.Marked != tc.marked || st.Killed != tc.killed || st.Preempted != tc.preempted || res.ReducesPreempted != tc.amKill || res.TasksKilled != tc.preempted+tc.amKill {
				t.Errorf("preemption marked %d, killed %d, preempted %d; AM killed %d; simulator killed %d; want %d, %d, %d, %d, %d\npicks: %q",
					st.Marked, st.Killed, st.Preempted, res.ReducesPreempted, res.TasksKilled, tc.marked, tc.killed, tc.preempted, tc.amKill, tc.preempted+tc.amKill, picks)
			}
			if !slices.Equal(g.ends, tc.ends) {
				t.Errorf("ended early:\n%s\nwant\n%s\npicks: %q", strings.Join(g.ends, "\n"), strings.Join(tc.ends, "\n"), picks)
			}
			for i, j := range res.Jobs {
				if res.Deadlocked || j.Finish < 0 {
					t.Errorf("job %s did not finish (deadlocked %v)", w.Jobs[i].ID, res.Deadlocked)
				}
			}
		})
	}
}
