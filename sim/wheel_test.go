package sim

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

// TestBeatWheelMatchesSort drives a queue that keeps heartbeats in a wheel
// the way the simulator does (a node has at most one heartbeat queued, never
// one that has happened and never one more than a period ahead; some nodes
// queue the next as soon as one is taken), among other events near and
// beyond the far horizon, and checks every pop and peek against sorting.
// Node counts cross a word and a summary word of the bit sets, and phases
// repeat, so that heartbeats share instants.
func TestBeatWheelMatchesSort(t *testing.T) {
	kinds := []eventKind{evArrival, evStart, evFinish, evAMStop, evTick, evAMBeat, evPass, evLoad}
	for _, nodes := range []int{1, 3, 70, 5000} {
		for _, period := range []clock.Duration{clock.Second, 3 * clock.Second / 2, 7} {
			for seed := uint64(1); seed <= 3; seed++ {
				rng := rand.New(rand.NewPCG(seed, uint64(nodes)))
				phase := make([]clock.Duration, nodes)
				for i := range phase {
					if i > 0 && rng.IntN(4) == 0 {
						phase[i] = phase[i-1]
					} else {
						phase[i] = clock.Duration(rng.Int64N(int64(period)))
					}
				}
				slices.Sort(phase)
				byPos := make([]int32, nodes)
				for p := range byPos {
					byPos[p] = int32(nodes - 1 - p) // ids differ from positions
				}
				var q eventQueue
				q.wheel = newBeatWheel(period, phase, byPos)
				queued := make([]bool, nodes)
				every := make([]bool, nodes)
				for p := range every {
					every[p] = rng.IntN(3) == 0
				}
				var pending []ref
				last := ref{at: -1}
				now := clock.Time(0)
				beatClass := int64(class[evNodeBeat])
				push := func(at clock.Time, p int, seq int) {
					queued[p] = true
					q.pushBeat(at, byPos[p], int32(p))
					pending = append(pending, ref{at: at, class: beatClass, key: int64(p), seq: seq, kind: evNodeBeat, idx: byPos[p]})
				}
				for step := 0; step < 6000; step++ {
					if len(pending) == 0 || rng.IntN(5) < 3 {
						if p := rng.IntN(nodes); !queued[p] && rng.IntN(2) == 0 {
							// The node's first heartbeat that has not
							// happened, sometimes the one after it when
							// that is still within a period.
							at := clock.Time(phase[p])
							if now > at {
								at += (now - at + clock.Time(period) - 1) / clock.Time(period) * clock.Time(period)
							}
							if !last.less(ref{at: at, class: beatClass, key: int64(p), seq: 1 << 62}) {
								at += clock.Time(period)
							}
							if next := at + clock.Time(period); next <= now+clock.Time(period) && rng.IntN(3) == 0 {
								at = next
							}
							push(at, p, step)
							continue
						}
						at := now + clock.Time(rng.Int64N(int64(period)))
						if rng.IntN(3) == 0 {
							at = now + clock.Time(rng.Int64N(int64(8*clock.Second)))
						}
						k := kinds[rng.IntN(len(kinds))]
						q.push(at, k, int32(step), nil)
						pending = append(pending, ref{at: at, class: int64(class[k]), seq: step, kind: k, idx: int32(step)})
						continue
					}
					want := takeLeast(&pending)
					if q.Len() != len(pending)+1 {
						t.Fatalf("nodes %d period %v seed %d step %d: Len %d, want %d", nodes, period, seed, step, q.Len(), len(pending)+1)
					}
					if p := q.peek(); p.at != want.at || p.kind != want.kind || p.idx != want.idx {
						t.Fatalf("nodes %d period %v seed %d step %d: peek %v %v %d, want %v %v %d", nodes, period, seed, step, p.at, p.kind, p.idx, want.at, want.kind, want.idx)
					}
					if p, ok := q.next(); !ok || p.kind != want.kind || p.idx != want.idx {
						t.Fatalf("nodes %d period %v seed %d step %d: next after peek %v %d, want %v %d", nodes, period, seed, step, p.kind, p.idx, want.kind, want.idx)
					}
					got := q.pop()
					if got.at != want.at || got.kind != want.kind || got.idx != want.idx || got.class() != uint8(want.class) || int64(got.key()) != want.key {
						t.Fatalf("nodes %d period %v seed %d step %d: popped %v %v %d key %d, want %v %v %d key %d", nodes, period, seed, step, got.at, got.kind, got.idx, got.key(), want.at, want.kind, want.idx, want.key)
					}
					if q.err != nil {
						t.Fatalf("nodes %d period %v seed %d step %d: %v", nodes, period, seed, step, q.err)
					}
					now, last = got.at, want
					if got.kind == evNodeBeat {
						p := int(want.key)
						queued[p] = false
						if every[p] {
							push(now+clock.Time(period), p, step)
						}
					}
				}
				if q.counts[evNodeBeat] != q.wheel.n {
					t.Errorf("nodes %d period %v seed %d: %d heartbeats counted, %d in the wheel", nodes, period, seed, q.counts[evNodeBeat], q.wheel.n)
				}
			}
		}
	}
}

// TestBeatWheelRefuses checks that a heartbeat off its node's phase, a
// second one for a node, or one too far ahead is an error rather than a
// misordered event.
func TestBeatWheelRefuses(t *testing.T) {
	phase := []clock.Duration{0, 300, 300}
	for _, c := range []struct {
		name string
		at   []clock.Time
		pos  []int32
		want string
	}{
		{"off phase", []clock.Time{1301}, []int32{1}, "not on its phase"},
		{"before its phase", []clock.Time{100}, []int32{2}, "not on its phase"},
		{"twice", []clock.Time{300, 300}, []int32{2, 2}, "queued twice"},
		{"two cycles ahead", []clock.Time{0, 2300}, []int32{0, 1}, "more than a period ahead"},
		{"on phase", []clock.Time{0, 1300, 300}, []int32{0, 1, 2}, ""},
	} {
		var q eventQueue
		q.wheel = newBeatWheel(1000, phase, []int32{0, 1, 2})
		for i := range c.at {
			q.pushBeat(c.at[i], c.pos[i], c.pos[i])
		}
		switch {
		case c.want == "" && q.err != nil:
			t.Errorf("%s: %v", c.name, q.err)
		case c.want != "" && (q.err == nil || !strings.Contains(q.err.Error(), c.want)):
			t.Errorf("%s: error %v, want one saying %q", c.name, q.err, c.want)
		}
	}
}
