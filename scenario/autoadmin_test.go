package scenario

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

func secs(ds ...float64) []clock.Duration {
	out := make([]clock.Duration, len(ds))
	for i, d := range ds {
		out[i] = clock.Duration(d * float64(clock.Second))
	}
	return out
}

// The model's phases, worked out from AutoAdminModel: 3 s of start-up plus
// the data at 10 MB/s, one map per 128 MB.
func TestMapReduceJob(t *testing.T) {
	cases := []struct {
		bench   string
		inputMB int
		maps    []clock.Duration
		reduce  clock.Duration
	}{
		{"terasort", 100, secs(13), 13 * clock.Second},
		{"terasort", 128, secs(15.8), 15800 * clock.Millisecond},
		{"terasort", 400, secs(15.8, 15.8, 15.8, 4.6), 43 * clock.Second},
		{"wordcount", 800, secs(15.8, 15.8, 15.8, 15.8, 15.8, 15.8, 6.2), 3 * clock.Second},
		{"wordmean", 200, secs(15.8, 10.2), 3 * clock.Second},
		{"pi", 0, secs(3, 3, 3, 3, 3, 3, 3, 3, 3, 3), 3 * clock.Second},
	}
	for _, c := range cases {
		j := MapReduceJob("x", c.bench, c.inputMB, 2, 3, 4)
		m, r := j.Phases[0], j.Phases[1]
		var got []clock.Duration
		for i := range m.Tasks {
			got = append(got, m.Duration(i))
		}
		if !reflect.DeepEqual(got, c.maps) || r.Tasks != 1 || r.Duration(0) != c.reduce {
			t.Errorf("%s %d MB: maps %v, %d reduces of %v; want maps %v, 1 reduce of %v", c.bench, c.inputMB, got, r.Tasks, r.Duration(0), c.maps, c.reduce)
		}
		if j.AM != resource.New(2, 1024) || m.Request != resource.New(3, 1024) || r.Request != resource.New(4, 1024) || r.StartAfter != 1 || j.Name != c.bench {
			t.Errorf("%s: sizes AM %v, map %v, reduce %v, start_after %v", c.bench, j.AM, m.Request, r.Request, r.StartAfter)
		}
	}
}

func TestAutoAdminHomogeneous(t *testing.T) {
	w, err := AutoAdminHomogeneous{AM: 3, Task: 2, Jobs: 72, InputMB: 100}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 72 || w.Cluster.NumNodes() != 8 || w.Cluster.Capacity() != resource.New(64, 98304) || w.Cluster.Ideal {
		t.Fatalf("%d jobs on %d nodes, capacity %v", len(w.Jobs), w.Cluster.NumNodes(), w.Cluster.Capacity())
	}
	if w.Cluster.LaunchDelay != workload.DefaultLaunchDelay || w.Cluster.NodeHeartbeat != workload.DefaultNodeHeartbeat {
		t.Errorf("timing %v, %v", w.Cluster.LaunchDelay, w.Cluster.NodeHeartbeat)
	}
	for _, j := range w.Jobs {
		if j.Submit != 0 || j.AM != resource.New(3, 1024) || j.Phases[0].Request != resource.New(2, 1024) || j.Phases[0].Tasks != 1 || j.Phases[1].Tasks != 1 {
			t.Fatalf("job %+v", j)
		}
	}
	if w.Jobs[0].ID != "terasort-01" || w.Jobs[71].ID != "terasort-72" {
		t.Errorf("ids %s, %s", w.Jobs[0].ID, w.Jobs[71].ID)
	}
	again, _ := AutoAdminHomogeneous{AM: 3, Task: 2, Jobs: 72, InputMB: 100}.Generate()
	if !reflect.DeepEqual(w, again) {
		t.Error("two generations differ")
	}
}

// Table 4.2, row by row: job counts and sizes, submitted in turn.
func TestAutoAdminHetero(t *testing.T) {
	wantJobs := []int{60, 60, 60, 60, 60, 60}
	for e := 1; e <= 6; e++ {
		w, err := AutoAdminHetero{Exp: e}.Generate()
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Jobs) != wantJobs[e-1] {
			t.Errorf("exp %d: %d jobs, want %d", e, len(w.Jobs), wantJobs[e-1])
		}
		rows := HeteroExperiments[e-1]
		count := map[string]int{}
		for i, j := range w.Jobs {
			count[j.Name]++
			if i < len(rows) && j.Name != rows[i].Bench {
				t.Errorf("exp %d: job %d is %s, want %s (benchmarks in turn)", e, i, j.Name, rows[i].Bench)
			}
		}
		for _, r := range rows {
			if count[r.Bench] != r.Jobs {
				t.Errorf("exp %d: %d %s jobs, want %d", e, count[r.Bench], r.Bench, r.Jobs)
			}
		}
	}
	// Exp 2's terasort: AM 3, maps 4, reduce 2 vcores, 400 MB = 4 maps.
	w, _ := AutoAdminHetero{Exp: 2}.Generate()
	j := w.Jobs[0]
	if j.Name != "terasort" || j.AM != resource.New(3, 1024) || j.Phases[0].Request != resource.New(4, 1024) || j.Phases[1].Request != resource.New(2, 1024) || j.Phases[0].Tasks != 4 {
		t.Errorf("exp 2 terasort: %+v", j)
	}
}

func TestAutoAdminErrors(t *testing.T) {
	cases := []struct {
		gen  func() (*workload.Workload, error)
		want string
	}{
		{AutoAdminHomogeneous{AM: 0, Task: 1, Jobs: 1, InputMB: 100}.Generate, "--am"},
		{AutoAdminHomogeneous{AM: 1, Task: 9, Jobs: 1, InputMB: 100}.Generate, "--task"},
		{AutoAdminHomogeneous{AM: 1, Task: 1, Jobs: 0, InputMB: 100}.Generate, "--jobs"},
		{AutoAdminHomogeneous{AM: 1, Task: 1, Jobs: 1, InputMB: 0}.Generate, "--input-mb"},
		{AutoAdminHetero{Exp: 0}.Generate, "--exp"},
		{AutoAdminHetero{Exp: 7}.Generate, "--exp"},
		{AutoAdminHomogeneous{AM: 1, Task: 1, Jobs: 1, InputMB: 100, Model: Model{SlowStart: 1.5}}.Generate, "--slowstart"},
		{AutoAdminHomogeneous{AM: 1, Task: 1, Jobs: 1, InputMB: 100, Model: Model{Gap: -1}}.Generate, "--gap"},
		{AutoAdminHetero{Exp: 1, Model: Model{TeragenFiles: -1}}.Generate, "--teragen-files"},
		{func() (*workload.Workload, error) { _, err := ModelNamed("hadoop"); return nil, err }, "--model"},
	}
	for _, c := range cases {
		if _, err := c.gen(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one naming %s", err, c.want)
		}
	}
}

// The paper model, worked by hand: teragen's 2 files of 50 MB are 2 maps of
// 3 s + 5 s; the reduce shuffles all 100 MB (13 s) and is asked for at
// slow-start 0.05, i.e. once the first map is done; jobs come 1 s apart. At
// 400 MB each file is 200 MiB, split 128 + 72: maps of 15.8 and 10.2 s twice.
// Other benchmarks read one file, as in the burst model.
func TestPaperModel(t *testing.T) {
	w, err := AutoAdminHomogeneous{AM: 2, Task: 3, Jobs: 3, InputMB: 100, Model: PaperModel}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range w.Jobs {
		m, r := j.Phases[0], j.Phases[1]
		if j.Submit != clock.Time(i)*clock.Time(clock.Second) || m.Tasks != 2 || m.Duration(0) != 8*clock.Second || m.Duration(1) != 8*clock.Second ||
			r.Tasks != 1 || r.Duration(0) != 13*clock.Second || r.StartAfter != 0.05 || j.AM != resource.New(2, 1024) || m.Request != resource.New(3, 1024) {
			t.Errorf("job %d: submit %v, %d maps of %v, reduce %v at %v", i, j.Submit, m.Tasks, m.Durations, r.Durations, r.StartAfter)
		}
	}
	cases := []struct {
		bench   string
		inputMB int
		maps    []clock.Duration
	}{
		{"terasort", 400, secs(15.8, 10.2, 15.8, 10.2)},
		{"terasort", 101, secs(8.1, 8)},
		{"wordcount", 400, secs(15.8, 15.8, 15.8, 4.6)},
		{"pi", 0, secs(3, 3, 3, 3, 3, 3, 3, 3, 3, 3)},
	}
	for _, c := range cases {
		j := PaperModel.Job("x", c.bench, c.inputMB, 1, 1, 1)
		var got []clock.Duration
		for i := range j.Phases[0].Tasks {
			got = append(got, j.Phases[0].Duration(i))
		}
		if !reflect.DeepEqual(got, c.maps) || j.Phases[1].StartAfter != 0.05 {
			t.Errorf("%s %d MB: maps %v, start_after %v; want maps %v, 0.05", c.bench, c.inputMB, got, j.Phases[1].StartAfter, c.maps)
		}
	}
	// The zero Model is the burst model.
	b, _ := AutoAdminHomogeneous{AM: 2, Task: 3, Jobs: 3, InputMB: 100}.Generate()
	c, _ := AutoAdminHomogeneous{AM: 2, Task: 3, Jobs: 3, InputMB: 100, Model: BurstModel}.Generate()
	if !reflect.DeepEqual(b, c) || b.Jobs[2].Submit != 0 || b.Jobs[0].Phases[0].Tasks != 1 || b.Jobs[0].Phases[1].StartAfter != 1 {
		t.Errorf("zero model %+v differs from the burst model", b.Jobs[2])
	}
	if DefaultAutoAdminHomogeneous.Model != PaperModel {
		t.Error("the generator's default is not the paper model")
	}
}
