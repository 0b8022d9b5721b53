package sched_test

import (
	"testing"

	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestScenarios plays the scripted live-cluster scenarios of
// testdata/*.txt through the fake cluster; fakecluster.Script documents the
// commands. Regenerate the expected outputs with -rewrite and review the
// diff.
func TestScenarios(t *testing.T) { fakecluster.RunDir(t, "testdata") }
