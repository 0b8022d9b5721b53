package sim

import (
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/sched"
)

type eventKind uint8

const (
	evArrival  eventKind = iota // next job in submission order arrives
	evStart                     // a launched container starts running
	evFinish                    // a task's true work ends
	evAMStop                    // an AM container exits after its job finished
	evTick                      // periodic policy work
	evNodeBeat                  // a NodeManager heartbeat
	evAMBeat                    // an ApplicationMaster heartbeat
	evPass                      // ideal mode: allocation pass over every node that may accept
	evLoad                      // the external load is sampled and applied
	numEventKinds
)

// class orders events that share an instant: true state changes first, then
// the periodic tick, then node heartbeats (reports, then allocation), then AM
// heartbeats, and in ideal mode a final allocation pass that sees everything
// that happened at that instant.
var class = [numEventKinds]uint8{
	evArrival: 0, evStart: 0, evFinish: 0, evAMStop: 0, evLoad: 0,
	evTick:     1,
	evNodeBeat: 2,
	evAMBeat:   3,
	evPass:     4,
}

type event struct {
	at   clock.Time
	prio uint64 // class, then the node's heartbeat position for heartbeats
	seq  uint64 // then the order of queueing
	ct   *sched.Container
	idx  int32 // node or job index
	kind eventKind
}

func (a *event) before(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	return a.seq < b.seq
}

func prio(k eventKind, key int32) uint64 { return uint64(class[k])<<32 | uint64(uint32(key)) }

func (e *event) class() uint8 { return uint8(e.prio >> 32) }

func (e *event) key() int32 { return int32(uint32(e.prio)) }

// eventQueue is a 4-ary min-heap of events by (time, class, key, sequence):
// shallower than a binary heap, so a pop touches fewer cache lines. It
// stores events by value so that queueing one allocates nothing once the
// backing array has grown.
type eventQueue struct {
	h      []event
	seq    uint64
	counts [numEventKinds]int
}

func (q *eventQueue) Len() int { return len(q.h) }

func (q *eventQueue) push(at clock.Time, kind eventKind, idx int32, ct *sched.Container) {
	q.add(event{at: at, kind: kind, prio: prio(kind, 0), idx: idx, ct: ct})
}

// pushBeat queues node id's heartbeat; heartbeats at one instant run in
// heartbeat-position order whatever order they were queued in, so that the
// order does not depend on which heartbeats were elided.
func (q *eventQueue) pushBeat(at clock.Time, id, pos int32) {
	q.add(event{at: at, kind: evNodeBeat, prio: prio(evNodeBeat, pos), idx: id})
}

func (q *eventQueue) add(e event) {
	q.seq++
	e.seq = q.seq
	q.counts[e.kind]++
	q.h = append(q.h, e)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *eventQueue) peek() *event { return &q.h[0] }

func (q *eventQueue) pop() event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h[n] = event{}
	h = h[:n]
	if n > 0 {
		i := 0
		for {
			c := 4*i + 1
			if c >= n {
				break
			}
			// The least of up to four children.
			m := c
			for k := c + 1; k < c+4 && k < n; k++ {
				if h[k].before(&h[m]) {
					m = k
				}
			}
			if !h[m].before(&last) {
				break
			}
			h[i] = h[m]
			i = m
		}
		h[i] = last
	}
	q.h = h
	q.counts[top.kind]--
	return top
}

// only reports whether every queued event is of one of the given kinds.
func (q *eventQueue) only(kinds ...eventKind) bool {
	n := 0
	for _, k := range kinds {
		n += q.counts[k]
	}
	return n == len(q.h)
}
