//go:build !linux

package forecast

import "time"

// cpuClock measures wall time where a thread's CPU time is not read: an
// upper bound of the CPU while the goroutine is not descheduled.
type cpuClock struct{ start time.Time }

func startCPU() cpuClock { return cpuClock{time.Now()} }

func (c cpuClock) stop() time.Duration { return time.Since(c.start) }

// processCPU is not read here: 0.
func processCPU() time.Duration { return 0 }
