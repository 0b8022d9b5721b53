package workload

import (
	"math"
	"strconv"

	"github.com/spindle-sched/spindle/clock"
)

// maxDuration is the largest duration a workload may hold, the same bound
// clock.FromSeconds applies; it leaves headroom for adding a submit time and
// a duration without overflow.
const maxDuration = clock.Duration(1 << 62)

// scaled is the outcome of parseScaled.
type scaled uint8

const (
	scaledExact   scaled = iota // the value is exact
	scaledRounded               // digits below the scale were rounded away
	scaledRange                 // the value does not fit
	scaledInvalid               // not a number in JSON syntax
)

// parseScaled returns the decimal number b (JSON syntax) times 10^scale,
// rounded half away from zero to an integer whose magnitude is at most limit.
//
// Working on the decimal digits rather than through float64 keeps values
// exact: "12.345" seconds is exactly 12,345,000 µs and "0.1" vcores exactly
// 100 milli-vcores, at any magnitude, so that writing a workload and reading
// it back never moves a value. It is also several times faster than
// strconv.ParseFloat, which matters for lists of per-task durations.
func parseScaled(b []byte, scale int, limit uint64) (int64, scaled) {
	i := 0
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	// Collect significant digits (leading zeros dropped). Only the first
	// few matter for the integer part and rounding; beyond the buffer it is
	// enough to know whether any further digit is non-zero.
	var digs [40]byte
	nd := 0         // digits kept in digs
	sticky := false // a non-zero digit beyond digs
	total := 0      // significant digits seen, kept or not
	frac := 0       // digits after the point, zeros included
	add := func(c byte) {
		if total == 0 && c == '0' {
			return
		}
		total++
		if nd < len(digs) {
			digs[nd] = c
			nd++
		} else if c != '0' {
			sticky = true
		}
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		add(b[i])
		i++
	}
	if i == start || (b[start] == '0' && i-start > 1) {
		return 0, scaledInvalid
	}
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			add(b[i])
			i++
		}
		frac = i - fs
		if frac == 0 {
			return 0, scaledInvalid
		}
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		es := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if exp < 1_000_000 {
				exp = exp*10 + int(b[i]-'0')
			}
			i++
		}
		if i == es {
			return 0, scaledInvalid
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(b) {
		return 0, scaledInvalid
	}
	if total == 0 {
		return 0, scaledExact
	}
	// value = 0.d1d2...d_total × 10^point, scaled by 10^scale.
	point := total - frac + exp + scale
	if point > 19 {
		return 0, scaledRange
	}
	var v uint64
	for k := 0; k < point; k++ {
		d := uint64(0)
		if k < nd {
			d = uint64(digs[k] - '0')
		}
		if v > (math.MaxUint64-d)/10 {
			return 0, scaledRange
		}
		v = v*10 + d
	}
	res := scaledExact
	if point < total {
		// Digits below the unit: round half away from zero on the first.
		first := 0
		if point >= 0 && point < nd {
			first = int(digs[point] - '0')
		}
		for k := max(point, 0); k < nd; k++ {
			if digs[k] != '0' {
				res = scaledRounded
				break
			}
		}
		if sticky {
			res = scaledRounded
		}
		if first >= 5 {
			v++
		}
	}
	if v > limit {
		return 0, scaledRange
	}
	if neg {
		return -int64(v), res
	}
	return int64(v), res
}

// nonFinite reports whether b is one of the texts a YAML source gives for
// .nan and .inf.
func nonFinite(b []byte) bool {
	switch string(b) {
	case "NaN", "Inf", "-Inf":
		return true
	}
	return false
}

// parseDurationText parses a duration written as a string: a Go duration or
// a number of seconds. Plain decimals take the exact path, like numbers do.
func parseDurationText(b []byte) (clock.Duration, string) {
	if v, r := parseScaled(b, 6, uint64(maxDuration)); r <= scaledRounded {
		return clock.Duration(v), ""
	} else if r == scaledRange {
		return 0, "out of range"
	}
	d, err := clock.ParseDuration(string(b))
	if err != nil {
		return 0, err.Error()
	}
	if d > maxDuration || d < -maxDuration {
		return 0, "out of range"
	}
	return d, ""
}

// formatSeconds renders d as a number of seconds, exactly: 12.345, 0.000001.
func formatSeconds(buf []byte, d clock.Duration) []byte {
	u := uint64(d)
	if d < 0 {
		buf = append(buf, '-')
		u = -u
	}
	buf = strconv.AppendUint(buf, u/1e6, 10)
	if f := u % 1e6; f != 0 {
		var tmp [7]byte
		tmp[0] = '.'
		for k := 6; k >= 1; k-- {
			tmp[k] = byte('0' + f%10)
			f /= 10
		}
		n := 7
		for tmp[n-1] == '0' {
			n--
		}
		buf = append(buf, tmp[:n]...)
	}
	return buf
}
