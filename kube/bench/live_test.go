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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/resource"
)

var (
	matrix    = flag.Bool("kube-bench", false, "run the full scheduler benchmark (1000 kwok nodes; 1x5000, 5x1000, 25x200 pods; default and 5000/10000 client QPS)")
	matrixOut = flag.String("kube-bench-out", "", "append the benchmark's results, as Markdown table rows, to this file")
)

// startKubeScheduler runs kube-scheduler against the cluster with the given
// client QPS and burst (0: its defaults, 50 and 100) and stops it by PID
// when the test ends.
func startKubeScheduler(t *testing.T, bin string, c *kubetest.Cluster, qps float32, burst int) *process {
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
	return startProcess(t, "kube-scheduler", exec.Command(filepath.Join(bin, "kube-scheduler"),
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
func startSpindle(t *testing.T, bin string, c *kubetest.Cluster, qps float32, burst int, extra ...string) *process {
	t.Helper()
	// The status server is off: the default port may be taken by another
	// scheduler on the machine, and the benchmark reads nothing from it.
	// -a none: the benchmark measures placement against kube-scheduler,
	// which admits nothing; kube schedule's default is autoadmin.
	args := []string{"kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fifo", "-a", "none", "--log-level", "warn", "--http-address", "off"}
	if qps > 0 {
		args = append(args, "--qps", fmt.Sprint(qps), "--burst", strconv.Itoa(burst))
	}
	args = append(args, extra...)
	return startProcess(t, "spindle", exec.Command(bin, args...))
}

// process is a scheduler the benchmark started: stop ends it (once), pid
// names it for its CPU time.
type process struct {
	stop func()
	pid  int
}

// startProcess starts cmd in a process group of its own, logging to a file,
// and stops the group by PID when the test ends (SIGTERM, SIGKILL after
// 10 s); the kernel kills it if the test binary dies first.
func startProcess(t *testing.T, name string, cmd *exec.Cmd) *process {
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
	var once sync.Once
	stop := func() {
		once.Do(func() {
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
	t.Cleanup(stop)
	return &process{stop: stop, pid: pid}
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
	for _, name := range []string{"default-scheduler", "spindle", BinderName} {
		t.Run(name, func(t *testing.T) {
			c := kubetest.Start(t, kubetest.Options{Kwok: true})
			switch name {
			case "spindle":
				if spindle == "" {
					t.Skip("NOT RUN: this build has no 'spindle kube schedule'")
				}
				startSpindle(t, spindle, c, 0, 0)
			case BinderName:
				startBinder(t, c)
			default:
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

// startBinder runs the round-robin binder (the apiserver's ceiling) in this
// process, on a client of its own with the benchmark's QPS and burst, until
// the returned stop is called or the test ends.
func startBinder(t *testing.T, c *kubetest.Cluster) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Binder{Client: benchClient(t, c)}).Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

var (
	matrixFirst  = flag.Int("kube-bench-first-sitting", 1, "TestLiveBenchMatrix: number the sittings from this one (it also turns the scheduler order)")
	matrixRepeat = flag.Int("kube-bench-repeat", 3, "TestLiveBenchMatrix: sittings, each on a fresh control plane, the schedulers alternating")
	matrixShapes = flag.String("kube-bench-shapes", "1x5000,5x1000,25x200", "TestLiveBenchMatrix: jobs x pods per job")
	matrixScheds = flag.String("kube-bench-schedulers", "kube-scheduler,spindle,round-robin", "TestLiveBenchMatrix: which to measure (also spindle-noforecast: spindle with --forecast-every 0)")
	matrixBase   = flag.String("kube-bench-base", "", "TestLiveBenchMatrix: also measure spindle as built from this git revision, as scheduler spindle-base, to compare two builds in one sitting")
)

// baseBinary builds cmd/spindle as it was at git revision rev, from a
// copy of that revision's tree.
func baseBinary(t *testing.T, rev string) string {
	dir := t.TempDir()
	tarball := filepath.Join(dir, "src.tar")
	src := filepath.Join(dir, "src")
	bin := filepath.Join(dir, "spindle-base")
	// From a subdirectory git archive takes only that subtree: run it at
	// the repository's top.
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("-kube-bench-base: not in a git checkout: %v", err)
	}
	for _, c := range [][]string{
		{"git", "archive", "-o", tarball, rev},
		{"mkdir", src},
		{"tar", "-xf", tarball, "-C", src},
	} {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = strings.TrimSpace(string(top))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("-kube-bench-base %s: %s: %v\n%s", rev, strings.Join(c, " "), err, out)
		}
	}
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/spindle")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("-kube-bench-base %s: build: %v\n%s", rev, err, out)
	}
	return bin
}

// cell is one measurement of the matrix.
type cell struct {
	sched, shape string
	rep          int
	res          *Result
	load         string        // /proc/loadavg's 1-minute figure when the cell started
	cpu          time.Duration // the scheduler process's CPU over the run; < 0 when not known
}

// TestLiveBenchMatrix is the benchmark BENCHMARKS.md reports:
//
//	go test ./kube/bench -run TestLiveBenchMatrix -kube-bench -kube-bench-out /tmp/bench.md -timeout 180m -v
//
// Each of -kube-bench-repeat sittings starts a fresh control plane with
// 1000 kwok nodes (32 vcores, 256 GiB, 110 pods each), then measures every
// shape under every scheduler in turn, the order rotating from one shape
// and sitting to the next so that no scheduler always runs first or last:
// kube-scheduler, spindle (-p fifo) and the round-robin binder (the
// apiserver's ceiling), each with client QPS 5000 and burst 10000. A
// scheduler is started for its cell, warmed up with one pod, measured, and
// stopped. Before each cell, kwok catches up (every bound pod Running), so
// that no cell pays for the previous one's backlog. The cell's pods stay (bound, Running under kwok): deleting 5000
// pods on a loaded apiserver took minutes per cell, and the sitting's
// control plane is thrown away after it; so a later cell starts with up
// to 40,000 bound pods in the cluster, whichever scheduler it measures.
func TestLiveBenchMatrix(t *testing.T) {
	if !*matrix {
		t.Skip("NOT RUN: the full benchmark takes an hour or more; run with -kube-bench (see the doc comment)")
	}
	bin := kubetest.RequireBinaries(t)
	spindle := spindleBinary(t)
	type shape struct{ jobs, pods int }
	var shapes []shape
	for _, f := range strings.Split(*matrixShapes, ",") {
		var j, p int
		if _, err := fmt.Sscanf(f, "%dx%d", &j, &p); err != nil || j <= 0 || p <= 0 {
			t.Fatalf("-kube-bench-shapes: %q is not JOBSxPODS", f)
		}
		shapes = append(shapes, shape{j, j * p})
	}
	scheds := strings.Split(*matrixScheds, ",")
	var base string
	if *matrixBase != "" {
		base = baseBinary(t, *matrixBase)
		scheds = append(scheds, "spindle-base")
	}
	for _, name := range scheds {
		if name == "spindle" && spindle == "" {
			t.Fatal("this build has no 'spindle kube schedule'")
		}
		if name == "spindle-noforecast" && spindle == "" {
			t.Fatal("this build has no 'spindle kube schedule'")
		}
		if !slices.Contains([]string{"spindle", "spindle-noforecast", "spindle-base", "kube-scheduler", "round-robin"}, name) {
			t.Fatalf("-kube-bench-schedulers: unknown %q", name)
		}
	}
	const qps, burst = 5000, 10000
	var cells []cell
	started := time.Now().UTC()
	for rep := *matrixFirst - 1; rep < *matrixFirst-1+*matrixRepeat; rep++ {
		t.Run(fmt.Sprintf("sitting-%d", rep+1), func(t *testing.T) {
			c := kubetest.Start(t, kubetest.Options{Kwok: true})
			client := benchClient(t, c)
			const nodesID = "bench-nodes"
			if err := CreateNodes(context.Background(), client, nodesID, 1000, resource.New(32, 256*1024), 110, 32); err != nil {
				t.Fatal(err)
			}
			for si, sh := range shapes {
				for k := range scheds {
					name := scheds[(k+si+rep)%len(scheds)]
					label := fmt.Sprintf("%dx%d", sh.jobs, sh.pods/sh.jobs)
					var p *process
					schedName := name
					switch name {
					case "kube-scheduler":
						p, schedName = startKubeScheduler(t, bin, c, qps, burst), "default-scheduler"
					case "spindle":
						p = startSpindle(t, spindle, c, qps, burst)
					case "spindle-noforecast":
						p, schedName = startSpindle(t, spindle, c, qps, burst, "--forecast-every", "0"), "spindle"
					case "spindle-base":
						p, schedName = startSpindle(t, base, c, qps, burst), "spindle"
					case "round-robin":
						// In this process: its CPU is not told apart.
						p, schedName = &process{stop: startBinder(t, c)}, BinderName
					}
					// kwok first catches up with the pods earlier cells
					// bound, so that no cell shares the machine with the
					// previous one's backlog. (Before a bound driver
					// counted as started, a driver kwok had not started
					// yet also held its executors under spindle.)
					if err := quiesce(client, 10*time.Minute); err != nil {
						t.Fatal(err)
					}
					// One pod first: the scheduler has synced and binds.
					if _, err := Run(context.Background(), Options{Client: client, SchedulerName: schedName, NodesID: nodesID, Nodes: 1000, KeepPods: true,
						Jobs: 1, Pods: 1, Timeout: 3 * time.Minute, RunID: fmt.Sprintf("w%d%d%d", rep, si, k)}); err != nil {
						t.Fatalf("%s warm-up: %v", name, err)
					}
					load := loadAvg()
					cpu0, cpuOK := processCPU(p.pid)
					res, err := Run(context.Background(), Options{Client: client, SchedulerName: schedName, NodesID: nodesID, Nodes: 1000, KeepPods: true,
						Jobs: sh.jobs, Pods: sh.pods, Timeout: 20 * time.Minute, RunID: fmt.Sprintf("r%d%d%d", rep, si, k)})
					// The scheduler's CPU over the measured run, read
					// before it stops: what it cost the machine the
					// apiserver and kwok share, whatever the load.
					cpu := time.Duration(-1)
					if cpu1, ok := processCPU(p.pid); ok && cpuOK {
						cpu = cpu1 - cpu0
					}
					p.stop()
					if res != nil {
						t.Logf("sitting %d, %s %s (load %s, scheduler CPU %v): %s", rep+1, name, label, load, cpu, res)
						if res.Bound == sh.pods {
							cells = append(cells, cell{name, label, rep + 1, res, load, cpu})
						}
					}
					if err != nil {
						t.Fatalf("%s %s: %v", name, label, err)
					}
				}
			}
		})
	}
	out := matrixReport(cells, scheds, started)
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

// quiesce waits until kwok has started every bound pod: none is Pending
// with a node.
func quiesce(client kubernetes.Interface, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		l, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Pending,spec.nodeName!=", Limit: 1})
		if err == nil && len(l.Items) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kwok did not start the bound pods within %v (last: %v)", timeout, err)
		case <-time.After(2 * time.Second):
		}
	}
}

// matrixReport renders every cell, then min / median / max per shape and
// scheduler with the median as a fraction of the round-robin binder's.
func matrixReport(cells []cell, scheds []string, started time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n<!-- %s to %s, %d cpus (%s), %s -->\n", started.Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339),
		runtime.NumCPU(), cpuModel(), runtime.Version())
	// keeps pace: pods/s over the rate the pods were created at; 1.00 is a
	// scheduler that bound them as fast as they came.
	b.WriteString("| sitting | shape | scheduler | load 1m | pods/s | p50 s | p99 s | create s | keeps pace | scheduler CPU s |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range cells {
		cpu := "–"
		if c.cpu >= 0 {
			cpu = fmt.Sprintf("%.2f", c.cpu.Seconds())
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %.1f | %.2f | %.2f | %.1f | %.2f | %s |\n", c.rep, c.shape, c.sched, c.load,
			c.res.PodsPerSec, c.res.P50.Seconds(), c.res.P99.Seconds(), c.res.Create.Seconds(),
			c.res.PodsPerSec*c.res.Create.Seconds()/float64(c.res.Pods), cpu)
	}
	b.WriteString("\n| shape | scheduler | runs | pods/s min / median / max | p99 s min / median / max | median pods/s ÷ round-robin's | median p99 ÷ kube-scheduler's |\n|---|---|---|---|---|---|---|\n")
	var shapes []string
	for _, c := range cells {
		if !slices.Contains(shapes, c.shape) {
			shapes = append(shapes, c.shape)
		}
	}
	for _, sh := range shapes {
		ceiling, ksP99 := 0.0, 0.0
		if rr := pick(cells, sh, "round-robin"); len(rr) > 0 {
			ceiling = median(rates(rr))
		}
		if ks := pick(cells, sh, "kube-scheduler"); len(ks) > 0 {
			ksP99 = median(p99s(ks))
		}
		for _, name := range scheds {
			cs := pick(cells, sh, name)
			if len(cs) == 0 {
				continue
			}
			r, p := rates(cs), p99s(cs)
			frac, vsKS := "–", "–"
			if ceiling > 0 {
				frac = fmt.Sprintf("%.2f", median(r)/ceiling)
			}
			if ksP99 > 0 {
				vsKS = fmt.Sprintf("%.2f", median(p)/ksP99)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %.1f / %.1f / %.1f | %.2f / %.2f / %.2f | %s | %s |\n", sh, name, len(cs),
				slices.Min(r), median(r), slices.Max(r), slices.Min(p), median(p), slices.Max(p), frac, vsKS)
		}
	}
	return b.String()
}

func pick(cells []cell, shape, sched string) []cell {
	var out []cell
	for _, c := range cells {
		if c.shape == shape && c.sched == sched {
			out = append(out, c)
		}
	}
	return out
}

func rates(cs []cell) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = c.res.PodsPerSec
	}
	return out
}

func p99s(cs []cell) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = c.res.P99.Seconds()
	}
	return out
}

// median of the values (the mean of the middle two for an even count).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// processCPU is the user and system CPU process pid has used so far, from
// /proc/PID/stat (utime and stime, fields 14 and 15, in clock ticks of
// 1/100 s, Linux's USER_HZ); ok is false for pid 0 or where /proc has no
// such file.
func processCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime from a /proc/PID/stat line. The
// command name (field 2) is in parentheses and may hold spaces or ')', so
// the fields are counted from the last ')': field 3 is the first after it.
func parseStatCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	var ticks int64
	for _, s := range f[11:13] { // fields 14 and 15
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, true
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
