package sim

import (
	"fmt"

	"github.com/spindle-sched/spindle/clock"
)

// beatWheel holds the queued node heartbeats apart from the event heap.
//
// They are half of all events, and their times have a shape the heap does
// not use: node n beats at phase(n) + k·period, with phases sorted by
// heartbeat position and each below the period, so ordering heartbeats by
// (time, position) is ordering them by (cycle k, position). A node has at
// most one heartbeat queued, never one that has already happened and never
// one more than a period ahead, so every queued heartbeat is in the current
// cycle or the next: two bit sets over positions, one per cycle parity, hold
// them all, and the least is the next set bit after the last one taken.
// Queueing is setting a bit; taking the least is a scan forward that, over a
// cycle, reads each word of the set once.
type beatWheel struct {
	period clock.Time
	phase  []clock.Duration // by position, ascending, each in [0, period)
	byPos  []int32          // node at each position
	sets   [2]*bitset       // queued positions, by cycle parity
	n      int

	// The cursor is at or before every queued heartbeat, and no queued
	// heartbeat is more than one cycle past it: the parity of a cycle then
	// names it. When least is set the cursor is the least queued
	// heartbeat.
	cycle int64
	pos   int
	least bool
}

func newBeatWheel(period clock.Duration, phase []clock.Duration, byPos []int32) *beatWheel {
	return &beatWheel{
		period: clock.Time(period), phase: phase, byPos: byPos,
		sets: [2]*bitset{newBitset(len(phase)), newBitset(len(phase))},
	}
}

// add queues the heartbeat at time at of the node at position pos. It must
// not have happened yet, be at most one period ahead of the last event
// taken, and be the node's only queued heartbeat.
func (w *beatWheel) add(at clock.Time, pos int32) error {
	p := int(pos)
	off := at - clock.Time(w.phase[p])
	if off < 0 || off%w.period != 0 {
		return fmt.Errorf("heartbeat of position %d at %v is not on its phase %v", pos, at, w.phase[p])
	}
	c := int64(off / w.period)
	if w.n == 0 {
		w.cycle, w.pos, w.least = c, p, true
	} else {
		// The queue finds the least heartbeat on every pop, so the
		// cursor is the least queued one, or the one just taken while
		// time has not moved: either way no later than the present, and
		// a heartbeat at most a period ahead is within a cycle of it.
		if c > w.cycle+1 {
			return fmt.Errorf("heartbeat of position %d at %v is more than a period ahead", pos, at)
		}
		if c < w.cycle || c == w.cycle && p < w.pos {
			w.cycle, w.pos, w.least = c, p, true
		}
	}
	set := w.sets[c&1]
	if set.has(p) {
		return fmt.Errorf("heartbeat of position %d at %v queued twice", pos, at)
	}
	set.set(p)
	w.n++
	return nil
}

// min returns the least queued heartbeat as a heap entry; the wheel must
// not be empty.
func (w *beatWheel) min() entry {
	if !w.least {
		if p := w.sets[w.cycle&1].next(w.pos); p >= 0 {
			w.pos = p
		} else {
			w.cycle++
			w.pos = w.sets[w.cycle&1].next(0)
		}
		w.least = true
	}
	return entry{
		at:  clock.Time(w.cycle)*w.period + clock.Time(w.phase[w.pos]),
		ord: uint64(class[evNodeBeat])<<classShft | uint64(w.pos)<<rankShift,
	}
}

// event returns the least queued heartbeat as an event of its node; the
// wheel must not be empty.
func (w *beatWheel) event() event {
	b := w.min()
	return event{at: b.at, ord: b.ord, idx: w.byPos[w.pos], kind: evNodeBeat}
}

// take removes the least queued heartbeat, which min or event has just
// returned.
func (w *beatWheel) take() {
	w.sets[w.cycle&1].clear(w.pos)
	w.n--
	w.least = false
}
