package kubetest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

func TestRequireBinariesSkipsOrFails(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		live, ci string
		want     string // "skip" or "fail"
	}{
		{"", "", "skip"},
		{"", "false", "skip"},
		{"", "true", "fail"},
		{"1", "", "fail"},
		{"0", "true", "skip"},
	} {
		t.Run("live="+tc.live+",ci="+tc.ci, func(t *testing.T) {
			t.Setenv(localcluster.EnvBin, empty)
			t.Setenv(EnvLive, tc.live)
			t.Setenv("CI", tc.ci)
			rec := &recorder{TB: t}
			returned := false
			done := make(chan struct{})
			go func() { // Skip and Fatal end this goroutine, as they end a test's
				defer close(done)
				RequireBinaries(rec)
				returned = true
			}()
			<-done
			if returned {
				t.Fatal("RequireBinaries returned with no binaries")
			}
			if rec.outcome != tc.want {
				t.Errorf("outcome = %q, want %q", rec.outcome, tc.want)
			}
			if tc.live != "0" && !strings.Contains(rec.msg, "hack/build-kube.sh") {
				t.Errorf("message %q does not say how to build the binaries", rec.msg)
			}
		})
	}
}

// recorder stands in for a testing.TB: it records Skip and Fatal and ends
// the calling goroutine as they would.
type recorder struct {
	testing.TB
	outcome, msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.outcome, r.msg = "skip", fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.outcome, r.msg = "fail", fmt.Sprint(args...)
	runtime.Goexit()
}
