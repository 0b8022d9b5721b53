package tetris

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

const s = clock.Second

func job(key string, est clock.Duration, tasks int, req resource.Vector) sched.JobSpec {
	return sched.JobSpec{Key: key, Queue: "default", Estimate: est,
		Phases: []sched.PhaseSpec{{Tasks: tasks, Request: req, StartAfter: 1}}}
}

func newPolicy(cfg Config) func(v *sched.View) (sched.Policy, error) {
	return func(v *sched.View) (sched.Policy, error) { return New(v, cfg), nil }
}

func TestAlignment(t *testing.T) {
	capacity := resource.New(8, 32768)
	tests := []struct {
		req, free resource.Vector
		want      float64
	}{
		{resource.New(2, 2048), resource.New(7, 8192), 2.0/8*7/8 + 2.0/32*8/32},
		{resource.New(1, 6144), resource.New(7, 8192), 1.0/8*7/8 + 6.0/32*8/32},
		{resource.New(8, 32768), resource.New(8, 32768), 2},
		{resource.New(1, 1024), resource.Vector{}, 0},
	}
	for _, tt := range tests {
		if got := Alignment(tt.req, tt.free, capacity); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Alignment(%v, %v) = %v, want %v", tt.req, tt.free, got, tt.want)
		}
	}
}

func TestChoose(t *testing.T) {
	asks := make([]sched.Ask, 3)
	r := func(share float64, id int) rank { return rank{share, sched.JobID(id)} }
	tests := []struct {
		name  string
		cands []candidate
		m     float64
		want  int
	}{
		// ā = 0.5, W̄ = 2, ε = 0.25: scores 0.6 − 0.75 = −0.15 and
		// 0.4 − 0.25 = 0.15: less remaining work wins over alignment.
		{"remaining work outweighs alignment", []candidate{{&asks[0], 0.6, 3, r(0, 0)}, {&asks[1], 0.4, 1, r(0, 1)}}, 1, 1},
		// m = 0 ignores remaining work.
		{"m = 0: packing only", []candidate{{&asks[0], 0.6, 3, r(0, 0)}, {&asks[1], 0.4, 1, r(0, 1)}}, 0, 0},
		// ε = 0.5/2: 0.9 − 0.75 = 0.15 beats 0.1 − 0.25 = −0.15.
		{"alignment outweighs remaining work", []candidate{{&asks[0], 0.9, 3, r(0, 0)}, {&asks[1], 0.1, 1, r(0, 1)}}, 1, 0},
		{"ties to the job furthest below its share", []candidate{{&asks[0], 0.5, 1, r(0.2, 0)}, {&asks[1], 0.5, 1, r(0.1, 2)}, {&asks[2], 0.5, 1, r(0.1, 1)}}, 1, 2},
		{"ties within a job: its earlier ask", []candidate{{&asks[0], 0.5, 1, r(0, 0)}, {&asks[1], 0.5, 1, r(0, 0)}}, 1, 0},
		{"no remaining work known: alignment", []candidate{{&asks[0], 0.2, 0, r(0, 0)}, {&asks[1], 0.3, 0, r(0, 1)}}, 1, 1},
	}
	for _, tt := range tests {
		if got := choose(tt.cands, tt.m); got != &asks[tt.want] {
			t.Errorf("%s: chose another candidate", tt.name)
		}
	}
	if choose(nil, 1) != nil {
		t.Error("no candidates, no choice")
	}
}

func TestSelectRank(t *testing.T) {
	base := []rank{{0.5, 3}, {0.1, 7}, {0.5, 1}, {0, 9}, {0.3, 2}, {0.1, 4}, {0.9, 0}}
	// Sorted: (0,9) (0.1,4) (0.1,7) (0.3,2) (0.5,1) (0.5,3) (0.9,0).
	want := []rank{{0, 9}, {0.1, 4}, {0.1, 7}, {0.3, 2}, {0.5, 1}, {0.5, 3}, {0.9, 0}}
	for k := range want {
		rs := append([]rank(nil), base...)
		if got := selectRank(rs, k); got != want[k] {
			t.Errorf("k=%d: %v, want %v", k, got, want[k])
		}
	}
	if got := selectRank([]rank{{1, 1}}, 0); got != (rank{1, 1}) {
		t.Errorf("single: %v", got)
	}
	same := []rank{{0.2, 1}, {0.2, 1}, {0.2, 1}}
	if got := selectRank(same, 1); got != (rank{0.2, 1}) {
		t.Errorf("equal ranks: %v", got)
	}
}

// Two nodes of <8 vcores, 32 GB>. Fillers leave node 0 with <7, 8 GB> free
// (CPU to spare) and node 1 with <3, 31 GB> (memory to spare). Job cpu asks
// <2, 2 GB> and job mem <1, 6 GB>; both are one task with the same estimate
// and the same size relative to the cluster (2/16 + 2/64 = 1/16 + 6/64), so
// their remaining work is equal and alignment decides:
//
//	node 0: cpu 2/8·7/8 + 2/32·8/32 = 0.234, mem 1/8·7/8 + 6/32·8/32 = 0.156
//	node 1: cpu 2/8·3/8 + 2/32·31/32 = 0.154, mem 1/8·3/8 + 6/32·31/32 = 0.229
func TestTetrisPicksTheBetterAlignedTask(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(8, 32768), resource.New(8, 32768)},
		Policy: newPolicy(Config{F: 0.25, M: 1})})
	f0 := h.Submit(job("fill0", 100*s, 1, resource.New(1, 24576)))
	f1 := h.Submit(job("fill1", 100*s, 1, resource.New(5, 1024)))
	h.Submit(job("cpu", 10*s, 1, resource.New(2, 2048)))
	h.Submit(job("mem", 10*s, 1, resource.New(1, 6144)))
	h.Place(f0, 0, 0)
	h.Place(f1, 0, 1)
	for node, want := range []string{"cpu", "mem"} {
		if a := h.Pick(node); a == nil || a.Job().Key() != want {
			t.Errorf("node %d: picked %v, want %s", node, a, want)
		}
	}
}

func TestTetrisOrdering(t *testing.T) {
	one := resource.New(1, 1024)
	fig1 := []sched.JobSpec{job("wide", 4*s, 4, one), job("n1", 4200*clock.Millisecond, 1, one),
		job("n2", 4200*clock.Millisecond, 1, one), job("n3", 4200*clock.Millisecond, 1, one)}
	amJobs := []sched.JobSpec{job("a", 10*s, 1, one), job("b", 10*s, 1, one)}
	for i := range amJobs {
		amJobs[i].AM = one
	}
	tests := []struct {
		schedtest.PickCase
		cfg Config
	}{
		// Same alignment for every task on the empty node; wide's remaining
		// work (4 tasks × 4 s) is far above a narrow job's (1 × 4.2 s).
		{PickCase: schedtest.PickCase{Name: "shortest remaining work among equals", Jobs: fig1, Want: "n1"}, cfg: Config{F: 0, M: 1}},
		// With f → 1 only the job furthest below its fair share may run:
		// after n1 took a vcore, every other job holds nothing; the
		// earliest of them, wide, is the only candidate.
		{PickCase: schedtest.PickCase{Name: "fairness knob: only the neediest job", Jobs: fig1, Setup: schedtest.PlaceN(1, 0, 1), Want: "wide"},
			cfg: Config{F: 0.999, M: 1}},
		// f = 0.5 over 3 runnable jobs: ⌈1.5⌉ = 2 candidates, wide and
		// n2 (n1 holds a vcore); n2 has less work.
		{PickCase: schedtest.PickCase{Name: "fairness knob: the neediest half", Jobs: fig1, Setup: schedtest.PlaceN(1, 0, 1), Want: "n2"},
			cfg: Config{F: 0.5, M: 1}},
		// b holds nothing, so with f → 1 it alone is a candidate, and its
		// next container is its AM. a's AM holds a quarter of the cluster:
		// with max_am_share 0.25 no other AM may start, so the walk moves on
		// to a's task; with the limit off, b's AM starts.
		{PickCase: schedtest.PickCase{Name: "AM limit reached: the next job's task", Jobs: amJobs, Setup: schedtest.PlaceN(0, sched.AMPhase, 1), Want: "a"},
			cfg: Config{F: 0.999, M: 1, MaxAMShare: 0.25}},
		{PickCase: schedtest.PickCase{Name: "AM limit off: the neediest job's AM", Jobs: amJobs, Setup: schedtest.PlaceN(0, sched.AMPhase, 1), Want: "b", WantAM: true},
			cfg: Config{F: 0.999, M: 1, MaxAMShare: -1}},
		// The neediest job cannot use the node: the next one in fairness
		// order may.
		{PickCase: schedtest.PickCase{Name: "eligible jobs that do not fit leave the node to others",
			Jobs:  []sched.JobSpec{job("big", 4*s, 1, resource.New(4, 1024)), job("fill", 100*s, 1, one), job("small", 100*s, 1, one)},
			Setup: schedtest.PlaceN(1, 0, 1), Want: "small"}, cfg: Config{F: 0.999, M: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			tt.Nodes = []resource.Vector{resource.New(4, 4096)}
			tt.Run(t, newPolicy(tt.cfg))
		})
	}
}

// Task durations come from the estimate until tasks complete, then from
// what the resource manager observed.
func TestRemainingWork(t *testing.T) {
	h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(4, 4096)}, Policy: newPolicy(Config{F: 0.25, M: 1})})
	// 8 tasks of <1, 1 GB> on 4 slots: two waves, so the 100 s estimate
	// means 50 s per task; each task is 1/4 + 1/4 of the cluster.
	j := h.Submit(job("j", 100*s, 8, resource.New(1, 1024)))
	p := h.Policy().(*Policy)
	if got, want := p.RemainingWork(j), 8*50*0.5; math.Abs(got-want) > 1e-9 {
		t.Errorf("before any completion: W = %v, want %v", got, want)
	}
	c := h.Place(j, 0, 0)
	h.Now = clock.Time(20 * s)
	h.Complete(c)
	// One task observed at 20 s: 7 left × 20 s × 0.5.
	if got, want := p.RemainingWork(j), 7*20*0.5; math.Abs(got-want) > 1e-9 {
		t.Errorf("after one completion: W = %v, want %v", got, want)
	}
	// A job without an estimate borrows the cluster's observed mean.
	u := h.Submit(job("u", 0, 2, resource.New(1, 1024)))
	if got, want := p.RemainingWork(u), 2*20*0.5; math.Abs(got-want) > 1e-9 {
		t.Errorf("no estimate: W = %v, want %v", got, want)
	}
}

// Pick scores per request shape instead of listing every candidate; it must
// choose exactly what choose does over the full list of eligible tasks
// (walked in fairness order, as the definition reads).
func TestPickMatchesChoose(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	shapes := []resource.Vector{resource.New(1, 1024), resource.New(2, 1024), resource.New(1, 4096), resource.New(3, 6144)}
	for trial := range 40 {
		cfg := Config{F: []float64{0, 0.25, 0.5, 0.9}[trial%4], M: 1, MaxAMShare: 0.5}
		h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(8, 16384), resource.New(6, 24576)}, Policy: newPolicy(cfg)})
		var js []*sched.Job
		for i := range 12 {
			spec := job(fmt.Sprintf("j%d", i), clock.Duration(1+rng.IntN(100))*s, 1+rng.IntN(6), shapes[rng.IntN(len(shapes))])
			if rng.IntN(3) == 0 {
				spec.AM = resource.New(1, 1024)
			}
			js = append(js, h.Submit(spec))
		}
		// Start some AMs and tasks so that shares differ.
		for _, j := range js {
			if rng.IntN(2) == 0 {
				continue
			}
			for _, a := range j.Asks() {
				if a.Pending > 0 && a.Request.Fits(h.Node(0).Free()) {
					h.Place(j, a.Phase(), 0)
					break
				}
			}
		}
		p := h.Policy().(*Policy)
		for node := range 2 {
			want := bruteForce(p, h.Node(node).Free(), h.Node(node).Capacity())
			if got := h.Pick(node); got != want {
				t.Fatalf("trial %d node %d: Pick chose %v, choose over every candidate %v", trial, node, got, want)
			}
		}
	}
}

func bruteForce(p *Policy, free, capN resource.Vector) *sched.Ask {
	var order []*sched.Job
	p.runnable.Ascend(func(j *sched.Job) bool { order = append(order, j); return true })
	eligible := max(int(math.Ceil((1-p.cfg.F)*float64(len(order)))), 1)
	amRoom := p.v.AMRoomIn(resource.DominantCalculator, p.amLimit, p.v.Cluster().AMAllocated())
	collect := func(js []*sched.Job) []candidate {
		var cs []candidate
		for _, j := range js {
			for i := range j.Asks() {
				a := &j.Asks()[i]
				if a.Pending > 0 && a.Request.Fits(free) && (!a.IsAM() || a.Request.Fits(amRoom)) {
					cs = append(cs, candidate{ask: a, align: Alignment(a.Request, free, capN), work: p.RemainingWork(j), rank: rank{p.share[j.ID()], j.ID()}})
				}
			}
		}
		return cs
	}
	cs := collect(order[:min(eligible, len(order))])
	for i := eligible; len(cs) == 0 && i < len(order); i++ {
		cs = collect(order[i : i+1])
	}
	return choose(cs, p.cfg.M)
}

func TestBeats(t *testing.T) {
	sb := func(align, work float64) *shapeBest { return &shapeBest{align: align, work: work} }
	tests := []struct {
		name   string
		b, o   *shapeBest
		lo, hi float64
		want   bool
	}{
		// 0.6 − ε·1 against 0.4 − ε·2: b wins for every ε ≥ 0.
		{"wins at both ends", sb(0.6, 1), sb(0.4, 2), 0.1, 0.1000001, true},
		// The scores cross at ε = 0.2: an interval around it cannot be called.
		{"crossing inside the interval", sb(0.6, 2), sb(0.4, 1), 0.19999, 0.20001, false},
		// Just below the crossing b wins; the interval lies wholly below it.
		{"below the crossing", sb(0.6, 2), sb(0.4, 1), 0.1, 0.1000001, true},
		{"above the crossing", sb(0.6, 2), sb(0.4, 1), 0.3, 0.3000001, false},
		// Equal scores are decided by rank in the scan, not by the index.
		{"tie", sb(0.5, 1), sb(0.5, 1), 0.2, 0.2, false},
		// A lead smaller than the rounding of a score is no lead.
		{"lead within rounding", sb(0.5+1e-14, 1), sb(0.5, 1), 0.2, 0.2, false},
		{"eps zero", sb(0.7, 5), sb(0.6, 1), 0, 0, true},
	}
	for _, tt := range tests {
		if got := beats(tt.b, tt.o, tt.lo, tt.hi); got != tt.want {
			t.Errorf("%s: beats = %v, want %v", tt.name, got, tt.want)
		}
	}
}
