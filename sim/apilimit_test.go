package sim

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
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
		l := newAPILimit(c.qps, c.burst)
		if l.every != c.every {
			t.Errorf("%s: interval %v, want %v", c.name, l.every, c.every)
		}
		for i, s := range c.steps {
			var first, last clock.Time
			for k := 0; k < s.calls; k++ {
				last = l.reserve(s.at)
				if k == 0 {
					first = last
				}
			}
			if first != s.first || last != s.last {
				t.Errorf("%s, step %d: %d calls at %v leave %v to %v, want %v to %v", c.name, i, s.calls, s.at, first, last, s.first, s.last)
			}
		}
	}
	if l := newAPILimit(0, 100); l != nil {
		t.Error("qps 0 should be no limit")
	}
}
