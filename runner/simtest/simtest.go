// Package simtest runs small hand-written workloads through the same path as
// the command line (runner), with the core's invariants checked after every
// event, for end-to-end tests whose expected numbers are worked out by hand.
package simtest

import (
	"testing"

	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/workload"
)

// Run parses doc (a workload in YAML or JSON) and simulates it under s, with
// seed 1 unless s sets one; any error fails the test.
func Run(t testing.TB, doc string, s runner.Spec) *runner.Outcome {
	t.Helper()
	w, err := workload.Parse([]byte(doc), "case.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.Workload, s.Check = w, true
	if s.Seed == 0 {
		s.Seed = 1
	}
	o, err := runner.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
