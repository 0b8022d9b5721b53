package autoadmin

import (
	"math"
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/resource"
)

const vcore = resource.MilliPerVCore

// The paper's Tables 3.1 and 3.2: on C_R = 64 vcores, the reservation RRP
// predicts for jobs whose AMs take AMC vcores and whose tasks take TC, with
// one AM running (so that Eq. 3.3 does not fire), without and with the 40 %
// floor. Rows are TC = 1..4, columns AMC = 1..4.
//
// One printed value does not follow from Eq. 3.1: for AMC = 4, TC = 3 the
// tables give 31, but 64·3/7 = 27.4 rounds up to 28 (and 28 is above the
// floor of 25.6, so Table 3.2 must show 28 too). The other 31 values
// reproduce exactly; docs/autoadmin.md records the erratum.
func TestPaperTables(t *testing.T) {
	table31 := [4][4]int64{
		{32, 22, 16, 13},
		{43, 32, 26, 22},
		{48, 39, 32, 28}, // the paper prints 31 for AMC = 4
		{52, 43, 37, 32},
	}
	table32 := [4][4]int64{
		{32, 26, 26, 26},
		{43, 32, 26, 26},
		{48, 39, 32, 28}, // the paper prints 31 for AMC = 4
		{52, 43, 37, 32},
	}
	noFloor := Default()
	noFloor.Floor = 0
	for tc := 1; tc <= 4; tc++ {
		for amc := 1; amc <= 4; amc++ {
			in := Inputs{C: 64 * vcore, Known: true, AvgAM: float64(amc * vcore), AvgTC: float64(tc * vcore), TotalAM: float64(amc * vcore)}
			if got := noFloor.Predict(in, vcore).Value / vcore; got != table31[tc-1][amc-1] {
				t.Errorf("Table 3.1, AMC=%d TC=%d: predicted %d, want %d", amc, tc, got, table31[tc-1][amc-1])
			}
			if got := Default().Predict(in, vcore).Value / vcore; got != table32[tc-1][amc-1] {
				t.Errorf("Table 3.2, AMC=%d TC=%d: predicted %d, want %d", amc, tc, got, table32[tc-1][amc-1])
			}
		}
	}
}

// Alg. 2 step by step, on C_R = 64 vcores.
func TestPredictSteps(t *testing.T) {
	off := Default()
	off.ScaleUp = false
	cases := []struct {
		name string
		cfg  Config
		in   Inputs // in vcores; scaled below
		want Prediction
	}{
		{"nothing runs: line 12", Default(), Inputs{C: 64}, Prediction{Value: 26, Idle: true}},
		{"Eq. 3.2 alone", Default(), Inputs{C: 64, Known: true, AvgAM: 1, AvgTC: 1, TotalAM: 20}, Prediction{Base: 32, Value: 32}},
		// 32 > 64 − 38 = 26: 32·(32+38)/64 = 35.
		{"Eq. 3.3 scale-up", Default(), Inputs{C: 64, Known: true, AvgAM: 1, AvgTC: 1, TotalAM: 38}, Prediction{Base: 32, Value: 35, ScaledUp: true}},
		{"scale-up off", off, Inputs{C: 64, Known: true, AvgAM: 1, AvgTC: 1, TotalAM: 38}, Prediction{Base: 32, Value: 32}},
		// AMs exactly leave R_R: 32 > 64 − 32 is false, no scale-up.
		{"scale-up boundary", Default(), Inputs{C: 64, Known: true, AvgAM: 1, AvgTC: 1, TotalAM: 32}, Prediction{Base: 32, Value: 32}},
		// 12.8 < 25.6.
		{"40 % floor", Default(), Inputs{C: 64, Known: true, AvgAM: 4, AvgTC: 1, TotalAM: 4}, Prediction{Base: 12.8, Value: 26, Floored: true}},
		// 51.2 > 64 − 30: 51.2·81.2/64 = 64.96, capped at 64 − 1.
		{"cap C_R − AvgAMC_R", Default(), Inputs{C: 64, Known: true, AvgAM: 1, AvgTC: 4, TotalAM: 30}, Prediction{Base: 51.2, Value: 63, ScaledUp: true, Capped: true}},
		// Averages of a mix: AMs 1.5, tasks 2.5: 64·2.5/4 = 40.
		{"mixed averages", Default(), Inputs{C: 64, Known: true, AvgAM: 1.5, AvgTC: 2.5, TotalAM: 9}, Prediction{Base: 40, Value: 40}},
		// 64·1/2.5 = 25.6 rounds up to 26 vcores.
		{"rounded up", noFloorCfg(), Inputs{C: 64, Known: true, AvgAM: 1.5, AvgTC: 1, TotalAM: 3}, Prediction{Base: 25.6, Value: 26}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.C, in.AvgAM, in.AvgTC, in.TotalAM = in.C*vcore, in.AvgAM*vcore, in.AvgTC*vcore, in.TotalAM*vcore
			got := c.cfg.Predict(in, vcore)
			got.Base /= vcore
			want := c.want
			want.Value *= vcore
			if math.Abs(got.Base-want.Base) > 1e-9 {
				t.Errorf("base %v, want %v", got.Base, want.Base)
			}
			got.Base = want.Base
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func noFloorCfg() Config {
	c := Default()
	c.Floor = 0
	return c
}

// Memory is rounded to whole MiB, not to a thousand.
func TestPredictMemoryUnit(t *testing.T) {
	in := Inputs{C: 98304, Known: true, AvgAM: 1536, AvgTC: 1024, TotalAM: 1536}
	// 98304·1024/2560 = 39321.6 → 39322 MiB; the floor is 39321.6 too.
	if got := noFloorCfg().Predict(in, unitOf(resource.Memory)).Value; got != 39322 {
		t.Errorf("memory R_R %d, want 39322", got)
	}
}

// Alg. 1: each node's record is replaced on its update, and the totals
// follow.
func TestRIC(t *testing.T) {
	cl, led := cluster.New([]resource.Vector{resource.New(8, 8192), resource.New(8, 8192)})
	r := NewRIC(cl.NumNodes())
	steps := []struct {
		node   cluster.NodeID
		req    resource.Vector
		am     bool
		remove bool
		want   Usage
	}{
		{0, resource.New(2, 1024), true, false, Usage{AMs: 1, AMRes: resource.New(2, 1024)}},
		{0, resource.New(1, 2048), false, false, Usage{AMs: 1, Tasks: 1, AMRes: resource.New(2, 1024), TaskRes: resource.New(1, 2048)}},
		{1, resource.New(3, 1024), true, false, Usage{AMs: 2, Tasks: 1, AMRes: resource.New(5, 2048), TaskRes: resource.New(1, 2048)}},
		{1, resource.New(1, 2048), false, false, Usage{AMs: 2, Tasks: 2, AMRes: resource.New(5, 2048), TaskRes: resource.New(2, 4096)}},
		{0, resource.New(1, 2048), false, true, Usage{AMs: 2, Tasks: 1, AMRes: resource.New(5, 2048), TaskRes: resource.New(1, 2048)}},
		{0, resource.New(2, 1024), true, true, Usage{AMs: 1, Tasks: 1, AMRes: resource.New(3, 1024), TaskRes: resource.New(1, 2048)}},
	}
	for i, s := range steps {
		var err error
		if s.remove {
			err = led.Release(s.node, s.req, s.am)
		} else {
			err = led.Allocate(s.node, s.req, s.am)
		}
		if err != nil {
			t.Fatal(err)
		}
		r.Update(cl.Node(s.node))
		if got := r.Total(); got != s.want {
			t.Fatalf("step %d: totals %+v, want %+v", i, got, s.want)
		}
	}
	if got := r.Node(1); got.AMs != 1 || got.Tasks != 1 {
		t.Errorf("node 1 record %+v", got)
	}
	// The averages RRP reads: AMs 3 vcores, tasks 1.
	in := InputsFor(cl.Capacity(), r.Total(), resource.VCores)
	if !in.Known || in.AvgAM != 3*vcore || in.AvgTC != 1*vcore || in.TotalAM != 3*vcore || in.C != 16*vcore {
		t.Errorf("inputs %+v", in)
	}
	if in := InputsFor(cl.Capacity(), Usage{AMs: 2, AMRes: resource.New(2, 2048)}, resource.VCores); in.Known {
		t.Errorf("no task runs, yet inputs are known: %+v", in)
	}
}

// ARC's test in each dimension asked for.
func TestAdmissible(t *testing.T) {
	capacity := resource.New(64, 98304)
	vc := []resource.Dim{resource.VCores}
	all := []resource.Dim{resource.VCores, resource.Memory}
	cases := []struct {
		name              string
		held, am, reserve resource.Vector
		dims              []resource.Dim
		want              bool
	}{
		{"room", resource.New(30, 0), resource.New(2, 1024), resource.New(32, 0), vc, true},
		{"exactly R_R left", resource.New(30, 0), resource.New(2, 1024), resource.New(32, 0), vc, true},
		{"one vcore short", resource.New(31, 0), resource.New(2, 1024), resource.New(32, 0), vc, false},
		{"memory ignored", resource.New(0, 98000), resource.New(2, 1024), resource.New(32, 1), vc, true},
		{"memory counted", resource.New(0, 98000), resource.New(2, 1024), resource.New(32, 1), all, false},
		{"no AM", resource.New(64, 0), resource.Vector{}, resource.Vector{}, vc, true},
	}
	for _, c := range cases {
		if got := Admissible(capacity, c.held, c.am, c.reserve, c.dims); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFill(t *testing.T) {
	cases := []struct{ c, am, task, want float64 }{
		{8, 1, 1, 8},
		{8, 3, 3, 6}, // two 3-vcore containers
		{8, 3, 4, 8}, // two tasks of 4
		{8, 4, 3, 8},
		{8, 2.5, 3, 8}, // 2.5 + 2.5 + 3
		{8, 3.5, 3.5, 7},
		{8, 9, 9, 0},     // nothing fits
		{8, 0, 3, 8},     // no AM size: no fragment to count
		{1e9, 1, 1, 1e9}, // too fine to search
	}
	for _, c := range cases {
		if got := Fill(c.c, c.am, c.task); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Fill(%v, %v, %v) = %v, want %v", c.c, c.am, c.task, got, c.want)
		}
	}
}

func TestPairs(t *testing.T) {
	eight := [][2]float64{{8, 8}} // the paper's 8 nodes of 8 vcores
	cases := []struct {
		name     string
		nodes    [][2]float64
		am, task float64
		want     int64
		ok       bool
	}{
		// One AM and one task per pair fill every node: 64/2.
		{"AM 1, task 1", eight, 1, 1, 32, true},
		// Five nodes of 3 AMs and 2 tasks, three of 2 AMs and 4 tasks:
		// 21 AMs beside 22 tasks; a 22nd AM leaves 20.
		{"AM 2, task 1", eight, 2, 1, 21, true},
		// Two AMs and two tasks per node.
		{"AM 3, task 1", eight, 3, 1, 16, true},
		// Four nodes of two AMs, four of one AM and four tasks: 12 AMs
		// beside 16 tasks; a 13th shuts a node's four (12 left).
		{"AM 4, task 1", eight, 4, 1, 12, true},
		// 3 + 3 leaves 2 vcores no container uses: one pair per node,
		// where 64/6 would say 10.7.
		{"AM 3, task 3", eight, 3, 3, 8, true},
		// 4 + 3 leaves 1: one pair per node, where 64/7 says 9.1.
		{"AM 4, task 3", eight, 4, 3, 8, true},
		// Three nodes of 4 AMs and a task, five of two tasks: 12 AMs
		// beside 13 tasks; no 13th fits beside 13.
		{"AM 1, task 4", eight, 1, 4, 12, true},
		// One node of 16 and four of 4 vcores, AMs of 2, tasks of 3: the
		// small nodes hold a task or an AM, never both; five AMs on the
		// large node leave two tasks there and four on the small ones.
		{"mixed nodes", [][2]float64{{16, 1}, {4, 4}}, 2, 3, 5, true},
		{"no AM size", eight, 0, 3, 0, false},
		{"too many steps", [][2]float64{{64, 1000}}, 1, 1, 0, false},
	}
	for _, c := range cases {
		got, ok := Pairs(c.nodes, c.am, c.task)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: Pairs = %d, %v; want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestPerAMReserve(t *testing.T) {
	cases := []struct {
		name        string
		c, am, task float64
		k           float64
		want        int64
	}{
		// k = 1 is Eq. 3.2: the paper's PDI for AMC = 2, TC = 1 (Table 3.1).
		{"Eq. 3.2", 64, 2, 1, 1, 22},
		// 64·1.1/3.1 = 22.7: 41 vcores of AMs, 20 of 2 vcores.
		{"1.1 tasks beside AMs of 2", 64, 2, 1, 1.1, 23},
		// 64·1.3/3.3 = 25.2: 19 AMs of 2.
		{"1.3 tasks beside AMs of 2", 64, 2, 1, 1.3, 26},
		// 64·2.2/5.2 = 27.08: 12 AMs of 3.
		{"1.1 tasks of 2 beside AMs of 3", 64, 3, 2, 1.1, 28},
		// 64·2.6/5.6 = 29.7: 11 AMs of 3.
		{"1.3 tasks of 2 beside AMs of 3", 64, 3, 2, 1.3, 30},
		{"no task size", 64, 2, 0, 1, 0},
		{"off", 64, 2, 1, 0, 0},
	}
	for _, c := range cases {
		if got := PerAMReserve(c.c, c.am, c.task, c.k, 1); got != c.want {
			t.Errorf("%s: PerAMReserve = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestSafeReserve(t *testing.T) {
	eight := [][2]int64{{8 * vcore, 8}}
	cases := []struct {
		name       string
		nodes      [][2]int64
		task, gran int64
		want       int64
	}{
		// Eight nodes with 3 vcores each free of AMs hold no 4-vcore
		// task; 25 vcores guarantee one node with 4.
		{"paper cluster, 4-vcore tasks", eight, 4 * vcore, vcore, 25 * vcore},
		{"1-vcore tasks", eight, vcore, vcore, vcore},
		{"fractional sizes", eight, 4 * vcore, vcore / 2, 8*3500 + 500},
		{"task larger than small nodes", [][2]int64{{2 * vcore, 4}, {8 * vcore, 1}}, 4 * vcore, vcore, 4*2*vcore + 3*vcore + vcore},
		{"no task", eight, 0, vcore, 0},
	}
	for _, c := range cases {
		if got := SafeReserve(c.nodes, c.task, c.gran); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestPerfScore(t *testing.T) {
	cases := []struct{ m, min, want float64 }{
		{100, 100, 100},
		{110, 100, 90},
		{95, 100, 105},
		{300, 100, -100},
	}
	for _, c := range cases {
		if got := PerfScore(c.m, c.min); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("PerfScore(%v, %v) = %v, want %v", c.m, c.min, got, c.want)
		}
	}
}

func TestParams(t *testing.T) {
	cases := []struct {
		spec string
		def  Config
		ok   bool
		want func(c Config) bool
	}{
		{"autoadmin", Default(), true, func(c Config) bool {
			return c.Floor == 0.4 && c.Idle == 0.4 && c.ScaleUp && !c.ColdStart && len(c.Dims) == 2 && c.Guard && c.HoldEarly && !c.Slots
		}},
		{"autoadmin:dims=vcores,guard=false", Default(), true, func(c Config) bool {
			return reflect.DeepEqual(c, Paper())
		}},
		{"autoadmin:floor=0,dims=all", Default(), true, func(c Config) bool { return c.Floor == 0 && len(c.Dims) == 2 }},
		{"autoadmin:dims=memory,scale_up=false", Default(), true, func(c Config) bool { return c.Dims[0] == resource.Memory && !c.ScaleUp }},
		{"autoadmin+", Plus(), true, func(c Config) bool {
			return c.Floor == 0 && c.ColdStart && c.Slots && !c.Packing && !c.Demand && c.Safe && c.Guard && c.HoldEarly && !c.Backlog && len(c.Dims) == 2
		}},
		{"autoadmin+:backlog=true", Plus(), true, func(c Config) bool { return c.Backlog && c.Slots }},
		{"autoadmin", Default(), true, func(c Config) bool { return !c.Backlog }},
		{"autoadmin:hold_early=false", Default(), true, func(c Config) bool { return !c.HoldEarly && c.Guard && !c.Slots }},
		{"autoadmin:guard=false,hold_early=true", Default(), true, func(c Config) bool { return !c.HoldEarly && !c.Guard }},
		{"autoadmin+:slots=false", Plus(), true, func(c Config) bool { return !c.Slots && c.ColdStart }},
		{"autoadmin:slots=true", Default(), true, func(c Config) bool { return c.Slots && c.Floor == 0.4 && !c.ColdStart }},
		{"autoadmin+:tasks_per_am=1.1", Plus(), true, func(c Config) bool { return c.TasksPerAM == 1.1 && c.Slots }},
		{"autoadmin+", Plus(), true, func(c Config) bool { return c.TasksPerAM == 0 }},
		{"autoadmin:tasks_per_am=-1", Default(), false, nil},
		{"autoadmin:floor=1.5", Default(), false, nil},
		{"autoadmin:dims=gpus", Default(), false, nil},
		{"autoadmin:reserve=3", Default(), false, nil},
	}
	for _, c := range cases {
		sp, err := params.Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		r := params.NewReader(sp)
		cfg := Params(r, c.def)
		err = r.Done()
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v", c.spec, err)
			continue
		}
		if c.ok && !c.want(cfg) {
			t.Errorf("%s: %+v", c.spec, cfg)
		}
	}
}
