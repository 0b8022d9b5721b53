package sim

import "math/bits"

// bitset is a two-level bit set: a summary bit per word says whether the word
// has any bit set, so finding the next set bit skips empty stretches 4096
// positions at a time. The simulator keeps one bit per node ("may accept a
// container") and asks for the next such node in heartbeat order.
type bitset struct {
	words   []uint64
	summary []uint64
}

func newBitset(n int) *bitset {
	w := (n + 63) / 64
	return &bitset{words: make([]uint64, w), summary: make([]uint64, (w+63)/64)}
}

func (b *bitset) set(i int) {
	w := i >> 6
	b.words[w] |= 1 << (uint(i) & 63)
	b.summary[w>>6] |= 1 << (uint(w) & 63)
}

func (b *bitset) clear(i int) {
	w := i >> 6
	b.words[w] &^= 1 << (uint(i) & 63)
	if b.words[w] == 0 {
		b.summary[w>>6] &^= 1 << (uint(w) & 63)
	}
}

func (b *bitset) has(i int) bool { return b.words[i>>6]&(1<<(uint(i)&63)) != 0 }

// next returns the first set position >= i, or -1.
func (b *bitset) next(i int) int {
	if i < 0 {
		i = 0
	}
	w := i >> 6
	if w >= len(b.words) {
		return -1
	}
	if m := b.words[w] >> (uint(i) & 63); m != 0 {
		return i + bits.TrailingZeros64(m)
	}
	// Look for the next non-empty word through the summary.
	w++
	s := w >> 6
	if s >= len(b.summary) {
		return -1
	}
	m := b.summary[s] >> (uint(w) & 63) << (uint(w) & 63)
	for m == 0 {
		s++
		if s >= len(b.summary) {
			return -1
		}
		m = b.summary[s]
	}
	w = s<<6 + bits.TrailingZeros64(m)
	return w<<6 + bits.TrailingZeros64(b.words[w])
}
