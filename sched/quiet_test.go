package sched_test

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

// idleTicker places nothing and ticks every second; quietTicker is the same
// with TickChanged answering changed.
type idleTicker struct{ ticks int }

func (*idleTicker) Pick(*cluster.Node) *sched.Ask { return nil }
func (*idleTicker) TickEvery() clock.Duration     { return clock.Second }
func (t *idleTicker) Tick(clock.Time)             { t.ticks++ }

type quietTicker struct {
	idleTicker
	changed bool
}

func (q *quietTicker) TickChanged() bool { return q.changed }

var (
	_ sched.Ticker      = (*idleTicker)(nil)
	_ sched.QuietTicker = (*quietTicker)(nil)
)

// After a tick the core reconsiders the nodes unless the ticker says the
// tick changed nothing Pick reads; a ticker that cannot say is reconsidered
// after every tick. A job waits throughout (its AM is never placed), so
// there is always demand to reconsider for.
func TestQuietTickSkipsReconsider(t *testing.T) {
	for _, tt := range []struct {
		name string
		pol  func() sched.Policy
		want int // Reconsider calls from three ticks
	}{
		{"a ticker that cannot say", func() sched.Policy { return &idleTicker{} }, 3},
		{"quiet, changed", func() sched.Policy { return &quietTicker{changed: true} }, 3},
		{"quiet, unchanged", func() sched.Policy { return &quietTicker{} }, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pol := tt.pol()
			h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{node4},
				Policy: func(*sched.View) (sched.Policy, error) { return pol, nil }})
			h.Submit(sched.JobSpec{Key: "j", AM: unit, Phases: []sched.PhaseSpec{{Tasks: 1, Request: unit, StartAfter: 1}}})
			if !h.Core.HasDemand() {
				t.Fatal("the job's AM must be outstanding")
			}
			before := h.Reconsiders
			for s := 1; s <= 3; s++ {
				h.Now = clock.Time(s) * clock.Time(clock.Second)
				h.Core.Tick(h.Now)
			}
			if got := h.Reconsiders - before; got != tt.want {
				t.Errorf("%d reconsiders after 3 ticks, want %d", got, tt.want)
			}
		})
	}
}
