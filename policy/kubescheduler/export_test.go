package kubescheduler

// The model's arithmetic, for the tests.
var (
	Score   = score
	Backoff = backoff
)

// Window is the backoff queue's ordering window.
var Window = window
