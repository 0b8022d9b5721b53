package sched_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

var (
	one  = resource.New(1, 1024)
	two  = resource.New(2, 2048)
	big8 = resource.New(8, 8192)
)

// running returns a fake cluster with two 8-vcore nodes and an open job
// "j" whose AM (key "d") runs on n1.
func running(t *testing.T, maxAM int) (*fakecluster.Cluster, *sched.Job) {
	t.Helper()
	fc, err := fakecluster.New(fakecluster.Config{Nodes: []resource.Vector{big8, big8}, NodeNames: []string{"n1", "n2"}, MaxAMAttempts: maxAM})
	if err != nil {
		t.Fatal(err)
	}
	j, err := fc.Submit(sched.JobSpec{Key: "j", Open: true, AM: one})
	must(t, err)
	must(t, fc.Ask("j", sched.Request{Key: "d", Resource: one, AM: true}))
	settle(t, fc)
	must(t, fc.Run("d"))
	settle(t, fc)
	if j.State() != sched.Active {
		t.Fatalf("job is %v after its AM ran", j.State())
	}
	return fc, j
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func settle(t *testing.T, fc *fakecluster.Cluster) {
	t.Helper()
	if err := fc.Settle(); err != nil {
		t.Fatal(err)
	}
}

// errCase runs one call expected to fail, and checks that it named the
// problem and changed nothing.
func errCase(t *testing.T, fc *fakecluster.Cluster, name, want string, call func() error) {
	t.Helper()
	before, state := fc.Core.Progress(), fc.State()
	err := call()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %v, want one saying %q", name, err, want)
	}
	if fc.Core.Progress() != before || fc.State() != state {
		t.Errorf("%s: a refused call changed the core", name)
	}
	settle(t, fc)
}

func TestAskErrors(t *testing.T) {
	fc, j := running(t, 0)
	closed, err := fc.Submit(sched.JobSpec{Key: "c", AM: one, Phases: []sched.PhaseSpec{{Tasks: 1, Request: one, StartAfter: 1}}})
	must(t, err)
	ended, err := fc.Submit(sched.JobSpec{Key: "e", Open: true})
	must(t, err)
	must(t, fc.Core.EndJob(fc.Now, ended))
	must(t, fc.Ask("j", sched.Request{Key: "x", Resource: big8}))
	settle(t, fc)
	tests := []struct {
		name, want string
		job        *sched.Job
		r          sched.Request
	}{
		{"unknown job", "unknown job", &sched.Job{}, sched.Request{Key: "k", Resource: one}},
		{"nil job", "unknown job", nil, sched.Request{Key: "k", Resource: one}},
		{"simulated job", "not open", closed, sched.Request{Key: "k", Resource: one}},
		{"ended job", "has ended", ended, sched.Request{Key: "k", Resource: one}},
		{"no key", "without a key", j, sched.Request{Resource: one}},
		{"key pending", "already asked", j, sched.Request{Key: "x", Resource: one}},
		{"key placed", "already asked for or placed", j, sched.Request{Key: "d", Resource: one}},
		{"zero request", "non-zero", j, sched.Request{Key: "k"}},
		{"negative request", "non-negative", j, sched.Request{Key: "k", Resource: resource.New(-1, 1)}},
		{"second AM", "already has its AM", j, sched.Request{Key: "k", Resource: one, AM: true}},
		{"AM of another shape", "differs", j, sched.Request{Key: "k", Resource: two, AM: true}},
	}
	for _, tt := range tests {
		errCase(t, fc, tt.name, tt.want, func() error { _, err := fc.Core.Ask(fc.Now, tt.job, tt.r); return err })
	}
}

func TestAskSharesAsksByShapeAndClass(t *testing.T) {
	fc, j := running(t, 0)
	tests := []struct {
		key   string
		res   resource.Vector
		class string
		ask   int // index into j.Asks() the request joins
	}{
		{"a", one, "", 1},
		{"b", one, "", 1},
		{"c", two, "", 2},
		{"d2", one, "gpu", 3},
		{"e", two, "", 2},
		{"f", one, "gpu", 3},
	}
	for _, tt := range tests {
		a, err := fc.Core.Ask(fc.Now, j, sched.Request{Key: tt.key, Resource: tt.res, Class: tt.class})
		must(t, err)
		if a != &j.Asks()[tt.ask] || a.Class() != tt.class || a.Request != tt.res {
			t.Errorf("%s joined ask %d (class %q, %v), want %d", tt.key, a.Phase()+1, a.Class(), a.Request, tt.ask)
		}
	}
	if got := j.Pending(); got != len(tests) {
		t.Errorf("%d pending, want %d", got, len(tests))
	}
}

func TestLaunchNamesTheOldestRequestOfTheAsk(t *testing.T) {
	fc, err := fakecluster.New(fakecluster.Config{Nodes: []resource.Vector{resource.New(2, 2048)}, NodeNames: []string{"n1"}})
	must(t, err)
	_, err = fc.Submit(sched.JobSpec{Key: "j", Open: true, AM: one})
	must(t, err)
	// Executors asked before the driver wait for it, in order.
	for _, k := range []string{"e1", "e2", "e3"} {
		must(t, fc.Ask("j", sched.Request{Key: k, Resource: one}))
	}
	must(t, fc.Ask("j", sched.Request{Key: "d", Resource: one, AM: true}))
	settle(t, fc)
	if got := strings.Join(fc.TakeLog(), "; "); got != "launch d on n1" {
		t.Fatalf("before the AM runs: %q", got)
	}
	must(t, fc.Run("d"))
	settle(t, fc)
	if got := strings.Join(fc.TakeLog(), "; "); got != "launch e1 on n1" {
		t.Fatalf("after the AM runs: %q", got)
	}
	// A refusal puts e1 back ahead of e2.
	must(t, fc.Refuse("e1", "conflict"))
	settle(t, fc)
	if got := strings.Join(fc.TakeLog(), "; "); got != "launch e1 on n1" {
		t.Fatalf("after refusing e1: %q", got)
	}
	ct, _ := fc.Container("e1")
	if ct.Key() != "e1" || ct.Node().Name() != "n1" || ct.Job().Key() != "j" || ct.IsAM() || fc.Core.ContainerByKey("e1") != ct {
		t.Errorf("container lookups: key %q node %v job %v AM %v", ct.Key(), ct.Node(), ct.Job().Key(), ct.IsAM())
	}
	if fc.Core.AskedBy("e2") == nil || fc.Core.AskedBy("e1") != nil {
		t.Error("e2 must be pending and e1 not")
	}
}

func TestCancelAndEndJob(t *testing.T) {
	fc, j := running(t, 0)
	must(t, fc.Ask("j", sched.Request{Key: "huge", Resource: big8}))
	must(t, fc.Ask("j", sched.Request{Key: "huge2", Resource: big8}))
	settle(t, fc)
	tests := []struct {
		name, want string
		call       func() error
	}{
		{"cancel unknown key", "no such pending request", func() error { return fc.Core.Cancel(fc.Now, j, "nope") }},
		{"cancel placed key", "no such pending request", func() error { return fc.Core.Cancel(fc.Now, j, "d") }},
		{"cancel for another job", "no such pending request", func() error { return fc.Core.Cancel(fc.Now, &sched.Job{}, "huge") }},
		{"end unknown job", "unknown job", func() error { return fc.Core.EndJob(fc.Now, nil) }},
	}
	for _, tt := range tests {
		errCase(t, fc, tt.name, tt.want, tt.call)
	}
	// huge fits n2 (8 free); huge2 waits. Cancel it, then end the job.
	if j.Pending() != 1 {
		t.Fatalf("%d pending, want 1", j.Pending())
	}
	must(t, fc.Core.Cancel(fc.Now, j, "huge2"))
	if j.Pending() != 0 || fc.Core.AskedBy("huge2") != nil {
		t.Fatal("cancel left the request pending")
	}
	must(t, fc.Ask("j", sched.Request{Key: "huge3", Resource: big8}))
	must(t, fc.Core.EndJob(fc.Now, j))
	settle(t, fc)
	if j.State() != sched.Finished || j.Pending() != 0 || fc.Core.AskedBy("huge3") != nil || j.LiveContainers() != 2 {
		t.Fatalf("after EndJob: %v, %d pending, %d live", j.State(), j.Pending(), j.LiveContainers())
	}
	errCase(t, fc, "end twice", "already ended", func() error { return fc.Core.EndJob(fc.Now, j) })
	// Its containers end as the driver reports them.
	must(t, fc.End("d", sched.Killed))
	must(t, fc.Run("huge"))
	must(t, fc.End("huge", sched.Completed))
	settle(t, fc)
	if !fc.Core.Cluster().Allocated().IsZero() {
		t.Fatalf("%v still allocated", fc.Core.Cluster().Allocated())
	}
}

func TestReportRefusesStaleHandles(t *testing.T) {
	fc, _ := running(t, 0)
	must(t, fc.Ask("j", sched.Request{Key: "e", Resource: one}))
	settle(t, fc)
	ct, err := fc.Container("e")
	must(t, err)
	tests := []struct {
		name, want string
		s          sched.ContainerState
	}{
		{"ACQUIRED to COMPLETED", "illegal transition", sched.Completed},
		{"not a node report", "only RUNNING or an end", sched.Reserved},
		{"nil", "no such live container", sched.Running},
	}
	for _, tt := range tests {
		target := ct
		if tt.name == "nil" {
			target = nil
		}
		errCase(t, fc, tt.name, tt.want, func() error { return fc.Core.Report(fc.Now, target, tt.s) })
	}
	must(t, fc.Run("e"))
	must(t, fc.End("e", sched.Failed))
	settle(t, fc)
	// The driver's pointer is stale now; every event on it is refused.
	for _, s := range []sched.ContainerState{sched.Running, sched.Completed, sched.Failed, sched.Lost} {
		errCase(t, fc, "stale "+s.String(), "not live", func() error { return fc.Core.Report(fc.Now, ct, s) })
	}
	errCase(t, fc, "stale refuse", "no allocated, unstarted container", func() error { return fc.Core.Refuse(fc.Now, ct, "x") })
	if ct.State() != sched.Failed || fc.Core.Err() != nil {
		t.Errorf("stale container now %v, core error %v", ct.State(), fc.Core.Err())
	}
}

func TestAbnormalEndsAreCountedApart(t *testing.T) {
	tests := []struct {
		s    sched.ContainerState
		want sched.Counts
	}{
		{sched.Completed, sched.Counts{Completed: 1}},
		{sched.Failed, sched.Counts{Failed: 1}},
		{sched.Killed, sched.Counts{Killed: 1}},
		{sched.Preempted, sched.Counts{Preempted: 1}},
		{sched.Lost, sched.Counts{Lost: 1}},
	}
	for _, tt := range tests {
		fc, j := running(t, 0)
		must(t, fc.Ask("j", sched.Request{Key: "e", Resource: two}))
		settle(t, fc)
		must(t, fc.Run("e"))
		alloc := fc.Core.Cluster().Allocated()
		must(t, fc.End("e", tt.s))
		settle(t, fc)
		if got := fc.Core.Counts(); got != tt.want {
			t.Errorf("%v: counts %+v, want %+v", tt.s, got, tt.want)
		}
		if got := alloc.Sub(fc.Core.Cluster().Allocated()); got != two {
			t.Errorf("%v freed %v, want %v", tt.s, got, two)
		}
		if j.Ends(tt.s) != 1 || j.Pending() != 0 || j.State() != sched.Active {
			t.Errorf("%v: job saw %d such ends, %d pending (open jobs re-ask themselves), state %v", tt.s, j.Ends(tt.s), j.Pending(), j.State())
		}
	}
}

// TestAMAttempts is the max-attempts rule: only FAILED counts against
// MaxAMAttempts; the job ends failed when it reaches it, else a new attempt
// waits for the driver's new AM request.
func TestAMAttempts(t *testing.T) {
	tests := []struct {
		name       string
		maxAM      int
		ends       []sched.ContainerState
		wantFailed bool
		wantState  sched.JobState
		wantCounts sched.Counts
	}{
		{"one failure of two", 2, []sched.ContainerState{sched.Failed}, false, sched.Admitted, sched.Counts{Failed: 1, AMRetries: 1}},
		{"two failures of two", 2, []sched.ContainerState{sched.Failed, sched.Failed}, true, sched.Finished, sched.Counts{Failed: 2, AMRetries: 1, JobsFailed: 1}},
		{"default is two", 0, []sched.ContainerState{sched.Failed, sched.Failed}, true, sched.Finished, sched.Counts{Failed: 2, AMRetries: 1, JobsFailed: 1}},
		{"max one", 1, []sched.ContainerState{sched.Failed}, true, sched.Finished, sched.Counts{Failed: 1, JobsFailed: 1}},
		{"lost and preempted do not count", 2, []sched.ContainerState{sched.Lost, sched.Preempted, sched.Killed, sched.Failed}, false, sched.Admitted, sched.Counts{Failed: 1, Lost: 1, Preempted: 1, Killed: 1, AMRetries: 4}},
		{"three of three", 3, []sched.ContainerState{sched.Failed, sched.Lost, sched.Failed, sched.Failed}, true, sched.Finished, sched.Counts{Failed: 3, Lost: 1, AMRetries: 3, JobsFailed: 1}},
	}
	for _, tt := range tests {
		fc, j := running(t, tt.maxAM)
		must(t, fc.Ask("j", sched.Request{Key: "e", Resource: big8}))
		must(t, fc.Ask("j", sched.Request{Key: "e2", Resource: big8}))
		settle(t, fc)
		am := "d"
		for i, s := range tt.ends {
			if i > 0 {
				am = "d" + string(rune('a'+i))
				must(t, fc.Ask("j", sched.Request{Key: am, Resource: one, AM: true}))
				settle(t, fc)
				must(t, fc.Run(am))
				settle(t, fc)
			}
			must(t, fc.End(am, s))
			settle(t, fc)
		}
		if j.Failed() != tt.wantFailed || j.State() != tt.wantState || fc.Core.Counts() != tt.wantCounts {
			t.Errorf("%s: failed %v state %v counts %+v, want %v %v %+v", tt.name, j.Failed(), j.State(), fc.Core.Counts(), tt.wantFailed, tt.wantState, tt.wantCounts)
		}
		// While the AM restarts, the waiting executor is held, not
		// pending: no executor is placed without its driver.
		if tt.wantState == sched.Admitted && (j.Pending() != 0 || j.Asks()[1].Held() != 1) {
			t.Errorf("%s: %d pending, %d held during the restart", tt.name, j.Pending(), j.Asks()[1].Held())
		}
		if tt.wantState == sched.Finished && j.Pending() != 0 {
			t.Errorf("%s: a failed job keeps %d pending", tt.name, j.Pending())
		}
		// The running executor survives the AM (kept across attempts).
		if ct, err := fc.Container("e"); err != nil || ct.State().Terminal() {
			t.Errorf("%s: the executor did not survive the AM: %v", tt.name, err)
		}
	}
}

func TestAdoptErrors(t *testing.T) {
	fc, j := running(t, 0)
	closed, err := fc.Submit(sched.JobSpec{Key: "c", AM: one, Phases: []sched.PhaseSpec{{Tasks: 1, Request: one, StartAfter: 1}}})
	must(t, err)
	must(t, fc.Ask("j", sched.Request{Key: "pending", Resource: big8}))
	must(t, fc.Ask("j", sched.Request{Key: "pending2", Resource: big8}))
	settle(t, fc)
	must(t, fc.RemoveNode("n2"))
	settle(t, fc)
	tests := []struct {
		name, want string
		job        *sched.Job
		node       cluster.NodeID
		key        string
		r          resource.Vector
		am         bool
	}{
		{"unknown job", "unknown job", &sched.Job{}, 0, "k", one, false},
		{"simulated job", "not open", closed, 0, "k", one, false},
		{"placed key", "already placed", j, 0, "d", one, false},
		{"pending key", "pending as a request", j, 0, "pending2", one, false},
		{"no key", "no key", j, 0, "", one, false},
		{"zero", "non-zero", j, 0, "k", resource.Vector{}, false},
		{"second AM", "already runs", j, 0, "k", one, true},
		{"AM of another shape", "differs", j, 0, "k", two, true},
		{"removed node", "left the cluster", j, 1, "k", one, false},
		{"unknown node", "no node 7", j, 7, "k", one, false},
	}
	for _, tt := range tests {
		errCase(t, fc, tt.name, tt.want, func() error {
			_, err := fc.Core.Adopt(fc.Now, tt.job, tt.node, tt.key, tt.r, tt.am)
			return err
		})
	}
}

func TestNodeOperations(t *testing.T) {
	fc, _ := running(t, 0)
	must(t, fc.RemoveNode("n2"))
	settle(t, fc)
	n1, _ := fc.Node("n1")
	tests := []struct {
		name, want string
		call       func() error
	}{
		{"capacity of unknown node", "no node 9", func() error { return fc.Core.SetNodeCapacity(fc.Now, 9, one) }},
		{"negative capacity", "negative capacity", func() error { return fc.Core.SetNodeCapacity(fc.Now, n1.ID(), resource.New(-1, 0)) }},
		{"cordon removed node", "left the cluster", func() error { return fc.Core.SetNodeSchedulable(fc.Now, 1, false) }},
		{"hold on removed node", "left the cluster", func() error { return fc.Core.SetNodeExternal(fc.Now, 1, one) }},
		{"negative hold", "negative held", func() error { return fc.Core.SetNodeExternal(fc.Now, n1.ID(), resource.New(0, -5)) }},
		{"remove twice", "left the cluster", func() error { return fc.Core.RemoveNode(fc.Now, 1) }},
		{"negative new node", "negative capacity", func() error { _, err := fc.Core.AddNode(fc.Now, "x", resource.New(-1, 0)); return err }},
	}
	for _, tt := range tests {
		errCase(t, fc, tt.name, tt.want, tt.call)
	}
	// Held capacity beyond the node's is clamped to it.
	must(t, fc.Core.SetNodeExternal(fc.Now, n1.ID(), resource.New(100, 0)))
	if n1.Usable()[resource.VCores] != 0 || n1.External() != resource.New(8, 0) {
		t.Errorf("usable %v, external %v after holding more than the node", n1.Usable(), n1.External())
	}
	// A capacity change keeps what is held.
	must(t, fc.Core.SetNodeExternal(fc.Now, n1.ID(), resource.New(2, 0)))
	must(t, fc.Core.SetNodeCapacity(fc.Now, n1.ID(), resource.New(4, 8192)))
	if n1.Usable() != resource.New(2, 8192) {
		t.Errorf("usable %v after shrinking to 4 vcores with 2 held, want 2 vcores", n1.Usable())
	}
	settle(t, fc)
	// The cluster-wide fraction overrides per-node holds.
	must(t, fc.Core.SetExternalLoad(fc.Now, 0.5))
	if n1.External() != resource.New(2, 4096) {
		t.Errorf("external %v at half load, want half of the node", n1.External())
	}
}

func TestCanPlace(t *testing.T) {
	fc, j := running(t, 0)
	n1, _ := fc.Node("n1")
	n2, _ := fc.Node("n2")
	only2 := func(n *cluster.Node) bool { return n.Name() == "n2" }
	a, err := fc.Core.Ask(fc.Now, j, sched.Request{Key: "x", Resource: big8, Class: "c", Eligible: only2})
	must(t, err)
	b, err := fc.Core.Ask(fc.Now, j, sched.Request{Key: "y", Resource: two})
	must(t, err)
	v := fc.Core.View()
	tests := []struct {
		name string
		ask  *sched.Ask
		node *cluster.Node
		want bool
	}{
		{"fits, eligible", a, n2, true},
		{"does not fit", a, n1, false}, // n1 has the AM
		{"fits, not eligible", b, n1, true},
		{"unconstrained", b, n2, true},
	}
	for _, tt := range tests {
		if got := v.CanPlace(tt.ask, tt.node); got != tt.want {
			t.Errorf("%s: CanPlace = %v", tt.name, got)
		}
	}
	must(t, fc.Core.SetNodeSchedulable(fc.Now, n2.ID(), false))
	if v.CanPlace(a, n2) || v.CanPlace(b, n2) || a.EligibleOn(n2) {
		t.Error("an unschedulable node must take nothing")
	}
	must(t, fc.Core.SetNodeSchedulable(fc.Now, n2.ID(), true))
	if v.CanPlace(a, n1) || a.EligibleOn(n1) || !a.Constrained() || b.Constrained() {
		t.Error("constraints ignored")
	}
}

func TestWaitReasonAndLookups(t *testing.T) {
	fc, j := running(t, 0)
	if fc.Core.JobByKey("j") != j || fc.Core.JobByKey("nope") != nil {
		t.Error("JobByKey")
	}
	if got := fc.Core.WaitReason(j); got != "AM running, tasks running" {
		t.Errorf("WaitReason = %q", got)
	}
	if got := fc.Core.WaitReason(nil); got != "unknown job" {
		t.Errorf("WaitReason(nil) = %q", got)
	}
	var keys []string
	n1, _ := fc.Node("n1")
	fc.Core.ContainersOn(n1.ID(), func(ct *sched.Container) bool { keys = append(keys, ct.Key()); return true })
	if strings.Join(keys, ",") != "d" {
		t.Errorf("containers on n1: %v", keys)
	}
}

// explaining is an admission controller that holds every job and says why.
type explaining struct{}

func (explaining) Admit(*sched.Job) bool                     { return false }
func (explaining) WaitReason(j *sched.Job) string            { return "held: " + j.Key() }
func explainingFactory(*sched.View) (sched.Admission, error) { return explaining{}, nil }

func TestWaitReasonAsksTheExplainer(t *testing.T) {
	d := &nopDriver{}
	core, err := sched.NewCore(sched.Config{Driver: d, Nodes: []resource.Vector{big8}, NewPolicy: fifoPolicy, NewAdmission: explainingFactory})
	must(t, err)
	j, err := core.Submit(0, &sched.JobSpec{Key: "w", Queue: "default", Open: true, AM: one})
	must(t, err)
	k, err := core.Submit(0, &sched.JobSpec{Key: "x", Queue: "default", Open: true, AM: one})
	must(t, err)
	big, err := core.Submit(0, &sched.JobSpec{Key: "big", Queue: "default", Open: true, AM: resource.New(9, 1)})
	must(t, err)
	for _, c := range []struct {
		name string
		job  *sched.Job
		ask  string
		want string
	}{
		{"AM not asked for", j, "", "its AM has not been asked for yet"},
		{"the queue's first job: the controller's words", j, "w-d", "held: w"},
		{"behind it", k, "x-d", "waits behind job w, which admission control holds: a queue's jobs are admitted in submission order (queue default)"},
		{"fits no node", big, "big-d", "its AM request <9 vcores, 1 MiB> fits no node it may use; admission control is not asked about it, and it holds nobody back"},
	} {
		if c.ask != "" {
			_, err := core.Ask(0, c.job, sched.Request{Key: c.ask, Resource: c.job.Spec().AM, AM: true})
			must(t, err)
		}
		if got := core.WaitReason(c.job); got != c.want {
			t.Errorf("%s: WaitReason = %q, want %q", c.name, got, c.want)
		}
	}
	if w := core.View().Waiting(); len(w) != 3 || w[0] != j || w[1] != k || w[2] != big {
		t.Errorf("Waiting() = %v, want w, x, big", w)
	}
	var heads []string
	core.View().AdmissionHeads(func(h *sched.Job) bool { heads = append(heads, h.Key()); return true })
	if strings.Join(heads, ",") != "w" {
		t.Errorf("AdmissionHeads = %v, want [w]: the job that fits no node is not asked about", heads)
	}
}

type nopDriver struct{}

func (*nopDriver) Launch(*sched.Container) {}
func (*nopDriver) Stop(*sched.Container)   {}
func (*nopDriver) WakeAM(*sched.Job)       {}
func (*nopDriver) Reconsider()             {}
func (*nopDriver) AcceptLowered()          {}

// TestRemoveNodeWithoutDebug: a live driver's core (no Config.Debug) lists
// its open jobs' containers per node, so a node leaving ends them LOST.
func TestRemoveNodeWithoutDebug(t *testing.T) {
	core, err := sched.NewCore(sched.Config{Nodes: []resource.Vector{big8, big8}, Driver: &nopDriver{}, NewPolicy: fifoPolicy})
	must(t, err)
	j, err := core.Submit(0, &sched.JobSpec{Key: "lone", Queue: "default", Open: true})
	must(t, err)
	for _, k := range []string{"a", "b"} {
		_, err := core.Ask(0, j, sched.Request{Key: k, Resource: two})
		must(t, err)
	}
	core.NodeUpdate(0, core.Cluster().Node(0))
	must(t, core.RemoveNode(1, 0))
	if got := core.Counts().Lost; got != 2 || !core.Cluster().Allocated().IsZero() || j.Pending() != 0 {
		t.Errorf("%d lost, %v allocated, %d pending", got, core.Cluster().Allocated(), j.Pending())
	}
	must(t, core.Check())
}

// ticking counts its ticks.
type ticking struct {
	sched.Policy
	at []int64
}

func (p *ticking) TickEvery() clock.Duration { return 10 }
func (p *ticking) Tick(now clock.Time)       { p.at = append(p.at, int64(now)) }

// TestTickRunsOnBoundariesCrossed: a live timer fires late and events come in
// between; a ticker runs once per interval boundary crossed since the last
// Tick, with the time Tick was called at.
func TestTickRunsOnBoundariesCrossed(t *testing.T) {
	var p *ticking
	core, err := sched.NewCore(sched.Config{Nodes: []resource.Vector{big8}, Driver: &nopDriver{}, NewPolicy: func(v *sched.View) (sched.Policy, error) {
		inner, err := fifoPolicy(v)
		p = &ticking{Policy: inner}
		return p, err
	}})
	must(t, err)
	for _, now := range []clock.Time{0, 3, 10, 10, 12, 19, 27, 31, 55} {
		core.Tick(now)
	}
	want := []int64{0, 10, 27, 31, 55}
	if fmt.Sprint(p.at) != fmt.Sprint(want) {
		t.Errorf("ticked at %v, want %v", p.at, want)
	}
	if next := core.NextTick(55); next != 60 {
		t.Errorf("NextTick(55) = %v", next)
	}
}
