package sim

import (
	"fmt"
	"sort"

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

// An event's place in the order of its instant is one word, ord:
//
//	class (3 bits) | rank (35 bits) | slot (26 bits)
//
// rank is the node's heartbeat position for node heartbeats and the order of
// queueing for every other class (in which the key is always 0), so
// comparing (at, ord) orders events by time, class, key and queueing order,
// as comparing those fields one by one would. Two heartbeats of one node at
// one instant are the same event, so their queueing order does not matter.
// slot says where the event's payload is kept; it makes every ord unique and
// lets the heap move 16-byte entries only.
const (
	slotBits  = 26
	rankBits  = 35
	rankShift = slotBits
	classShft = slotBits + rankBits
	maxSlots  = 1 << slotBits
	slotMask  = maxSlots - 1
	rankMask  = 1<<rankBits - 1
)

// event is a popped event with its payload.
type event struct {
	at   clock.Time
	ord  uint64
	ct   *sched.Container
	idx  int32 // node, or job for AM heartbeats, starts and finishes
	kind eventKind
}

func (e *event) class() uint8 { return uint8(e.ord >> classShft) }

// key is the node's heartbeat position for a node heartbeat, 0 otherwise.
func (e *event) key() int32 {
	if e.class() != class[evNodeBeat] {
		return 0
	}
	return int32(e.ord >> rankShift & rankMask)
}

// entry is what the heap orders: four siblings fill one 64-byte cache line.
type entry struct {
	at  clock.Time
	ord uint64
}

func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && a.ord < b.ord)
}

type payload struct {
	ct   *sched.Container
	idx  int32
	kind eventKind
}

// root is the index of the heap's root in eventQueue.h: the children of
// index i are 4i-8 ... 4i-5, so that siblings start at a multiple of four
// and share a cache line.
const root = 3

// eventQueue is a 4-ary min-heap of events by (time, class, key, sequence).
// The heap holds 16-byte entries; payloads stay in slots that are reused, so
// queueing an event allocates nothing once the arrays have grown.
type eventQueue struct {
	h      []entry // h[:root] unused
	slots  []payload
	free   []uint32
	seq    uint64
	counts [numEventKinds]int
	// maxRank is the largest queueing rank before ranks are renumbered;
	// 0 means rankMask. Tests lower it.
	maxRank uint64
	err     error
}

func (q *eventQueue) Len() int { return max(len(q.h)-root, 0) }

func (q *eventQueue) push(at clock.Time, kind eventKind, idx int32, ct *sched.Container) {
	limit := q.maxRank
	if limit == 0 {
		limit = rankMask
	}
	if q.seq >= limit {
		q.renumber()
	}
	q.seq++
	q.add(at, kind, q.seq, idx, ct)
}

// pushBeat queues node id's heartbeat; heartbeats at one instant run in
// heartbeat-position order whatever order they were queued in, so that the
// order does not depend on which heartbeats were elided.
func (q *eventQueue) pushBeat(at clock.Time, id, pos int32) {
	q.add(at, evNodeBeat, uint64(uint32(pos)), id, nil)
}

func (q *eventQueue) add(at clock.Time, kind eventKind, rank uint64, idx int32, ct *sched.Container) {
	var s uint32
	if n := len(q.free); n > 0 {
		s = q.free[n-1]
		q.free = q.free[:n-1]
		q.slots[s] = payload{ct: ct, idx: idx, kind: kind}
	} else {
		if len(q.slots) >= maxSlots {
			if q.err == nil {
				q.err = fmt.Errorf("more than %d events queued at once", maxSlots)
			}
			return
		}
		s = uint32(len(q.slots))
		q.slots = append(q.slots, payload{ct: ct, idx: idx, kind: kind})
	}
	q.counts[kind]++
	e := entry{at: at, ord: uint64(class[kind])<<classShft | rank<<rankShift | uint64(s)}
	if len(q.h) < root {
		q.h = make([]entry, root, 64)
	}
	q.h = append(q.h, e)
	h := q.h
	i := len(h) - 1
	for i > root {
		p := i/4 + 2
		if !e.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *eventQueue) event(e entry) event {
	p := &q.slots[e.ord&slotMask]
	return event{at: e.at, ord: e.ord, ct: p.ct, idx: p.idx, kind: p.kind}
}

func (q *eventQueue) peek() event { return q.event(q.h[root]) }

// next returns the payload of the event that pop would return, or nil.
func (q *eventQueue) next() *payload {
	if len(q.h) <= root {
		return nil
	}
	return &q.slots[q.h[root].ord&slotMask]
}

func (q *eventQueue) pop() event {
	h := q.h
	top := h[root]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	if n > root {
		// Move the hole at the root down along the least children to a
		// leaf, then bring the last entry up from there: it came from the
		// bottom and most often belongs near it, so this saves comparing
		// it at every level.
		i := root
		for {
			c := 4*i - 8
			if c >= n {
				break
			}
			m := c
			for k := c + 1; k < c+4 && k < n; k++ {
				if h[k].before(h[m]) {
					m = k
				}
			}
			h[i] = h[m]
			i = m
		}
		for i > root {
			p := i/4 + 2
			if !last.before(h[p]) {
				break
			}
			h[i] = h[p]
			i = p
		}
		h[i] = last
	}
	q.h = h
	e := q.event(top)
	s := uint32(top.ord & slotMask)
	q.slots[s] = payload{}
	q.free = append(q.free, s)
	q.counts[e.kind]--
	return e
}

// renumber gives the queued events that are ordered by queueing order the
// ranks 1, 2, ... in that order, so that ranks never run out: relative order
// within each class is kept, which is all the heap compares.
func (q *eventQueue) renumber() {
	beat := uint64(class[evNodeBeat])
	var idx []int
	for i := root; i < len(q.h); i++ {
		if q.h[i].ord>>classShft != beat {
			idx = append(idx, i)
		}
	}
	rank := func(i int) uint64 { return q.h[i].ord >> rankShift & rankMask }
	sort.Slice(idx, func(a, b int) bool { return rank(idx[a]) < rank(idx[b]) })
	for r, i := range idx {
		o := q.h[i].ord
		q.h[i].ord = o&^(rankMask<<rankShift) | uint64(r+1)<<rankShift
	}
	q.seq = uint64(len(idx))
}

// only reports whether every queued event is of one of the given kinds.
func (q *eventQueue) only(kinds ...eventKind) bool {
	n := 0
	for _, k := range kinds {
		n += q.counts[k]
	}
	return n == q.Len()
}
