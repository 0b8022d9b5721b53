package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/report"
)

// The replay command end to end on a live cluster (etcd, kube-apiserver,
// kwok, kube-scheduler on 127.0.0.1, stopped by PID when the test ends):
// it writes the same files as 'simulate', with every job completed. Run
// alone with SPINDLE_LIVE=1 go test -run '^TestLive' ./internal/cli
func TestLiveKubeReplayWritesSimulateOutputs(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Kwok: true, Scheduler: true})
	dir := filepath.Join(t.TempDir(), "live")
	var out, errb bytes.Buffer
	code := Main([]string{"kube", "replay", "-w", "../../examples/tiny.json", "--kubeconfig", c.Kubeconfig,
		"--scheduler-name", "default-scheduler", "--time-scale", "0.2", "--run-id", "clitest", "-o", dir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, f := range []string{"summary.json", "jobs.csv", "timeline.csv", report.FileName} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Policy        string  `json:"policy"`
		JobsTotal     int     `json:"jobs_total"`
		JobsCompleted int     `json:"jobs_completed"`
		Deadlocked    bool    `json:"deadlocked"`
		MakespanS     float64 `json:"makespan_s"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	// tiny.json on one 4-vcore node: A's four 10 s tasks fill it until
	// t=10, then B (2 x 5 s) and C (3 s) follow: nothing can finish before
	// t=13 in workload time.
	if s.Policy != "live:default-scheduler" || s.JobsTotal != 3 || s.JobsCompleted != 3 || s.Deadlocked || s.MakespanS < 13 || s.MakespanS > 25 {
		t.Errorf("summary %+v", s)
	}
	if !strings.Contains(errb.String(), "replay clitest: done") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}
