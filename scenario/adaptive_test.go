package scenario_test

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

func genAdaptive(t *testing.T, change func(a *scenario.AdaptiveShared)) *workload.Workload {
	t.Helper()
	a := scenario.DefaultAdaptiveShared
	change(&a)
	w, err := a.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func curve(t *testing.T, l *workload.ExternalLoad) *cluster.LoadCurve {
	t.Helper()
	pts := make([]cluster.LoadPoint, len(l.Points))
	for i, p := range l.Points {
		pts[i] = cluster.LoadPoint{At: p.At, Frac: p.Frac}
	}
	c, err := cluster.NewLoadCurve(pts, l.Period)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The three experiments run the same jobs; every job's estimate is its
// standalone runtime as the simulator computes it, and its goal a multiple
// of it in [2, 4]; the offered load over the arrival window is --load.
func TestAdaptiveSharedJobs(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		ws := make([]*workload.Workload, 3)
		for e := range ws {
			ws[e] = genAdaptive(t, func(a *scenario.AdaptiveShared) { a.Exp, a.Seed = e+1, seed })
		}
		for e := 1; e < 3; e++ {
			if !reflect.DeepEqual(ws[0].Jobs, ws[e].Jobs) {
				t.Fatalf("seed %d: experiment %d's jobs differ from experiment 1's", seed, e+1)
			}
		}
		w := ws[0]
		if w.Cluster.ExternalLoad != nil || ws[1].Cluster.ExternalLoad == nil || ws[2].Cluster.ExternalLoad == nil {
			t.Fatal("external load: want none in exp 1, some in exps 2 and 3")
		}
		caps := make([]resource.Vector, w.Cluster.NumNodes())
		for i := range caps {
			caps[i] = w.Cluster.Nodes[0].Capacity
		}
		work, last := 0.0, clock.Time(0)
		for i := range w.Jobs {
			j := &w.Jobs[i]
			if alone := j.Standalone(caps); j.Estimate != alone {
				t.Fatalf("%s: estimate %v, standalone %v", j.ID, j.Estimate, alone)
			}
			if f := float64(j.Deadline) / float64(j.Estimate); f < 2-1e-6 || f > 4+1e-6 {
				t.Fatalf("%s: goal %v is %.3f × standalone %v", j.ID, j.Deadline, f, j.Estimate)
			}
			for k := range j.Phases[0].Tasks {
				work += j.Phases[0].Duration(k).Seconds()
			}
			last = max(last, j.Submit)
		}
		// The last arrival falls near the end of the window, so the
		// offered load over it is close to, and on average above, 0.6.
		if got := work / (last.Seconds() * 160); got < 0.45 || got > 0.8 {
			t.Errorf("seed %d: offered load %.3f over the arrivals, want about 0.6", seed, got)
		}
	}
}

// Experiment 2's curve is the diurnal one: its trough (0.1) at 0, its peak
// (0.6) half a period later, 0.35 at a quarter, repeating every 1800 s.
// Experiment 3's has the same mean demand in bursts: with B = 0 every slot
// is busy at the diurnal value at its middle; with B = 1 about half are, at
// twice it, and the mean over the window stays close to the diurnal mean.
func TestAdaptiveSharedLoad(t *testing.T) {
	w2 := genAdaptive(t, func(a *scenario.AdaptiveShared) { a.Exp = 2 })
	c2 := curve(t, w2.Cluster.ExternalLoad)
	if c2.Period() != 1800*clock.Second {
		t.Fatalf("period %v", c2.Period())
	}
	for _, tt := range []struct {
		at   float64
		want float64
	}{{0, 0.1}, {450, 0.35}, {900, 0.6}, {1350, 0.35}, {1800, 0.1}, {2700, 0.6}} {
		if got := c2.At(clock.Time(tt.at * float64(clock.Second))); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("exp 2: f(%v s) = %v, want %v", tt.at, got, tt.want)
		}
	}
	day := clock.Time(1800 * clock.Second)
	mean := c2.Integral(0, day) / day.Seconds()
	for _, b := range []float64{0, 1, 3} {
		w3 := genAdaptive(t, func(a *scenario.AdaptiveShared) { a.Exp, a.Burstiness = 3, b })
		c3 := curve(t, w3.Cluster.ExternalLoad)
		busy, slots := 0, 0
		for at := clock.Time(30 * clock.Second); at < 2*day; at += clock.Time(60 * clock.Second) {
			slots++
			v := c3.At(at)
			if v > 0 {
				busy++
				d := 0.1 + 0.5*(1-math.Cos(2*math.Pi*at.Seconds()/1800))/2
				if want := math.Min(1, (1+b)*d); math.Abs(v-want) > 1e-3 {
					t.Fatalf("B=%v: busy slot at %v holds %v, want (1+B) × %v = %v", b, at, v, d, want)
				}
			}
		}
		frac := float64(busy) / float64(slots)
		if math.Abs(frac-1/(1+b)) > 0.15 {
			t.Errorf("B=%v: %.2f of slots busy, want about %.2f", b, frac, 1/(1+b))
		}
		m := c3.Integral(0, 2*day) / (2 * day).Seconds()
		if b <= 1 && math.Abs(m-mean) > 0.1 {
			t.Errorf("B=%v: mean load %.3f, the diurnal mean is %.3f", b, m, mean)
		}
	}
}

// The same parameters write the same file; bad parameters are errors.
func TestAdaptiveSharedDeterministicAndChecked(t *testing.T) {
	var out [2]bytes.Buffer
	for i := range out {
		w := genAdaptive(t, func(a *scenario.AdaptiveShared) { a.Exp, a.Seed = 3, 7 })
		if err := workload.Write(&out[i], w, workload.JSON); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Fatal("two generations differ")
	}
	for name, change := range map[string]func(a *scenario.AdaptiveShared){
		"exp 4":          func(a *scenario.AdaptiveShared) { a.Exp = 4 },
		"goal below 1":   func(a *scenario.AdaptiveShared) { a.GoalMin = 0.5 },
		"goals reversed": func(a *scenario.AdaptiveShared) { a.GoalMin, a.GoalMax = 3, 2 },
		"load above 1":   func(a *scenario.AdaptiveShared) { a.LoadHigh = 1.5 },
		"no jobs":        func(a *scenario.AdaptiveShared) { a.Jobs = 0 },
		"negative B":     func(a *scenario.AdaptiveShared) { a.Burstiness = -1 },
		"tiny nodes":     func(a *scenario.AdaptiveShared) { a.NodeMemory = 1024 },
	} {
		a := scenario.DefaultAdaptiveShared
		change(&a)
		if _, err := a.Generate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The goal knobs change goals only: the same jobs, goals of U[1.2, 1.5] ×
// the standalone runtime on about the tight fraction, the standalone
// runtime plus U[300, 1800] s on the rest; --waves scales the task count;
// the square shape steps between low and high each half period.
func TestAdaptiveSharedKnobs(t *testing.T) {
	base := scenario.DefaultAdaptiveShared
	plain, err := base.Generate()
	if err != nil {
		t.Fatal(err)
	}
	k := base
	k.TightFrac, k.TightMin, k.TightMax = 0.3, 1.2, 1.5
	k.SlackMin, k.SlackMax = 300*clock.Second, 1800*clock.Second
	w, err := k.Generate()
	if err != nil {
		t.Fatal(err)
	}
	tight := 0
	for i, j := range w.Jobs {
		p := plain.Jobs[i]
		if j.Phases[0].Tasks != p.Phases[0].Tasks || j.Submit != p.Submit || j.Estimate != p.Estimate {
			t.Fatalf("job %d changed: %+v vs %+v", i, j, p)
		}
		f := float64(j.Deadline) / float64(j.Estimate)
		slack := j.Deadline - j.Estimate
		switch {
		case f >= 1.2-1e-6 && f <= 1.5+1e-6 && slack < 300*clock.Second:
			tight++
		case slack >= 300*clock.Second-clock.Millisecond && slack <= 1800*clock.Second+clock.Millisecond:
		default:
			t.Errorf("job %d: goal %v for a runtime of %v", i, j.Deadline, j.Estimate)
		}
	}
	if tight < 15 || tight > 45 {
		t.Errorf("%d tight goals of 100, want about 30", tight)
	}
	wv := base
	wv.Waves = 2
	big, err := wv.Generate()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, j := range big.Jobs {
		n += j.Phases[0].Tasks
	}
	if mean := float64(n) / float64(len(big.Jobs)); mean < 200 || mean > 450 {
		t.Errorf("mean tasks %v with --waves 2 on 160 task containers, want about 320", mean)
	}
	sq := base
	sq.LoadShape = "square"
	sw, err := sq.Generate()
	if err != nil {
		t.Fatal(err)
	}
	l := sw.Cluster.ExternalLoad
	if len(l.Points) != 4 || l.Points[0].Frac != 0.1 || l.Points[2].Frac != 0.6 || l.Points[2].At != 900*clock.Second || l.Period != 1800*clock.Second {
		t.Errorf("square load %+v", l)
	}
	if p, err := scenario.AdaptivePreset("paper"); err != nil || p.Waves != 2 || p.TightFrac != 0.3 || p.SlackMax != 1800*clock.Second {
		t.Errorf("paper preset %+v, %v", p, err)
	}
	if p, err := scenario.AdaptivePreset("today"); err != nil || !reflect.DeepEqual(p, scenario.DefaultAdaptiveShared) {
		t.Errorf("today preset %+v, %v", p, err)
	}
	for _, bad := range []scenario.AdaptiveShared{
		func() scenario.AdaptiveShared { a := base; a.TightFrac = 2; return a }(),
		func() scenario.AdaptiveShared { a := base; a.TightFrac, a.TightMin, a.TightMax = 0.5, 0.5, 1; return a }(),
		func() scenario.AdaptiveShared { a := base; a.SlackMin, a.SlackMax = 10, 5; return a }(),
		func() scenario.AdaptiveShared { a := base; a.LoadShape = "wave"; return a }(),
		func() scenario.AdaptiveShared { a := base; a.Waves = -1; return a }(),
	} {
		if _, err := bad.Generate(); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if _, err := scenario.AdaptivePreset("x"); err == nil {
		t.Error("unknown preset accepted")
	}
}
