package kubescheduler

import "github.com/spindle-sched/spindle/clock"

// The model's arithmetic, for the tests.
var (
	Score   = score
	Backoff = backoff
)

// Window is the backoff queue's ordering window.
var Window = window

// APILimit is the client's token bucket.
type APILimit = apiLimit

// NewAPILimit returns it.
var NewAPILimit = newAPILimit

// Reserve takes a call's turn.
func (l *apiLimit) Reserve(now clock.Time) clock.Time { return l.reserve(now) }

// Every is the interval between calls past the burst.
func (l *apiLimit) Every() clock.Duration { return l.every }
