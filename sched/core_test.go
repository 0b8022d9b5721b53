package sched_test

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

func fifoPolicy(v *sched.View) (sched.Policy, error) { return fifo.New(v, fifo.Config{}), nil }

var (
	node4 = resource.New(4, 4096)
	unit  = resource.New(1, 1024)
)

func twoPhaseJob(key string, startAfter float64) sched.JobSpec {
	return sched.JobSpec{Key: key, AM: unit, Phases: []sched.PhaseSpec{
		{Name: "map", Tasks: 2, Request: unit, StartAfter: 1},
		{Name: "reduce", Tasks: 1, Request: unit, StartAfter: startAfter},
	}}
}

// The whole life of one job through the core, step by step, with the
// container states and timestamps the resource manager records.
func TestJobLifecycle(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4}, Policy: fifoPolicy})
	c := h.Core
	n := h.Node(0)

	j := h.Submit(twoPhaseJob("wc", 1))
	if j.State() != sched.Admitted || j.Asks()[0].Pending != 1 || h.Reconsiders == 0 {
		t.Fatalf("after submit: state %v, AM pending %d, reconsiders %d", j.State(), j.Asks()[0].Pending, h.Reconsiders)
	}

	// A node update allocates the AM; the RM launches it itself.
	h.Now = 1 * clock.Time(clock.Second)
	c.NodeUpdate(h.Now, n)
	if len(h.Launched) != 1 || !h.Launched[0].IsAM() || h.Launched[0].State() != sched.Acquired {
		t.Fatalf("AM not launched: %v", h.Launched)
	}
	am := h.Launched[0]
	if got := n.Free(); got != resource.New(3, 3072) {
		t.Fatalf("free after AM: %v", got)
	}

	// The AM registers and asks for the map phase only.
	h.Now = 2 * clock.Time(clock.Second)
	c.AMStarted(h.Now, j)
	c.Report(h.Now, am, sched.Running)
	if j.State() != sched.Active || j.Asks()[1].Pending != 2 || j.Asks()[2].Pending != 0 {
		t.Fatalf("after AM start: %v, asks %+v", j.State(), j.Asks())
	}

	// Both maps are allocated on one node update and wait for the AM.
	h.Now = 3 * clock.Time(clock.Second)
	c.NodeUpdate(h.Now, n)
	if len(h.Launched) != 1 || len(h.Woken) == 0 || j.Pending() != 0 {
		t.Fatalf("maps should wait for the AM heartbeat: launched %d, woken %d, pending %d", len(h.Launched), len(h.Woken), j.Pending())
	}
	h.Now = 4 * clock.Time(clock.Second)
	c.AMHeartbeat(h.Now, j)
	if len(h.Launched) != 3 {
		t.Fatalf("AM heartbeat should launch both maps, launched %d", len(h.Launched))
	}
	m0, m1 := h.Launched[1], h.Launched[2]
	h.Now = 5 * clock.Time(clock.Second)
	c.Report(h.Now, m0, sched.Running)
	c.Report(h.Now, m1, sched.Running)
	if j.FirstRunning() != h.Now {
		t.Fatalf("first running %v, want %v", j.FirstRunning(), h.Now)
	}

	// One map ends: the reduce waits for the whole map phase.
	h.Now = 10 * clock.Time(clock.Second)
	c.Report(h.Now, m0, sched.Completed)
	c.AMHeartbeat(h.Now, j)
	if j.Asks()[2].Pending != 0 || j.Phase(0).Completed != 1 {
		t.Fatalf("reduce asked too early: %+v", j.Asks()[2])
	}
	h.Now = 12 * clock.Time(clock.Second)
	c.Report(h.Now, m1, sched.Completed)
	if j.Asks()[2].Pending != 0 {
		t.Fatal("the AM must hear of the completion on its heartbeat before asking")
	}
	c.AMHeartbeat(h.Now, j)
	if j.Asks()[2].Pending != 1 {
		t.Fatalf("reduce not asked after the maps: %+v", j.Asks()[2])
	}

	h.Now = 13 * clock.Time(clock.Second)
	c.NodeUpdate(h.Now, n)
	c.AMHeartbeat(h.Now, j)
	r := h.Launched[3]
	c.Report(h.Now, r, sched.Running)
	h.Now = 20 * clock.Time(clock.Second)
	c.Report(h.Now, r, sched.Completed)
	if j.State() != sched.Active {
		t.Fatal("the job ends when its AM hears the last task is done")
	}
	h.Now = 21 * clock.Time(clock.Second)
	c.AMHeartbeat(h.Now, j)
	if j.State() != sched.Finished || j.FinishedAt() != h.Now || j.LastCompleted() != 20*clock.Time(clock.Second) {
		t.Fatalf("finish: state %v at %v, last task %v", j.State(), j.FinishedAt(), j.LastCompleted())
	}
	if len(h.Stopped) != 1 || h.Stopped[0] != am {
		t.Fatalf("the AM container must be stopped, got %v", h.Stopped)
	}
	c.Report(h.Now, am, sched.Completed)
	if n.Allocated() != (resource.Vector{}) || c.ActiveJobs() != 0 {
		t.Fatalf("resources left behind: %v, active %d", n.Allocated(), c.ActiveJobs())
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestContainerTimestamps(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4}, Policy: fifoPolicy})
	var seen []string
	j := h.Submit(sched.JobSpec{Key: "j", Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
	h.Now = 7
	h.Core.NodeUpdate(h.Now, h.Node(0))
	h.Now = 9
	h.Core.AMHeartbeat(h.Now, j)
	ct := h.Launched[0]
	h.Now = 15
	h.Core.Report(h.Now, ct, sched.Running)
	for s := sched.New; s <= sched.Killed; s++ {
		if at, ok := ct.Time(s); ok {
			seen = append(seen, s.String()+"@"+at.String())
		}
	}
	want := "NEW@7µs ALLOCATED@7µs ACQUIRED@9µs RUNNING@15µs"
	if got := strings.Join(seen, " "); got != want {
		t.Fatalf("transitions %q, want %q", got, want)
	}
}

func TestStartAfter(t *testing.T) {
	tests := []struct {
		startAfter float64
		mapsDone   int // of 4 maps, when the reduce is asked for
	}{
		{1, 4}, {0.5, 2}, {0.6, 3}, {0.01, 1},
	}
	for _, tt := range tests {
		h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(8, 8192)}, Policy: fifoPolicy})
		j := h.Submit(sched.JobSpec{Key: "j", Phases: []sched.PhaseSpec{
			{Tasks: 4, Request: unit, StartAfter: 1},
			{Tasks: 1, Request: unit, StartAfter: tt.startAfter},
		}})
		var maps []*sched.Container
		for range 4 {
			maps = append(maps, h.Place(j, 0, 0))
		}
		asked := -1
		for i, m := range maps {
			h.Complete(m)
			if asked < 0 && j.Asks()[2].Pending == 1 {
				asked = i + 1
			}
		}
		if asked != tt.mapsDone {
			t.Errorf("start_after %v: reduce asked after %d maps, want %d", tt.startAfter, asked, tt.mapsDone)
		}
	}
}

func TestIllegalTransitionsAreRejected(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4}, Policy: fifoPolicy})
	j := h.Submit(sched.JobSpec{Key: "j", Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
	h.Core.NodeUpdate(h.Now, h.Node(0))
	h.Core.AMHeartbeat(h.Now, j)
	ct := h.Launched[0]
	// ACQUIRED cannot complete without running.
	h.Core.Report(h.Now, ct, sched.Completed)
	if err := h.Core.Err(); err == nil || !strings.Contains(err.Error(), "ACQUIRED") {
		t.Fatalf("completing an ACQUIRED container: error %v", err)
	}
}

func TestNodesReportOnlyRunningOrCompleted(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4}, Policy: fifoPolicy})
	j := h.Submit(sched.JobSpec{Key: "j", Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
	c := h.Place(j, 0, 0)
	h.Core.Report(h.Now, c, sched.Acquired)
	if h.Core.Err() == nil {
		t.Fatal("a node reporting ACQUIRED must be an error")
	}
}

// badPolicy returns whatever it is told to, to check the core holds policies
// to their contract.
type badPolicy struct {
	pick func(n *cluster.Node) *sched.Ask
}

func (b *badPolicy) Pick(n *cluster.Node) *sched.Ask { return b.pick(n) }

func TestPolicyContract(t *testing.T) {
	tests := []struct {
		name string
		pick func(j *sched.Job) *sched.Ask
		want string
	}{
		{"too big for the node", func(j *sched.Job) *sched.Ask { return &j.Asks()[1] }, "has only"},
		{"nothing pending", func(j *sched.Job) *sched.Ask { return &j.Asks()[0] }, "nothing pending"},
		{"not from the core", func(j *sched.Job) *sched.Ask { return &sched.Ask{Request: unit, Pending: 1} }, "unknown ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var j *sched.Job
			bp := &badPolicy{}
			h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4, resource.New(16, 16384)}, Policy: func(*sched.View) (sched.Policy, error) { return bp, nil }})
			j = h.Submit(sched.JobSpec{Key: "j", Phases: []sched.PhaseSpec{{Tasks: 1, Request: resource.New(8, 1024), StartAfter: 1}}})
			h.Submit(sched.JobSpec{Key: "small", Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
			bp.pick = func(*cluster.Node) *sched.Ask { return tt.pick(j) }
			h.Core.NodeUpdate(h.Now, h.Node(0))
			if err := h.Core.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestSubmitRejectsWhatFitsNowhere(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4}, Policy: fifoPolicy})
	_, err := h.Core.Submit(0, &sched.JobSpec{Key: "big", Queue: "default", Phases: []sched.PhaseSpec{{Tasks: 1, Request: resource.New(5, 1), StartAfter: 1}}})
	if err == nil {
		t.Fatal("a task larger than every node must be refused")
	}
	_, err = h.Core.Submit(0, &sched.JobSpec{Key: "q", Queue: "nope", Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
	if err == nil || !strings.Contains(err.Error(), "unknown queue") {
		t.Fatalf("unknown queue: %v", err)
	}
}

// holdAdmission admits only while open is true.
type holdAdmission struct{ open bool }

func (a *holdAdmission) Admit(*sched.Job) bool { return a.open }

func TestAdmissionIsFIFO(t *testing.T) {
	adm := &holdAdmission{}
	h := schedtest.New(t, schedtest.Config{
		Nodes: []resource.Vector{node4}, Policy: fifoPolicy,
		Admission: func(*sched.View) (sched.Admission, error) { return adm, nil },
	})
	a := h.Submit(sched.JobSpec{Key: "a", AM: unit, Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
	b := h.Submit(sched.JobSpec{Key: "b", AM: unit, Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
	if a.State() != sched.Waiting || b.State() != sched.Waiting || !h.Core.HasDemand() {
		t.Fatalf("held jobs: %v %v", a.State(), b.State())
	}
	if got := h.Core.View().Waiting(); len(got) != 2 || got[0] != a {
		t.Fatalf("waiting list %v", got)
	}
	adm.open = true
	h.Now = 5
	h.Core.NodeUpdate(h.Now, h.Node(0))
	if a.State() != sched.Admitted || b.State() != sched.Admitted || a.AdmittedAt() != 5 {
		t.Fatalf("after opening: %v %v (admitted at %v)", a.State(), b.State(), a.AdmittedAt())
	}
}

func TestDemandAndJobAccessors(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(100, 100*1024)}, Policy: fifoPolicy})
	j := h.Submit(sched.JobSpec{Key: "j", AM: unit, Phases: []sched.PhaseSpec{
		{Tasks: 5, Request: resource.New(1, 1024), StartAfter: 1},
		{Tasks: 2, Request: resource.New(4, 1024), StartAfter: 1}, // 8 vcores: the largest
	}})
	if got, want := j.Demand(), resource.New(9, 3*1024); got != want {
		t.Errorf("Demand = %v, want %v", got, want)
	}
	if got := j.DemandContainers(); got != 3 {
		t.Errorf("DemandContainers = %d, want 3", got)
	}
	if j.Key() != "j" || j.Queue().Name() != "default" || !j.HasAM() {
		t.Errorf("accessors: %q %q %v", j.Key(), j.Queue().Name(), j.HasAM())
	}
	if got := j.Describe(); got != "admitted, waiting for an AM container" {
		t.Errorf("Describe = %q", got)
	}
}
