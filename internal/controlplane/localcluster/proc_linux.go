package localcluster

import "syscall"

// sysProcAttr puts each process in its own process group, so stopping the
// group stops anything it forked. Attached processes also get killed by the
// kernel when the thread that started them dies (a test binary that panics,
// times out or is killed), so they cannot outlive a test; detached ones get
// their own session instead, to outlive hack/local-cluster.sh.
func sysProcAttr(detach bool) *syscall.SysProcAttr {
	if detach {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
