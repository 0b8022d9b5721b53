package kubetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

// runScript runs hack/local-cluster.sh with the state in dir and returns its
// combined output and exit code.
func runScript(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("../../../hack/local-cluster.sh", args...)
	cmd.Env = append(os.Environ(), "SPINDLE_CLUSTER_DIR="+dir)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run local-cluster.sh %v: %v", args, err)
	}
	return string(out), code
}

// pidfiles reads the PIDs hack/local-cluster.sh recorded in dir.
func pidfiles(t *testing.T, dir string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pids[strings.TrimSuffix(filepath.Base(f), ".pid")] = pid
	}
	return pids
}

// alive reports whether pid runs: it exists and is not a zombie waiting for
// its adopter to reap it.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// up prints the export line, a second up changes nothing, the cluster has
// the nodes asked for, down stops exactly the recorded PIDs.
func TestLiveLocalClusterScript(t *testing.T) {
	RequireBinaries(t)
	dir := filepath.Join(t.TempDir(), "state")
	var started map[string]int
	t.Cleanup(func() {
		// Whatever happened above, nothing the script started survives.
		runScript(t, dir, "down")
		for name, pid := range started {
			if alive(pid) {
				t.Errorf("%s (pid %d) survived down; killing its group", name, pid)
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	})

	out, code := runScript(t, dir, "up", "--nodes", "2", "--node-cpu", "8", "--node-memory", "16Gi", "--with-scheduler")
	started = pidfiles(t, dir)
	if code != 0 {
		t.Fatalf("up exited %d:\n%s", code, out)
	}
	m := regexp.MustCompile(`(?m)^export KUBECONFIG=(\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("up printed no export KUBECONFIG line:\n%s", out)
	}
	if m[1] != filepath.Join(dir, "kubeconfig") {
		t.Errorf("kubeconfig %s, want it in the state dir %s", m[1], dir)
	}
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"} {
		if _, ok := started[name]; !ok {
			t.Errorf("no pidfile for %s; have %v", name, started)
		}
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cfg.Host, "https://127.0.0.1:") {
		t.Errorf("apiserver at %s, want 127.0.0.1", cfg.Host)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := 0
	for i := range nodes.Items {
		if localcluster.NodeReady(&nodes.Items[i]) {
			ready++
		}
		if cpu := nodes.Items[i].Status.Allocatable.Cpu(); cpu.Value() != 8 {
			t.Errorf("node %s allocatable cpu %s, want 8", nodes.Items[i].Name, cpu)
		}
	}
	if len(nodes.Items) != 2 || ready != 2 {
		t.Errorf("%d nodes, %d Ready; want 2 and 2", len(nodes.Items), ready)
	}

	out2, code := runScript(t, dir, "up", "--nodes", "2")
	if code != 0 || !strings.Contains(out2, "already running") {
		t.Errorf("second up exited %d, want 0 and 'already running':\n%s", code, out2)
	}
	if again := pidfiles(t, dir); len(again) != len(started) {
		t.Errorf("second up changed the pidfiles: %v, was %v", again, started)
	} else {
		for name, pid := range started {
			if again[name] != pid {
				t.Errorf("second up changed %s's pid from %d to %d", name, pid, again[name])
			}
		}
	}
	if out, code := runScript(t, dir, "status"); code != 0 || !strings.Contains(out, "export KUBECONFIG=") {
		t.Errorf("status exited %d:\n%s", code, out)
	}

	out, code = runScript(t, dir, "down")
	if code != 0 {
		t.Errorf("down exited %d:\n%s", code, out)
	}
	for name, pid := range started {
		if !strings.Contains(out, "stopped "+name+" (pid "+strconv.Itoa(pid)+")") {
			t.Errorf("down did not report stopping %s (pid %d):\n%s", name, pid, out)
		}
		if alive(pid) {
			t.Errorf("%s (pid %d) still runs after down", name, pid)
		}
	}
	if _, code := runScript(t, dir, "status"); code != 1 {
		t.Errorf("status after down exited %d, want 1", code)
	}
}

// checkout makes a second checkout of this repository at dir, as far as
// hack/local-cluster.sh can tell: the same files, reached through symbolic
// links, under another path.
func checkout(t *testing.T, dir string) {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	link := func(from, to string) {
		entries, err := os.ReadDir(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() == ".git" || (from == root && e.Name() == "hack") {
				continue
			}
			if err := os.Symlink(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	link(root, dir)
	link(filepath.Join(root, "hack"), filepath.Join(dir, "hack"))
}

// runIn runs the local-cluster.sh of the checkout at dir with the default
// state directory (none given), under stateHome.
func runIn(t *testing.T, dir, stateHome string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "hack", "local-cluster.sh"), args...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SPINDLE_CLUSTER_DIR=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "XDG_STATE_HOME="+stateHome)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s/hack/local-cluster.sh %v: %v", dir, args, err)
	}
	return string(out), code
}

// Two checkouts, each with its default state directory: two clusters. A
// down in one stops its own processes only; the other's apiserver still
// answers and its processes still run.
func TestLiveLocalClusterTwoCheckouts(t *testing.T) {
	RequireBinaries(t)
	tmp := t.TempDir()
	stateHome := filepath.Join(tmp, "state")
	a, b := filepath.Join(tmp, "one", "spindle"), filepath.Join(tmp, "two", "spindle")
	checkout(t, a)
	checkout(t, b)
	started := map[string]map[string]int{}
	kubeconfig := map[string]string{}
	t.Cleanup(func() {
		for _, co := range []string{a, b} {
			runIn(t, co, stateHome, "down")
			for name, pid := range started[co] {
				if alive(pid) {
					t.Errorf("%s (pid %d) survived down; killing its group", name, pid)
					_ = syscall.Kill(-pid, syscall.SIGKILL)
				}
			}
		}
	})
	export := regexp.MustCompile(`(?m)^export KUBECONFIG=(\S+)$`)
	for _, co := range []string{a, b} {
		out, code := runIn(t, co, stateHome, "up", "--nodes", "1")
		m := export.FindStringSubmatch(out)
		if m != nil {
			started[co] = pidfiles(t, filepath.Dir(m[1]))
		}
		if code != 0 || m == nil {
			t.Fatalf("up in %s exited %d:\n%s", co, code, out)
		}
		kubeconfig[co] = m[1]
		if !strings.HasPrefix(m[1], filepath.Join(stateHome, "spindle", "clusters")+"/") {
			t.Errorf("kubeconfig %s is not under the default state home %s", m[1], stateHome)
		}
		if len(started[co]) != 4 {
			t.Errorf("up in %s recorded %v, want etcd, kube-apiserver, kube-controller-manager and kwok", co, started[co])
		}
	}
	if kubeconfig[a] == kubeconfig[b] {
		t.Fatalf("both checkouts use %s", kubeconfig[a])
	}
	for name, pid := range started[a] {
		if started[b][name] == pid {
			t.Fatalf("both clusters have %s as pid %d", name, pid)
		}
	}

	out, code := runIn(t, a, stateHome, "down")
	if code != 0 {
		t.Fatalf("down in %s exited %d:\n%s", a, code, out)
	}
	for name, pid := range started[a] {
		if alive(pid) {
			t.Errorf("%s's %s (pid %d) still runs after its down", a, name, pid)
		}
	}
	for name, pid := range started[b] {
		if !alive(pid) {
			t.Errorf("%s's %s (pid %d) was stopped by the other checkout's down", b, name, pid)
		}
		if strings.Contains(out, "(pid "+strconv.Itoa(pid)+")") {
			t.Errorf("down in %s reports stopping pid %d of the other cluster:\n%s", a, pid, out)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig[b])
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("the other cluster does not answer after the first's down: %v", err)
	}
	if len(nodes.Items) != 1 {
		t.Errorf("the other cluster has %d nodes, want 1", len(nodes.Items))
	}
	if out, code := runIn(t, b, stateHome, "status"); code != 0 || !strings.Contains(out, kubeconfig[b]) {
		t.Errorf("status in %s exited %d:\n%s", b, code, out)
	}
	if out, code := runIn(t, a, stateHome, "status"); code != 1 {
		t.Errorf("status in %s after its down exited %d, want 1:\n%s", a, code, out)
	}
}
