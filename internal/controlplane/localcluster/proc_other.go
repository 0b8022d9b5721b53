//go:build unix && !linux

package localcluster

import "syscall"

// sysProcAttr puts each process in its own process group (a session of its
// own when detached), so stopping the group stops anything it forked. Only
// Linux can also tie a child's life to its parent's.
func sysProcAttr(detach bool) *syscall.SysProcAttr {
	if detach {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}
