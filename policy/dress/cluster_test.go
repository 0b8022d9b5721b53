package dress

import (
	"math"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

// TestClusterChanged: the pools, the AM limit and every count in units are
// shares of the cluster, so a node joining, leaving or changing measures
// them again. S (an AM and 5 tasks of <1 vcore, 1 GB>: 6 % of <100 vcores,
// 100 GB>) is small-demand and L (an AM and 50 tasks) large; S holds its AM
// and 2 tasks, L its AM and 10 tasks, each on the node the row says. The
// units are Total/100 a container on one 100-vcore node and Total/200 on
// two. A re-tune runs before the change and one after, each checked against
// the full walk (verifyRetune): what the re-tune kept between them is
// re-measured too.
func TestClusterChanged(t *testing.T) {
	node := resource.New(100, 102400)
	unit := func(containers, vcores int64) int64 { return containers * Total / vcores }
	tests := []struct {
		name   string
		nodes  []resource.Vector
		sOn    int // the node S's containers are on; L's on the last node
		change func(h *schedtest.Harness) error
		// Want after the change: the capacity units are measured on, the
		// AM limit, what each pool holds and what its running tasks hold
		// (units), and each job's declared demand (units).
		capacity, amLimit     resource.Vector
		sdUsed, ldUsed        int64
		sdTasks, ldTasks      int64
		sDemand, lDemand, lAM int64
	}{
		{
			name: "a node as large joins: every count halves, the AM limit doubles", nodes: []resource.Vector{node},
			change:   func(h *schedtest.Harness) error { _, err := h.Core.AddNode(h.Now, "n1", node); return err },
			capacity: resource.New(200, 204800), amLimit: resource.New(20, 20480),
			sdUsed: unit(3, 200), ldUsed: unit(11, 200), sdTasks: unit(2, 200), ldTasks: unit(10, 200),
			sDemand: unit(6, 200), lDemand: unit(51, 200), lAM: unit(1, 200),
		},
		{
			name: "a node's capacity doubles: as a node joining", nodes: []resource.Vector{node},
			change: func(h *schedtest.Harness) error {
				return h.Core.SetNodeCapacity(h.Now, 0, resource.New(200, 204800))
			},
			capacity: resource.New(200, 204800), amLimit: resource.New(20, 20480),
			sdUsed: unit(3, 200), ldUsed: unit(11, 200), sdTasks: unit(2, 200), ldTasks: unit(10, 200),
			sDemand: unit(6, 200), lDemand: unit(51, 200), lAM: unit(1, 200),
		},
		{
			// Units are dominant shares: vcores still dominate a
			// <1 vcore, 1 GB> container, so nothing held moves.
			name: "memory only joins: units stay, the AM limit grows in memory", nodes: []resource.Vector{node},
			change: func(h *schedtest.Harness) error {
				_, err := h.Core.AddNode(h.Now, "mem", resource.New(0, 102400))
				return err
			},
			capacity: resource.New(100, 204800), amLimit: resource.New(10, 20480),
			sdUsed: unit(3, 100), ldUsed: unit(11, 100), sdTasks: unit(2, 100), ldTasks: unit(10, 100),
			sDemand: unit(6, 100), lDemand: unit(51, 100), lAM: unit(1, 100),
		},
		{
			// L's containers are lost with their node: the large pool
			// holds nothing, and what S holds is worth twice as much.
			name: "the node L runs on leaves", nodes: []resource.Vector{node, node}, sOn: 0,
			change:   func(h *schedtest.Harness) error { return h.Core.RemoveNode(h.Now, 1) },
			capacity: node, amLimit: resource.New(10, 10240),
			sdUsed: unit(3, 100), ldUsed: 0, sdTasks: unit(2, 100), ldTasks: 0,
			sDemand: unit(6, 100), lDemand: unit(51, 100), lAM: unit(1, 100),
		},
		{
			name: "a node is cordoned: the capacity stays, so does every count", nodes: []resource.Vector{node, node}, sOn: 0,
			change:   func(h *schedtest.Harness) error { return h.Core.SetNodeSchedulable(h.Now, 1, false) },
			capacity: resource.New(200, 204800), amLimit: resource.New(20, 20480),
			sdUsed: unit(3, 200), ldUsed: unit(11, 200), sdTasks: unit(2, 200), ldTasks: unit(10, 200),
			sDemand: unit(6, 200), lDemand: unit(51, 200), lAM: unit(1, 200),
		},
	}
	for _, variant := range []Config{Defaults, PlusDefaults} {
		for _, tt := range tests {
			t.Run(variant.Variant+"/"+tt.name, func(t *testing.T) {
				retuneMu.Lock()
				verifyRetune, retuneMismatch = true, nil
				retuneMu.Unlock()
				defer func() {
					retuneMu.Lock()
					verifyRetune = false
					retuneMu.Unlock()
				}()
				h := schedtest.New(t, schedtest.Config{Nodes: tt.nodes, Policy: func(v *sched.View) (sched.Policy, error) { return New(v, variant) }})
				one := resource.New(1, 1024)
				spec := func(key string, tasks int) sched.JobSpec {
					return sched.JobSpec{Key: key, Queue: "default", AM: one, Phases: []sched.PhaseSpec{{Tasks: tasks, Request: one, StartAfter: 1}}}
				}
				s, l := h.Submit(spec("S", 5)), h.Submit(spec("L", 50))
				lOn := len(tt.nodes) - 1
				h.Place(s, sched.AMPhase, tt.sOn)
				h.Place(l, sched.AMPhase, lOn)
				for range 2 {
					h.Place(s, 0, tt.sOn)
				}
				for range 10 {
					h.Place(l, 0, lOn)
				}
				p := h.Policy().(*Policy)
				if p.CategoryOf(s) != SD || p.CategoryOf(l) != LD {
					t.Fatalf("S is %v and L %v, want SD and LD", p.CategoryOf(s), p.CategoryOf(l))
				}
				h.Now = clock.Time(clock.Second)
				h.Core.Tick(h.Now)
				if err := tt.change(h); err != nil {
					t.Fatal(err)
				}
				if p.m.capacity != tt.capacity || p.amLimit != tt.amLimit {
					t.Errorf("measured on %v with AM limit %v, want %v and %v", p.m.capacity, p.amLimit, tt.capacity, tt.amLimit)
				}
				if p.pools[SD].used != tt.sdUsed || p.pools[LD].used != tt.ldUsed {
					t.Errorf("pools hold %d and %d units, want %d and %d", p.pools[SD].used, p.pools[LD].used, tt.sdUsed, tt.ldUsed)
				}
				if p.taskUnits != [2]int64{tt.sdTasks, tt.ldTasks} {
					t.Errorf("running tasks hold %v units, want [%d %d]", p.taskUnits, tt.sdTasks, tt.ldTasks)
				}
				if si, li := p.jobs[s.ID()], p.jobs[l.ID()]; si.demand != tt.sDemand || li.demand != tt.lDemand || li.am != tt.lAM {
					t.Errorf("declared demands %d and %d (L's AM %d) units, want %d and %d (%d)", si.demand, li.demand, li.am, tt.sDemand, tt.lDemand, tt.lAM)
				}
				// The limits are δ of the cluster in units: the same
				// units before and after, δ unchanged by the change.
				if sd, ld := p.limit(); sd+ld != Total {
					t.Errorf("pool limits %d + %d, want %d", sd, ld, Total)
				}
				h.Now = clock.Time(2 * clock.Second)
				h.Core.Tick(h.Now)
				retuneMu.Lock()
				err := retuneMismatch
				retuneMu.Unlock()
				if err != nil {
					t.Errorf("the re-tune after the change: %v", err)
				}
				if err := h.Core.Check(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestResize: when the units change (ClusterChanged), the release estimates
// re-measure the tasks they follow: a forecast made after every running
// task is resized from 10 to 25 units releases the same containers, worth
// 2.5 times the units, as the forecast before (asked for first, so that a
// cached forecast is not what answers).
func TestResize(t *testing.T) {
	ten := starts(1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10)
	six := ends(1, 20, 21, 22, 23, 24, 25)
	// The paper's estimator (Algorithms 1 and 2, TestPredict's cases): in
	// the release window, one of the phase's four running containers a
	// second.
	paper := []struct {
		name   string
		evs    []ev
		now, h float64
	}{
		{"in the release window", seq(ten, six), 25.5, 2},
		{"the horizon clipped at the window's end", seq(ten, six), 27, 10},
	}
	for _, tt := range paper {
		t.Run("paper/"+tt.name, func(t *testing.T) {
			e := feed(t, tt.evs, tt.now)
			n0, u0 := e.Predict(0, sec(tt.now), clock.Duration(sec(tt.h)))
			if n0 <= 0 {
				t.Fatalf("predicted %v containers before the resize: the case tests nothing", n0)
			}
			for id := range e.tasks {
				e.Resize(id, 25)
			}
			e.Resize(999, 25) // unknown: ignored
			n, u := e.Predict(0, sec(tt.now), clock.Duration(sec(tt.h)))
			if n != n0 || math.Abs(u-2.5*u0) > 1e-6 {
				t.Errorf("after the resize %v containers, %v units; want %v, %v", n, u, n0, 2.5*u0)
			}
		})
	}
	// The phase estimator: task 1 ran 10 s, tasks 2 and 3 end at 13 and 16.
	t.Run("phase", func(t *testing.T) {
		e := NewPhaseEstimator()
		e.Start(0, SD, 0, 1, sec(0), 10)
		e.Start(0, SD, 0, 2, sec(3), 10)
		e.Start(0, SD, 0, 3, sec(6), 10)
		e.Complete(1, sec(10))
		n0, u0 := e.Predict(0, sec(12), clock.Duration(sec(5)))
		if n0 != 2 || u0 != 20 {
			t.Fatalf("before the resize %v containers, %v units; want 2, 20", n0, u0)
		}
		e.Resize(2, 25)
		e.Resize(3, 25)
		e.Resize(1, 25) // completed: ignored
		if n, u := e.Predict(0, sec(12), clock.Duration(sec(5))); n != 2 || u != 50 {
			t.Errorf("after the resize %v containers, %v units; want 2, 50", n, u)
		}
	})
}
