// Package fakecluster is an in-memory cluster that drives the scheduling core
// the way a live driver does: nodes join and leave, applications ask for
// keyed containers as they go, containers run, fail and get lost, decisions
// are refused, and running containers are adopted, each event injected by a
// test in the order it chooses. After every event the cluster settles (AM
// heartbeats, then a node update of every node, until nothing moves) and
// verifies the core's invariants together with its own bookkeeping of what
// the core placed, so a test fails at the first event that breaks one.
package fakecluster

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Config builds a fake cluster.
type Config struct {
	Policy    string // as on the command line; default fifo
	Admission string // default none
	Queues    []sched.QueueSpec
	// Nodes are there when the core is built, as when a live driver lists
	// the cluster first (policies that size themselves on the cluster at
	// construction see them); more join through AddNode.
	Nodes     []resource.Vector
	NodeNames []string
	// MaxAMAttempts is passed to the core (0: its default).
	MaxAMAttempts int
	// GangTimeout is passed to the core (0: its default).
	GangTimeout clock.Duration
}

// Cluster is the fake cluster and the core's driver.
type Cluster struct {
	Core *sched.Core
	Now  clock.Time

	log   []string
	nodes map[string]cluster.NodeID
	jobs  map[string]*sched.Job
	// live holds every container the core launched or adopted and that has
	// not been seen to end, by key: what the fake cluster believes runs.
	live    map[string]*sched.Container
	wake    []*sched.Job
	stopped []*sched.Container
	// launches counts launches by key over the whole run.
	launches map[string]int
	// Eligible is each request's constraints, by key, as the test asked;
	// Launch checks every decision against it.
	Eligible map[string]func(*cluster.Node) bool
	err      error
}

// New builds an empty cluster (nodes join with AddNode).
func New(cfg Config) (*Cluster, error) {
	if cfg.Policy == "" {
		cfg.Policy = "fifo"
	}
	if cfg.Admission == "" {
		cfg.Admission = "none"
	}
	pf, _, err := policy.Parse(cfg.Policy)
	if err != nil {
		return nil, err
	}
	af, err := admission.Parse(cfg.Admission)
	if err != nil {
		return nil, err
	}
	c := &Cluster{nodes: map[string]cluster.NodeID{}, jobs: map[string]*sched.Job{}, live: map[string]*sched.Container{}, launches: map[string]int{},
		Eligible: map[string]func(*cluster.Node) bool{}}
	c.Core, err = sched.NewCore(sched.Config{
		Nodes: cfg.Nodes, NodeNames: cfg.NodeNames,
		Queues: cfg.Queues, Driver: c, NewPolicy: pf, NewAdmission: af,
		Debug: true, MaxAMAttempts: cfg.MaxAMAttempts, GangTimeout: cfg.GangTimeout,
	})
	if err != nil {
		return nil, err
	}
	for i, name := range cfg.NodeNames {
		c.nodes[name] = cluster.NodeID(i)
	}
	return c, nil
}

// Launch records that the core decided to run ct: a live driver binds the pod.
// It checks the decision as the cluster would: the node takes containers, the
// container's constraints admit the node, and the node has room for it in
// every resource it asks for, counting what the containers launched there
// already hold. A decision that fails these is a core bug, kept in Err.
func (c *Cluster) Launch(ct *sched.Container) {
	k := ct.Key()
	n := ct.Node()
	c.logf("launch %s on %s", k, nodeName(n))
	var held resource.Vector
	for xk, x := range c.live {
		if x.Node() == n && !x.State().Terminal() && x.Key() == xk {
			held = held.Add(x.Request())
		}
	}
	r := ct.Request()
	after, usable := held.Add(r), n.Usable()
	for d := range r {
		if r[d] > 0 && after[d] > usable[d] {
			c.fail(fmt.Errorf("%s placed on %v over-commits it: %v held, %v more, %v usable", k, n, held, r, usable))
		}
	}
	switch {
	case !n.Schedulable():
		c.fail(fmt.Errorf("%s placed on %v, which takes no containers", k, n))
	case n.Slots() > 0 && n.AMContainers()+n.TaskContainers()+n.HeldSlots() > n.Slots():
		c.fail(fmt.Errorf("%s placed on %v beyond its %d container slots", k, n, n.Slots()))
	case c.Eligible[k] != nil && !c.Eligible[k](n):
		c.fail(fmt.Errorf("%s placed on %v, which its constraints exclude", k, n))
	case c.live[k] != nil && c.live[k] != ct && !c.live[k].State().Terminal():
		c.fail(fmt.Errorf("%s placed twice", k))
	}
	c.launches[k]++
	c.live[k] = ct
}

func (c *Cluster) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Stop records that a simulated job's AM is to end; Settle completes it.
func (c *Cluster) Stop(ct *sched.Container) { c.stopped = append(c.stopped, ct) }

// WakeAM queues an AM heartbeat for Settle.
func (c *Cluster) WakeAM(j *sched.Job) { c.wake = append(c.wake, j) }

// Reconsider does nothing: Settle visits every node after every event.
func (c *Cluster) Reconsider() {}

// AcceptLowered does nothing, for the same reason.
func (c *Cluster) AcceptLowered() {}

func (c *Cluster) logf(format string, args ...any) {
	c.log = append(c.log, fmt.Sprintf(format, args...))
}

// TakeLog returns what the core asked of the cluster since the last call.
func (c *Cluster) TakeLog() []string {
	l := c.log
	c.log = nil
	return l
}

func nodeName(n *cluster.Node) string {
	if n.Name() != "" {
		return n.Name()
	}
	return n.String()
}

// Node returns the node called name.
func (c *Cluster) Node(name string) (*cluster.Node, error) {
	id, ok := c.nodes[name]
	if !ok {
		return nil, fmt.Errorf("no node %q", name)
	}
	return c.Core.Cluster().Node(id), nil
}

// Job returns the job with key key.
func (c *Cluster) Job(key string) (*sched.Job, error) {
	j, ok := c.jobs[key]
	if !ok {
		return nil, fmt.Errorf("no job %q", key)
	}
	return j, nil
}

// Container returns the live container with key key.
func (c *Cluster) Container(key string) (*sched.Container, error) {
	ct, ok := c.live[key]
	if !ok {
		return nil, fmt.Errorf("no live container %q", key)
	}
	return ct, nil
}

// Live returns the keys of the live containers, sorted.
func (c *Cluster) Live() []string {
	keys := make([]string, 0, len(c.live))
	for k := range c.live {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Settle runs what the core asked for (AM heartbeats, stopped AMs) and
// offers every schedulable node to the core, until nothing changes; then it
// verifies the invariants.
func (c *Cluster) Settle() error {
	for range 1000 {
		before := c.Core.Progress()
		for len(c.wake) > 0 {
			j := c.wake[0]
			c.wake = c.wake[1:]
			c.Core.AMHeartbeat(c.Now, j)
		}
		for len(c.stopped) > 0 {
			ct := c.stopped[0]
			c.stopped = c.stopped[1:]
			k := ct.Key()
			if err := c.Core.Report(c.Now, ct, sched.Completed); err != nil {
				return fmt.Errorf("completing a stopped AM: %w", err)
			}
			delete(c.live, k)
		}
		cl := c.Core.Cluster()
		for i := range cl.NumNodes() {
			if n := cl.Node(cluster.NodeID(i)); n.Schedulable() {
				c.Core.NodeUpdate(c.Now, n)
			}
		}
		c.prune()
		if c.Core.Progress() == before && len(c.wake) == 0 && len(c.stopped) == 0 {
			return c.Check()
		}
	}
	return errors.New("the core did not settle in 1000 rounds")
}

// prune forgets containers that ended (a node leaving ends them without the
// driver's word) or whose memory the core reused for another container.
func (c *Cluster) prune() {
	for k, ct := range c.live {
		if ct.State().Terminal() || ct.Key() != k {
			delete(c.live, k)
		}
	}
}

// Check verifies the core's invariants and the cluster's own view of them:
// every container the core placed is live on a node that has not left, each
// key is placed once, no node holds more than its containers, and every
// node's allocation is exactly what the live containers on it hold, so no
// freed resource is lost or counted twice.
func (c *Cluster) Check() error {
	if c.err != nil {
		return c.err
	}
	if err := c.Core.Check(); err != nil {
		return err
	}
	held := map[cluster.NodeID]resource.Vector{}
	for k, ct := range c.live {
		n := ct.Node()
		if n.Removed() {
			return fmt.Errorf("%s is live on %v, which left", k, n)
		}
		if got := c.Core.ContainerByKey(k); ct.Job().Open() && got != ct {
			return fmt.Errorf("%s: the core knows it as %v", k, got)
		}
		held[n.ID()] = held[n.ID()].Add(ct.Request())
	}
	cl := c.Core.Cluster()
	for i := range cl.NumNodes() {
		n := cl.Node(cluster.NodeID(i))
		// A container is live from ALLOCATED; the fake cluster knows of
		// it from its launch, which for a simulated task waits for the
		// AM's heartbeat. Settle runs those, so the two agree here.
		if held[n.ID()] != n.Allocated() {
			return fmt.Errorf("%v: containers launched there hold %v, node says %v allocated", n, held[n.ID()], n.Allocated())
		}
	}
	return nil
}

// AddNode adds a node.
func (c *Cluster) AddNode(name string, capacity resource.Vector) error {
	if _, dup := c.nodes[name]; dup {
		return fmt.Errorf("node %q already joined", name)
	}
	n, err := c.Core.AddNode(c.Now, name, capacity)
	if err != nil {
		return err
	}
	c.nodes[name] = n.ID()
	c.logf("node %s id=%d", name, n.ID())
	return nil
}

// RemoveNode takes node name out of the cluster.
func (c *Cluster) RemoveNode(name string) error {
	n, err := c.Node(name)
	if err != nil {
		return err
	}
	var lost []string
	for k, ct := range c.live {
		if ct.Node() == n && !ct.State().Terminal() && ct.Key() == k {
			lost = append(lost, k)
		}
	}
	if err := c.Core.RemoveNode(c.Now, n.ID()); err != nil {
		return err
	}
	sort.Strings(lost)
	for _, k := range lost {
		c.logf("lost %s", k)
		delete(c.live, k)
	}
	return nil
}

// Submit submits a job.
func (c *Cluster) Submit(spec sched.JobSpec) (*sched.Job, error) {
	if spec.Queue == "" {
		spec.Queue = "default"
	}
	j, err := c.Core.Submit(c.Now, &spec)
	if err != nil {
		return nil, err
	}
	c.jobs[spec.Key] = j
	return j, nil
}

// Run reports container key RUNNING; for an AM, the AM then registers
// (AMStarted). The kube driver reports AMStarted earlier, once the driver
// pod's binding is confirmed (docs/kube.md); the two differ only in when.
func (c *Cluster) Run(key string) error {
	ct, err := c.Container(key)
	if err != nil {
		return err
	}
	if err := c.Core.Report(c.Now, ct, sched.Running); err != nil {
		return err
	}
	if ct.IsAM() && ct.Job().State() == sched.Admitted {
		return c.Core.AMStarted(c.Now, ct.Job())
	}
	return nil
}

// End reports container key ended in state s.
func (c *Cluster) End(key string, s sched.ContainerState) error {
	ct, err := c.Container(key)
	if err != nil {
		return err
	}
	if err := c.Core.Report(c.Now, ct, s); err != nil {
		return err
	}
	delete(c.live, key)
	return nil
}

// Refuse refuses the core's decision for container key.
func (c *Cluster) Refuse(key, reason string) error {
	ct, err := c.Container(key)
	if err != nil {
		return err
	}
	if err := c.Core.Refuse(c.Now, ct, reason); err != nil {
		return err
	}
	delete(c.live, key)
	return nil
}

// Adopt adopts a container found running.
func (c *Cluster) Adopt(job, key, node string, r resource.Vector, am bool) error {
	j, err := c.Job(job)
	if err != nil {
		return err
	}
	n, err := c.Node(node)
	if err != nil {
		return err
	}
	ct, err := c.Core.Adopt(c.Now, j, n.ID(), key, r, am)
	if err != nil {
		return err
	}
	c.live[key] = ct
	c.launches[key]++
	return nil
}

// Launches returns how many times key was launched over the run.
func (c *Cluster) Launches(key string) int { return c.launches[key] }

// State describes the cluster, jobs and counts, one line each.
func (c *Cluster) State() string {
	var b strings.Builder
	cl := c.Core.Cluster()
	for i := range cl.NumNodes() {
		n := cl.Node(cluster.NodeID(i))
		fmt.Fprintf(&b, "node %s cap=%s alloc=%s free=%s", nodeName(n), Fmt(n.Capacity()), Fmt(n.Allocated()), Fmt(n.Free()))
		if ext := n.External(); !ext.IsZero() {
			fmt.Fprintf(&b, " held=%s", Fmt(ext))
		}
		switch {
		case n.Removed():
			b.WriteString(" removed")
		case !n.Schedulable():
			b.WriteString(" unschedulable")
		}
		b.WriteString("\n")
	}
	for _, j := range c.Core.Jobs() {
		fmt.Fprintf(&b, "job %s %s pending=%d live=%d", j.Key(), j.State(), j.Pending(), j.LiveContainers())
		held := 0
		for _, a := range j.Asks() {
			held += a.Held()
		}
		if held > 0 {
			fmt.Fprintf(&b, " held=%d", held)
		}
		if j.AMFailures() > 0 {
			fmt.Fprintf(&b, " am-failures=%d", j.AMFailures())
		}
		if j.Failed() {
			b.WriteString(" failed")
		}
		b.WriteString("\n")
	}
	k := c.Core.Counts()
	fmt.Fprintf(&b, "ends completed=%d failed=%d killed=%d preempted=%d lost=%d refused=%d am-retries=%d jobs-failed=%d",
		k.Completed, k.Failed, k.Killed, k.Preempted, k.Lost, k.Refused, k.AMRetries, k.JobsFailed)
	return b.String()
}

// Fmt renders a vector as vcores:MiB.
func Fmt(v resource.Vector) string {
	return fmt.Sprintf("%s:%d", resource.FormatVCores(v[resource.VCores]), v[resource.Memory])
}

// ParseVec reads vcores:MiB.
func ParseVec(s string) (resource.Vector, error) {
	cpu, mem, ok := strings.Cut(s, ":")
	var v resource.Vector
	if !ok {
		return v, fmt.Errorf("%q: want vcores:memory_mb", s)
	}
	var c, m int64
	if _, err := fmt.Sscan(cpu, &c); err != nil {
		return v, fmt.Errorf("%q: vcores: %w", s, err)
	}
	if _, err := fmt.Sscan(mem, &m); err != nil {
		return v, fmt.Errorf("%q: memory: %w", s, err)
	}
	return resource.New(c, m), nil
}

// Ask asks for one container for job job; its constraints, if any, are kept
// so that Launch can check the core's decision.
func (c *Cluster) Ask(job string, r sched.Request) error {
	j, err := c.Job(job)
	if err != nil {
		return err
	}
	if _, err := c.Core.Ask(c.Now, j, r); err != nil {
		return err
	}
	if r.Eligible != nil {
		c.Eligible[r.Key] = r.Eligible
	}
	return nil
}
