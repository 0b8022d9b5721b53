package forecast

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestRunRunningAMsUnderAdmission: running AMs are AMs in the forecast,
// admitted because they run, so that an admission controller that counts
// AMs counts them, as the live scheduler's does.
func TestRunRunningAMsUnderAdmission(t *testing.T) {
	n8 := []*v1.Node{mkNode("n1", 8)}
	// Two running drivers (AMs of 1 CPU each, alone: their executors
	// ended or not asked for), r1 to end at 20 s and r2 at 50 s by their
	// annotations, and two waiting jobs of a driver and one 1-CPU task of
	// 10 s, d1 created before d2. The node has room for everything.
	running := pods(
		[]pb{{job: "r1", name: "r1-driver", am: true, cpu: 1, created: -11, node: "n1", started: ip(-10), estimate: "30s"}},
		[]pb{{job: "r2", name: "r2-driver", am: true, cpu: 1, created: -11, node: "n1", started: ip(-10), estimate: "60s"}},
		[]pb{{job: "d1", name: "d1-driver", am: true, cpu: 1, created: -5, estimate: "10s"},
			{job: "d1", name: "d1-exec", cpu: 1, created: -5, estimate: "10s"}},
		[]pb{{job: "d2", name: "d2-driver", am: true, cpu: 1, created: -4, estimate: "10s"},
			{job: "d2", name: "d2-exec", cpu: 1, created: -4, estimate: "10s"}})
	runningWant := map[string]want{
		"team/r1": {start: -10, finish: 20, source: SourceAnnotation},
		"team/r2": {start: -10, finish: 50, source: SourceAnnotation},
	}
	with := func(m map[string]want) map[string]want {
		for k, w := range runningWant {
			m[k] = w
		}
		return m
	}
	cases := []struct {
		name      string
		admission string // "" admits every job
		want      map[string]want
	}{{
		// static:6 keeps 6 of the 8 vcores for tasks: AMs may hold 2,
		// and the two running drivers hold them. d1's driver is admitted
		// when r1's ends (20 s), its executor runs 20-30 s; d2's when
		// d1's ends (30 s), 30-40 s. (Before running AMs were AMs in the
		// forecast, they counted as tasks, and both d1 and d2 were
		// forecast to start at once, 0-10 s.)
		name:      "static reservation full of running AMs",
		admission: "static:6",
		want: with(map[string]want{
			"team/d1": {start: 20, finish: 30, waiting: true, source: SourceAnnotation, position: 1},
			"team/d2": {start: 30, finish: 40, waiting: true, source: SourceAnnotation, position: 2},
		}),
	}, {
		// static:5 leaves room for one more AM beside the two running:
		// d1 at once, d2 when d1's driver ends (10 s).
		name:      "room for one more AM",
		admission: "static:5",
		want: with(map[string]want{
			"team/d1": {start: 0, finish: 10, waiting: true, source: SourceAnnotation, position: 1},
			"team/d2": {start: 10, finish: 20, waiting: true, source: SourceAnnotation, position: 2},
		}),
	}, {
		// No admission control: both at once, the running AMs notwithstanding.
		name: "no admission",
		want: with(map[string]want{
			"team/d1": {start: 0, finish: 10, waiting: true, source: SourceAnnotation, position: 1},
			"team/d2": {start: 0, finish: 10, waiting: true, source: SourceAnnotation, position: 2},
		}),
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{PolicyName: "fifo", Policy: factory(t, "fifo"), Horizon: time.Hour}
			if c.admission != "" {
				o.Admission = admissionFactory(t, c.admission)
			}
			r, err := Run(snapshot(n8, running, nil), o)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Pinned {
				t.Error("running AMs were not pinned")
			}
			check(t, r, c.want)
		})
	}
}

// TestRunAutoAdminCountsRunningAMs: under AutoAdmin (the live default),
// four running drivers (alone, their executors not running) on an 8-CPU
// node leave no room for a fifth AM beside the reservation for tasks (at
// least its floor, 40 % of the cluster: 8 − 4 − 1 < 3.2), so the waiting
// driver w starts only when one of them ends (a's, at 20 s: 8 − 3 − 1 ≥
// 3.2); with no admission it starts at once. Before running AMs were AMs
// in the forecast, AutoAdmin saw none and both forecasts were 0 s.
func TestRunAutoAdminCountsRunningAMs(t *testing.T) {
	var ps [][]pb
	for i, est := range []string{"30s", "40s", "50s", "60s"} {
		job := string(rune('a' + i))
		ps = append(ps, []pb{
			{job: job, name: job + "-driver", am: true, cpu: 1, created: -11, node: "n1", started: ip(-10), estimate: est}})
	}
	ps = append(ps, []pb{{job: "w", name: "w-driver", am: true, cpu: 1, created: -5, estimate: "10s"},
		{job: "w", name: "w-exec", cpu: 1, created: -5, estimate: "10s"}})
	s := snapshot([]*v1.Node{mkNode("n1", 8)}, pods(ps...), nil)
	starts := map[string]time.Duration{}
	for _, adm := range []string{"", "autoadmin"} {
		o := Options{PolicyName: "fifo", Policy: factory(t, "fifo"), Horizon: time.Hour}
		if adm != "" {
			o.Admission = admissionFactory(t, adm)
		}
		r, err := Run(s, o)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Pinned {
			t.Errorf("%q: running AMs were not pinned", adm)
		}
		starts[adm] = byKey(r)["team/w"].Start.Sub(now)
	}
	if starts[""] != 0 {
		t.Errorf("no admission: w starts at %v, want at once", starts[""])
	}
	if starts["autoadmin"] != 20*time.Second {
		t.Errorf("autoadmin: w starts at %v, want 20s, when a's driver ends", starts["autoadmin"])
	}
}
