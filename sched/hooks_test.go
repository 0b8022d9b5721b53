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
func (h *hooked) BindDelay(*Container) clock.Duration         { return 3 }

// Hooks hands each hook to an Inner that has it, and answers as the core
// takes a missing hook for one that has not: never ticks, always changed
// when it does, no reason, no report, no binding time.
func TestHooks(t *testing.T) {
	call := func(h Hooks[any]) (every clock.Duration, changed bool, why, report string, bind clock.Duration) {
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
		bind = h.BindDelay(nil)
		return h.TickEvery(), h.TickChanged(), h.WaitReason(nil), report, bind
	}
	in := &hooked{}
	every, changed, why, report, bind := call(Hooks[any]{Inner: in})
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
	if every != 7 || changed || why != "why" || report != "r" || bind != 3 {
		t.Errorf("with the hooks: TickEvery %v, TickChanged %v, WaitReason %q, Report %q, BindDelay %v; want 7, false, why, r, 3", every, changed, why, report, bind)
	}
	every, changed, why, report, bind = call(Hooks[any]{Inner: struct{}{}})
	if every != 0 || !changed || why != "" || report != "" || bind != 0 {
		t.Errorf("without: TickEvery %v, TickChanged %v, WaitReason %q, Report %q, BindDelay %v; want 0, true, \"\", \"\", 0", every, changed, why, report, bind)
	}
}
