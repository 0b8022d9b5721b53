package report

import (
	"math"
	"strconv"
)

// linear maps a data interval onto a pixel interval.
type linear struct {
	d0, d1, r0, r1 float64
}

func (l linear) at(v float64) float64 {
	if l.d1 == l.d0 {
		return l.r0
	}
	return l.r0 + (v-l.d0)/(l.d1-l.d0)*(l.r1-l.r0)
}

// niceStep rounds a raw tick spacing to the nearest of 1, 2 or 5 times a
// power of ten, the spacings people read at a glance.
func niceStep(raw float64) float64 {
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	switch m := raw / p; {
	case m < 1.5:
		return p
	case m < 3:
		return 2 * p
	case m < 7:
		return 5 * p
	default:
		return 10 * p
	}
}

// ticks returns about n evenly spaced round values covering [lo, hi], and
// the covered interval, which starts and ends on a tick.
func ticks(lo, hi float64, n int) (ts []float64, tlo, thi float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)/2, hi+math.Abs(hi)/2
		}
	}
	step := niceStep((hi - lo) / float64(max(1, n)))
	tlo = math.Floor(lo/step+1e-9) * step
	thi = math.Ceil(hi/step-1e-9) * step
	for i := 0; ; i++ {
		v := tlo + float64(i)*step
		if v > thi+step/2 || i > 1000 {
			break
		}
		ts = append(ts, v)
	}
	return ts, tlo, thi
}

// tickLabel formats a tick value with as many decimals as the spacing
// needs, so 0.25 steps read "0.25" and 50 steps read "50".
func tickLabel(v, step float64) string {
	d := 0
	for s := step; d < 6 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(s)); s *= 10 {
		d++
	}
	if math.Abs(v) < step*1e-9 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// timeUnit picks the unit for an axis of durations up to maxS seconds, so
// that a day-long run reads in hours rather than in five-digit seconds.
func timeUnit(maxS float64) (div float64, unit string) {
	switch {
	case maxS > 3*86400:
		return 86400, "d"
	case maxS > 5*3600:
		return 3600, "h"
	case maxS > 80*60:
		return 60, "min"
	default:
		return 1, "s"
	}
}

// fmtSeconds formats a duration for tooltips and tables.
func fmtSeconds(s float64) string {
	return strconv.FormatFloat(s, 'f', 1, 64) + " s"
}
