package scenario

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

func TestDRESSStream(t *testing.T) {
	w, err := DefaultDRESSStream.Generate()
	if err != nil {
		t.Fatal(err)
	}
	c := resource.New(1, 2048)
	small, large := 0, 0
	var last clock.Time
	for i, j := range w.Jobs {
		if j.Submit < last {
			t.Fatalf("job %d (%s) submitted at %v before the previous one at %v", i, j.ID, j.Submit, last)
		}
		last = j.Submit
		if j.AM != c || len(j.Phases) != 2 || j.Phases[0].Request != c || j.Phases[1].Request != c {
			t.Fatalf("%s: containers %v, phases %d; want every container %v and two phases", j.ID, j.AM, len(j.Phases), c)
		}
		m, r := j.Phases[0], j.Phases[1]
		switch {
		case m.Tasks == 4 && r.Tasks == 1 && m.Duration(0) == 12*clock.Second && r.Duration(0) == 6*clock.Second:
			small++
			if clock.Duration(j.Submit) > 900*clock.Second {
				t.Errorf("%s submitted at %v, after the 900 s span", j.ID, j.Submit)
			}
		case m.Tasks == 60 && r.Tasks == 10 && m.Duration(0) == 40*clock.Second && r.Duration(0) == 30*clock.Second:
			large++
		default:
			t.Errorf("%s: unexpected shape %d x %v, %d x %v", j.ID, m.Tasks, m.Duration(0), r.Tasks, r.Duration(0))
		}
	}
	// About one small job per second over 900 s: a Poisson count of mean
	// 901 (the first at 0) is within 800-1000 with overwhelming odds.
	if large != 4 || small < 800 || small > 1000 {
		t.Errorf("%d small and %d large jobs; want about 900 and 4", small, large)
	}
	if n := len(w.Cluster.Nodes); n != 1 || w.Cluster.Nodes[0].Count != 5 || w.Cluster.Nodes[0].Capacity != resource.New(20, 40960) {
		t.Errorf("cluster %+v; want 5 nodes of <20 vcores, 40 GB>", w.Cluster.Nodes)
	}
	for _, bad := range []DRESSStream{{Nodes: 0, NodeVCores: 20, NodeMemory: 40960, Gap: clock.Second},
		{Nodes: 5, NodeVCores: 20, NodeMemory: 40960, Gap: 0}, {Nodes: 5, NodeVCores: 20, NodeMemory: 1024, Gap: clock.Second}} {
		if _, err := bad.Generate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// The knobs beyond the paper leave its setups unchanged and do what they say.
func TestDRESSKnobs(t *testing.T) {
	base := DefaultDRESS
	base.Kind, base.SmallFrac, base.Seed = DRESSMixed, 0.3, 2
	plain, err := base.Generate()
	if err != nil {
		t.Fatal(err)
	}
	med := base
	med.MediumFrac = 1
	wm, err := med.Generate()
	if err != nil {
		t.Fatal(err)
	}
	het := base
	het.Hetero = true
	wh, err := het.Generate()
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[int64]bool{}
	if len(plain.Jobs) != len(wm.Jobs) || len(plain.Jobs) != len(wh.Jobs) {
		t.Fatal("the knobs changed the number of jobs")
	}
	for i := range plain.Jobs {
		p, m, h := &plain.Jobs[i], &wm.Jobs[i], &wh.Jobs[i]
		// --hetero draws only the container size from its own stream;
		// --medium-frac draws different inputs, so later job types move.
		if p.Name != h.Name || p.Submit != h.Submit || len(p.Phases) != len(h.Phases) || p.Phases[0].Tasks != h.Phases[0].Tasks {
			t.Fatalf("job %d: --hetero changed more than the container size", i)
		}
		pd, md := demandContainers(p), demandContainers(m)
		if pd < 10 != (md < 10) {
			t.Errorf("job %d: small in one workload (%d containers), not in the other (%d)", i, pd, md)
		}
		if pd < 10 {
			continue
		}
		if md > 50 || md < 13 {
			t.Errorf("job %d: medium job needs %d containers; want 13-50 (1.5-6 GB in 128 MB blocks, plus the AM)", i, md)
		}
		r := h.Phases[0].Request
		if r[resource.Memory] != 2048*r[resource.VCores]/resource.MilliPerVCore {
			t.Errorf("job %d: hetero container %v is not k x <1 vcore, 2 GB>", i, r)
		}
		sizes[r[resource.VCores]] = true
	}
	if len(sizes) < 2 {
		t.Errorf("hetero: container sizes %v; want several", sizes)
	}
}
