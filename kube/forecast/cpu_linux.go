package forecast

import (
	"runtime"
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD: the calling thread's usage.
const rusageThread = 1

// cpuClock measures the CPU one goroutine spends: it locks the goroutine to
// its thread, so that the thread's usage is the goroutine's (the garbage
// collector's own workers are not counted).
type cpuClock struct{ start time.Duration }

func startCPU() cpuClock {
	runtime.LockOSThread()
	return cpuClock{threadCPU()}
}

func (c cpuClock) stop() time.Duration {
	d := threadCPU() - c.start
	runtime.UnlockOSThread()
	return max(d, 0)
}

func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the CPU the whole process has used, the garbage
// collector's workers included: what a benchmark reports beside a Run's
// own.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
