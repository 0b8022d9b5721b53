// Package shard splits a sweep of independent, deterministic simulations
// (the cells: workload x policy x admission x seed) across processes or
// machines, and joins their parts back into what one unsharded run writes.
//
// Shard I of N runs the cells whose position k in the run's canonical cell
// order has k mod N == I. The rule depends only on the cell list and N, so
// every N covers each cell exactly once, shards get sizes that differ by at
// most one, and neighbouring cells (often of similar cost, such as one
// policy over consecutive seeds) spread over the shards.
//
// Each shard writes its runs and a manifest (shard.json) that says which
// command, spindle version, workload (by content hash) and options it ran
// with, the whole cell list and which cells it ran. Merge checks that the
// shards it is given are exactly 0..N-1 of one run before it joins them.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is one shard: Index in 0..Count-1 (Kubernetes' JOB_COMPLETION_INDEX
// counts the same way).
type Spec struct {
	Index, Count int
}

// Whole is the unsharded run: one shard holding every cell.
var Whole = Spec{Index: 0, Count: 1}

// Parse reads I/N, 0 <= I < N.
func Parse(s string) (Spec, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard %q: want I/N, e.g. 0/4 (shards count from 0)", s)
	}
	idx, err1 := strconv.Atoi(i)
	cnt, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard %q: want I/N with whole numbers, e.g. 0/4", s)
	}
	if cnt < 1 {
		return Spec{}, fmt.Errorf("shard %q: N must be at least 1", s)
	}
	if idx < 0 || idx >= cnt {
		return Spec{}, fmt.Errorf("shard %q: I must be in 0..%d (shards count from 0, as JOB_COMPLETION_INDEX does)", s, cnt-1)
	}
	return Spec{Index: idx, Count: cnt}, nil
}

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether cell k (its position in the canonical order) is
// this shard's.
func (s Spec) Owns(k int) bool { return k%s.Count == s.Index }

// Pick returns the positions, in order, of this shard's cells among n.
// It is empty when the shard has none (N larger than the cells).
func (s Spec) Pick(n int) []int {
	out := []int{}
	for k := s.Index; k < n; k += s.Count {
		out = append(out, k)
	}
	return out
}
