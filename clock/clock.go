// Package clock defines the integer time base shared by the scheduling core and
// its drivers. Time is counted in microseconds from the start of a run, so that
// simulations are exact and deterministic (no floating-point drift) and the same
// types serve a wall-clock driver unchanged.
package clock

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Time is an instant, in microseconds since the start of the run.
type Time int64

// Duration is a span of time in microseconds.
type Duration int64

// Common durations.
const (
	Microsecond Duration = 1
	Millisecond          = 1000 * Microsecond
	Second               = 1000 * Millisecond
	Minute               = 60 * Second
	Hour                 = 60 * Minute
)

// Never is later than every reachable instant.
const Never Time = math.MaxInt64

// Add returns t+d.
func (t Time) Add(d Duration) Time { return t + Time(d) }

// Sub returns t-u.
func (t Time) Sub(u Time) Duration { return Duration(t - u) }

// Seconds returns t as floating-point seconds, for reporting only.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// String formats t as seconds since the start of the run.
func (t Time) String() string { return Duration(t).String() }

// Seconds returns d as floating-point seconds, for reporting only.
func (d Duration) Seconds() float64 { return float64(d) / float64(Second) }

// String formats d in Go's duration syntax ("1.5s", "2m0s").
func (d Duration) String() string { return time.Duration(d * 1000).String() }

// FromSeconds converts floating-point seconds to a Duration, rounding to the
// nearest microsecond. It reports false when s is not finite or does not fit.
func FromSeconds(s float64) (Duration, bool) {
	us := math.Round(s * float64(Second))
	if math.IsNaN(us) || math.IsInf(us, 0) || us > math.MaxInt64/2 || us < math.MinInt64/2 {
		return 0, false
	}
	return Duration(us), true
}

// ParseDuration accepts Go duration strings ("30s", "1.5s", "2m") and plain
// numbers, which are seconds ("30", "1.5"). Precision beyond a microsecond is
// rounded.
func ParseDuration(s string) (Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		d, ok := FromSeconds(f)
		if !ok {
			return 0, fmt.Errorf("duration %q out of range", s)
		}
		return d, nil
	}
	td, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. \"30s\", \"1.5s\", \"2m\" or a number of seconds)", s)
	}
	// Round half away from zero to the microsecond.
	us := td / time.Microsecond
	if rem := td % time.Microsecond; rem >= time.Microsecond/2 {
		us++
	} else if rem <= -time.Microsecond/2 {
		us--
	}
	return Duration(us), nil
}
