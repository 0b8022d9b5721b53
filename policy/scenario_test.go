package policy_test

import (
	"testing"

	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestScenarios plays the policy scenarios of testdata/*.txt through the
// fake cluster: each file states, as a script of live-cluster events, what
// one policy must decide (fakecluster.Script documents the commands).
// Regenerate the expected outputs with -rewrite and review the diff by
// hand: every expected line is a decision the policy's documentation
// promises.
func TestScenarios(t *testing.T) { fakecluster.RunDir(t, "testdata") }
