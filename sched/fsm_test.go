package sched

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

func TestCanTransition(t *testing.T) {
	legalPairs := map[[2]ContainerState]bool{
		{New, Reserved}: true, {New, Allocated}: true, {New, Killed}: true,
		{Reserved, Allocated}: true, {Reserved, Killed}: true,
		{Allocated, Acquired}: true, {Allocated, Killed}: true,
		{Acquired, Running}: true, {Acquired, Killed}: true,
		{Running, Completed}: true, {Running, Killed}: true,
	}
	// A live cluster's other ends are reachable wherever KILLED is, once
	// the container holds resources.
	for _, from := range []ContainerState{Allocated, Acquired, Running} {
		for _, to := range []ContainerState{Failed, Preempted, Lost} {
			legalPairs[[2]ContainerState{from, to}] = true
		}
	}
	for from := New; from < numContainerStates; from++ {
		for to := New; to < numContainerStates; to++ {
			want := legalPairs[[2]ContainerState{from, to}]
			if got := CanTransition(from, to); got != want {
				t.Errorf("%v → %v: CanTransition = %v, want %v", from, to, got, want)
			}
		}
	}
	if CanTransition(numContainerStates, New) || CanTransition(New, numContainerStates) {
		t.Error("out-of-range states must not transition")
	}
	for s := New; s < numContainerStates; s++ {
		if s.Terminal() != (s == Completed || s == Killed || s == Failed || s == Preempted || s == Lost) {
			t.Errorf("%v.Terminal() = %v", s, s.Terminal())
		}
	}
	if got := ContainerState(42).String(); got != "ContainerState(42)" {
		t.Errorf("unknown state prints %q", got)
	}
}

func TestCheckTimesOrder(t *testing.T) {
	tests := []struct {
		name  string
		times map[ContainerState]int64
		ok    bool
	}{
		{"in order", map[ContainerState]int64{New: 1, Allocated: 1, Acquired: 2, Running: 5, Completed: 9}, true},
		{"reserved in between", map[ContainerState]int64{New: 1, Reserved: 2, Allocated: 4}, true},
		{"running before acquired", map[ContainerState]int64{New: 1, Allocated: 1, Acquired: 6, Running: 5}, false},
		{"allocated before new", map[ContainerState]int64{New: 3, Allocated: 2}, false},
	}
	for _, tt := range tests {
		c := &Container{id: 1, job: &Job{key: "j"}}
		for i := range c.times {
			c.times[i] = -1
		}
		for s, at := range tt.times {
			c.times[s] = clockTime(at)
		}
		if err := c.checkTimes(); (err == nil) != tt.ok {
			t.Errorf("%s: checkTimes() = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func clockTime(x int64) clock.Time { return clock.Time(x) }
