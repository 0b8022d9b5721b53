package sched

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
)

// hooked records every hook it hears, by name.
type hooked struct{ heard []string }

func (h *hooked) JobSubmitted(*Job)                           { h.heard = append(h.heard, "submitted") }
func (h *hooked) JobAdmitted(*Job)                            { h.heard = append(h.heard, "admitted") }
func (h *hooked) JobAdopted(*Job)                             { h.heard = append(h.heard, "adopted") }
func (h *hooked) JobFinished(*Job)                            { h.heard = append(h.heard, "finished") }
func (h *hooked) AsksChanged(*Job)                            { h.heard = append(h.heard, "asks") }
func (h *hooked) ContainerChanged(*Container, ContainerState) { h.heard = append(h.heard, "container") }
func (h *hooked) NodeUpdated(*cluster.Node)                   { h.heard = append(h.heard, "node") }
func (h *hooked) ClusterChanged(*cluster.Node)                { h.heard = append(h.heard, "cluster") }
func (h *hooked) TickEvery() clock.Duration                   { return 7 }
func (h *hooked) Tick(clock.Time)                             { h.heard = append(h.heard, "tick") }
func (h *hooked) TickChanged() bool                           { return false }
func (h *hooked) WaitReason(*Job) string                      { return "why" }
func (h *hooked) Report() (string, any)                       { return "r", 1 }

// Hooks hands each hook to an Inner that has it, and answers as the core
// takes a missing hook for one that has not: never ticks, always changed
// when it does, no reason, no report.
func TestHooks(t *testing.T) {
	call := func(h Hooks[any]) (every clock.Duration, changed bool, why, report string) {
		h.JobSubmitted(nil)
		h.JobAdmitted(nil)
		h.JobAdopted(nil)
		h.JobFinished(nil)
		h.AsksChanged(nil)
		h.ContainerChanged(nil, New)
		h.NodeUpdated(nil)
		h.ClusterChanged(nil)
		h.Tick(0)
		report, _ = h.Report()
		return h.TickEvery(), h.TickChanged(), h.WaitReason(nil), report
	}
	in := &hooked{}
	every, changed, why, report := call(Hooks[any]{Inner: in})
	want := []string{"submitted", "admitted", "adopted", "finished", "asks", "container", "node", "cluster", "tick"}
	if len(in.heard) != len(want) {
		t.Fatalf("inner heard %v, want %v", in.heard, want)
	}
	for i := range want {
		if in.heard[i] != want[i] {
			t.Errorf("inner heard %v, want %v", in.heard, want)
			break
		}
	}
	if every != 7 || changed || why != "why" || report != "r" {
		t.Errorf("with the hooks: TickEvery %v, TickChanged %v, WaitReason %q, Report %q; want 7, false, why, r", every, changed, why, report)
	}
	every, changed, why, report = call(Hooks[any]{Inner: struct{}{}})
	if every != 0 || !changed || why != "" || report != "" {
		t.Errorf("without: TickEvery %v, TickChanged %v, WaitReason %q, Report %q; want 0, true, \"\", \"\"", every, changed, why, report)
	}
}
