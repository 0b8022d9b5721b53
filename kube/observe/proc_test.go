package observe

import "os"

// hasProc reports whether the process collector can read /proc (Linux).
func hasProc() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
