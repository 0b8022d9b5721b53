package kubescheduler

// The model's arithmetic, for the tests.
var (
	Score   = score
	Backoff = backoff
)
