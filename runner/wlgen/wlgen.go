// Package wlgen generates small, valid, random workloads from a seed, for
// property tests that run every policy and admission controller over inputs
// nobody tuned: one to three node shapes, bursts and streams, containers
// bound by vcores or by memory, one to three phases with slow-start, AMs,
// estimates and deadlines on some jobs, and external load on some clusters.
package wlgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Workload returns the YAML text of workload number seed; the same seed
// always gives the same text. Every request fits at least one node.
func Workload(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x776c67656e)) // "wlgen"
	var b strings.Builder
	b.WriteString("version: 1\ncluster:\n  nodes:\n")
	type shape struct{ vcores, mem int }
	var shapes []shape
	for range 1 + r.IntN(3) {
		s := shape{[]int{2, 4, 8, 16}[r.IntN(4)], []int{2048, 4096, 8192, 16384}[r.IntN(4)]}
		shapes = append(shapes, s)
		fmt.Fprintf(&b, "    - {count: %d, vcores: %d, memory_mb: %d}\n", 1+r.IntN(4), s.vcores, s.mem)
	}
	if r.IntN(4) == 0 {
		b.WriteString("  ideal: true\n")
	}
	if r.IntN(3) == 0 {
		hi := 0.1 + 0.5*r.Float64()
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "  external_load: {points: [[0s, %.2f], [%ds, %.2f], [%ds, %.2f]], period: %ds}\n",
				hi/2, 10+r.IntN(20), hi, 40+r.IntN(20), hi/3, 60+r.IntN(60))
		} else {
			fmt.Fprintf(&b, "  external_load: {points: [[0s, %.2f], [%ds, %.2f]]}\n", hi, 20+r.IntN(60), hi/2)
		}
	}
	// A request that fits the given node shape, bound by vcores or by
	// memory.
	req := func(s shape) string {
		if r.IntN(2) == 0 { // vcore-bound
			return fmt.Sprintf("{vcores: %d, memory_mb: %d}", 1+r.IntN(s.vcores), 256*(1+r.IntN(2)))
		}
		return fmt.Sprintf("{vcores: 1, memory_mb: %d}", 512*(1+r.IntN(s.mem/512)))
	}
	b.WriteString("jobs:\n")
	stream := r.IntN(2) == 0
	// Slow-start (start_after < 1) on a third of the workloads only: its
	// reducers can hold what its maps need, which no admission controller
	// prevents, so the others exercise AutoAdmin's promise.
	slow := r.IntN(3) == 0
	gap := 1 + r.IntN(20)
	for i := range 1 + r.IntN(12) {
		submit := 0
		if stream {
			submit = i * gap
		}
		fmt.Fprintf(&b, "  - id: j%d\n    name: type%d\n    submit: %ds\n", i, r.IntN(3), submit)
		if r.IntN(4) == 0 {
			b.WriteString("    am: {vcores: 0, memory_mb: 0}\n")
		} else {
			fmt.Fprintf(&b, "    am: %s\n", req(shapes[r.IntN(len(shapes))]))
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "    estimate: %ds\n", 5+r.IntN(120))
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "    deadline: %ds\n", 20+r.IntN(300))
		}
		b.WriteString("    phases:\n")
		for k := range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "      - {tasks: %d, request: %s, duration: %ds", 1+r.IntN(6), req(shapes[r.IntN(len(shapes))]), 1+r.IntN(30))
			if slow && k > 0 && r.IntN(2) == 0 {
				fmt.Fprintf(&b, ", start_after: %.2f", 0.5+0.5*r.Float64())
			}
			b.WriteString("}\n")
		}
	}
	return b.String()
}
