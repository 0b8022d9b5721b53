package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

func TestBitsetNext(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 4095, 4096, 4097, 10000} {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		b := newBitset(n)
		ref := make([]bool, n)
		for range 3 * n {
			i := r.IntN(n)
			if r.IntN(3) == 0 {
				b.clear(i)
				ref[i] = false
			} else {
				b.set(i)
				ref[i] = true
			}
		}
		for from := -1; from <= n; from++ {
			want := -1
			for i := max(from, 0); i < n; i++ {
				if ref[i] {
					want = i
					break
				}
			}
			if got := b.next(from); got != want {
				t.Fatalf("n=%d next(%d) = %d, want %d", n, from, got, want)
			}
		}
		for i := range n {
			if b.has(i) != ref[i] {
				t.Fatalf("n=%d has(%d) = %v", n, i, b.has(i))
			}
		}
	}
}

func TestEventOrder(t *testing.T) {
	var q eventQueue
	// Pushed in scrambled order; popped by time, then class, then node
	// position for heartbeats, then push order.
	q.push(5, evAMBeat, 1, nil)
	q.pushBeat(5, 9, 2)
	q.push(5, evFinish, 3, nil)
	q.pushBeat(5, 8, 1)
	q.push(3, evPass, 4, nil)
	q.push(5, evFinish, 5, nil)
	q.push(5, evTick, 6, nil)
	want := []struct {
		at   clock.Time
		kind eventKind
		idx  int32
	}{{3, evPass, 4}, {5, evFinish, 3}, {5, evFinish, 5}, {5, evTick, 6}, {5, evNodeBeat, 8}, {5, evNodeBeat, 9}, {5, evAMBeat, 1}}
	if !q.only(evAMBeat, evNodeBeat, evFinish, evPass, evTick) || q.only(evFinish) {
		t.Fatal("only() miscounts")
	}
	for i, w := range want {
		e := q.pop()
		if e.at != w.at || e.kind != w.kind || e.idx != w.idx {
			t.Fatalf("pop %d: %v %v %d, want %v %v %d", i, e.at, e.kind, e.idx, w.at, w.kind, w.idx)
		}
	}
	if q.Len() != 0 {
		t.Fatal("queue not empty")
	}
}

func TestEstimatesValidate(t *testing.T) {
	for _, tt := range []struct {
		e  Estimates
		ok bool
	}{
		{Estimates{}, true}, {Estimates{Source: "history"}, true}, {Estimates{Source: "oracle", Error: 0.5}, true},
		{Estimates{Source: "magic"}, false}, {Estimates{Source: "oracle", Error: 1}, false}, {Estimates{Source: "declared", Error: 0.1}, false},
	} {
		if err := tt.e.Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v: %v", tt.e, err)
		}
	}
}

// TestEventRanksRenumbered runs the queue with ranks that run out every few
// pushes: renumbering must keep the order (time, class, key, queueing
// order) that a queue with unbounded ranks gives.
func TestEventRanksRenumbered(t *testing.T) {
	var small, big eventQueue
	small.maxRank = 5
	rng := rand.New(rand.NewPCG(7, 9))
	kinds := []eventKind{evArrival, evStart, evFinish, evAMStop, evTick, evAMBeat, evPass, evLoad}
	pushed := 0
	for step := 0; step < 4000; step++ {
		if small.Len() == 0 || rng.IntN(3) > 0 {
			at := clock.Time(rng.IntN(40))
			if rng.IntN(4) == 0 {
				pos := int32(rng.IntN(6))
				small.pushBeat(at, 100+pos, pos)
				big.pushBeat(at, 100+pos, pos)
			} else {
				k := kinds[rng.IntN(len(kinds))]
				small.push(at, k, int32(pushed), nil)
				big.push(at, k, int32(pushed), nil)
			}
			pushed++
			continue
		}
		a, b := small.pop(), big.pop()
		if a.at != b.at || a.kind != b.kind || a.idx != b.idx || a.class() != b.class() || a.key() != b.key() {
			t.Fatalf("step %d: popped %v %v %d, want %v %v %d", step, a.at, a.kind, a.idx, b.at, b.kind, b.idx)
		}
	}
	if small.seq > 2*small.maxRank+uint64(small.Len()) {
		t.Errorf("ranks not renumbered: seq %d", small.seq)
	}
	if small.Len() != big.Len() {
		t.Errorf("lengths %d and %d", small.Len(), big.Len())
	}
}

// ref is an event as the reference order sees it.
type ref struct {
	at         clock.Time
	class, key int64
	seq        int
	kind       eventKind
	idx        int32
}

func (a ref) less(b ref) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.class != b.class {
		return a.class < b.class
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.seq < b.seq
}

// takeLeast removes and returns the least of the pending events.
func takeLeast(pending *[]ref) ref {
	p := *pending
	m := 0
	for i := range p {
		if p[i].less(p[m]) {
			m = i
		}
	}
	r := p[m]
	*pending = append(p[:m], p[m+1:]...)
	return r
}

// TestEventQueueMatchesSort checks the queue against sorting: events pushed
// over several seconds (so that most wait in far buckets) and popped as the
// loop does, never before the time last popped, come out in (time, class,
// key, queueing order) order.
func TestEventQueueMatchesSort(t *testing.T) {
	kinds := []eventKind{evArrival, evStart, evFinish, evAMStop, evTick, evAMBeat, evPass, evLoad}
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		var q eventQueue
		if seed%2 == 0 {
			q.maxRank = 50
		}
		var pending []ref
		now := clock.Time(0)
		for step := 0; step < 20000; step++ {
			if len(pending) == 0 || rng.IntN(5) < 3 {
				// Mostly near the present, some seconds ahead.
				at := now + clock.Time(rng.IntN(3000))
				if rng.IntN(3) == 0 {
					at = now + clock.Time(rng.Int64N(int64(8*clock.Second)))
				}
				r := ref{at: at, seq: step, idx: int32(step)}
				if rng.IntN(4) == 0 {
					pos := int32(rng.IntN(50))
					r.kind, r.class, r.key, r.idx = evNodeBeat, int64(class[evNodeBeat]), int64(pos), 1000+pos
					q.pushBeat(at, r.idx, pos)
				} else {
					r.kind = kinds[rng.IntN(len(kinds))]
					r.class = int64(class[r.kind])
					q.push(at, r.kind, r.idx, nil)
				}
				pending = append(pending, r)
				continue
			}
			want := takeLeast(&pending)
			if q.Len() != len(pending)+1 {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, step, q.Len(), len(pending)+1)
			}
			if p := q.peek(); p.at != want.at || p.idx != want.idx {
				t.Fatalf("seed %d step %d: peek %v %d, want %v %d", seed, step, p.at, p.idx, want.at, want.idx)
			}
			got := q.pop()
			if got.at != want.at || got.kind != want.kind || got.idx != want.idx || int64(got.key()) != want.key && want.kind == evNodeBeat {
				t.Fatalf("seed %d step %d: popped %v %v %d, want %v %v %d", seed, step, got.at, got.kind, got.idx, want.at, want.kind, want.idx)
			}
			now = got.at
		}
	}
}

// beforeBit must agree with before on every kind of pair: times apart,
// equal, negative or at the extremes, and ords that differ in any bit.
func TestBeforeBit(t *testing.T) {
	const maxT, minT = clock.Time(math.MaxInt64), clock.Time(math.MinInt64)
	cases := []struct {
		name string
		a, b entry
		want int
	}{
		{"earlier time", entry{1, 9}, entry{2, 0}, 1},
		{"later time", entry{2, 0}, entry{1, 9}, 0},
		{"same time, lower ord", entry{5, 1}, entry{5, 2}, 1},
		{"same time, higher ord", entry{5, 2}, entry{5, 1}, 0},
		{"equal", entry{5, 7}, entry{5, 7}, 0},
		{"negative before zero", entry{-1, math.MaxUint64}, entry{0, 0}, 1},
		{"zero after negative", entry{0, 0}, entry{-1, math.MaxUint64}, 0},
		{"most negative before most positive", entry{minT, 0}, entry{maxT, 0}, 1},
		{"most positive after most negative", entry{maxT, 0}, entry{minT, 0}, 0},
		{"ord's top bit", entry{3, 1 << 63}, entry{3, 1<<63 - 1}, 0},
		{"ord's low bit, borrow into time", entry{3, 0}, entry{3, 1}, 1},
		{"ord borrow does not cross times", entry{4, 0}, entry{3, math.MaxUint64}, 0},
	}
	for _, c := range cases {
		if got := c.a.beforeBit(c.b); got != c.want {
			t.Errorf("%s: beforeBit(%v, %v) = %d, want %d", c.name, c.a, c.b, got, c.want)
		}
		if got := c.a.before(c.b); got != (c.want == 1) {
			t.Errorf("%s: before(%v, %v) = %v, want %v", c.name, c.a, c.b, got, c.want == 1)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		a := entry{clock.Time(rng.Int64N(7) - 3), rng.Uint64N(5)}
		b := entry{clock.Time(rng.Int64N(7) - 3), rng.Uint64N(5)}
		if want := a.before(b); (a.beforeBit(b) == 1) != want {
			t.Fatalf("beforeBit(%v, %v) disagrees with before = %v", a, b, want)
		}
	}
}
