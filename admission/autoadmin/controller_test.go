package autoadmin_test

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

const vcore = resource.MilliPerVCore

// harness builds a core on n nodes of <8 vcores, 12 GB> (the paper's
// testbed for n = 8) with FIFO and the controller.
func harness(t *testing.T, n int, cfg autoadmin.Config) (*schedtest.Harness, *autoadmin.Controller) {
	t.Helper()
	nodes := make([]resource.Vector, n)
	for i := range nodes {
		nodes[i] = resource.New(8, 12288)
	}
	var ctl *autoadmin.Controller
	h := schedtest.New(t, schedtest.Config{
		Nodes:  nodes,
		Policy: func(v *sched.View) (sched.Policy, error) { return fifo.New(v, fifo.Config{}), nil },
		Admission: func(v *sched.View) (sched.Admission, error) {
			ctl = autoadmin.New(v, cfg)
			return ctl, nil
		},
	})
	return h, ctl
}

// job is a job with an AM of am vcores and one phase of tasks × task vcores.
func job(i int, am, task int64, tasks int) sched.JobSpec {
	return sched.JobSpec{Key: fmt.Sprintf("j%02d", i), AM: resource.New(am, 1024),
		Phases: []sched.PhaseSpec{{Tasks: tasks, Request: resource.New(task, 1024), StartAfter: 1}}}
}

func submit(h *schedtest.Harness, n int, am, task int64, tasks int) []*sched.Job {
	var js []*sched.Job
	for i := range n {
		js = append(js, h.Submit(job(i, am, task, tasks)))
	}
	return js
}

func admitted(js []*sched.Job) int {
	n := 0
	for _, j := range js {
		if j.State() != sched.Waiting {
			n++
		}
	}
	return n
}

// Admission at a burst, before anything runs, for each configuration: the
// paper's reserves 40 % of C_R (26 of 64 vcores); autoadmin+ computes Eq.
// 3.2 from what the jobs declare, over what whole containers can hold.
func TestBurstAdmission(t *testing.T) {
	demand := autoadmin.Plus()
	demand.Demand = true
	packing := autoadmin.Plus()
	packing.Slots, packing.Packing = false, true
	cases := []struct {
		name           string
		cfg            autoadmin.Config
		am, task       int64
		tasks          int
		wantAdmitted   int
		wantReserveVCs int64
	}{
		// 64 − held − 1 ≥ 26 holds up to held = 37: 38 jobs.
		{"paper, AM 1, task 1", autoadmin.Paper(), 1, 1, 1, 38, 26},
		// The same 26 whatever the sizes: (64 − 26)/2 = 19 AMs of 2.
		{"paper, AM 2, task 4", autoadmin.Paper(), 2, 4, 1, 19, 26},
		// Declared AM 1, task 4: Pairs = 12 (three nodes of 4 AMs and a
		// task, five of two tasks), so C_R counts 12·5 = 60 and R_R =
		// 60·4/5 = 48: 60 − 11 − 1 = 48 admits 12.
		{"cold start, AM 1, task 4", autoadmin.Plus(), 1, 4, 1, 12, 48},
		// AM 3, task 3 on 8-vcore nodes: one pair per node, C_R counts
		// 8·6 = 48: R_R = 24, and 48 − 21 − 3 = 24 admits 8 AMs.
		{"slots, AM 3, task 3", autoadmin.Plus(), 3, 3, 1, 8, 24},
		// AM 4, task 3: still one pair per node, C_R = 8·7 = 56, R_R =
		// 24: 56 − 28 − 4 = 24 admits 8. Packing sees 4 + 4 fill a node
		// (C_R = 64, R_R = 64·3/7 → 28) and admits (64 − 28)/4 = 9.
		{"slots, AM 4, task 3", autoadmin.Plus(), 4, 3, 1, 8, 24},
		{"packing, AM 4, task 3", packing, 4, 3, 1, 9, 28},
		// AM 4, task 1: Pairs = 12, C_R = 60, R_R = 12: 60 − 44 − 4 = 12
		// admits 12, where the paper's floor (26) admits 9.
		{"slots, AM 4, task 1", autoadmin.Plus(), 4, 1, 1, 12, 12},
		{"paper, AM 4, task 1", autoadmin.Paper(), 4, 1, 1, 9, 26},
		// Four tasks of 1 vcore per job with demand: a task of 4 in
		// Pairs, as in the cold-start case: 12 admitted, R_R 48.
		{"demand, 4 tasks", demand, 1, 1, 4, 12, 48},
		// Without demand one task counts: Pairs = 32, C_R = 64, R_R 32.
		{"no demand, 4 tasks", autoadmin.Plus(), 1, 1, 4, 32, 32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, ctl := harness(t, 8, c.cfg)
			js := submit(h, 60, c.am, c.task, c.tasks)
			if got := admitted(js); got != c.wantAdmitted {
				t.Errorf("admitted %d, want %d", got, c.wantAdmitted)
			}
			if got := ctl.Reservation()[resource.VCores]; got != c.wantReserveVCs*vcore {
				t.Errorf("R_R %v vcores, want %d", float64(got)/vcore, c.wantReserveVCs)
			}
			rep := report(t, ctl)
			if rep.AdmittedMax != c.wantAdmitted || rep.WaitingMax != 60-c.wantAdmitted {
				t.Errorf("report: admitted max %d, waiting max %d", rep.AdmittedMax, rep.WaitingMax)
			}
		})
	}
}

func report(t *testing.T, ctl *autoadmin.Controller) autoadmin.Report {
	t.Helper()
	name, data := ctl.Report()
	if name != "autoadmin" {
		t.Fatalf("report named %q", name)
	}
	return data.(autoadmin.Report)
}

// The paper's controller over a job's life: R_R follows the RIC as AMs and
// tasks are placed (Eq. 3.2, then 3.3), admission waits for AMs to end, and
// a release that lets the first waiting job in asks the core to retry.
func TestLifecycle(t *testing.T) {
	h, ctl := harness(t, 8, autoadmin.Default())
	js := submit(h, 40, 1, 1, 2)
	if admitted(js) != 38 {
		t.Fatalf("admitted %d, want 38", admitted(js))
	}
	// Place the 38 admitted AMs, 5 per node (the last node 3), and one
	// task of job 0: AvgAMC = AvgTC = 1, so R_R = 32, scaled up because
	// the AMs hold 38 > 64 − 32: 32·70/64 = 35.
	for i := range 38 {
		h.Place(js[i], sched.AMPhase, i/5)
	}
	if got := ctl.Reservation()[resource.VCores]; got != 26*vcore {
		t.Fatalf("AMs but no task: R_R %v, want the idle 26", float64(got)/vcore)
	}
	task := h.Place(js[0], 0, 7)
	if got := ctl.Reservation()[resource.VCores]; got != 35*vcore {
		t.Fatalf("R_R %v, want 35", float64(got)/vcore)
	}
	// A task of job 1 runs, and job 0 ends: its tasks complete and its AM
	// is released. The AMs then hold 37 and one task runs: R_R = 32,
	// scaled up to 32·69/64 = 34.5 → 35; 64 − 37 − 1 = 26 < 35, so job
	// 38 still waits.
	h.Place(js[1], 0, 7)
	task2 := h.Place(js[0], 0, 7)
	h.Complete(task)
	h.Complete(task2)
	h.Complete(js[0].AM())
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if js[38].State() != sched.Waiting {
		t.Fatalf("job 38 admitted with AMs holding 37")
	}
	if got := ctl.Reservation()[resource.VCores]; got != 35*vcore {
		t.Fatalf("R_R %v, want 35", float64(got)/vcore)
	}
	// Seven more AMs end: they hold 30, R_R is 32 without scale-up, and
	// 64 − 30 − 1 ≥ 32 and then 64 − 31 − 1 ≥ 32 admit jobs 38 and 39.
	for i := 2; i <= 8; i++ {
		h.Complete(js[i].AM())
	}
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if js[38].State() == sched.Waiting || js[39].State() == sched.Waiting {
		t.Errorf("jobs 38, 39 still waiting with AMs holding 30")
	}
	rep := report(t, ctl)
	if rep.ReserveMax["vcores"] != 35 || rep.ReserveMin["vcores"] != 26 || len(rep.Series.T) == 0 {
		t.Errorf("report %+v", rep)
	}
}

// An allocation that lowers R_R enough for the first waiting job asks the
// core to retry admission, which it would not do by itself: the ask is not
// complete, nothing was released.
func TestRetryWhenReservationFalls(t *testing.T) {
	cfg := autoadmin.Default()
	cfg.Floor = 0
	h, ctl := harness(t, 8, cfg)
	// Idle R_R 26: AMs of 2 are admitted while they hold at most 38.
	js := submit(h, 20, 2, 1, 2)
	if admitted(js) != 19 {
		t.Fatalf("admitted %d, want 19", admitted(js))
	}
	for i := range 19 {
		h.Place(js[i], sched.AMPhase, i/4)
	}
	before := h.Reconsiders
	// The first task, of 1 vcore, sets R_R to 64·1/3 → 22; job 19 now
	// passes (64 − 38 − 2 = 24 ≥ 22).
	h.Place(js[0], 0, 7)
	if got := ctl.Reservation()[resource.VCores]; got != 22*vcore {
		t.Fatalf("R_R %v, want 22", float64(got)/vcore)
	}
	if h.Reconsiders != before+1 {
		t.Errorf("%d retries asked for, want 1", h.Reconsiders-before)
	}
	h.Core.NodeUpdate(h.Now, h.Node(7))
	if js[19].State() == sched.Waiting {
		t.Errorf("job 19 not admitted on the next node update")
	}
}

// tasks_per_am raises autoadmin+'s reservation above what whole containers
// give, by hand on the paper's 8 nodes with AMs of 2 and tasks of 1 vcore:
// Pairs gives 21 AMs beside 22 tasks (R_R 21 of 63); with 1.1 tasks beside
// each AM Eq. 3.2 on 64 vcores gives ⌈64·1.1/3.1⌉ = 23, so AMs may hold 41
// vcores, 20 AMs; with 1.3, ⌈64·1.3/3.3⌉ = 26 leaves 38, 19 AMs.
func TestTasksPerAM(t *testing.T) {
	for _, c := range []struct {
		k    float64
		want int
	}{{0, 21}, {1, 21}, {1.1, 20}, {1.3, 19}} {
		cfg := autoadmin.Plus()
		cfg.TasksPerAM = c.k
		h, _ := harness(t, 8, cfg)
		if got := admitted(submit(h, 30, 2, 1, 1)); got != c.want {
			t.Errorf("tasks_per_am=%g: admitted %d at the burst, want %d", c.k, got, c.want)
		}
	}
}

// With backlog, a job waits while the admitted jobs' tasks waiting for
// allocation outnumber the nodes, by hand on 2 nodes: job 0's AM asks for 3
// tasks, more than 2 nodes' heartbeats place in a round, so job 1 waits;
// one task placed leaves 2, and job 1 is let in. Without backlog job 1 is
// let in at once.
func TestBacklog(t *testing.T) {
	for _, on := range []bool{true, false} {
		cfg := autoadmin.Default()
		cfg.Floor, cfg.Idle, cfg.Backlog = 0, 0, on
		h, _ := harness(t, 2, cfg)
		j0 := h.Submit(job(0, 1, 1, 3))
		h.Place(j0, sched.AMPhase, 0)
		if j0.Pending() != 3 {
			t.Fatalf("job 0 waits for %d tasks, want 3", j0.Pending())
		}
		j1 := h.Submit(job(1, 1, 1, 3))
		if got := j1.State() == sched.Waiting; got != on {
			t.Fatalf("backlog=%v: job 1 waiting %v with 3 tasks waiting on 2 nodes", on, got)
		}
		if !on {
			continue
		}
		before := h.Reconsiders
		h.Place(j0, 0, 1)
		if h.Reconsiders != before+1 {
			t.Errorf("%d retries asked for after the backlog fell to 2, want 1", h.Reconsiders-before)
		}
		h.Core.NodeUpdate(h.Now, h.Node(1))
		if j1.State() == sched.Waiting {
			t.Errorf("job 1 still waiting with 2 tasks waiting on 2 nodes")
		}
	}
}

// A job whose AM alone breaks the test is let in when nothing else is
// admitted, so it cannot wait forever; others wait behind it.
func TestForcedAdmission(t *testing.T) {
	h, ctl := harness(t, 1, autoadmin.Default())
	// C_R = 8, idle R_R = ceil(3.2) = 4: an AM of 5 leaves 3.
	big := h.Submit(job(0, 5, 1, 1))
	small := h.Submit(job(1, 1, 1, 1))
	if big.State() == sched.Waiting || small.State() != sched.Waiting {
		t.Fatalf("states %v, %v", big.State(), small.State())
	}
	if rep := report(t, ctl); rep.Forced != 1 {
		t.Errorf("forced admissions %d, want 1", rep.Forced)
	}
}

// Recording: one point per second at most, each holding the last state in
// its second; statistics over every change.
func TestSeries(t *testing.T) {
	h, ctl := harness(t, 8, autoadmin.Default())
	submit(h, 3, 1, 1, 1)
	h.Now = 500_000 // 0.5 s: folded into the first point
	h.Submit(job(3, 1, 1, 1))
	h.Now = 2_000_000
	h.Submit(job(4, 1, 1, 1))
	rep := report(t, ctl)
	s := rep.Series
	if len(s.T) != 2 || s.T[0] != 0 || s.T[1] != 2 || s.Admitted[0] != 4 || s.Admitted[1] != 5 || s.Waiting[1] != 0 || s.Reserve["vcores"][1] != 26 {
		t.Errorf("series %+v", s)
	}
	if rep.ReserveAvg["vcores"] != 26 || rep.Config == "" {
		t.Errorf("report %+v", rep)
	}
}

// A reduce at slow-start holds its container until its job's maps end. On
// two nodes of 8 vcores, jobs with an AM of 3 vcores, two maps of 4 and a
// reduce of 2 asked for after the first map: a node holding an AM and a
// reduce has 3 vcores left, too few for a map, so two jobs whose AMs and
// reduces land on different nodes can deadlock. With hold_early the guard
// counts each reduce like an AM until its job's maps are all allocated;
// without it, it counts AMs only. The cases are worked by hand from
// shapeSafe: a node with room r for a map of 4 is shut by (r − 4)/3 + 1
// held containers of at most 3.
func TestHoldEarly(t *testing.T) {
	spec := func(i int) sched.JobSpec {
		return sched.JobSpec{Key: fmt.Sprintf("j%d", i), AM: resource.New(3, 1024), Phases: []sched.PhaseSpec{
			{Tasks: 2, Request: resource.New(4, 1024), StartAfter: 1},
			{Tasks: 1, Request: resource.New(2, 1024), StartAfter: 0.05},
		}}
	}
	cfg := func(hold bool) autoadmin.Config {
		c := autoadmin.Default()
		c.Floor, c.Idle, c.HoldEarly = 0, 0, hold
		return c
	}
	cases := []struct {
		name string
		hold bool
		// Admitted of 4 jobs: at submission; with J1's AM on node 0, its
		// first map done there and its reduce beside it; and once its
		// second map is allocated on node 1.
		atSubmit, withReduce, mapsAllocated int
	}{
		// AMs only: 3 AMs in flight shut one node (2 each), 4 shut both.
		{"AMs only", false, 3, 3, 3},
		// J1 alone is 2 held containers, shutting one node. J2 would add
		// 2 more: 4 shut both. With J1's AM and reduce on node 0 (3
		// vcores left, no map fits) node 1 is the only node for J1's
		// second map, and J2's AM and reduce shut it. Once that map is
		// allocated J1's reduce no longer counts: node 0 has room 5
		// (shut by 1), node 1 room 8 (shut by 2), and J2's 2 shut one.
		{"hold_early", true, 1, 1, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, _ := harness(t, 2, cfg(c.hold))
			var js []*sched.Job
			for i := range 4 {
				js = append(js, h.Submit(spec(i)))
			}
			if got := admitted(js); got != c.atSubmit {
				t.Fatalf("admitted %d at submission, want %d", got, c.atSubmit)
			}
			h.Place(js[0], sched.AMPhase, 0)
			h.Complete(h.Place(js[0], 0, 0))
			h.Place(js[0], 1, 0) // the reduce, beside the AM
			if got := admitted(js); got != c.withReduce {
				t.Fatalf("admitted %d with J1's AM and reduce on node 0, want %d", got, c.withReduce)
			}
			h.Place(js[0], 0, 1) // the second map: every map of J1 allocated
			h.Core.NodeUpdate(h.Now, h.Node(1))
			if got := admitted(js); got != c.mapsAllocated {
				t.Fatalf("admitted %d once J1's maps are allocated, want %d", got, c.mapsAllocated)
			}
		})
	}
}
