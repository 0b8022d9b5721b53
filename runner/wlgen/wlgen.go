// Package wlgen generates small, valid, random workloads from a seed, for
// property tests that run every policy and admission controller over inputs
// nobody tuned, shaped like what real clusters produce: one to three node
// shapes or a single node, machines with plenty of memory or tight on it (a
// gigabyte or less per vcore), bursts and streams, containers bound by vcores
// or by memory, one to three phases with slow-start (often on memory-bound
// tasks, where an early reduce takes the room a map needs), AMs, estimates
// and deadlines on some jobs, and external load on some clusters, periodic
// or not. Some jobs on slow-start workloads are MapReduce-shaped (mapReduce):
// many maps, then reduces at slow-start at least as large as a map, the
// shape in which a packer gives the last maps' room to reduces and only the
// MapReduce AM's reduce preemption frees it.
//
// On most workloads every request fits an empty node even at the external
// load's peak, the premise of AutoAdmin's promise that no admitted job
// deadlocks, and every job can run alone: its AM and any one of its tasks
// fit an empty node of one shape together.
package wlgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Workload returns the YAML text of workload number seed; the same seed
// always gives the same text. Every request fits at least one empty node
// without external load, and, on most workloads, under its peak too.
func Workload(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x776c67656e)) // "wlgen"
	// MapReduce-shaped jobs draw from a stream of their own, so that the
	// workloads without one are what they were before such jobs existed.
	mr := rand.New(rand.NewPCG(seed, 0x776c67656e6d72)) // "wlgenmr"
	var b strings.Builder
	b.WriteString("version: 1\ncluster:\n  nodes:\n")
	type shape struct{ vcores, mem int }
	var shapes []shape
	oneNode := r.IntN(5) == 0
	tight := r.IntN(3) == 0 // memory-tight machines
	n := 1 + r.IntN(3)
	if oneNode {
		n = 1
	}
	for range n {
		s := shape{[]int{2, 4, 8, 16}[r.IntN(4)], []int{2048, 4096, 8192, 16384}[r.IntN(4)]}
		if tight {
			s.mem = s.vcores * []int{512, 1024}[r.IntN(2)]
		}
		shapes = append(shapes, s)
		count := 1 + r.IntN(4)
		if oneNode {
			count = 1
		}
		fmt.Fprintf(&b, "    - {count: %d, vcores: %d, memory_mb: %d}\n", count, s.vcores, s.mem)
	}
	if r.IntN(4) == 0 {
		b.WriteString("  ideal: true\n")
	}
	// External load: periodic (cycling between a low and a high point),
	// one-off (high, then falling), or none. Its peak leaves every shape at
	// least 1 vcore and 512 MB.
	peak := 0.0
	switch r.IntN(6) {
	case 0, 1:
		lo := 0.05 + 0.15*r.Float64()
		hi := lo + 0.05 + 0.25*r.Float64()
		fmt.Fprintf(&b, "  external_load: {points: [[0s, %.2f], [%ds, %.2f], [%ds, %.2f]], period: %ds}\n",
			lo, 10+r.IntN(20), hi, 40+r.IntN(20), lo, 60+r.IntN(60))
		peak = round2(hi)
	case 2:
		hi := 0.1 + 0.35*r.Float64()
		fmt.Fprintf(&b, "  external_load: {points: [[0s, %.2f], [%ds, %.2f]]}\n", hi, 20+r.IntN(60), hi/2)
		peak = round2(hi)
	}
	// usable is what an empty node of shape s offers at the load's peak
	// (the load takes ⌈f × capacity⌉ of every resource), or without load
	// when the workload does not keep to the premise.
	premise := r.IntN(5) != 0
	usable := func(s shape) (vcores, mem int) {
		if !premise {
			return s.vcores, s.mem
		}
		milli := s.vcores*1000 - int(math.Ceil(peak*float64(s.vcores*1000)-1e-9))
		return milli / 1000, s.mem - int(math.Ceil(peak*float64(s.mem)-1e-9))
	}
	// A request that fits v vcores and m MB (of an empty node of some
	// shape, less what the job's AM takes there), bound by vcores or by
	// memory.
	req := func(v, m int, memoryBound bool) (int, int) {
		if !memoryBound {
			return 1 + r.IntN(v), min(256*(1+r.IntN(2)), m)
		}
		return 1, 512 * (1 + r.IntN(max(m/512, 1)))
	}
	b.WriteString("jobs:\n")
	stream := r.IntN(2) == 0
	// Slow-start (start_after < 1) on half the workloads, its phases bound
	// by memory more often than not: an early reduce then holds the memory
	// a map of its job needs, the case MapReduce's AM preempts reduces for.
	slow := r.IntN(2) == 0
	gap := 1 + r.IntN(20)
	for i := range 1 + r.IntN(12) {
		submit := 0
		if stream {
			submit = i * gap
		}
		fmt.Fprintf(&b, "  - id: j%d\n    name: type%d\n    submit: %ds\n", i, r.IntN(3), submit)
		// Under the premise a job can run alone: its AM takes at most
		// half of an empty node of its home shape at the load's peak,
		// and every task fits there beside it.
		home := shapes[r.IntN(len(shapes))]
		hv, hm := usable(home)
		amV, amM := 0, 0
		if r.IntN(4) == 0 {
			b.WriteString("    am: {vcores: 0, memory_mb: 0}\n")
		} else if premise {
			amV, amM = req(max(hv/2, 1), max(hm/2, 256), r.IntN(2) == 0)
			amM = min(amM, max(hm/2, 256))
			fmt.Fprintf(&b, "    am: {vcores: %d, memory_mb: %d}\n", amV, amM)
		} else {
			v, m := usable(shapes[r.IntN(len(shapes))])
			v, m = req(v, m, r.IntN(2) == 0)
			fmt.Fprintf(&b, "    am: {vcores: %d, memory_mb: %d}\n", v, m)
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "    estimate: %ds\n", 5+r.IntN(120))
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "    deadline: %ds\n", 20+r.IntN(300))
		}
		b.WriteString("    phases:\n")
		if slow && mr.IntN(4) == 0 {
			v, m := usable(shapes[mr.IntN(len(shapes))])
			if premise {
				v, m = max(hv-amV, 1), max(hm-amM, 256)
			}
			mapReduce(&b, mr, v, m)
			continue
		}
		for k := range 1 + r.IntN(3) {
			early := slow && k > 0 && r.IntN(2) == 0
			memoryBound := r.IntN(2) == 0 || (early && r.IntN(2) == 0)
			v, m := usable(shapes[r.IntN(len(shapes))])
			if premise {
				v, m = max(hv-amV, 1), max(hm-amM, 256)
			}
			v, m = req(v, m, memoryBound)
			fmt.Fprintf(&b, "      - {tasks: %d, request: {vcores: %d, memory_mb: %d}, duration: %ds", 1+r.IntN(6), v, m, 1+r.IntN(30))
			if early {
				fmt.Fprintf(&b, ", start_after: %.2f", 0.05+0.9*r.Float64())
			}
			b.WriteString("}\n")
		}
	}
	return b.String()
}

// mapReduce writes the phases of a MapReduce-shaped job whose tasks fit v
// vcores and m MB: many maps, more than a small cluster runs at once, then
// reduces at slow-start, each at least as large as a map in every resource.
// A packer (tetris) scores such a reduce above a map, so once slow-start is
// reached reduces can take the room the last maps wait for, and only the
// MapReduce AM's reduce preemption frees it; under AutoAdmin, which holds
// every other job out, nothing else moves meanwhile.
func mapReduce(b *strings.Builder, r *rand.Rand, v, m int) {
	// Bound by vcores (little memory, so that the AM's ramp-up, counted
	// in memory as Hadoop's default calculator does, lets reduces take
	// every vcore) or by memory.
	mv, mm := 1+r.IntN(v), min(256*(1+r.IntN(2)), m)
	rv, rm := mv+r.IntN(v-mv+1), min(mm*(1+r.IntN(2)), m)
	if r.IntN(3) == 0 {
		mv, mm = 1, min(512*(1+r.IntN(max(m/1024, 1))), m)
		rv, rm = 1, mm+r.IntN(m-mm+1)/256*256
	}
	fmt.Fprintf(b, "      - {tasks: %d, request: {vcores: %d, memory_mb: %d}, duration: %ds}\n", 8+r.IntN(23), mv, mm, 1+r.IntN(30))
	fmt.Fprintf(b, "      - {tasks: %d, request: {vcores: %d, memory_mb: %d}, duration: %ds, start_after: %.2f}\n",
		1+r.IntN(12), rv, rm, 1+r.IntN(30), 0.05+0.9*r.Float64())
}

// round2 is x as the YAML above writes it, to two decimals.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
