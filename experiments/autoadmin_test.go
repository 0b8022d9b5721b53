package experiments

import (
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/scenario"
)

func TestParseReserveRange(t *testing.T) {
	cases := []struct {
		in   string
		want []float64
		err  string
	}{
		{"0:64:16", []float64{0, 16, 32, 48, 64}, ""},
		{"10:12:1", []float64{10, 11, 12}, ""},
		{"0:1:0.3", []float64{0, 0.3, 0.6, 0.9}, ""},
		{"0:0.3:0.1", []float64{0, 0.1, 0.2, 0.3}, ""},
		{"5:5:1", []float64{5}, ""},
		{"5:4:1", nil, "TO must not be below FROM"},
		{"-1:4:1", nil, "FROM must not be negative"},
		{"0:4:0", nil, "STEP must be positive"},
		{"0:4", nil, "FROM:TO:STEP"},
		{"0:4:1:2", nil, "FROM:TO:STEP"},
		{"0:x:1", nil, `"x" is not a number`},
		{"0:1e9:1", nil, "more than 100000 points"},
	}
	for _, c := range cases {
		got, err := ParseReserveRange(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// The sweep's bookkeeping on a burst of 24 AMs of 2 vcores and tasks of 2
// on 64 vcores: static:64 admits nothing and deadlocks, the best point is
// the least mean makespan of the others, and the Perf Score follows Eq. 4.1
// from the means and, per seed, from that seed's best.
func TestStaticSweep(t *testing.T) {
	w, err := scenario.AutoAdminHomogeneous{AM: 2, Task: 2, Jobs: 24, InputMB: 100}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	res, err := StaticSweep(StaticSweepSpec{Workload: w, WorkloadName: "t", Policy: "fair:max_am_share=-1",
		Reserves: []float64{16, 32, 64}, With: []string{"autoadmin"}, Seeds: []uint64{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 3 || len(res.With) != 1 || res.Points[1].Admission != "static:32" {
		t.Fatalf("points %+v", res.Points)
	}
	last := &res.Points[2]
	if !last.Deadlocked() || last.DeadlockedSeeds != 2 || last.JobsCompleted != 0 {
		t.Errorf("static:64: %+v", last)
	}
	best := 0
	if res.Points[1].Makespan() < res.Points[0].Makespan() {
		best = 1
	}
	if res.Best != best {
		t.Errorf("best %d, want %d", res.Best, best)
	}
	a := &res.With[0]
	m, mmin := a.Makespan(), res.Points[best].Makespan()
	if got := res.PerfScore(a); math.Abs(got-(1-(m-mmin)/mmin)*100) > 1e-9 {
		t.Errorf("Perf Score %v", got)
	}
	for i := range 2 {
		smin := math.Min(res.Points[0].Makespans[i], res.Points[1].Makespans[i])
		if got := res.PerfScoreSeed(a, i); math.Abs(got-(1-(a.Makespans[i]-smin)/smin)*100) > 1e-9 {
			t.Errorf("seed %d: Perf Score %v", i, got)
		}
	}
	if math.Abs(a.Makespan()-(a.Makespans[0]+a.Makespans[1])/2) > 1e-9 || a.Report == nil {
		t.Errorf("autoadmin point %+v", a)
	}
	if !math.IsNaN(res.PerfScore(last)) {
		t.Error("a deadlocked point has a Perf Score")
	}
	// The same sweep in another order of parallelism gives the same
	// numbers.
	again, err := StaticSweep(StaticSweepSpec{Workload: w, WorkloadName: "t", Policy: "fair:max_am_share=-1",
		Reserves: []float64{16, 32, 64}, With: []string{"autoadmin"}, Seeds: []uint64{1, 2}, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Points {
		if !reflect.DeepEqual(res.Points[i].Makespans, again.Points[i].Makespans) {
			t.Errorf("point %d differs with one worker", i)
		}
	}
	if _, err := StaticSweep(StaticSweepSpec{Workload: w, Policy: "fair", Reserves: []float64{1}, With: []string{"bogus"}, Seeds: []uint64{1}}); err == nil {
		t.Error("an unknown admission controller was accepted")
	}
}

// The report on a reduced plan has every part, and its tables agree with
// the sweep they come from.
func TestAutoAdminReport(t *testing.T) {
	plan := aaPlan{Homogeneous: [][2]int64{{1, 4}}, Hetero: []int{5}, Reserves: []float64{0, 24, 48, 56}, Jobs: 40, Burst: [2]int64{2, 2}}
	md, err := runAutoAdmin(Config{Seeds: 1, Log: io.Discard}, plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"experiments autoadmin", "### RRP's prediction", "| 4 | 3 | 29 | 31 | 31 | 28 | 28 |",
		"### Homogeneous workloads", "| 1 | 4 | 48 (48) |", "### Heterogeneous workloads", "| 5 | ",
		"### What each change buys", "`autoadmin+`", "### The deadlock", "| `fair:max_am_share=-1` | none | 1/1 seeds | 0/40 |",
		"R_R over time",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
