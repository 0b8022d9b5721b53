package sched_test

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// reentrant is a driver that breaks the contract: it calls back into the
// core from inside Reconsider.
type reentrant struct {
	nopDriver
	core *sched.Core
}

func (d *reentrant) Reconsider() { d.core.Tick(0) }

// A debug core refuses a driver that calls it from inside a callback, with
// a message that names the call.
func TestDriverMustNotReenter(t *testing.T) {
	d := &reentrant{}
	core, err := sched.NewCore(sched.Config{Nodes: []resource.Vector{big8}, Driver: d, NewPolicy: fifoPolicy, Debug: true})
	must(t, err)
	d.core = core
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "Core.Tick from inside a callback") {
			t.Fatalf("re-entry was not refused: recovered %q", msg)
		}
	}()
	spec := &sched.JobSpec{Key: "a", Queue: "default", AM: resource.New(1, 1024),
		Phases: []sched.PhaseSpec{{Tasks: 1, Request: resource.New(1, 1024)}}}
	if _, err := core.Submit(0, spec); err != nil {
		t.Fatal(err)
	}
	t.Fatal("Submit returned although the driver re-entered the core")
}
