package scenario

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

func genDRESS(t *testing.T, kind string, frac float64, seed uint64) *workload.Workload {
	t.Helper()
	s := DefaultDRESS
	s.Kind, s.SmallFrac, s.Seed = kind, frac, seed
	w, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// demandContainers is a job's AM plus its largest phase, in containers.
func demandContainers(j *workload.Job) int {
	n := 0
	for _, p := range j.Phases {
		n = max(n, p.Tasks)
	}
	if !j.AM.IsZero() {
		n++
	}
	return n
}

func TestDRESSSetup(t *testing.T) {
	tests := []struct {
		kind  string
		frac  float64
		small int
		types []string
	}{
		{DRESSSpark, 0.3, 6, DRESSTypes(DRESSSpark)},
		{DRESSMapReduce, 0.3, 6, DRESSTypes(DRESSMapReduce)},
		{DRESSMixed, 0.1, 2, DRESSTypes(DRESSMixed)},
		{DRESSMixed, 0.2, 4, DRESSTypes(DRESSMixed)},
		{DRESSMixed, 0.3, 6, DRESSTypes(DRESSMixed)},
		{DRESSMixed, 0.4, 8, DRESSTypes(DRESSMixed)},
	}
	for _, tt := range tests {
		for seed := uint64(1); seed <= 5; seed++ {
			w := genDRESS(t, tt.kind, tt.frac, seed)
			if got := w.Cluster.Capacity(); got != resource.New(100, 5*160*1024) || w.Cluster.NumNodes() != 5 {
				t.Fatalf("%s: cluster %v on %d nodes", tt.kind, got, w.Cluster.NumNodes())
			}
			if len(w.Jobs) != 20 {
				t.Fatalf("%s: %d jobs", tt.kind, len(w.Jobs))
			}
			small := 0
			for i := range w.Jobs {
				j := &w.Jobs[i]
				if j.Submit != clock.Time(i)*clock.Time(5*clock.Second) {
					t.Errorf("%s seed %d: job %d submitted at %v", tt.kind, seed, i, j.Submit)
				}
				if !slices.Contains(tt.types, j.Name) {
					t.Errorf("%s: job type %q not among %v", tt.kind, j.Name, tt.types)
				}
				// Small means fewer than 10 containers; large jobs are
				// well past the 10 % rule.
				switch d := demandContainers(j); {
				case d < 10:
					small++
				case d <= 10:
					t.Errorf("%s: job %s demands %d containers, on the boundary", tt.kind, j.ID, d)
				}
			}
			if small != tt.small {
				t.Errorf("%s --small-frac %v seed %d: %d small jobs, want %d", tt.kind, tt.frac, seed, small, tt.small)
			}
		}
	}
}

func TestDRESSDeterministic(t *testing.T) {
	a, b := genDRESS(t, DRESSMixed, 0.2, 7), genDRESS(t, DRESSMixed, 0.2, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different workloads")
	}
	if c := genDRESS(t, DRESSMixed, 0.2, 8); reflect.DeepEqual(a.Jobs, c.Jobs) {
		t.Fatal("a different seed gave the same workload")
	}
	// Both platforms appear in the mixed workload.
	var mr, spark bool
	for _, j := range a.Jobs {
		if strings.HasPrefix(j.Name, "spark-") {
			spark = true
		} else {
			mr = true
		}
	}
	if !mr || !spark {
		t.Errorf("mixed workload: MapReduce %v, Spark %v", mr, spark)
	}
}

// The task-level effects the paper's estimator is built around: heading
// tasks (an under-loaded last block runs short) and trailing tasks (a skewed
// partition runs 38 % longer than the rest of its phase).
func TestDRESSHeadingAndTrailingTasks(t *testing.T) {
	heading, trailing := 0, 0
	for seed := uint64(1); seed <= 5; seed++ {
		w := genDRESS(t, DRESSSpark, 0.3, seed)
		for _, j := range w.Jobs {
			for k, p := range j.Phases {
				ds := make([]float64, p.Tasks)
				for i := range ds {
					ds[i] = p.Duration(i).Seconds()
				}
				sorted := slices.Clone(ds)
				slices.Sort(sorted)
				median := sorted[len(sorted)/2]
				if k == 0 && p.Tasks >= 4 && sorted[0] < 0.75*median {
					heading++
				}
				if n := len(sorted); n >= 4 && math.Abs(sorted[n-1]-1.38*sorted[n-2]) < 0.002 {
					trailing++
				}
				for _, d := range ds {
					if d <= 0 || d > 120 {
						t.Fatalf("%s phase %d: task of %v s", j.ID, k, d)
					}
				}
			}
		}
	}
	if heading == 0 || trailing == 0 {
		t.Errorf("%d phases with a heading task and %d with a trailing task over 5 seeds; want some of each", heading, trailing)
	}
}

func TestDRESSErrors(t *testing.T) {
	for _, s := range []DRESS{
		{Kind: "hadoop", Nodes: 5, Jobs: 20, SmallFrac: 0.1},
		{Kind: DRESSMixed, Nodes: 0, Jobs: 20, SmallFrac: 0.1},
		{Kind: DRESSMixed, Nodes: 5, Jobs: 0, SmallFrac: 0.1},
		{Kind: DRESSMixed, Nodes: 5, Jobs: 20, SmallFrac: 1.5},
		{Kind: DRESSMixed, Nodes: 5, Jobs: 20, SmallFrac: math.NaN()},
		{Kind: DRESSMixed, Nodes: 5, Jobs: 20, SmallFrac: 0.1, Gap: -clock.Second},
	} {
		if _, err := s.Generate(); err == nil || !strings.HasPrefix(err.Error(), "dress: ") {
			t.Errorf("%+v: error %v", s, err)
		}
	}
}
