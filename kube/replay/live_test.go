package replay

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/workload"
)

// Live tests: a real etcd, kube-apiserver, kwok and kube-scheduler on
// 127.0.0.1, started and stopped by the test (see internal/controlplane/kubetest). Run
// them alone with
//
//	SPINDLE_LIVE=1 go test -run '^TestLive' ./kube/replay

func leftovers(t *testing.T, c *kubetest.Cluster, run string) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: RunLabel + "=" + run}
	pods, err := c.Client.CoreV1().Pods("default").List(context.Background(), sel)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Client.CoreV1().Nodes().List(context.Background(), sel)
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 0 || len(nodes.Items) != 0 {
		t.Errorf("run %s left %d pods and %d nodes", run, len(pods.Items), len(nodes.Items))
	}
}

// A small workload replayed under kube-scheduler completes, in workload
// time no faster than its critical paths allow.
func TestLiveReplayUnderKubeScheduler(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Kwok: true, Scheduler: true})
	w := parse(t, twoJobs)
	var progress bytes.Buffer
	r, err := New(Options{Workload: w, WorkloadName: "two-jobs", Client: c.Client, SchedulerName: "default-scheduler",
		TimeScale: 0.25, RunID: "live1", Timeout: 2 * time.Minute, StallTimeout: 30 * time.Second,
		Progress: &progress, ProgressEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wall %s, %d pods; summary makespan %.2fs", res.Wall, res.PodsCreated, res.Summary.MakespanS)
	if res.Summary.JobsCompleted != 3 || res.Summary.Deadlocked {
		t.Fatalf("completed %d of 3, stuck %+v", res.Summary.JobsCompleted, res.Summary.StuckJobs)
	}
	// Critical paths in workload time: a 3 s of maps then 1 s of reduce;
	// B_job 4 s (its longest s0 task); c 2 s. Upper bounds allow 2 s of
	// workload time (0.5 s wall) of apiserver, scheduler and kwok latency
	// per step.
	lower := map[string]float64{"a": 4, "B_job": 4, "c": 2}
	for _, j := range res.Jobs {
		if j.JCT == nil || *j.JCT < lower[j.ID] || *j.JCT > lower[j.ID]+6 {
			t.Errorf("%s: jct %v, want in [%v, %v]", j.ID, deref(j.JCT), lower[j.ID], lower[j.ID]+6)
		}
		if j.Wait == nil || *j.Wait < 0 || *j.Wait > *j.JCT {
			t.Errorf("%s: wait %v", j.ID, deref(j.Wait))
		}
	}
	if !strings.Contains(progress.String(), "replay live1: t=") {
		t.Errorf("no progress lines:\n%s", progress.String())
	}
	leftovers(t, c, "live1")
}

func loadAMBurst(t *testing.T) *workload.Workload {
	t.Helper()
	w, err := workload.Load(filepath.Join("..", "..", "examples", "am-burst.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The spark-operator deadlock, live: 72 jobs whose 2-vcore drivers arrive
// at once on 64 vcores. kube-scheduler places drivers until they hold every
// vcore, and then no executor (2 vcores) ever fits: the replay must end as
// deadlocked with no task ever started. The wait is bounded by the stall
// timeout and the run's timeout.
func TestLiveAMBurstDeadlocksUnderKubeScheduler(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Kwok: true, Scheduler: true})
	w := loadAMBurst(t)
	r, err := New(Options{Workload: w, WorkloadName: "am-burst", Client: c.Client, SchedulerName: "default-scheduler",
		TimeScale: 0.1, RunID: "burst", StallTimeout: 15 * time.Second, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	admitted, started := 0, 0
	for _, j := range res.Jobs {
		if j.Admit != nil {
			admitted++
		}
		if j.FirstStart != nil {
			started++
		}
	}
	t.Logf("deadlocked %v, %d completed, %d drivers bound, %d jobs ran a task, wall %s", s.Deadlocked, s.JobsCompleted, admitted, started, res.Wall)
	if !s.Deadlocked || s.JobsCompleted != 0 || len(s.StuckJobs) != 72 {
		t.Errorf("deadlocked %v, completed %d, stuck %d: want a deadlock with all 72 jobs stuck", s.Deadlocked, s.JobsCompleted, len(s.StuckJobs))
	}
	if started != 0 {
		t.Errorf("%d jobs ran an executor; want none", started)
	}
	if admitted != 32 {
		t.Errorf("%d drivers bound, want 32 (64 vcores / 2)", admitted)
	}
	// A deadlocked run is measured over the span it covered: the 32 drivers
	// hold every vcore for all of it, which is the point of the case.
	if s.SpanS == nil || *s.SpanS <= 0 || s.UtilizationAvg < 0.9 {
		t.Errorf("span %v, utilisation %v: want the drivers to hold nearly every vcore over a positive span", s.SpanS, s.UtilizationAvg)
	}
	leftovers(t, c, "burst")
}

// The same burst under spindle with AutoAdmin completes every job. It needs
// 'spindle kube schedule' (the Kubernetes scheduler); until this build has
// it, the test says so and skips.
func TestLiveAMBurstCompletesUnderSpindleAutoAdmin(t *testing.T) {
	kubetest.RequireBinaries(t)
	bin := filepath.Join(t.TempDir(), "spindle")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/spindle")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build spindle: %v\n%s", err, out)
	}
	help, err := exec.Command(bin, "kube", "schedule", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(help), "--kubeconfig") || !strings.Contains(string(help), "--admission") {
		t.Skip("NOT RUN: this build has no 'spindle kube schedule' with --kubeconfig and --admission (the Kubernetes scheduler); " +
			"the kube-scheduler half runs in TestLiveAMBurstDeadlocksUnderKubeScheduler")
	}
	c := kubetest.Start(t, kubetest.Options{Kwok: true})
	logPath := filepath.Join(t.TempDir(), "spindle.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	sched := exec.Command(bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fair", "--admission", "autoadmin",
		"--http-address", "off") // the default port may be taken by another scheduler on the machine
	sched.Stdout, sched.Stderr = logf, logf
	sched.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := sched.Start(); err != nil {
		t.Fatal(err)
	}
	pid := sched.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = sched.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("---- spindle kube schedule log ----\n%s", b)
		}
	})
	w := loadAMBurst(t)
	r, err := New(Options{Workload: w, WorkloadName: "am-burst", Client: c.Client, SchedulerName: "spindle",
		TimeScale: 0.1, RunID: "burst-aa", StallTimeout: 30 * time.Second, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("completed %d of 72, deadlocked %v, makespan %.1fs (workload time), wall %s", res.Summary.JobsCompleted, res.Summary.Deadlocked, res.Summary.MakespanS, res.Wall)
	if s := res.Summary; s.Deadlocked || s.JobsCompleted != 72 {
		t.Errorf("deadlocked %v, completed %d of 72; stuck %+v", s.Deadlocked, s.JobsCompleted, s.StuckJobs)
	}
	leftovers(t, c, "burst-aa")
}
