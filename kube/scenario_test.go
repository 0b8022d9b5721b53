package kube_test

import (
	"testing"

	"github.com/spindle-sched/spindle/kube/kubescript"
)

// TestScenarios plays testdata/*.txt: scripted clusters against the
// scheduler stepped by hand, specifying how pods map to the core's jobs and
// what the scheduler does with them (kubescript documents the commands).
// Regenerate the expected outputs with -rewrite and review the diff by hand.
func TestScenarios(t *testing.T) { kubescript.RunDir(t, "testdata") }
