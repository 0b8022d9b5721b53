// Package kubetest gives live tests a real Kubernetes control plane on
// 127.0.0.1 (package localcluster), started by the test and stopped by PID
// when it ends, whether it passed or not.
//
// The binaries are the ones hack/build-kube.sh builds into a cache outside the
// checkout. When they are absent a live test skips with a message that says
// how to build them, except under CI=true or SPINDLE_LIVE=1, where it fails:
// CI must never pass by skipping the live suites.
//
// Convention for live tests (see docs/live-testing.md): name them TestLive*,
// call Start first, and run only them with
//
//	SPINDLE_LIVE=1 go test -run '^TestLive' ./...
package kubetest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

// EnvLive selects what live tests do: "1" run them and fail when the
// binaries are absent, "0" skip them, unset run them when the binaries are
// found and skip (fail under CI=true) when not.
const EnvLive = "SPINDLE_LIVE"

// ReplayDurationAnnotation is the pod annotation spindle's kwok stage reads;
// see localcluster.ReplayDurationAnnotation.
const ReplayDurationAnnotation = localcluster.ReplayDurationAnnotation

// Options says which components run besides etcd and kube-apiserver: Kwok,
// ControllerManager, Scheduler, and Nodes kwok nodes of NodeCPU, NodeMemory
// and NodePods each. Detach and RepoDir are for hack/local-cluster.sh; leave
// them unset.
type Options = localcluster.Options

// Cluster is a running control plane: Config and Client reach it as an
// administrator, Kubeconfig is a file for processes the test starts, Dir
// holds each component's log.
type Cluster = localcluster.Cluster

// inCI reports whether CI is set to a true value, as CI systems do.
func inCI() bool {
	v, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && v
}

// RequireBinaries returns the binary directory, or ends the test: skipped
// (loudly) on a developer machine, failed under CI=true or SPINDLE_LIVE=1.
// SPINDLE_LIVE=0 skips the test in any case.
func RequireBinaries(t testing.TB) string {
	t.Helper()
	live := os.Getenv(EnvLive)
	if live == "0" {
		t.Skip("LIVE TEST SKIPPED: SPINDLE_LIVE=0")
	}
	dir, err := localcluster.BinDir()
	if err == nil {
		return dir
	}
	msg := fmt.Sprintf("LIVE TEST NOT RUN: %v. Build the binaries once with hack/build-kube.sh "+
		"(7 to 26 minutes on 2 cores the first time; cached outside the checkout) or point %s at them; see docs/live-testing.md",
		err, localcluster.EnvBin)
	if live == "1" || inCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Start brings up a control plane as opts says, in a directory of the test's
// own, and registers a cleanup that stops every process. It fails the test if
// a component does not come up; when the test fails, the cleanup logs the end
// of every component's log.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	bin := RequireBinaries(t)
	opts.Detach = false
	dir := t.TempDir() // removed after the cleanup below has stopped everything
	c, err := localcluster.Start(context.Background(), bin, dir, opts)
	if err != nil {
		t.Fatalf("kubetest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range c.Procs {
				t.Logf("---- end of %s ----\n%s", p.Log, localcluster.Tail(p.Log, 30))
			}
		}
		c.Stop()
	})
	return c
}
