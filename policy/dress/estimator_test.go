package dress

import (
	"math"
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

// ev is one observed transition of a task container of job 0: a start
// (RUNNING) or an end (COMPLETED) at a time in seconds.
type ev struct {
	at  float64
	id  uint64
	end bool
}

func sec(s float64) clock.Time { return clock.Time(s * float64(clock.Second)) }

func starts(id0 uint64, times ...float64) []ev {
	var out []ev
	for i, t := range times {
		out = append(out, ev{at: t, id: id0 + uint64(i)})
	}
	return out
}

func ends(id0 uint64, times ...float64) []ev {
	var out []ev
	for i, t := range times {
		out = append(out, ev{at: t, id: id0 + uint64(i), end: true})
	}
	return out
}

func seq(parts ...[]ev) []ev {
	var out []ev
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// feed replays events (in time order) into an estimator with the paper's
// defaults (pw 10 s, ts = te = 5) and advances it to now.
func feed(t *testing.T, evs []ev, now float64) *Estimator {
	t.Helper()
	e := NewEstimator(10*clock.Second, 5, 5)
	last := -1.0
	for _, x := range evs {
		if x.at < last {
			t.Fatalf("events out of order at %v", x.at)
		}
		last = x.at
		if x.end {
			e.Complete(x.id, sec(x.at))
		} else {
			e.Start(0, x.id, sec(x.at), 10)
		}
	}
	e.Advance(sec(now))
	return e
}

// ph is the expected shape of a detected phase, times in seconds (-1:
// unknown).
type ph struct {
	first, last float64
	closed      bool
	cp, running int
	gamma       float64
	carried     int
}

func got(ps []PhaseInfo) []ph {
	var out []ph
	for _, p := range ps {
		g := -1.0
		if p.Gamma >= 0 {
			g = p.Gamma.Seconds()
		}
		out = append(out, ph{first: p.First.Seconds(), last: p.Last.Seconds(), closed: p.Closed, cp: p.Containers,
			running: p.Running, gamma: g, carried: p.Carried})
	}
	return out
}

// Algorithm 1: phases from RUNNING transitions.
func TestPhaseDetection(t *testing.T) {
	tests := []struct {
		name string
		evs  []ev
		now  float64
		want []ph
		// unassigned running tasks, α
		unassigned int
		alpha      float64
	}{
		{
			name: "five starts within the window are not more than ts: no phase",
			evs:  starts(1, 0, 1, 2, 3, 4), now: 30,
			want: nil, unassigned: 5, alpha: 0,
		},
		{
			// The sixth start makes six within pw: the phase begins at
			// the earliest running start; it stays open while tasks
			// keep starting and closes pw after the last one.
			name: "a burst opens a phase that closes pw after its last start",
			evs:  starts(1, 2, 2.5, 3, 3.5, 4, 4.5, 6), now: 15.9,
			want: []ph{{first: 2, last: 6, closed: false, cp: 7, running: 7, gamma: -1}}, alpha: 2,
		},
		{
			name: "the same phase once pw has passed without a start",
			evs:  starts(1, 2, 2.5, 3, 3.5, 4, 4.5, 6), now: 16,
			want: []ph{{first: 2, last: 6, closed: true, cp: 7, running: 7, gamma: -1}}, alpha: 2,
		},
		{
			// Congestion hands the phase its containers a few at a time:
			// after the burst, starts at 8, 15 and 22 are each less than
			// pw after the previous one, so the phase stays open and its
			// starting variation spans all of them.
			name: "a phase whose tasks start over several windows",
			evs:  starts(1, 0, 0.2, 0.4, 0.6, 0.8, 1, 8, 15, 22), now: 40,
			want: []ph{{first: 0, last: 22, closed: true, cp: 9, running: 9, gamma: -1}}, alpha: 0,
		},
		{
			name: "a second burst after the first phase closed is a second phase",
			evs:  seq(starts(1, 0, 0, 0, 0, 0, 0), starts(11, 30, 30.5, 31, 31.5, 32, 32.5)), now: 50,
			want: []ph{
				{first: 0, last: 0, closed: true, cp: 6, running: 6, gamma: -1},
				{first: 30, last: 32.5, closed: true, cp: 6, running: 6, gamma: -1},
			},
			alpha: 0,
		},
		{
			// A task that started alone before the burst is still
			// running when the burst comes: ps_f is its start.
			name: "an earlier straggler still running joins the phase",
			evs:  seq(starts(1, 0), starts(2, 20, 20, 20, 20, 20, 20)), now: 40,
			want: []ph{{first: 0, last: 20, closed: true, cp: 7, running: 7, gamma: -1}}, alpha: 0,
		},
		{
			name: "a straggler that already completed does not",
			evs:  seq(starts(1, 0), ends(1, 5), starts(2, 20, 20, 20, 20, 20, 20)), now: 40,
			want: []ph{{first: 20, last: 20, closed: true, cp: 6, running: 6, gamma: -1}}, alpha: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := feed(t, tt.evs, tt.now)
			if g := got(e.Phases(0)); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("phases\n got %+v\nwant %+v", g, tt.want)
			}
			if u, _ := e.Unassigned(0); u != tt.unassigned {
				t.Errorf("%d unassigned running tasks, want %d", u, tt.unassigned)
			}
			if a, _ := e.JobTimes(0); a != sec(tt.alpha) {
				t.Errorf("α = %v, want %vs", a, tt.alpha)
			}
		})
	}
}

// Algorithm 2: γ from COMPLETED transitions, heading and trailing tasks.
func TestReleaseStart(t *testing.T) {
	eight := starts(1, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7) // ids 1-8, one phase
	tests := []struct {
		name      string
		evs       []ev
		now       float64
		want      []ph
		carryWait int // trailing tasks waiting for a next phase
		beta      float64
	}{
		{
			name: "five completions are not more than te: not releasing yet",
			evs:  seq(eight, ends(1, 30, 30.5, 31, 31.5, 32)), now: 32,
			want: []ph{{first: 0, last: 0.7, closed: true, cp: 8, running: 3, gamma: -1}}, beta: -1,
		},
		{
			name: "the sixth completion within pw sets γ to the window's earliest",
			evs:  seq(eight, ends(1, 30, 30.5, 31, 31.5, 32, 32.5)), now: 33,
			want: []ph{{first: 0, last: 0.7, closed: true, cp: 8, running: 2, gamma: 30}}, beta: -1,
		},
		{
			// Task 1 is a heading task (an under-loaded last block): it
			// ends at 4, far before the others. It is outside the window
			// when the burst crosses te, so γ is the burst's start.
			name: "a heading task does not set γ",
			evs:  seq(eight, ends(1, 4), ends(2, 30, 30.5, 31, 31.5, 32, 32.5)), now: 33,
			want: []ph{{first: 0, last: 0.7, closed: true, cp: 8, running: 1, gamma: 30}}, beta: -1,
		},
		{
			// Seven tasks end by 31.5; task 8 runs on (a skewed
			// partition). At 41.5, pw after the last completion, it is a
			// trailing task; no next phase exists yet, so it waits.
			name: "a trailing task waits for the next phase",
			evs:  seq(eight, ends(1, 30, 30.5, 31, 31, 31, 31.5, 31.5)), now: 41.5,
			want: []ph{{first: 0, last: 0.7, closed: true, cp: 8, running: 0, gamma: 30, carried: 1}}, carryWait: 1, beta: -1,
		},
		{
			name: "not before pw has passed",
			evs:  seq(eight, ends(1, 30, 30.5, 31, 31, 31, 31.5, 31.5)), now: 41.4,
			want: []ph{{first: 0, last: 0.7, closed: true, cp: 8, running: 1, gamma: 30}}, beta: -1,
		},
		{
			// The next phase (six tasks from 45) counts the trailing task
			// into its c_p (Algorithm 2, line 12): 7 containers.
			name: "the next phase counts the trailing task",
			evs:  seq(eight, ends(1, 30, 30.5, 31, 31, 31, 31.5, 31.5), starts(9, 45, 45, 45.5, 45.5, 46, 46)), now: 47,
			want: []ph{
				{first: 0, last: 0.7, closed: true, cp: 8, running: 0, gamma: 30, carried: 1},
				{first: 45, last: 46, closed: false, cp: 7, running: 7, gamma: -1},
			},
			beta: -1,
		},
		{
			// When the trailing task ends, the job has nothing running:
			// β is recorded.
			name: "β when the last running task ends",
			evs:  seq(eight, ends(1, 30, 30.5, 31, 31, 31, 31.5, 31.5), ends(8, 50)), now: 50,
			want: []ph{{first: 0, last: 0.7, closed: true, cp: 8, running: 0, gamma: 30, carried: 1}}, beta: 50,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := feed(t, tt.evs, tt.now)
			if g := got(e.Phases(0)); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("phases\n got %+v\nwant %+v", g, tt.want)
			}
			if _, c := e.Unassigned(0); c != tt.carryWait {
				t.Errorf("%d trailing tasks wait for a next phase, want %d", c, tt.carryWait)
			}
			if _, b := e.JobTimes(0); b != sec(tt.beta) && !(tt.beta < 0 && b < 0) {
				t.Errorf("β = %v, want %vs", b, tt.beta)
			}
		})
	}
}

// Equations 5 and 9: the expected releases over a horizon.
func TestPredict(t *testing.T) {
	// Ten tasks start over [0, 10] (Δps = 10 s); six end within pw from
	// 20 (γ = 20), leaving four running. Equation 9 spreads c_p = 10
	// releases over [20, 30]: one per second.
	ten := starts(1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10)
	six := ends(1, 20, 21, 22, 23, 24, 25)
	tests := []struct {
		name   string
		evs    []ev
		now, h float64
		want   float64
	}{
		{name: "nothing before γ is known", evs: ten, now: 15, h: 5, want: 0},
		{name: "one per second inside the release window", evs: seq(ten, six), now: 25.5, h: 2, want: 2},
		{name: "the horizon is clipped at the window's end", evs: seq(ten, six), now: 27, h: 10, want: 3},
		// 10 × (1 − 0.5) = 5, but the phase holds only four containers.
		{name: "never more than the phase still holds", evs: seq(ten, six), now: 25, h: 20, want: 4},
		{name: "after the window nothing more is expected", evs: seq(ten, six), now: 30, h: 5, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := feed(t, tt.evs, tt.now)
			n, u := e.Predict(0, sec(tt.now), clock.Duration(sec(tt.h)))
			if math.Abs(n-tt.want) > 1e-9 || math.Abs(u-10*tt.want) > 1e-6 {
				t.Errorf("predicted %v containers (%v units), want %v (%v)", n, u, tt.want, 10*tt.want)
			}
		})
	}
}

// A phase whose tasks all started at once (Δps = 0) releases everything at
// γ: the step form of Equation 9.
func TestPredictZeroVariation(t *testing.T) {
	e := feed(t, seq(starts(1, 0, 0, 0, 0, 0, 0, 0, 0), ends(1, 10, 10, 10, 10, 10, 10)), 10)
	if n, _ := e.Predict(0, sec(10), clock.Duration(sec(5))); n != 0 {
		t.Errorf("at γ every release is in the past for a zero variation: predicted %v, want 0", n)
	}
	// Queried for a window that contains γ, the whole phase is due, capped
	// by the two still running.
	if n, _ := e.Predict(0, sec(9.5), clock.Duration(sec(1))); n != 2 {
		t.Errorf("over a window holding γ: predicted %v, want 2", n)
	}
}

// Forgetting a finished job drops its tasks.
func TestForget(t *testing.T) {
	e := feed(t, starts(1, 0, 0, 0, 0, 0, 0, 0), 1)
	e.Forget(0)
	if len(e.tasks) != 0 || e.Phases(0) != nil {
		t.Fatalf("after Forget: %d tasks, phases %v", len(e.tasks), e.Phases(0))
	}
	e.Complete(3, sec(2)) // a late report must not panic
}
