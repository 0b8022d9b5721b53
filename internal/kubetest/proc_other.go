//go:build unix && !linux

package kubetest

import "syscall"

// sysProcAttr puts each process in its own group, so stopping the group
// stops anything it forked. Only Linux can also tie the child's life to the
// test binary's.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
