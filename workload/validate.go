package workload

import (
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Limits that keep a workload within what the simulator can represent and
// what is plausible; they are part of the format.
const (
	MaxNodesPerGroup = 1_000_000
	MaxTasksPerPhase = 100_000_000
)

// capacitySlack absorbs rounding when queue capacities such as 0.1 and 0.2
// are summed in floating point.
const capacitySlack = 1e-9

// ApplyDefaults fills in the fields of a workload built in code that are
// unset and for which zero is not a valid value: the version, node group
// counts, heartbeats, the queue list, queue maximum capacities, job queues
// and phase slow-start fractions.
//
// Fields where zero means something are left alone: LaunchDelay and
// LaunchJitter (zero is an instantaneous, exact launch), AM (zero is no AM
// container), Deadline and Estimate (zero is none). Code that wants the
// YARN-like launch timing of a parsed file sets DefaultLaunchDelay and
// DefaultLaunchJitter itself.
func (w *Workload) ApplyDefaults() {
	if w.Version == 0 {
		w.Version = Version
	}
	c := &w.Cluster
	for i := range c.Nodes {
		if c.Nodes[i].Count == 0 {
			c.Nodes[i].Count = 1
		}
	}
	if c.NodeHeartbeat == 0 {
		c.NodeHeartbeat = DefaultNodeHeartbeat
	}
	if c.AMHeartbeat == 0 {
		c.AMHeartbeat = DefaultAMHeartbeat
	}
	if len(w.Queues) == 0 {
		w.Queues = defaultQueues()
	}
	for i := range w.Queues {
		if w.Queues[i].MaxCapacity == 0 {
			w.Queues[i].MaxCapacity = 1
		}
	}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		if j.Queue == "" {
			j.Queue = DefaultQueue
		}
		for k := range j.Phases {
			if j.Phases[k].StartAfter == 0 {
				j.Phases[k].StartAfter = 1
			}
		}
	}
}

// Validate checks a workload against the rules of the format, so that code
// that generates workloads is held to what a file would be. It does not fill
// in defaults; call ApplyDefaults first. The error is an *Error without
// lines.
func (w *Workload) Validate() error {
	if issues := w.validate(); len(issues) > 0 {
		return &Error{Issues: issues}
	}
	return nil
}

// checker collects problems. It tracks the current path as a stack of
// segments so that the path string is only built for a problem: validation
// of a valid workload allocates nothing per job.
type checker struct {
	issues []Issue
	path   []seg
}

func (c *checker) push(key string) { c.path = append(c.path, seg{key: key}) }
func (c *checker) pushIndex(i int) { c.path = append(c.path, seg{idx: i}) }
func (c *checker) pop(n int)       { c.path = c.path[:len(c.path)-n] }

// add reports a problem with field of the current value ("" for the value
// itself).
func (c *checker) add(field, format string, args ...any) {
	if field != "" {
		c.push(field)
		defer c.pop(1)
	}
	c.issues = append(c.issues, Issue{Path: formatPath(c.path), Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) utf8(field, s string) {
	if !utf8.ValidString(s) {
		c.add(field, "must be valid UTF-8")
	}
}

// duration checks a duration that may be zero (positive: it may not).
func (c *checker) duration(field string, d clock.Duration, positive bool) {
	switch {
	case positive && d <= 0:
		c.add(field, "must be > 0")
	case d < 0:
		c.add(field, "must be >= 0")
	case d > maxDuration:
		c.add(field, "out of range")
	}
}

// vector checks that no dimension of field is negative.
func (c *checker) vector(field string, v resource.Vector) bool {
	if !v.AnyNegative() {
		return true
	}
	c.push(field)
	for d := resource.Dim(0); d < resource.NumDims; d++ {
		if v[d] < 0 {
			c.add(d.Name(), "must be >= 0")
		}
	}
	c.pop(1)
	return false
}

// validate returns the problems with w, in document order, with paths but
// no lines.
func (w *Workload) validate() []Issue {
	var c checker
	c.path = make([]seg, 0, 8)
	if w.Version != Version {
		c.add("version", "%s", versionMsg(int64(w.Version)))
	}
	c.push("cluster")
	largest := c.cluster(&w.Cluster)
	c.pop(1)
	queues := c.queues(w.Queues)
	if len(w.Jobs) == 0 {
		c.add("jobs", "must not be empty")
	}
	ids := make(map[string]int, len(w.Jobs))
	c.push("jobs")
	for i := range w.Jobs {
		c.pushIndex(i)
		c.job(&w.Jobs[i], ids, queues, w.Cluster.Nodes, largest)
		c.pop(1)
	}
	c.pop(1)
	return c.issues
}

// cluster checks the cluster and returns the index of its largest valid node
// group (for messages), or -1 when there is none.
func (c *checker) cluster(cl *Cluster) int {
	if len(cl.Nodes) == 0 {
		c.add("nodes", "must not be empty")
	}
	largest := -1
	var total [resource.NumDims]uint64
	overflow := false
	c.push("nodes")
	for i, g := range cl.Nodes {
		c.pushIndex(i)
		valid := true
		switch {
		case g.Count < 1:
			c.add("count", "must be > 0")
			valid = false
		case g.Count > MaxNodesPerGroup:
			c.add("count", "must be <= %d", MaxNodesPerGroup)
			valid = false
		}
		for d := resource.Dim(0); d < resource.NumDims; d++ {
			switch {
			case d <= resource.Memory && g.Capacity[d] <= 0:
				c.add(d.Name(), "must be > 0")
				valid = false
			case g.Capacity[d] < 0:
				c.add(d.Name(), "must be >= 0")
				valid = false
			}
		}
		c.pools(&g)
		if valid {
			c.external(&g)
		}
		c.pop(1)
		if !valid {
			continue
		}
		for d, x := range g.Capacity {
			hi, lo := bits.Mul64(uint64(x), uint64(g.Count))
			sum, carry := bits.Add64(total[d], lo, 0)
			if hi != 0 || carry != 0 || sum > 1<<62 {
				overflow = true
			}
			total[d] = sum
		}
		if largest < 0 || larger(g.Capacity, cl.Nodes[largest].Capacity) {
			largest = i
		}
	}
	c.pop(1)
	if overflow {
		c.add("nodes", "total capacity is too large")
	}
	c.duration("node_heartbeat", cl.NodeHeartbeat, true)
	c.duration("am_heartbeat", cl.AMHeartbeat, true)
	c.duration("launch_delay", cl.LaunchDelay, false)
	if !(cl.LaunchJitter >= 0 && cl.LaunchJitter < 1) {
		c.add("launch_jitter", "must be in [0, 1)")
	}
	if cl.Timing == TimingKubernetes {
		if !(cl.APIQPS >= 0 && cl.APIQPS <= 1e6) {
			c.add("api_qps", "must be in [0, 1e6] (0: no limit)")
		}
		if cl.APIQPS > 0 && !(cl.APIBurst >= 1 && cl.APIBurst <= 1e6) {
			c.add("api_burst", "must be in [1, 1e6]")
		}
	} else {
		// A Kubernetes scheduler's client limit: YARN has no such call.
		if cl.APIQPS != 0 {
			c.add("api_qps", "needs timing: kubernetes (it limits a Kubernetes scheduler's calls to the apiserver)")
		}
		if cl.APIBurst != 0 {
			c.add("api_burst", "needs timing: kubernetes (it limits a Kubernetes scheduler's calls to the apiserver)")
		}
	}
	if m := cl.MapReduceAM; m != (MapReduceAM{}) {
		c.push("mapreduce_am")
		if m.Model >= numMRModels {
			c.add("model", "must be one of %s", strings.Join(MRModelNames(), ", "))
		}
		if !(m.ReduceRampupLimit >= 0 && m.ReduceRampupLimit <= 1) {
			c.add("reduce_rampup_limit", "must be in [0, 1]")
		}
		if !(m.ReducePreemptionLimit >= 0 && m.ReducePreemptionLimit <= 1) {
			c.add("reduce_preemption_limit", "must be in [0, 1]")
		}
		c.duration("reducer_preempt_delay", m.ReducerPreemptDelay, false)
		if m.ReducerUnconditionalPreemptDelay >= 0 {
			c.duration("reducer_unconditional_preempt_delay", m.ReducerUnconditionalPreemptDelay, false)
		}
		c.pop(1)
	}
	if l := cl.ExternalLoad; l != nil {
		c.push("external_load")
		if len(l.Points) == 0 {
			c.add("points", "must not be empty")
		}
		c.push("points")
		for i, pt := range l.Points {
			c.pushIndex(i)
			c.pushIndex(0)
			switch {
			case pt.At < 0 || pt.At > maxDuration:
				c.duration("", pt.At, false)
			case i > 0 && pt.At <= l.Points[i-1].At:
				c.add("", "must be after the previous point (%s)", l.Points[i-1].At)
			case l.Period > 0 && pt.At == l.Period && i == len(l.Points)-1 && i > 0:
				// A closing point, the way a cycle is usually written: it
				// repeats t = 0 and adds nothing, unless it differs.
				if first := l.Points[0]; first.At != 0 || pt.Frac != first.Frac {
					c.add("", "a point at the period (%s) closes the cycle and must repeat the point at 0s (%g); got %g", l.Period, first.Frac, pt.Frac)
				}
			case l.Period > 0 && pt.At >= l.Period:
				c.add("", "must be less than the period (%s)", l.Period)
			}
			c.pop(1)
			if !(pt.Frac >= 0 && pt.Frac <= 1) {
				c.pushIndex(1)
				c.add("", "must be in [0, 1]")
				c.pop(1)
			}
			c.pop(1)
		}
		c.pop(1)
		c.duration("period", l.Period, false)
		c.pop(1)
	}
	c.timing(cl)
	return largest
}

// larger orders node groups for naming the largest in messages: by vcores,
// then memory, GPUs and disk.
func larger(a, b resource.Vector) bool {
	for d := range a {
		if a[d] != b[d] {
			return a[d] > b[d]
		}
	}
	return false
}

// queuePath is a queue name without the optional leading "root.".
func queuePath(name string) string { return strings.TrimPrefix(name, rootQueue+".") }

const rootQueue = "root"

// queues checks the queue tree and returns, by canonical path, whether
// each valid queue is a leaf.
func (c *checker) queues(qs []Queue) map[string]bool {
	if len(qs) == 0 {
		c.add("queues", "must not be empty")
		return nil
	}
	names := make(map[string]int, len(qs))
	c.push("queues")
	for i, q := range qs {
		c.pushIndex(i)
		path := queuePath(q.Name)
		switch prev, dup := names[path]; {
		case q.Name == "":
			c.add("name", "must not be empty")
		case path == rootQueue:
			c.add("name", "the root queue is implicit: name the queues below it")
		case strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") || strings.Contains(path, ".."):
			c.add("name", "%q has an empty path element", q.Name)
		case dup:
			c.add("name", "duplicate name %q (same as queues[%d])", q.Name, prev)
		default:
			names[path] = i
			c.utf8("name", q.Name)
		}
		if !(q.Capacity >= 0 && q.Capacity <= 1) {
			c.add("capacity", "must be in [0, 1]")
		} else if !(q.MaxCapacity >= q.Capacity && q.MaxCapacity <= 1) {
			c.add("max_capacity", "must be in [capacity, 1] = [%g, 1]", q.Capacity)
		} else if !(q.MaxCapacity > 0) {
			c.add("max_capacity", "must be > 0: a queue that may hold nothing can run nothing")
		}
		if !(q.Weight >= 0) {
			c.add("weight", "must be >= 0")
		}
		c.pop(1)
	}
	// Parents exist, and the capacities of each parent's children (the
	// root's too) sum to at most 1.
	leaf := make(map[string]bool, len(names))
	sums := map[string]float64{}
	var order []string // parents in first-seen order, for stable messages
	for i, q := range qs {
		path := queuePath(q.Name)
		if names[path] != i {
			continue
		}
		leaf[path] = true
		parent := rootQueue
		if k := strings.LastIndexByte(path, '.'); k >= 0 {
			parent = path[:k]
			if _, ok := names[parent]; !ok {
				c.pushIndex(i)
				c.add("name", "parent queue %q is not defined", parent)
				c.pop(1)
				continue
			}
		}
		if _, seen := sums[parent]; !seen {
			order = append(order, parent)
		}
		if q.Capacity > 0 && q.Capacity <= 1 {
			sums[parent] += q.Capacity
		}
	}
	for path := range leaf {
		if k := strings.LastIndexByte(path, '.'); k >= 0 {
			if _, ok := leaf[path[:k]]; ok {
				leaf[path[:k]] = false
			}
		}
	}
	c.pop(1)
	for _, parent := range order {
		if sums[parent] > 1+capacitySlack {
			if parent == rootQueue {
				c.add("queues", "capacities sum to %.6g, more than 1", sums[parent])
			} else {
				c.add("queues", "the capacities of %q's children sum to %.6g, more than 1", parent, sums[parent])
			}
		}
	}
	return leaf
}

func (c *checker) job(j *Job, ids map[string]int, queues map[string]bool, nodes []NodeGroup, largest int) {
	i := c.path[len(c.path)-1].idx
	switch prev, dup := ids[j.ID]; {
	case j.ID == "":
		c.add("id", "must not be empty")
	case dup:
		c.add("id", "duplicate id %q (same as jobs[%d])", j.ID, prev)
	default:
		ids[j.ID] = i
		c.utf8("id", j.ID)
	}
	c.utf8("name", j.Name)
	c.utf8("user", j.User)
	if j.Submit < 0 || clock.Duration(j.Submit) > maxDuration {
		c.duration("submit", clock.Duration(j.Submit), false)
	}
	switch {
	case j.Queue == "":
		c.add("queue", "must not be empty")
	default:
		switch isLeaf, ok := queues[queuePath(j.Queue)]; {
		case !ok:
			c.utf8("queue", j.Queue)
			c.add("queue", "unknown queue %q", j.Queue)
		case !isLeaf:
			c.add("queue", "%q is a parent queue; jobs go to leaf queues", j.Queue)
		}
	}
	placed := c.placement(j, nodes)
	if !placed {
		nodes = nil // the job may use no node: reported once, above
	}
	if c.vector("am", j.AM) && !j.AM.IsZero() {
		c.fitsJob(j, "am", j.AM, nodes, largest)
	}
	if j.Deadline != 0 {
		c.duration("deadline", j.Deadline, true)
	}
	if j.Estimate != 0 {
		c.duration("estimate", j.Estimate, true)
	}
	if j.Recorded != nil {
		c.recorded(j)
	}
	if j.MinMembers != 0 && len(j.Phases) > 0 {
		most := j.Phases[0].Tasks
		if !j.AM.IsZero() {
			most++
		}
		if j.MinMembers < 0 || j.MinMembers > most {
			c.add("min_members", "must be in [1, %d] (the AM and the first phase's tasks)", most)
		}
	}
	if j.GangTimeout != 0 {
		c.duration("gang_timeout", j.GangTimeout, true)
		if j.MinMembers == 0 {
			c.add("gang_timeout", "needs min_members (only a gang has a timeout)")
		}
	}
	if len(j.Phases) == 0 {
		c.add("phases", "must not be empty")
	}
	c.push("phases")
	for k := range j.Phases {
		c.pushIndex(k)
		c.phase(j, k, &j.Phases[k], nodes, largest)
		c.pop(1)
	}
	c.pop(1)
}

func (c *checker) phase(j *Job, k int, ph *Phase, nodes []NodeGroup, largest int) {
	c.utf8("name", ph.Name)
	switch {
	case ph.Tasks < 1:
		c.add("tasks", "must be > 0")
	case ph.Tasks > MaxTasksPerPhase:
		c.add("tasks", "must be <= %d", MaxTasksPerPhase)
	}
	if c.vector("request", ph.Request) {
		if ph.Request.IsZero() {
			c.add("request", "must not be all zero")
		} else {
			c.fitsJob(j, "request", ph.Request, nodes, largest)
		}
	}
	switch n := len(ph.Durations); {
	case n == 1:
		c.duration("duration", ph.Durations[0], false)
	case n != ph.Tasks || n == 0:
		c.add("duration", "%s", durationsLenMsg(ph.Tasks, n))
	default:
		c.push("duration")
		for i, d := range ph.Durations {
			if d < 0 || d > maxDuration {
				c.pushIndex(i)
				c.duration("", d, false)
				c.pop(1)
			}
		}
		c.pop(1)
	}
	c.started(ph)
	switch {
	case k == 0 && ph.StartAfter != 1:
		c.add("start_after", "not allowed on the first phase")
	case !(ph.StartAfter > 0 && ph.StartAfter <= 1):
		c.add("start_after", "must be in (0, 1]")
	}
}

func durationsLenMsg(tasks, n int) string {
	return fmt.Sprintf("must be one duration or a list of %d (one per task), got a list of %d", max(tasks, 0), n)
}

// fitsJob checks that a container request of job j fits on at least one
// node the job may use, since a request no such node can hold would wait
// forever.
func (c *checker) fitsJob(j *Job, field string, v resource.Vector, nodes []NodeGroup, largest int) {
	if largest < 0 || nodes == nil {
		return // no valid node to compare with; the cluster is reported
	}
	if !j.Placed() && !pooled(nodes) {
		c.fits(field, v, nodes, largest)
		return
	}
	var may []string
	for i := range nodes {
		g := &nodes[i]
		if g.Count <= 0 || !j.Admits(g) {
			continue
		}
		if v.Fits(g.Capacity) {
			return
		}
		may = append(may, fmt.Sprintf("cluster.nodes[%d] %s", i, g.Capacity))
	}
	c.add(field, "%s fits on no node this job may use (by its node_selector and tolerations: %s)", v, strings.Join(may, ", "))
}

// pooled reports whether some node group has a taint that keeps jobs off.
func pooled(nodes []NodeGroup) bool {
	for i := range nodes {
		for _, t := range nodes[i].Taints {
			if t.Effect == EffectNoSchedule || t.Effect == EffectNoExecute {
				return true
			}
		}
	}
	return false
}

// pools checks a node group's labels and taints.
func (c *checker) pools(g *NodeGroup) {
	for _, k := range sortedKeys(g.Labels) {
		c.label("labels", k, g.Labels[k])
	}
	for i, t := range g.Taints {
		c.push("taints")
		c.pushIndex(i)
		switch {
		case t.Key == "":
			c.add("key", "must not be empty")
		case !utf8.ValidString(t.Key) || !utf8.ValidString(t.Value):
			c.add("", "must be valid UTF-8")
		}
		switch t.Effect {
		case EffectNoSchedule, EffectPreferNoSchedule, EffectNoExecute:
		default:
			c.add("effect", "%q is not one of NoSchedule, PreferNoSchedule, NoExecute", t.Effect)
		}
		c.pop(2)
	}
}

// label checks one key and value of a label map (labels, node_selector).
func (c *checker) label(field, k, v string) {
	switch {
	case k == "":
		c.add(field, "a key must not be empty")
	case !utf8.ValidString(k) || !utf8.ValidString(v):
		c.add(field, "keys and values must be valid UTF-8")
	}
}

// placement checks a job's node selector and tolerations, and reports
// whether some node group admits the job.
func (c *checker) placement(j *Job, nodes []NodeGroup) bool {
	for _, k := range sortedKeys(j.NodeSelector) {
		c.label("node_selector", k, j.NodeSelector[k])
	}
	for i, t := range j.Tolerations {
		c.push("tolerations")
		c.pushIndex(i)
		switch t.Operator {
		case "", OpEqual:
			if t.Key == "" {
				c.add("key", "must not be empty with operator Equal (an empty key with operator Exists tolerates every taint)")
			}
		case OpExists:
			if t.Value != "" {
				c.add("value", "must be empty with operator Exists")
			}
		default:
			c.add("operator", "%q is not Equal or Exists", t.Operator)
		}
		switch t.Effect {
		case "", EffectNoSchedule, EffectPreferNoSchedule, EffectNoExecute:
		default:
			c.add("effect", "%q is not one of NoSchedule, PreferNoSchedule, NoExecute (or empty: every effect)", t.Effect)
		}
		if !utf8.ValidString(t.Key) || !utf8.ValidString(t.Value) {
			c.add("", "must be valid UTF-8")
		}
		c.pop(2)
	}
	if !j.Placed() && !pooled(nodes) {
		return true
	}
	for i := range nodes {
		if nodes[i].Count > 0 && j.Admits(&nodes[i]) {
			return true
		}
	}
	field := "node_selector"
	if len(j.NodeSelector) == 0 {
		field = "tolerations"
	}
	c.add(field, "no node group admits this job (its node_selector must match a group's labels, its tolerations tolerate the group's NoSchedule and NoExecute taints)")
	return false
}

// fits checks that a container request fits on at least one node, since a
// request no node can hold would wait forever.
func (c *checker) fits(field string, v resource.Vector, nodes []NodeGroup, largest int) {
	if largest < 0 {
		return // no valid node to compare with; the cluster is reported
	}
	for _, g := range nodes {
		if g.Count > 0 && v.Fits(g.Capacity) {
			return
		}
	}
	c.add(field, "%s fits on no node (largest: cluster.nodes[%d] %s)", v, largest, nodes[largest].Capacity)
}
