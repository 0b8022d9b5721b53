package runner

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// A policy that reads estimates says how many jobs lack one and what it does
// with them; the note is silent when every job has one, when the source is
// not declared, and for policies that read none.
func TestEstimateNote(t *testing.T) {
	doc := `
version: 1
cluster: {nodes: [{count: 1, vcores: 4, memory_mb: 4096}]}
jobs:
  - {id: a, submit: 0s, estimate: 10s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: b, submit: 0s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
  - {id: c, submit: 0s, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 5s}]}
`
	w, err := workload.Parse([]byte(doc), "n.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pol, src string
		want     string // a fragment, or "" for no note
	}{
		{"sjf", "", "2 of 3 jobs have no estimate field, and with --estimates declared sjf ranks them after every job with an estimate"},
		{"djsf:strict=true", "declared", "djsf plans them after every job set"},
		{"tetris", "", "--estimates history"},
		{"sjf", "history", ""},
		{"sjf", "oracle", ""},
		{"fair", "", ""},
		{"fifo", "", ""},
	} {
		got := EstimateNote(Spec{Policy: c.pol, Estimates: sim.Estimates{Source: c.src}}, w)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s (%q): note %q, want one containing %q", c.pol, c.src, got, c.want)
		}
	}
	w.Jobs[1].Estimate, w.Jobs[2].Estimate = 1, 1
	if got := EstimateNote(Spec{Policy: "sjf"}, w); got != "" {
		t.Errorf("every job has an estimate, yet: %q", got)
	}
}
