package pq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct {
	key, pos int
}

func newIntHeap() *Heap[*item] {
	return New(func(a, b *item) bool { return a.key < b.key }, func(x *item, i int) { x.pos = i })
}

func TestHeapOperations(t *testing.T) {
	tests := []struct {
		name   string
		keys   []int
		remove []int // indexes into keys to remove
		rekey  map[int]int
		want   []int
	}{
		{name: "empty", want: nil},
		{name: "sorted", keys: []int{1, 2, 3}, want: []int{1, 2, 3}},
		{name: "reverse", keys: []int{5, 4, 3, 2, 1}, want: []int{1, 2, 3, 4, 5}},
		{name: "duplicates", keys: []int{2, 1, 2, 1}, want: []int{1, 1, 2, 2}},
		{name: "remove root and leaf", keys: []int{4, 1, 3, 2}, remove: []int{1, 2}, want: []int{2, 4}},
		{name: "rekey up and down", keys: []int{10, 20, 30, 40}, rekey: map[int]int{3: 5, 0: 35}, want: []int{5, 20, 30, 35}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newIntHeap()
			items := make([]*item, len(tt.keys))
			for i, k := range tt.keys {
				items[i] = &item{key: k}
				h.Push(items[i])
			}
			for _, i := range tt.remove {
				if got := h.Remove(items[i].pos); got != items[i] || got.pos != -1 {
					t.Fatalf("Remove returned %+v, want item %d with pos -1", got, i)
				}
			}
			for i, k := range tt.rekey {
				items[i].key = k
				h.Fix(items[i].pos)
			}
			var walked []int
			h.Ascend(func(x *item) bool { walked = append(walked, x.key); return true })
			if !slices.Equal(walked, tt.want) {
				t.Fatalf("Ascend gave %v, want %v", walked, tt.want)
			}
			var popped []int
			for h.Len() > 0 {
				popped = append(popped, h.Remove(0).key)
			}
			if !slices.Equal(popped, tt.want) {
				t.Fatalf("popping gave %v, want %v", popped, tt.want)
			}
		})
	}
}

func TestAscendStopsAndRandomAgreement(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		h := newIntHeap()
		var keys []int
		for range r.IntN(60) {
			k := r.IntN(30)
			keys = append(keys, k)
			h.Push(&item{key: k})
		}
		slices.Sort(keys)
		stop := r.IntN(len(keys) + 1)
		var got []int
		h.Ascend(func(x *item) bool { got = append(got, x.key); return len(got) < stop })
		want := keys[:min(max(stop, 1), len(keys))]
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: Ascend gave %v, want %v", round, got, want)
		}
		for i := 0; i < h.Len(); i++ {
			if h.At(i).pos != i {
				t.Fatalf("item at %d believes it is at %d", i, h.At(i).pos)
			}
		}
	}
}
