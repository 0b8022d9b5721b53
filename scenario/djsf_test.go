package scenario

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

func TestDJSFGoogleDeterministic(t *testing.T) {
	g := DefaultDJSFGoogle
	g.Jobs = 200
	var outs [3]bytes.Buffer
	for i := range outs {
		if i == 2 {
			g.Seed = 2
		}
		w, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		if err := workload.Write(&outs[i], w, workload.JSON); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
		t.Error("the same seed gave two workloads")
	}
	if bytes.Equal(outs[0].Bytes(), outs[2].Bytes()) {
		t.Error("another seed gave the same workload")
	}
}

func TestDJSFGoogleErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(g *DJSFGoogle)
		want string
	}{
		{"no nodes", func(g *DJSFGoogle) { g.Nodes = 0 }, "--nodes"},
		{"no jobs", func(g *DJSFGoogle) { g.Jobs = -1 }, "--jobs"},
		{"zero load", func(g *DJSFGoogle) { g.Load = 0 }, "--load"},
		{"NaN load", func(g *DJSFGoogle) { g.Load = math.NaN() }, "--load"},
		{"no disk", func(g *DJSFGoogle) { g.NodeDisk = 0 }, "disk"},
		{"nodes too small", func(g *DJSFGoogle) { g.NodeVCores = 4 }, "cannot hold"},
	}
	for _, tt := range tests {
		g := DefaultDJSFGoogle
		tt.edit(&g)
		if _, err := g.Generate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming %q", tt.name, err, tt.want)
		}
	}
}

// The generated workload has the documented shape. The bounds on the
// fractions are wide: they check the model, not one draw.
func TestDJSFGoogleModel(t *testing.T) {
	w, err := DefaultDJSFGoogle.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1000 || w.Cluster.NumNodes() != 100 || w.Cluster.Ideal {
		t.Fatalf("%d jobs on %d nodes", len(w.Jobs), w.Cluster.NumNodes())
	}
	single, multiPhase, wide := 0, 0, 0
	last := clock.Time(-1)
	for _, j := range w.Jobs {
		if !j.AM.IsZero() || j.Estimate != 0 {
			t.Fatalf("%s: AM %v, estimate %v; want neither by default", j.ID, j.AM, j.Estimate)
		}
		if j.Submit < last {
			t.Fatalf("%s submitted before the previous job", j.ID)
		}
		last = j.Submit
		if j.Phases[0].Tasks == 1 {
			single++
		}
		if len(j.Phases) > 1 {
			multiPhase++
		}
		if len(j.Phases) > 3 || j.Phases[0].Tasks > gTasksMax {
			t.Fatalf("%s: %d phases, %d tasks", j.ID, len(j.Phases), j.Phases[0].Tasks)
		}
		if j.Phases[0].Tasks > 100 {
			wide++
		}
		for _, p := range j.Phases {
			r := p.Request
			if r[resource.VCores] < 100 || r[resource.VCores] > 8000 || r[resource.Memory] < 128 || r[resource.Memory] > 32768 || r[resource.Disk] < 16 {
				t.Fatalf("%s: request %v outside the model", j.ID, r)
			}
			for i := range p.Tasks {
				if d := p.Duration(i); d <= 0 || d > clock.Duration(gDurMax)*clock.Second {
					t.Fatalf("%s: task duration %v", j.ID, d)
				}
			}
		}
	}
	if w.Jobs[0].Submit != 0 {
		t.Errorf("first submission at %v", w.Jobs[0].Submit)
	}
	// Half the jobs have one task (per phase).
	if single < 450 || single > 550 {
		t.Errorf("%d single-task jobs of 1000", single)
	}
	if multiPhase < 140 || multiPhase > 260 {
		t.Errorf("%d multi-phase jobs of 1000", multiPhase)
	}
	if wide == 0 {
		t.Error("no job wider than 100 tasks: the tail is missing")
	}
	g := DefaultDJSFGoogle
	g.AM, g.Jobs = true, 5
	w, err = g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if w.Jobs[0].AM != resource.New(1, 1024) {
		t.Errorf("--am gave %v", w.Jobs[0].AM)
	}
}

func TestArrivalWindow(t *testing.T) {
	one := func(work, peak float64) offer {
		var o offer
		o.work[resource.VCores], o.peak[resource.VCores] = work, peak
		return o
	}
	capacity := resource.Vector{10, 0, 0, 0}
	tests := []struct {
		name   string
		offers []offer
		load   float64
		want   float64
	}{
		// One job of 50 unit-seconds that could hold the whole cluster:
		// all its work counts, 50 / 10 = 5 s.
		{"all work counts", []offer{one(50, 100)}, 1, 5},
		// A (100, peak 10) and B (100, peak 1) against 10 units: for W in
		// (10, 100], A offers 100 / W and B its peak 1; 100/W + 1 = 10
		// at W = 100/9.
		{"a job offers at most its peak", []offer{one(100, 10), one(100, 1)}, 1, 100.0 / 9},
		// Twice the load halves the window.
		{"load", []offer{one(50, 100)}, 2, 2.5},
		// Peaks that add up to less than the load cannot fill it: all at
		// once.
		{"cannot congest", []offer{one(100, 2), one(100, 3)}, 1, 0},
	}
	for _, tt := range tests {
		if got := arrivalWindow(tt.offers, capacity, tt.load); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("%s: window %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestJobOffer(t *testing.T) {
	capacity := resource.New(10, 10240)
	j := workload.Job{Phases: []workload.Phase{
		{Tasks: 4, Request: resource.New(1, 512), Durations: []clock.Duration{10 * clock.Second}},
		{Tasks: 20, Request: resource.New(1, 512), Durations: []clock.Duration{1 * clock.Second}},
	}}
	o := jobOffer(&j, capacity)
	// Work: 4 × 10 s + 20 × 1 s = 60 vcore-seconds; peak: 20 vcores, capped
	// at the cluster's 10.
	if o.work[resource.VCores] != 60*1000 || o.peak[resource.VCores] != 10*1000 {
		t.Errorf("work %v, peak %v", o.work[resource.VCores], o.peak[resource.VCores])
	}
	if o.work[resource.Memory] != 60*512 || o.peak[resource.Memory] != 20*512 {
		t.Errorf("memory: work %v, peak %v", o.work[resource.Memory], o.peak[resource.Memory])
	}
}
