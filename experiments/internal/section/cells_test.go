package section

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

func tinyWorkload(t *testing.T) *workload.Workload {
	t.Helper()
	w, err := workload.Load("../../../examples/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// figs is what the toy experiment keeps of a run.
type figs struct {
	Makespan float64  `json:"makespan"`
	JCT      *float64 `json:"jct"`
	Done     int      `json:"done"`
}

// toy is an experiment in two calls of Simulate (policies, then seeds),
// with a reduction between them and after, as the real ones have; its
// section names every figure, so any cell kept wrong changes it.
func toy(w *workload.Workload) func(cfg Config) (string, error) {
	keep := func(_ int, o *runner.Outcome) (figs, error) {
		return figs{Makespan: o.Summary.MakespanS, JCT: o.Summary.JCTAvgS, Done: o.Summary.JobsCompleted}, nil
	}
	return func(cfg Config) (string, error) {
		var a []runner.Spec
		for _, p := range []string{"fifo", "fair", "drf"} {
			a = append(a, runner.Spec{Workload: w, WorkloadName: "tiny", Policy: p, Seed: 1})
		}
		first, err := Simulate(cfg, a, keep, nil)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		if !cfg.Partial() {
			for i, f := range first {
				fmt.Fprintf(&b, "%s %v %v %d\n", a[i].Policy, f.Makespan, Deref(f.JCT), f.Done)
			}
		}
		var c []runner.Spec
		for s := uint64(1); s <= uint64(cfg.Seeds); s++ {
			c = append(c, runner.Spec{Workload: w, WorkloadName: "tiny", Policy: "sjf", Seed: s,
				Estimates: sim.Estimates{Source: sim.EstimatesOracle, Error: 0.5}})
		}
		second, err := Simulate(cfg, c, keep, nil)
		if err != nil || cfg.Partial() {
			return "", err
		}
		for i, f := range second {
			fmt.Fprintf(&b, "seed %d %v %v\n", c[i].Seed, f.Makespan, Deref(f.JCT))
		}
		return b.String(), nil
	}
}

// Shares of the cells, their kept figures replayed, write what one run
// writes, for N of 1, fewer than the cells, one that does not divide them
// and more than the cells; every cell runs in exactly one share.
func TestSharesReplayedAreTheWholeRun(t *testing.T) {
	run := toy(tinyWorkload(t))
	cfg := Config{Seeds: 3, Parallel: 2, Log: io.Discard}
	whole, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(whole, "\n") != 6 {
		t.Fatalf("the whole run wrote:\n%s", whole)
	}
	const cells = 6
	for _, n := range []int{1, 2, 4, cells + 3} {
		kept := map[int]json.RawMessage{}
		var keys []string
		for i := range n {
			c := Share(func(k int) bool { return k%n == i })
			sc := cfg
			sc.Cells = c
			body, err := run(sc)
			if err != nil {
				t.Fatalf("N=%d shard %d: %v", n, i, err)
			}
			if body != "" {
				t.Errorf("N=%d shard %d wrote a section from a share of the cells:\n%s", n, i, body)
			}
			if keys == nil {
				keys = c.Keys()
			} else if !reflect.DeepEqual(keys, c.Keys()) {
				t.Fatalf("N=%d: shard %d met other cells: %v, shard 0 %v", n, i, c.Keys(), keys)
			}
			for k, raw := range c.Kept() {
				if k%n != i {
					t.Errorf("N=%d: shard %d ran cell %d", n, i, k)
				}
				if _, dup := kept[k]; dup {
					t.Errorf("N=%d: cell %d ran twice", n, k)
				}
				kept[k] = raw
			}
		}
		if len(keys) != cells || len(kept) != cells {
			t.Fatalf("N=%d: %d cells met, %d kept; want %d", n, len(keys), len(kept), cells)
		}
		rc := cfg
		rc.Cells = Replay(kept)
		got, err := run(rc)
		if err != nil {
			t.Fatal(err)
		}
		if got != whole {
			t.Errorf("N=%d: replayed\n%s\nwhole run\n%s", n, got, whole)
		}
		if rc.Cells.Unused() != 0 || !reflect.DeepEqual(rc.Cells.Keys(), keys) {
			t.Errorf("N=%d: the replay met %v, %d kept cells unused", n, rc.Cells.Keys(), rc.Cells.Unused())
		}
	}
}

func TestReplayErrors(t *testing.T) {
	run := toy(tinyWorkload(t))
	for _, tc := range []struct {
		name string
		kept map[int]json.RawMessage
		want string
	}{
		{"none kept", map[int]json.RawMessage{}, `cell 0 (workload="tiny" policy=fifo seed=1): no shard kept its figures`},
		{"not JSON of the figures", map[int]json.RawMessage{0: json.RawMessage(`"x"`)}, "cell 0 (workload=\"tiny\" policy=fifo seed=1): json"},
	} {
		_, err := run(Config{Seeds: 1, Log: io.Discard, Cells: Replay(tc.kept)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Figures that do not survive JSON fail every run, not only a sharded one,
// so that no section can differ between the two.
func TestKeepMustSurviveJSON(t *testing.T) {
	w := tinyWorkload(t)
	_, err := Simulate(Config{Log: io.Discard}, []runner.Spec{{Workload: w, WorkloadName: "tiny", Policy: "fifo", Seed: 1}},
		func(int, *runner.Outcome) (float64, error) { return math.NaN(), nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "keep") {
		t.Errorf("a NaN kept: %v", err)
	}
}

func TestCellKey(t *testing.T) {
	for _, tc := range []struct {
		sp   runner.Spec
		want string
	}{
		{runner.Spec{WorkloadName: "w", Policy: "fifo", Seed: 2}, `workload="w" policy=fifo seed=2`},
		{runner.Spec{WorkloadName: "w x", Policy: "fair", Admission: "static:3", Seed: 1}, `workload="w x" policy=fair admission=static:3 seed=1`},
		{runner.Spec{Policy: "sjf", Seed: 1, Estimates: sim.Estimates{Source: sim.EstimatesOracle, Error: 0.5}}, `workload="" policy=sjf estimates=oracle~0.5 seed=1`},
		{runner.Spec{Policy: "ra", Seed: 1, ForecastError: 0.2, Estimates: sim.Estimates{Source: sim.EstimatesHistory}}, `workload="" policy=ra estimates=history forecast-error=0.2 seed=1`},
	} {
		if got := CellKey(tc.sp); got != tc.want {
			t.Errorf("CellKey = %s, want %s", got, tc.want)
		}
	}
}
