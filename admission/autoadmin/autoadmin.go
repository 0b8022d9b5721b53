// Package autoadmin is AutoAdmin (Yang, Bhimani, Yao, Lin, Wang, Mi and
// Sheng, 2018): admission control that keeps part of a YARN cluster for task
// containers, so that a burst of ApplicationMasters cannot take every
// container and deadlock the cluster, and that sizes that part from what runs.
//
// It has the paper's three components:
//
//   - RIC, the Resource Information Collector (Alg. 1): per node, the number
//     and resources of AM containers and of task containers, and from them
//     the averages AvgAMC_R and AvgTC_R over the containers that hold
//     resources.
//   - RRP, the Reserved Resource Predictor (Alg. 2): the reservation
//     R_R = C_R·AvgTC_R/(AvgAMC_R+AvgTC_R) (Eq. 3.2), scaled up by
//     (R_R+TotalAMC_R)/C_R when AMs already hold more than C_R − R_R
//     (Eq. 3.3), raised to a floor of 40 % of C_R, capped at C_R − AvgAMC_R,
//     and 40 % of C_R while no AM or no task runs; rounded up to a whole unit.
//   - ARC, the Application Resource Controller (Alg. 3): a job is admitted
//     iff C_R − TotalAMC_R − AM_J ≥ R_R; otherwise it waits, in submission
//     order, and is retried whenever the scheduler may admit (every node
//     update, submission, job end).
//
// Each is computed per resource dimension; the paper's case is vcores. The
// default controllers keep R_R in vcores and memory and add a guard
// (guard.go) that makes them deadlock-free in every resource, on mixed node
// sizes and under external load; Paper is the paper's literal rule.
// Plus configures autoadmin+, an improved variant that starts from the
// requests jobs declare, counts capacity in whole containers per node with
// one task beside each AM, replaces the 40 % floor by a bound that provably
// leaves room for a task, and holds reduces at slow-start in its guard.
// docs/autoadmin.md records how the paper was read and why each change was
// made.
package autoadmin

import (
	"fmt"
	"math"
	"slices"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/resource"
)

// Config holds AutoAdmin's parameters.
type Config struct {
	// Floor is the least R_R as a fraction of C_R (Alg. 2 lines 7-8; the
	// paper's 40 %). 0 disables it.
	Floor float64
	// Idle is R_R as a fraction of C_R while no AM or no task container
	// holds resources (Alg. 2 line 12; the paper's 40 %).
	Idle float64
	// ScaleUp applies Eq. 3.3 when R_R + TotalAMC_R exceeds C_R (Alg. 2
	// lines 5-6).
	ScaleUp bool
	// Dims are the dimensions a reservation is kept in; a job is admitted
	// only if the test holds in each. The paper's case is vcores.
	Dims []resource.Dim

	// Guard adds a deadlock test to ARC's (guard.go): a job is admitted
	// only if, wherever the admitted AMs land, every task shape of the
	// admitted jobs still fits beside the AMs on some node, in every
	// resource, under the external load's sustained level. On by default
	// in both controllers; off is the paper's literal rule, whose
	// reservation covers only the dimensions in Dims and the cluster's sum.
	Guard bool
	// HoldEarly makes the guard count a task of a phase that may start
	// before the previous one completes (a reduce at slow-start) as held
	// for its job's life, like an AM: such a task waits for its inputs,
	// so it cannot end while its own job's earlier tasks wait for room.
	// Without it, reduces that start early beside AMs can take the room
	// the maps need and the guard's promise fails (EXPERIMENTS.md,
	// heterogeneous workloads).
	HoldEarly bool

	// The extensions of autoadmin+ (all off in the paper's algorithm):

	// ColdStart, while no AM or no task runs, takes the averages from what
	// the unfinished jobs declare (their AM and first-phase requests)
	// instead of reserving Idle: a burst then gets a reservation that fits
	// its jobs before any of them runs. Jobs that declare no tasks (a live
	// application, which asks as it goes) leave Idle in force: averaging
	// nothing would reserve nothing.
	ColdStart bool
	// Packing replaces C_R by what containers of the average AM and task
	// sizes can fill on each node: a node of 8 vcores holds two 3-vcore
	// containers, not 8/3.
	Packing bool
	// Demand replaces AvgTC_R, the average task container, by the average
	// task demand of a job: what the tasks it runs and asks for hold, over
	// the jobs that run or ask for any. A job of one task at a time is
	// unchanged; a job asking for 4 maps reserves room for 4.
	Demand bool
	// Slots replaces C_R by what whole containers can hold with one task
	// beside each AM (Eq. 3.2's own balance), counted node by node: the
	// most AMs of the average size that the nodes can take while the room
	// left beside them still holds as many average tasks (Pairs). A node
	// of 8 vcores holds one 4-vcore AM and one 3-vcore task, not 8/7 of a
	// pair, while two such nodes hold two AMs on one and two tasks on the
	// other. C_R becomes that many AMs and tasks, so Eq. 3.2 reserves
	// exactly their tasks.
	Slots bool
	// Safe keeps R_R at least at the pigeonhole bound that guarantees a
	// node with room, free of AMs, for the largest task any unfinished
	// job declares: with AMs leaving that much, tasks can always run, so
	// the cluster cannot deadlock. It replaces the floor's protection.
	Safe bool
	// TasksPerAM, when positive, keeps R_R at least at Eq. 3.2 with that
	// many average tasks beside each AM, C_R·k·AvgTC_R/(AvgAMC_R +
	// k·AvgTC_R), counted on the whole cluster: Eq. 3.2 itself is k = 1.
	// With Slots or Packing the stricter of the two applies. No default
	// uses it: the k that helps on the paper's model is fitted to it
	// (docs/autoadmin.md, Results).
	TasksPerAM float64
	// Backlog admits a job only while the admitted jobs' task containers
	// that wait for allocation number at most one per node: what one
	// round of node heartbeats, one container each (YARN's default),
	// can place. A longer backlog means the task room is full, and a new
	// AM would take room from tasks that already wait for it. No default
	// uses it: a job with many waiting tasks then holds every other job
	// back (docs/autoadmin.md, Results).
	Backlog bool
}

// Default is the paper's algorithm kept in every resource (dims=all) with
// the deadlock guard, which counts tasks started at slow-start as held like
// AMs: such a reduce waits for its maps, so without that the guard's
// premise (only AMs stay for long) fails and MapReduce jobs with
// slow-start deadlock. Paper is the paper's literal rule.
func Default() Config {
	c := Paper()
	c.Guard, c.Dims, c.HoldEarly = true, []resource.Dim{resource.VCores, resource.Memory}, true
	return c
}

// Paper is the paper's algorithm exactly: RRP and ARC in vcores, against the
// cluster's total capacity. It deadlocks when memory binds or when the
// reservation is fragmented across nodes too small for a task.
func Paper() Config {
	return Config{Floor: 0.4, Idle: 0.4, ScaleUp: true, Dims: []resource.Dim{resource.VCores}}
}

// Plus is autoadmin+, the improved variant: the default controller with a
// cold start from declared requests, capacity counted in whole containers
// per node (one task beside each AM), the 40 % floor replaced by the
// deadlock bound, and early-starting tasks held in the guard
// (docs/autoadmin.md says why). Packing and Demand, which
// earlier versions used, stay available as parameters: Slots subsumes the
// first, and the second reserves for a job's peak demand, which on the
// paper's model (2 maps and a reduce at slow-start) is twice what runs.
func Plus() Config {
	c := Default()
	c.Floor, c.ColdStart, c.Slots, c.Safe, c.HoldEarly = 0, true, true, true, true
	return c
}

// dimChoices are the values of the dims parameter.
var dimChoices = []struct {
	name string
	dims []resource.Dim
}{
	{"vcores", []resource.Dim{resource.VCores}},
	{"memory", []resource.Dim{resource.Memory}},
	{"all", []resource.Dim{resource.VCores, resource.Memory}},
}

// Params reads the parameters, with d's values as defaults.
func Params(r *params.Reader, d Config) Config {
	dimDef := "vcores"
	var names []string
	for _, c := range dimChoices {
		names = append(names, c.name)
		if slices.Equal(c.dims, d.Dims) {
			dimDef = c.name
		}
	}
	dims := r.Choice("dims", dimDef, names,
		fmt.Sprintf("the resource the reservation is kept in: vcores (the paper's case), memory, or all (both, each with its own R_R; a job must pass in every one; default %s)", dimDef))
	cfg := Config{
		Floor:      r.Float("floor", d.Floor, 0, 1, fmt.Sprintf("least reservation as a fraction of the cluster (Alg. 2 lines 7-8, default %g); 0 disables it", d.Floor)),
		Idle:       r.Float("idle", d.Idle, 0, 1, fmt.Sprintf("reservation as a fraction of the cluster while no AM or no task container runs (Alg. 2 line 12, default %g)", d.Idle)),
		ScaleUp:    r.Bool("scale_up", d.ScaleUp, fmt.Sprintf("scale the reservation up by (R_R + TotalAMC_R)/C_R when AMs already hold more than C_R − R_R (Eq. 3.3, default %v)", d.ScaleUp)),
		Dims:       dimsNamed(dims),
		Guard:      r.Bool("guard", d.Guard, fmt.Sprintf("also admit a job only if every task shape of the admitted jobs keeps a node with room beside the AMs, wherever they land, in every resource and under the external load (deadlock-free; default %v); false is the paper's literal rule", d.Guard)),
		HoldEarly:  r.Bool("hold_early", d.HoldEarly, fmt.Sprintf("with the guard, count a task of a phase that may start before the previous one completes (a reduce at slow-start) as held like an AM, since it waits for its inputs (default %v)", d.HoldEarly)),
		ColdStart:  r.Bool("cold_start", d.ColdStart, fmt.Sprintf("while no AM or no task runs, average the AM and first-phase requests the unfinished jobs declare instead of reserving idle (default %v)", d.ColdStart)),
		Packing:    r.Bool("packing", d.Packing, fmt.Sprintf("count the cluster as what containers of the average AM and task sizes can fill on each node (default %v)", d.Packing)),
		Slots:      r.Bool("slots", d.Slots, fmt.Sprintf("count the cluster as the most AMs and tasks of the average sizes that whole containers can hold node by node, one task beside each AM (default %v)", d.Slots)),
		Demand:     r.Bool("demand", d.Demand, fmt.Sprintf("use a job's average task demand (the tasks it runs and asks for) in place of the average task container (default %v)", d.Demand)),
		TasksPerAM: r.Float("tasks_per_am", d.TasksPerAM, 0, 64, fmt.Sprintf("keep the reservation at least at Eq. 3.2 with this many average tasks beside each AM, on the whole cluster; 0 is off (default %g)", d.TasksPerAM)),
		Backlog:    r.Bool("backlog", d.Backlog, fmt.Sprintf("admit a job only while at most one task container per node waits for allocation among the admitted jobs (default %v)", d.Backlog)),
		Safe:       r.Bool("safe", d.Safe, fmt.Sprintf("keep at least the reservation that guarantees some node room free of AMs for the largest declared task (default %v)", d.Safe)),
	}
	// hold_early refines the guard: without the guard it means nothing, so
	// guard=false alone gives the paper's literal rule.
	if !cfg.Guard {
		cfg.HoldEarly = false
	}
	return cfg
}

func dimsNamed(name string) []resource.Dim {
	for _, c := range dimChoices {
		if c.name == name {
			return slices.Clone(c.dims)
		}
	}
	return nil
}

// String renders the configuration for reports.
func (c Config) String() string {
	var names []string
	for _, d := range c.Dims {
		names = append(names, d.Name())
	}
	s := fmt.Sprintf("dims=%v floor=%g idle=%g scale_up=%v guard=%v cold_start=%v packing=%v demand=%v safe=%v", names, c.Floor, c.Idle, c.ScaleUp, c.Guard, c.ColdStart, c.Packing, c.Demand, c.Safe)
	// The newer options are named only when on, so that the reports of
	// every configuration without them read as they did before they
	// existed.
	if c.Slots {
		s += " slots=true"
	}
	if c.HoldEarly {
		s += " hold_early=true"
	}
	if c.Backlog {
		s += " backlog=true"
	}
	if c.TasksPerAM > 0 {
		s += fmt.Sprintf(" tasks_per_am=%g", c.TasksPerAM)
	}
	return s
}

// Usage is what the RIC records for a node or the whole cluster: how many AM
// and task containers hold resources there, and how much.
type Usage struct {
	AMs, Tasks     int
	AMRes, TaskRes resource.Vector
}

func (u Usage) add(w Usage) Usage {
	return Usage{AMs: u.AMs + w.AMs, Tasks: u.Tasks + w.Tasks, AMRes: u.AMRes.Add(w.AMRes), TaskRes: u.TaskRes.Add(w.TaskRes)}
}

func (u Usage) sub(w Usage) Usage {
	return Usage{AMs: u.AMs - w.AMs, Tasks: u.Tasks - w.Tasks, AMRes: u.AMRes.Sub(w.AMRes), TaskRes: u.TaskRes.Sub(w.TaskRes)}
}

// RIC is the Resource Information Collector (Alg. 1): one record per node,
// Map_AMC and Map_TC of the paper in one table, and their sum, kept
// incrementally so that the averages cost nothing to read.
type RIC struct {
	nodes []Usage
	total Usage
}

// NewRIC returns an empty collector for a cluster of n nodes.
func NewRIC(n int) *RIC { return &RIC{nodes: make([]Usage, n)} }

// Update records node n's current AM and task containers (Alg. 1 lines 2-3);
// the cluster totals, and so the averages (line 4), follow.
func (r *RIC) Update(n *cluster.Node) {
	now := Usage{
		AMs: n.AMContainers(), Tasks: n.TaskContainers(),
		AMRes: n.AMAllocated(), TaskRes: n.Allocated().Sub(n.AMAllocated()),
	}
	id := int(n.ID())
	for id >= len(r.nodes) { // a node that joined a live cluster
		r.nodes = append(r.nodes, Usage{})
	}
	r.total = r.total.sub(r.nodes[id]).add(now)
	r.nodes[id] = now
}

// Node returns the record of node id.
func (r *RIC) Node(id cluster.NodeID) Usage { return r.nodes[id] }

// Total returns the sum over nodes.
func (r *RIC) Total() Usage { return r.total }

// Inputs are what RRP needs in one dimension, in that dimension's units
// (milli-vcores, MiB).
type Inputs struct {
	C float64 // cluster capacity C_R
	// Known is false while no AM or no task container runs: the averages
	// are then undefined and Alg. 2 falls back to line 12.
	Known        bool
	AvgAM, AvgTC float64 // AvgAMC_R and AvgTC_R
	TotalAM      float64 // TotalAMC_R: what running AMs hold
}

// InputsFor extracts dimension d of the collector's totals.
func InputsFor(capacity resource.Vector, u Usage, d resource.Dim) Inputs {
	in := Inputs{C: float64(capacity[d]), TotalAM: float64(u.AMRes[d]), Known: u.AMs > 0 && u.Tasks > 0}
	if in.Known {
		in.AvgAM = float64(u.AMRes[d]) / float64(u.AMs)
		in.AvgTC = float64(u.TaskRes[d]) / float64(u.Tasks)
	}
	return in
}

// Prediction is RRP's output in one dimension, with the steps that fired,
// so that tests and reports can follow Alg. 2 line by line.
type Prediction struct {
	Base     float64 // Eq. 3.2, before any adjustment (0 when idle)
	Value    int64   // R_R, rounded up to a whole unit
	Idle     bool    // no AM or no task ran: line 12
	ScaledUp bool    // lines 5-6
	Floored  bool    // lines 7-8
	Capped   bool    // lines 9-10
}

// Predict runs Alg. 2 in one dimension; unit is the dimension's rounding unit
// (a whole vcore is 1000 milli-vcores). The result is rounded up last, which
// is how the paper's Tables 3.1 and 3.2 come out.
func (c Config) Predict(in Inputs, unit int64) Prediction {
	var p Prediction
	var r float64
	if !in.Known {
		p.Idle = true
		r = in.C * c.Idle
	} else {
		if in.AvgAM+in.AvgTC > 0 {
			r = in.C * in.AvgTC / (in.AvgAM + in.AvgTC)
		}
		p.Base = r
		if c.ScaleUp && r > in.C-in.TotalAM {
			r = r * (r + in.TotalAM) / in.C
			p.ScaledUp = true
		}
		if r < in.C*c.Floor {
			r = in.C * c.Floor
			p.Floored = true
		}
		if r > in.C-in.AvgAM {
			r = in.C - in.AvgAM
			p.Capped = true
		}
	}
	p.Value = roundUp(r, unit)
	return p
}

// roundUp rounds r up to a multiple of unit, forgiving the last bits of
// floating-point error so that an exact 32 stays 32.
func roundUp(r float64, unit int64) int64 {
	if r <= 0 {
		return 0
	}
	u := float64(unit)
	return int64(math.Ceil(r/u-1e-9)) * unit
}

// unitOf is the rounding unit of a dimension: a whole vcore, one MiB, one
// device.
func unitOf(d resource.Dim) int64 {
	if d == resource.VCores {
		return resource.MilliPerVCore
	}
	return 1
}

// PerAMReserve is Eq. 3.2 with k average tasks beside each AM: the part of
// capacity c that k tasks of size task take beside one AM of size am, rounded
// up to unit. k = 1 is Eq. 3.2 itself; it is 0 when the sizes are not
// positive.
func PerAMReserve(c, am, task, k float64, unit int64) int64 {
	if am < 0 || task <= 0 || k <= 0 {
		return 0
	}
	return roundUp(c*k*task/(am+k*task), unit)
}

// Fill is the most of one node's capacity c that whole containers of sizes
// am and task can take together, in one dimension: 6 of 8 vcores for 3-vcore
// containers. Sizes may be averages, hence fractional.
func Fill(c, am, task float64) float64 {
	if am <= 0 || task <= 0 || c/am > maxFillSteps {
		return c
	}
	best := 0.0
	for x := 0.0; x*am <= c*(1+1e-12); x++ {
		y := math.Floor((c-x*am)/task + 1e-9)
		best = max(best, x*am+y*task)
	}
	return math.Min(best, c)
}

// Pairs is the most AMs of size am that nodes can hold, as whole
// containers in one dimension, while the room left beside them still holds
// at least as many whole tasks of size task: Eq. 3.2's balance of one task
// per AM, with the fragments a node cannot use left out. nodes gives each
// node capacity with its count. AMs go one at a time where they cost the
// fewest tasks (onto a node whose room beside its AMs holds no more tasks
// with one AM more, when there is one); among equally cheap nodes the
// choice does not change the count. This greedy is exact on the cases the
// tests work by hand, uniform and mixed nodes; it is an estimate, not a
// bound, and the guard, not Pairs, is what keeps the controller
// deadlock-free. ok is false when the sizes are not positive or the search
// would be too long, and the caller then keeps the plain capacity.
func Pairs(nodes [][2]float64, am, task float64) (pairs int64, ok bool) {
	if am <= 0 || task <= 0 {
		return 0, false
	}
	var total float64
	for _, n := range nodes {
		total += n[0] * n[1]
	}
	if total/am > maxPairsSteps {
		return 0, false
	}
	tasks := func(c float64, a int) int64 { return int64(math.Floor((c-float64(a)*am)/task + 1e-9)) }
	// hist[s][a] counts the nodes of shape s holding a AMs.
	hist := make([][]int64, len(nodes))
	var slots int64
	for s, n := range nodes {
		hist[s] = make([]int64, int(math.Floor(n[0]/am+1e-9))+1)
		hist[s][0] = int64(n[1])
		slots += int64(n[1]) * tasks(n[0], 0)
	}
	for {
		bestS, bestA, bestLoss := -1, 0, int64(0)
		for s, h := range hist {
			for a := len(h) - 2; a >= 0; a-- {
				if h[a] == 0 {
					continue
				}
				loss := tasks(nodes[s][0], a) - max(tasks(nodes[s][0], a+1), 0)
				if bestS < 0 || loss < bestLoss {
					bestS, bestA, bestLoss = s, a, loss
				}
			}
		}
		if bestS < 0 || slots-bestLoss < pairs+1 {
			return pairs, true
		}
		hist[bestS][bestA]--
		hist[bestS][bestA+1]++
		slots -= bestLoss
		pairs++
	}
}

// maxPairsSteps bounds Pairs' search: one step per AM.
const maxPairsSteps = 1 << 14

// maxFillSteps bounds Fill's search; containers that small against the node
// leave no fragment worth counting.
const maxFillSteps = 4096

// SafeReserve is the least AM-free capacity, in one dimension, that leaves
// some node room for a task of size task. Free amounts are multiples of
// gran (the greatest common divisor of node capacities and requests), so a
// node without that room has at most task − gran free of AMs; were every
// node so, the total would be the sum over nodes of min(capacity,
// task − gran). nodes gives each node capacity with its count.
func SafeReserve(nodes [][2]int64, task, gran int64) int64 {
	if task <= 0 || gran <= 0 {
		return 0
	}
	var r int64
	for _, n := range nodes {
		r += n[1] * min(n[0], task-gran)
	}
	return r + gran
}

// gcd is the greatest common divisor, with gcd(0, b) = b.
func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Admissible is ARC's test (Alg. 3 line 2): after job J's AM, what admitted
// AMs do not hold still covers the reservation, C_R − TotalAMC_R − AM_J ≥ R_R,
// in every dimension given. static:<n> is the same test with a fixed R_R.
func Admissible(capacity, amHeld, am, reserve resource.Vector, dims []resource.Dim) bool {
	for _, d := range dims {
		if capacity[d]-amHeld[d]-am[d] < reserve[d] {
			return false
		}
	}
	return true
}

// PerfScore is the paper's Eq. 4.1: how close a makespan comes to the best
// static reservation's, (1 − (M − M_min)/M_min)·100 %. It exceeds 100 when M
// beats M_min.
func PerfScore(makespan, minMakespan float64) float64 {
	return (1 - (makespan-minMakespan)/minMakespan) * 100
}
