package kubetest

import "syscall"

// sysProcAttr puts each process in its own group, so stopping the group
// stops anything it forked, and has the kernel kill it if the test binary
// dies before its cleanup runs (a panic, a -timeout, a kill -9).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
