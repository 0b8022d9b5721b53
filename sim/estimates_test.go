package sim

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

// TestHistory checks --estimates history's rule step by step: the mean of
// the observed runtimes of a name, nothing for an unknown or empty name,
// and negative runtimes ignored.
func TestHistory(t *testing.T) {
	type obs struct {
		name string
		d    clock.Duration
	}
	cases := []struct {
		name    string
		observe []obs
		ask     string
		want    clock.Duration
		ok      bool
		names   int
	}{
		{"empty", nil, "etl", 0, false, 0},
		{"one", []obs{{"etl", 10 * clock.Second}}, "etl", 10 * clock.Second, true, 1},
		{"mean", []obs{{"etl", 10 * clock.Second}, {"etl", 30 * clock.Second}, {"bi", clock.Second}}, "etl", 20 * clock.Second, true, 2},
		{"other name", []obs{{"etl", 10 * clock.Second}}, "bi", 0, false, 1},
		{"no name", []obs{{"", 10 * clock.Second}}, "", 0, false, 0},
		{"negative", []obs{{"etl", -1}, {"etl", 4 * clock.Second}}, "etl", 4 * clock.Second, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h History
			for _, o := range c.observe {
				h.Observe(o.name, o.d)
			}
			got, ok := h.Estimate(c.ask)
			if got != c.want || ok != c.ok || h.Len() != c.names {
				t.Errorf("Estimate(%q) = %v, %v with %d names; want %v, %v with %d", c.ask, got, ok, h.Len(), c.want, c.ok, c.names)
			}
		})
	}
}
