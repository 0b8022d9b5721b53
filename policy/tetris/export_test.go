package tetris

import "github.com/spindle-sched/spindle/sched"

// Answer names how the index answered a pick, for the tests outside the
// package.
type Answer = answer

// The index's answers.
const (
	Answered     = answered
	NoneEligible = noneEligible
	Undecided    = undecided
)

// SetCheckPick installs f to hear every pick (the scan's answer beside the
// index's when the index answered, and a broken invariant of the index) and
// returns what undoes it.
func SetCheckPick(f func(how Answer, indexed, scanned *sched.Ask, broken error)) func() {
	old := checkPick
	checkPick = f
	return func() { checkPick = old }
}
