package bench

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
)

var (
	matrix    = flag.Bool("kube-bench", false, "run the full scheduler benchmark (1000 kwok nodes; 1x5000, 5x1000, 25x200 pods; default and 5000/10000 client QPS)")
	matrixOut = flag.String("kube-bench-out", "", "append the benchmark's results, as Markdown table rows, to this file")
)

// startKubeScheduler runs kube-scheduler against the cluster with the given
// client QPS and burst (0: its defaults, 50 and 100) and stops it by PID
// when the test ends.
func startKubeScheduler(t *testing.T, bin string, c *kubetest.Cluster, qps float32, burst int) {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
leaderElection:
  leaderElect: false
`, c.Kubeconfig)
	if qps > 0 {
		cfg = strings.Replace(cfg, "leaderElection:", fmt.Sprintf("  qps: %v\n  burst: %d\nleaderElection:", qps, burst), 1)
	}
	cfgPath := filepath.Join(dir, "scheduler.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	startProcess(t, "kube-scheduler", exec.Command(filepath.Join(bin, "kube-scheduler"),
		"--config="+cfgPath,
		"--authentication-kubeconfig="+c.Kubeconfig,
		"--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--cert-dir="+dir,
		"--v=1"))
}

// spindleBinary builds cmd/spindle and returns its path, or "" when that
// build has no 'spindle kube schedule'.
func spindleBinary(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "spindle")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/spindle").CombinedOutput(); err != nil {
		t.Fatalf("build spindle: %v\n%s", err, out)
	}
	if err := exec.Command(bin, "kube", "schedule", "--help").Run(); err != nil {
		return ""
	}
	return bin
}

// startSpindle runs 'spindle kube schedule -p fifo' with the given client
// QPS and burst (0: its defaults, 50 and 100, the same as kube-scheduler's)
// and stops it by PID when the test ends.
func startSpindle(t *testing.T, bin string, c *kubetest.Cluster, qps float32, burst int) {
	t.Helper()
	// The status server is off: the default port may be taken by another
	// scheduler on the machine, and the benchmark reads nothing from it.
	// -a none: the benchmark measures placement against kube-scheduler,
	// which admits nothing; kube schedule's default is autoadmin.
	args := []string{"kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fifo", "-a", "none", "--log-level", "warn", "--http-address", "off"}
	if qps > 0 {
		args = append(args, "--qps", fmt.Sprint(qps), "--burst", strconv.Itoa(burst))
	}
	startProcess(t, "spindle", exec.Command(bin, args...))
}

// startProcess starts cmd in a process group of its own, logging to a file,
// and stops the group by PID when the test ends (SIGTERM, SIGKILL after
// 10 s); the kernel kills it if the test binary dies first.
func startProcess(t *testing.T, name string, cmd *exec.Cmd) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-done
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("---- %s log ----\n%s", name, tail(string(b), 40))
		}
	})
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// benchClient is the benchmark's own client, fast enough that creating the
// pods is not what is measured.
func benchClient(t *testing.T, c *kubetest.Cluster) kubernetes.Interface {
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 5000, 10000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// A small run on a live cluster under kube-scheduler, then under spindle
// when this build has it: every pod bound, the numbers sane. (The full
// matrix is behind -kube-bench.)
func TestLiveBenchSmall(t *testing.T) {
	bin := kubetest.RequireBinaries(t)
	spindle := spindleBinary(t)
	for _, name := range []string{"default-scheduler", "spindle"} {
		t.Run(name, func(t *testing.T) {
			c := kubetest.Start(t, kubetest.Options{Kwok: true})
			if name == "spindle" {
				if spindle == "" {
					t.Skip("NOT RUN: this build has no 'spindle kube schedule'")
				}
				startSpindle(t, spindle, c, 0, 0)
			} else {
				startKubeScheduler(t, bin, c, 0, 0)
			}
			res, err := Run(context.Background(), Options{Client: benchClient(t, c), SchedulerName: name, Nodes: 20, Jobs: 2, Pods: 100, Timeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(res)
			if res.Bound != 100 || res.PodsPerSec <= 0 || res.P50 <= 0 || res.P99 < res.P50 {
				t.Errorf("result %+v", res)
			}
		})
	}
}

// TestLiveBenchMatrix is the benchmark BENCHMARKS.md reports:
//
//	go test ./kube/bench -run TestLiveBenchMatrix -kube-bench -kube-bench-out /tmp/bench.md -timeout 60m -v
func TestLiveBenchMatrix(t *testing.T) {
	if !*matrix {
		t.Skip("NOT RUN: the full benchmark takes minutes; run with -kube-bench (see the doc comment)")
	}
	bin := kubetest.RequireBinaries(t)
	spindle := spindleBinary(t)
	type shape struct{ jobs, pods int }
	shapes := []shape{{1, 5000}, {5, 5000}, {25, 5000}}
	limits := []struct {
		name  string
		qps   float32
		burst int
	}{
		{"default (50/100)", 0, 0},
		{"5000/10000", 5000, 10000},
	}
	var rows []string
	for _, schedLabel := range []string{"kube-scheduler", "spindle"} {
		for _, l := range limits {
			for _, s := range shapes {
				name := fmt.Sprintf("%s/%dx%d/%s", schedLabel, s.jobs, s.pods/s.jobs, strings.Fields(l.name)[0])
				t.Run(name, func(t *testing.T) {
					// A fresh control plane per cell, so one cell's objects
					// and watch caches do not weigh on the next.
					c := kubetest.Start(t, kubetest.Options{Kwok: true})
					schedName := "default-scheduler"
					if schedLabel == "spindle" {
						if spindle == "" {
							t.Skip("NOT RUN: this build has no 'spindle kube schedule'")
						}
						startSpindle(t, spindle, c, l.qps, l.burst)
						schedName = "spindle"
					} else {
						startKubeScheduler(t, bin, c, l.qps, l.burst)
					}
					res, err := Run(context.Background(), Options{Client: benchClient(t, c), SchedulerName: schedName,
						Nodes: 1000, Jobs: s.jobs, Pods: s.pods, Timeout: 20 * time.Minute})
					if err != nil {
						t.Fatal(err)
					}
					t.Log(res)
					if res.Bound != s.pods {
						t.Errorf("bound %d of %d", res.Bound, s.pods)
					}
					rows = append(rows, fmt.Sprintf("| %s | %s | %d x %d | %.1f | %.0f | %.0f | %.1f |", schedLabel, l.name, s.jobs, s.pods/s.jobs,
						res.PodsPerSec, float64(res.P50.Milliseconds()), float64(res.P99.Milliseconds()), res.Create.Seconds()))
				})
			}
		}
	}
	header := fmt.Sprintf("\n<!-- %s, %d cpus (%s), %s -->\n| scheduler | client QPS/burst | jobs x pods | pods/s | p50 ms | p99 ms | create s |\n|---|---|---|---|---|---|---|\n",
		time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), cpuModel(), runtime.Version())
	out := header + strings.Join(rows, "\n") + "\n"
	t.Log(out)
	if *matrixOut != "" {
		f, err := os.OpenFile(*matrixOut, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(out); err != nil {
			t.Fatal(err)
		}
	}
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown cpu"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown cpu"
}
