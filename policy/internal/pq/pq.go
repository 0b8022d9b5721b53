// Package pq is an indexed binary min-heap: items can be re-keyed or removed
// in O(log n) because the heap tells each item its position, and the heap can
// be walked in ascending order without being modified. Policies use it to
// keep jobs ordered by submission, usage or estimate.
package pq

// Heap orders items by less. setIndex is called whenever an item moves, with
// its new position, or -1 when it leaves the heap.
type Heap[T any] struct {
	items    []T
	less     func(a, b T) bool
	setIndex func(x T, i int)
	walk     []int // scratch for Ascend
}

// New returns an empty heap.
func New[T any](less func(a, b T) bool, setIndex func(x T, i int)) *Heap[T] {
	return &Heap[T]{less: less, setIndex: setIndex}
}

// Len returns the number of items.
func (h *Heap[T]) Len() int { return len(h.items) }

// Min returns the least item; the heap must not be empty.
func (h *Heap[T]) Min() T { return h.items[0] }

// At returns the item at position i.
func (h *Heap[T]) At(i int) T { return h.items[i] }

// Push adds x.
func (h *Heap[T]) Push(x T) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	h.setIndex(x, i)
	h.up(i)
}

// Remove takes out the item at position i and returns it.
func (h *Heap[T]) Remove(i int) T {
	x := h.items[i]
	n := len(h.items) - 1
	if i != n {
		h.swap(i, n)
	}
	var zero T
	h.items[n] = zero
	h.items = h.items[:n]
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
	h.setIndex(x, -1)
	return x
}

// Fix restores order after the key of the item at position i changed.
func (h *Heap[T]) Fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// Ascend calls f on items in ascending order until f returns false. The heap
// must not change during the walk, and walks must not nest. It costs
// O(k log k) for the k items visited.
func (h *Heap[T]) Ascend(f func(x T) bool) {
	if len(h.items) == 0 {
		return
	}
	// A second heap, of positions, holds the frontier of the walk: the
	// children of every item visited so far.
	w := append(h.walk[:0], 0)
	less := func(a, b int) bool { return h.less(h.items[a], h.items[b]) }
	for len(w) > 0 {
		top := w[0]
		last := len(w) - 1
		w[0] = w[last]
		w = w[:last]
		siftDown(w, 0, less)
		if !f(h.items[top]) {
			break
		}
		for c := 2*top + 1; c <= 2*top+2 && c < len(h.items); c++ {
			w = append(w, c)
			siftUp(w, len(w)-1, less)
		}
	}
	h.walk = w[:0]
}

func siftUp(w []int, i int, less func(a, b int) bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(w[i], w[p]) {
			return
		}
		w[i], w[p] = w[p], w[i]
		i = p
	}
}

func siftDown(w []int, i int, less func(a, b int) bool) {
	n := len(w)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && less(w[r], w[c]) {
			c = r
		}
		if !less(w[c], w[i]) {
			return
		}
		w[i], w[c] = w[c], w[i]
		i = c
	}
}

func (h *Heap[T]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.setIndex(h.items[i], i)
	h.setIndex(h.items[j], j)
}

func (h *Heap[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *Heap[T]) down(i int) bool {
	start := i
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.less(h.items[r], h.items[c]) {
			c = r
		}
		if !h.less(h.items[c], h.items[i]) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}
