package kubescheduler_test

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/policy/kubescheduler"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/simtest"
)

// The client's bucket: burst calls at once, then one every 1/qps, each
// call's turn taken in the order made.
func TestAPILimit(t *testing.T) {
	ms := func(n int64) clock.Time { return clock.Time(n * int64(clock.Millisecond)) }
	type step struct {
		at          clock.Time
		calls       int        // calls made at at
		first, last clock.Time // when the first and the last of them leave
	}
	cases := []struct {
		name  string
		qps   float64
		burst int
		every clock.Duration
		steps []step
	}{
		{"kube-scheduler's defaults: 100 at once, then one every 20 ms", 50, 100, 20 * clock.Millisecond, []step{
			{at: 0, calls: 100, first: 0, last: 0},
			{at: 0, calls: 50, first: ms(20), last: ms(1000)},
			// Made before their turn, calls wait for it.
			{at: ms(500), calls: 1, first: ms(1020), last: ms(1020)},
			// Idle, the bucket refills one call each 20 ms, up to the burst.
			{at: ms(3040), calls: 101, first: ms(3040), last: ms(3060)},
			{at: ms(20_000), calls: 100, first: ms(20_000), last: ms(20_000)},
			{at: ms(20_000), calls: 1, first: ms(20_020), last: ms(20_020)},
		}},
		{"burst 1: one call per interval", 10, 1, 100 * clock.Millisecond, []step{
			{at: 0, calls: 2, first: 0, last: ms(100)},
			{at: ms(250), calls: 1, first: ms(250), last: ms(250)},
			{at: ms(300), calls: 1, first: ms(350), last: ms(350)},
		}},
		{"a rate that does not divide a second rounds to the microsecond", 3, 2, 333_333 * clock.Microsecond, []step{
			{at: 0, calls: 3, first: 0, last: clock.Time(333_333 * clock.Microsecond)},
		}},
	}
	for _, c := range cases {
		l := kubescheduler.NewAPILimit(c.qps, c.burst)
		if l.Every() != c.every {
			t.Errorf("%s: interval %v, want %v", c.name, l.Every(), c.every)
		}
		for i, s := range c.steps {
			var first, last clock.Time
			for k := 0; k < s.calls; k++ {
				last = l.Reserve(s.at)
				if k == 0 {
					first = last
				}
			}
			if first != s.first || last != s.last {
				t.Errorf("%s, step %d: %d calls at %v leave %v to %v, want %v to %v", c.name, i, s.calls, s.at, first, last, s.first, s.last)
			}
		}
	}
	if l := kubescheduler.NewAPILimit(0, 100); l != nil {
		t.Error("qps 0 should be no limit")
	}
}

// A burst of pods is bound no faster than the client's limit lets the
// Bindings through. One node of 200 vcores; 150 one-vcore tasks of 10 s,
// asked at 0, no launch delay.
//
//	qps=50, burst=100 (the defaults): 100 bound at 0, then one every 20 ms:
//	  the 150th at 1.0 s, ending at 11 s: JCT 11.
//	qps=10: the 150th at 50 × 100 ms = 5 s: JCT 15.
//	burst=150, or qps=0 (no limit): all at 0: JCT 10.
func TestAPILimitPacesBindings(t *testing.T) {
	const doc = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 200, memory_mb: 409600}]
  timing: kubernetes
  launch_delay: 0s
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 150, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`
	for _, c := range []struct {
		pol string
		jct float64
	}{
		{"kube-scheduler", 11},
		{"kube-scheduler:qps=50,burst=100", 11},
		{"kube-scheduler:qps=10", 15},
		{"kube-scheduler:burst=150", 10},
		{"kube-scheduler:qps=0", 10},
	} {
		o := simtest.Run(t, doc, runner.Spec{Policy: c.pol})
		if _, j := jct(t, o.Jobs, "A"); fmt.Sprintf("%.6f", j) != fmt.Sprintf("%.6f", c.jct) {
			t.Errorf("%s: JCT %v, want %v", c.pol, j, c.jct)
		}
	}
}
