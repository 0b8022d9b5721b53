package sim

import (
	"fmt"
	"math/bits"
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
	evKill                      // a container preemption took is ended
	evAMWatch                   // an AM heartbeat its MapReduce AM asked for although nothing happened (sched.AMWatcher)
	numEventKinds
)

// class orders events that share an instant: true state changes first, then
// the periodic tick, then node heartbeats (reports, then allocation), then AM
// heartbeats, and in ideal mode a final allocation pass that sees everything
// that happened at that instant.
var class = [numEventKinds]uint8{
	evArrival: 0, evStart: 0, evFinish: 0, evAMStop: 0, evLoad: 0, evKill: 0,
	evTick:     1,
	evNodeBeat: 2,
	evAMBeat:   3,
	evAMWatch:  3,
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

// beforeBit is before as 0 or 1, computed without branches as the borrow
// of the 128-bit subtraction (at, ord) - (b.at, b.ord), the times' sign
// bits flipped so that unsigned order is signed order: which child of a
// heap node is least is a coin toss the branch predictor loses half the
// time, and this comparison is most of the time popping takes.
func (a entry) beforeBit(b entry) int {
	_, borrow := bits.Sub64(a.ord, b.ord, 0)
	_, borrow = bits.Sub64(uint64(a.at)^1<<63, uint64(b.at)^1<<63, borrow)
	return int(borrow)
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

// farWidth is the span of time one bucket of far events covers.
const farWidth = clock.Time(clock.Second)

// eventQueue orders events by (time, class, key, sequence). Events before
// the horizon are in a 4-ary min-heap of 16-byte entries whose payloads stay
// in slots that are reused; later ones (mostly the ends of running tasks)
// wait unsorted in buckets of farWidth, and a bucket joins the heap when the
// heap has nothing before the horizon left, which then moves past it. The
// heap stays small enough to stay in cache, and every event still comes out
// in the same order as from one heap. Node heartbeats, half of all events,
// wait apart in a beatWheel when the simulator gives the queue one, and pop
// takes whichever of the wheel's least and the heap's least comes first.
// Queueing an event allocates nothing once the arrays have grown.
type eventQueue struct {
	h      []entry // h[:root] unused
	slots  []payload
	free   []uint32
	seq    uint64
	counts [numEventKinds]int

	horizon clock.Time          // every event before it is in the heap
	far     map[int64]chunkList // bucket (time / farWidth) → its events
	chunks  []chunk             // the buckets' storage; free ones are reused
	spare   []int32             // indices of free chunks
	order   []int64             // min-heap of the buckets in far
	nfar    int                 // events in buckets

	// wheel holds the node heartbeats when the simulator gives it one;
	// without it they are ordered in the heap with the rest.
	wheel *beatWheel

	// tick is the one queued policy tick, kept apart: a ticking policy
	// on a long, sparse run has a tick in almost every second that
	// nothing else happens in, and through the buckets and the heap
	// each cost more than the tick's own work. Only one is ever queued,
	// and it is the only event of its class, so its place in the order
	// is its time and class alone.
	tick    clock.Time
	tickSet bool

	// maxRank is the largest queueing rank before ranks are renumbered;
	// 0 means rankMask. Tests lower it.
	maxRank uint64
	err     error
}

// farEvent is an event beyond the horizon; ord has no slot yet.
type farEvent struct {
	at  clock.Time
	ord uint64
	p   payload
}

// A bucket is a list of fixed-size chunks, so that a sparse bucket far
// ahead holds one chunk, not a large array left over from a busy one.
const chunkLen = 64

type chunk struct {
	ev   [chunkLen]farEvent
	n    int32
	next int32 // -1 at the end
}

type chunkList struct{ head, tail int32 }

func (q *eventQueue) newChunk() int32 {
	if n := len(q.spare); n > 0 {
		i := q.spare[n-1]
		q.spare = q.spare[:n-1]
		return i
	}
	q.chunks = append(q.chunks, chunk{next: -1})
	return int32(len(q.chunks) - 1)
}

func (q *eventQueue) Len() int {
	n := max(len(q.h)-root, 0) + q.nfar
	if q.wheel != nil {
		n += q.wheel.n
	}
	if q.tickSet {
		n++
	}
	return n
}

// pushTick queues the policy tick at time at.
func (q *eventQueue) pushTick(at clock.Time) {
	if q.tickSet {
		if q.err == nil {
			q.err = fmt.Errorf("a second tick queued at %v, the first at %v", at, q.tick)
		}
		return
	}
	q.tick, q.tickSet = at, true
	q.counts[evTick]++
}

// tickEntry is the queued tick's place in the order.
func (q *eventQueue) tickEntry() entry {
	return entry{at: q.tick, ord: uint64(class[evTick]) << classShft}
}

// tickFirst reports whether the queued tick comes before every other
// queued event, once the heap is settled.
func (q *eventQueue) tickFirst() bool {
	if !q.tickSet {
		return false
	}
	t := q.tickEntry()
	if len(q.h) > root && q.h[root].before(t) {
		return false
	}
	w := q.wheel
	return w == nil || w.n == 0 || t.before(w.min())
}

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
	if q.wheel != nil {
		if err := q.wheel.add(at, pos); err != nil {
			if q.err == nil {
				q.err = err
			}
			return
		}
		q.counts[evNodeBeat]++
		return
	}
	q.add(at, evNodeBeat, uint64(uint32(pos)), id, nil)
}

func (q *eventQueue) add(at clock.Time, kind eventKind, rank uint64, idx int32, ct *sched.Container) {
	q.counts[kind]++
	ord := uint64(class[kind])<<classShft | rank<<rankShift
	p := payload{ct: ct, idx: idx, kind: kind}
	if at >= q.horizon {
		q.addFar(farEvent{at: at, ord: ord, p: p})
		return
	}
	q.addNear(at, ord, p)
}

func (q *eventQueue) addFar(e farEvent) {
	b := int64(e.at / farWidth)
	l, ok := q.far[b]
	if !ok {
		if q.far == nil {
			q.far = map[int64]chunkList{}
		}
		c := q.newChunk()
		l = chunkList{c, c}
		q.far[b] = l
		q.pushBucket(b)
	}
	if q.chunks[l.tail].n == chunkLen {
		c := q.newChunk()
		q.chunks[l.tail].next = c
		l.tail = c
		q.far[b] = l
	}
	t := &q.chunks[l.tail]
	t.ev[t.n] = e
	t.n++
	q.nfar++
}

// settle moves buckets into the heap until the heap's least event is the
// least of all.
func (q *eventQueue) settle() {
	for q.nfar > 0 && (len(q.h) <= root || q.h[root].at >= q.horizon) {
		b := q.popBucket()
		l := q.far[b]
		delete(q.far, b)
		q.horizon = clock.Time(b+1) * farWidth
		for i := l.head; i >= 0; {
			c := &q.chunks[i]
			for k := range c.ev[:c.n] {
				e := &c.ev[k]
				q.addNear(e.at, e.ord, e.p)
				*e = farEvent{}
			}
			q.nfar -= int(c.n)
			next := c.next
			c.n, c.next = 0, -1
			q.spare = append(q.spare, i)
			i = next
		}
	}
}

func (q *eventQueue) pushBucket(b int64) {
	q.order = append(q.order, b)
	o := q.order
	i := len(o) - 1
	for i > 0 {
		p := (i - 1) / 2
		if o[p] <= b {
			break
		}
		o[i] = o[p]
		i = p
	}
	o[i] = b
}

func (q *eventQueue) popBucket() int64 {
	o := q.order
	top := o[0]
	n := len(o) - 1
	last := o[n]
	o = o[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && o[c+1] < o[c] {
			c++
		}
		if last <= o[c] {
			break
		}
		o[i] = o[c]
		i = c
	}
	if n > 0 {
		o[i] = last
	}
	q.order = o
	return top
}

// addNear puts an event into the heap, in a slot of its own.
func (q *eventQueue) addNear(at clock.Time, ord uint64, p payload) {
	var s uint32
	if n := len(q.free); n > 0 {
		s = q.free[n-1]
		q.free = q.free[:n-1]
		q.slots[s] = p
	} else {
		if len(q.slots) >= maxSlots {
			if q.err == nil {
				q.err = fmt.Errorf("more than %d events queued at once", maxSlots)
			}
			return
		}
		s = uint32(len(q.slots))
		q.slots = append(q.slots, p)
	}
	e := entry{at: at, ord: ord | uint64(s)}
	if len(q.h) < root {
		q.h = make([]entry, root, 64)
	}
	q.h = append(q.h, e)
	siftUp(q.h, len(q.h)-1, e)
}

// siftUp puts e at the hole i or above it, moving down the parents that
// come after it.
func siftUp(h []entry, i int, e entry) {
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

func (q *eventQueue) peek() event {
	q.settle()
	if q.tickFirst() {
		return event{at: q.tick, ord: q.tickEntry().ord, kind: evTick}
	}
	if q.beatFirst() {
		return q.wheel.event()
	}
	return q.event(q.h[root])
}

// beatFirst reports whether the wheel's least event comes before the
// heap's; once the heap is settled, that is whether it is the least of all.
func (q *eventQueue) beatFirst() bool {
	w := q.wheel
	return w != nil && w.n > 0 && (len(q.h) <= root || w.min().before(q.h[root]))
}

// next returns the kind, node or job and container of the event that pop
// would return, as far as it can tell without settling: the heap's least
// event may not yet be the least of all. ok is false when it has no
// answer.
func (q *eventQueue) next() (p payload, ok bool) {
	if q.tickFirst() {
		return payload{kind: evTick}, true
	}
	if q.beatFirst() {
		e := q.wheel.event()
		return payload{idx: e.idx, kind: e.kind}, true
	}
	if len(q.h) <= root {
		return payload{}, false
	}
	return q.slots[q.h[root].ord&slotMask], true
}

func (q *eventQueue) pop() event {
	q.settle()
	if q.tickFirst() {
		q.tickSet = false
		q.counts[evTick]--
		return event{at: q.tick, ord: q.tickEntry().ord, kind: evTick}
	}
	if q.beatFirst() {
		e := q.wheel.event()
		q.wheel.take()
		q.counts[evNodeBeat]--
		return e
	}
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
			var m int
			if c+3 < n {
				// A tournament: the less of each pair, then of the two.
				a := c + h[c+1].beforeBit(h[c])
				b := c + 2 + h[c+3].beforeBit(h[c+2])
				m = a + (b-a)*h[b].beforeBit(h[a])
			} else {
				m = c
				for k := c + 1; k < n; k++ {
					if h[k].before(h[m]) {
						m = k
					}
				}
			}
			h[i] = h[m]
			i = m
		}
		siftUp(h, i, last)
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
	var ords []*uint64
	for i := root; i < len(q.h); i++ {
		if q.h[i].ord>>classShft != beat {
			ords = append(ords, &q.h[i].ord)
		}
	}
	for _, l := range q.far {
		for i := l.head; i >= 0; i = q.chunks[i].next {
			c := &q.chunks[i]
			for k := range c.ev[:c.n] {
				if o := &c.ev[k].ord; *o>>classShft != beat {
					ords = append(ords, o)
				}
			}
		}
	}
	rank := func(o *uint64) uint64 { return *o >> rankShift & rankMask }
	sort.Slice(ords, func(a, b int) bool { return rank(ords[a]) < rank(ords[b]) })
	for r, o := range ords {
		*o = *o&^(rankMask<<rankShift) | uint64(r+1)<<rankShift
	}
	q.seq = uint64(len(ords))
}

// only reports whether every queued event is of one of the given kinds.
func (q *eventQueue) only(kinds ...eventKind) bool {
	n := 0
	for _, k := range kinds {
		n += q.counts[k]
	}
	return n == q.Len()
}
