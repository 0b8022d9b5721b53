// Package schedtest is an in-memory harness for testing the scheduling core
// and policies without the simulator: tests move time by hand, force
// allocations to set up a state, and then ask a policy what it would pick.
package schedtest

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Forward is a policy that hands every call to Inner, exposing every
// observer interface whether or not Inner implements it, so wrappers can add
// behaviour around any policy: sched.Hooks forwards the hooks, Forward the
// policy's own methods. Build one with Wrap.
type Forward struct{ sched.Hooks[sched.Policy] }

// Wrap returns a Forward to p.
func Wrap(p sched.Policy) Forward { return Forward{sched.Hooks[sched.Policy]{Inner: p}} }

// Preemption forwards; nil (off) when Inner cannot preempt.
func (f *Forward) Preemption() *sched.Preemption {
	if p, ok := f.Inner.(sched.Preempting); ok {
		return p.Preemption()
	}
	return nil
}

// Serves forwards; true when Inner cannot preempt.
func (f *Forward) Serves(a *sched.Ask) bool {
	if p, ok := f.Inner.(sched.Preempting); ok {
		return p.Serves(a)
	}
	return true
}

// Pick forwards.
func (f *Forward) Pick(n *cluster.Node) *sched.Ask { return f.Inner.Pick(n) }

// Reserves forwards; false when Inner does not reserve.
func (f *Forward) Reserves() bool {
	r, ok := f.Inner.(sched.Reserver)
	return ok && r.Reserves()
}

// ReserveTimeout forwards; 0 when Inner's reservations do not expire.
func (f *Forward) ReserveTimeout() clock.Duration {
	if x, ok := f.Inner.(sched.ReserveExpirer); ok {
		return x.ReserveTimeout()
	}
	return 0
}

// Forward must expose every optional interface a policy may implement;
// TestForwardForwardsEverything checks that none is missing from this list.
var (
	_ sched.Policy            = (*Forward)(nil)
	_ sched.Reserver          = (*Forward)(nil)
	_ sched.SubmitObserver    = (*Forward)(nil)
	_ sched.AdmitObserver     = (*Forward)(nil)
	_ sched.AskObserver       = (*Forward)(nil)
	_ sched.FinishObserver    = (*Forward)(nil)
	_ sched.ContainerObserver = (*Forward)(nil)
	_ sched.NodeObserver      = (*Forward)(nil)
	_ sched.ClusterObserver   = (*Forward)(nil)
	_ sched.AdoptObserver     = (*Forward)(nil)
	_ sched.QuietTicker       = (*Forward)(nil)
	_ sched.Explainer         = (*Forward)(nil)
	_ sched.Reporter          = (*Forward)(nil)
)

// Harness drives a core by hand. It is the core's driver and records what
// the core asked of it.
type Harness struct {
	T    testing.TB
	Core *sched.Core
	Now  clock.Time

	Launched    []*sched.Container
	Stopped     []*sched.Container
	Woken       []*sched.Job
	Reconsiders int

	pol     *Forward
	forced  *sched.Ask
	placing bool
}

// Config describes the harness's cluster; Queues may be nil.
type Config struct {
	Nodes     []resource.Vector
	Queues    []sched.QueueSpec
	Policy    func(v *sched.View) (sched.Policy, error)
	Admission func(v *sched.View) (sched.Admission, error)
	// Calculator is the run's resource calculator (sched.Config).
	Calculator resource.Calculator
	// MapReduce is the simulated jobs' ApplicationMaster (sched.Config).
	MapReduce sched.MapReduce
}

// New builds a core over the policy, in debug mode so Check sees every
// container.
func New(t testing.TB, cfg Config) *Harness {
	t.Helper()
	h := &Harness{T: t}
	core, err := sched.NewCore(sched.Config{
		Nodes: cfg.Nodes, Queues: cfg.Queues, Driver: h, Debug: true,
		NewPolicy: func(v *sched.View) (sched.Policy, error) {
			p, err := cfg.Policy(v)
			f := Wrap(p)
			h.pol = &f
			return (*forcing)(h), err
		},
		NewAdmission: cfg.Admission, Calculator: cfg.Calculator, MapReduce: cfg.MapReduce,
	})
	if err != nil {
		t.Fatalf("NewCore: %v", err)
	}
	h.Core = core
	return h
}

// forcing is the policy the core sees: it places the forced ask when a test
// set one, and otherwise defers to the real policy.
type forcing Harness

func (f *forcing) Pick(n *cluster.Node) *sched.Ask {
	if f.placing {
		a := f.forced
		f.forced = nil
		return a
	}
	return f.pol.Pick(n)
}

func (f *forcing) JobSubmitted(j *sched.Job) { f.pol.JobSubmitted(j) }
func (f *forcing) JobAdmitted(j *sched.Job)  { f.pol.JobAdmitted(j) }
func (f *forcing) JobFinished(j *sched.Job)  { f.pol.JobFinished(j) }
func (f *forcing) AsksChanged(j *sched.Job)  { f.pol.AsksChanged(j) }
func (f *forcing) NodeUpdated(n *cluster.Node) {
	f.pol.NodeUpdated(n)
}
func (f *forcing) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	f.pol.ContainerChanged(c, from)
}
func (f *forcing) ClusterChanged(n *cluster.Node) { f.pol.ClusterChanged(n) }
func (f *forcing) TickEvery() clock.Duration      { return f.pol.TickEvery() }
func (f *forcing) Reserves() bool                 { return f.pol.Reserves() }
func (f *forcing) ReserveTimeout() clock.Duration { return f.pol.ReserveTimeout() }
func (f *forcing) Tick(now clock.Time)            { f.pol.Tick(now) }
func (f *forcing) TickChanged() bool              { return f.pol.TickChanged() }

// Driver methods.

// Launch records the launch.
func (h *Harness) Launch(c *sched.Container) { h.Launched = append(h.Launched, c) }

// Stop records the stop.
func (h *Harness) Stop(c *sched.Container) { h.Stopped = append(h.Stopped, c) }

// WakeAM records the wake-up.
func (h *Harness) WakeAM(j *sched.Job) { h.Woken = append(h.Woken, j) }

// Reconsider counts.
func (h *Harness) Reconsider() { h.Reconsiders++ }

// AcceptLowered does nothing: the harness visits nodes by hand.
func (h *Harness) AcceptLowered() {}

// Policy returns the real policy under test.
func (h *Harness) Policy() sched.Policy { return h.pol.Inner }

// Node returns node id.
func (h *Harness) Node(id int) *cluster.Node { return h.Core.Cluster().Node(cluster.NodeID(id)) }

func (h *Harness) check() {
	h.T.Helper()
	if err := h.Core.Check(); err != nil {
		h.T.Fatalf("at %v: %v", h.Now, err)
	}
}

// Submit hands the core a job now.
func (h *Harness) Submit(spec sched.JobSpec) *sched.Job {
	h.T.Helper()
	if spec.Queue == "" {
		spec.Queue = "default"
	}
	j, err := h.Core.Submit(h.Now, &spec)
	if err != nil {
		h.T.Fatalf("Submit %s: %v", spec.Key, err)
	}
	h.check()
	return j
}

// Place forces one container of j's ask for phase (sched.AMPhase for the AM)
// onto node id, bypassing the policy, and returns it. An AM placed this way
// is started at once, so its first phase is asked for.
func (h *Harness) Place(j *sched.Job, phase, node int) *sched.Container {
	h.T.Helper()
	h.forced, h.placing = &j.Asks()[phase+1], true
	before := len(h.Launched)
	h.Core.NodeUpdate(h.Now, h.Node(node))
	h.forced, h.placing = nil, false
	h.check()
	if phase == sched.AMPhase {
		if len(h.Launched) != before+1 {
			h.T.Fatalf("placing the AM of %s launched %d containers", j.Key(), len(h.Launched)-before)
		}
		c := h.Launched[len(h.Launched)-1]
		h.Core.AMStarted(h.Now, j)
		h.Core.Report(h.Now, c, sched.Running)
		h.check()
		return c
	}
	// The AM acquires and launches the task, and it starts running.
	h.Core.AMHeartbeat(h.Now, j)
	if len(h.Launched) != before+1 {
		h.T.Fatalf("placing a task of %s launched %d containers", j.Key(), len(h.Launched)-before)
	}
	c := h.Launched[len(h.Launched)-1]
	h.Core.Report(h.Now, c, sched.Running)
	h.check()
	return c
}

// Complete reports c COMPLETED and lets its AM hear of it.
func (h *Harness) Complete(c *sched.Container) {
	h.T.Helper()
	j := c.Job()
	am := c.IsAM()
	h.Core.Report(h.Now, c, sched.Completed)
	if !am {
		h.Core.AMHeartbeat(h.Now, j)
	}
	h.check()
}

// Pick asks the policy under test what it would place on node id, without
// placing it.
func (h *Harness) Pick(node int) *sched.Ask { return h.pol.Pick(h.Node(node)) }

// Step changes the harness's state; tests build setups from steps.
type Step func(h *Harness, jobs []*sched.Job)

// PlaceN places n containers of job i's phase (sched.AMPhase for its AM) on
// node 0.
func PlaceN(i, phase, n int) Step {
	return func(h *Harness, js []*sched.Job) {
		for range n {
			h.Place(js[i], phase, 0)
		}
	}
}

// Steps runs steps in order.
func Steps(steps ...Step) Step {
	return func(h *Harness, js []*sched.Job) {
		for _, s := range steps {
			s(h, js)
		}
	}
}

// PickCase is one row of a policy-ordering table: jobs are submitted, setup
// runs, and the policy's pick on node 0 must be Want's job (its AM or not).
type PickCase struct {
	Name   string
	Nodes  []resource.Vector
	Queues []sched.QueueSpec
	Jobs   []sched.JobSpec
	Setup  Step
	Want   string // key of the job picked; "" for none
	WantAM bool
	// Calculator is the run's resource calculator.
	Calculator resource.Calculator
}

// Run checks the case against a policy built by newPolicy.
func (c PickCase) Run(t *testing.T, newPolicy func(v *sched.View) (sched.Policy, error)) {
	t.Helper()
	h := New(t, Config{Nodes: c.Nodes, Queues: c.Queues, Policy: newPolicy, Calculator: c.Calculator})
	var js []*sched.Job
	for _, s := range c.Jobs {
		js = append(js, h.Submit(s))
	}
	if c.Setup != nil {
		c.Setup(h, js)
	}
	a := h.Pick(0)
	got := ""
	if a != nil {
		got = a.Job().Key()
	}
	if got != c.Want || (a != nil && a.IsAM() != c.WantAM) {
		t.Fatalf("picked %q (AM %v), want %q (AM %v)", got, a != nil && a.IsAM(), c.Want, c.WantAM)
	}
}
